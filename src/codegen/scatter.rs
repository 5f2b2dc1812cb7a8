//! The scatter kernel behind `x.at[...]` updates: for every update `t`, combine
//! `values[t]` into `out[positions[t]]`. Combining updates (add, multiply, min, max) are
//! atomic read-modify-write loops on the 32-bit word holding the element, so duplicate
//! positions accumulate; a float16 element shares its word with a neighbour, so even its
//! plain stores go through the loop. Positions outside the array are dropped (JAX's
//! behaviour for scatters it cannot check).

use super::{rules::compute_type, Generated};
use crate::dtype::DType;

/// How an update combines with the element it lands on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScatterMode {
    /// Replace (the last of duplicate positions is unspecified, as in JAX).
    Set,
    /// Add (logical or for bool).
    Add,
    /// Multiply (logical and for bool).
    Mul,
    /// Minimum (NaN propagates).
    Min,
    /// Maximum (NaN propagates).
    Max,
}

impl ScatterMode {
    /// Every mode.
    pub const ALL: [ScatterMode; 5] = [
        ScatterMode::Set,
        ScatterMode::Add,
        ScatterMode::Mul,
        ScatterMode::Min,
        ScatterMode::Max,
    ];
}

/// `old op v` in compute type.
fn combine(mode: ScatterMode, d: DType, old: &str, v: &str) -> String {
    use ScatterMode::*;
    let float = d.is_floating();
    match (mode, d) {
        (Set, _) => v.to_string(),
        (Add, DType::Bool) | (Max, DType::Bool) => format!("({old} || {v})"),
        (Mul, DType::Bool) | (Min, DType::Bool) => format!("({old} && {v})"),
        (Add, _) => format!("({old} + {v})"),
        (Mul, _) => format!("({old} * {v})"),
        (Min, _) if float => format!("nan_min_f32({old}, {v})"),
        (Max, _) if float => format!("nan_max_f32({old}, {v})"),
        (Min, _) => format!("min({old}, {v})"),
        (Max, _) => format!("max({old}, {v})"),
    }
}

/// The kernel for elements of `dtype` (storage words of the output bound as atomics).
pub(crate) fn scatter(
    mode: ScatterMode,
    dtype: DType,
    count: u64,
    len: u64,
    pos_offset: u64,
    val_offset: u64,
) -> Generated {
    let ct = compute_type(dtype);
    // Values arrive as words: float16 packed two per word, bool as 0/1.
    let (val_decl, load) = match dtype {
        DType::Float16 => (
            "array<u32>",
            "f16_to_f32((vals[e >> 1u] >> ((e & 1u) * 16u)) & 0xffffu)".to_string(),
        ),
        DType::Bool => ("array<u32>", "(vals[e] != 0u)".to_string()),
        DType::Float32 => ("array<f32>", "vals[e]".to_string()),
        DType::Int32 => ("array<i32>", "vals[e]".to_string()),
        DType::UInt32 => ("array<u32>", "vals[e]".to_string()),
    };
    // Decode the element from its word, and encode it back into the word.
    let (decode, encode) = match dtype {
        DType::Float16 => (
            "f16_to_f32((w >> sh) & 0xffffu)",
            "(w & ~(0xffffu << sh)) | (f32_to_f16(x) << sh)",
        ),
        DType::Bool => ("(w != 0u)", "select(0u, 1u, x)"),
        DType::Float32 => ("bitcast<f32>(w)", "bitcast<u32>(x)"),
        DType::Int32 => ("bitcast<i32>(w)", "bitcast<u32>(x)"),
        DType::UInt32 => ("w", "x"),
    };
    let word = if dtype == DType::Float16 {
        "p >> 1u"
    } else {
        "p"
    };
    let shift = if dtype == DType::Float16 {
        "(p & 1u) * 16u"
    } else {
        "0u"
    };
    let update = if mode == ScatterMode::Set && dtype != DType::Float16 {
        format!("    let x = v;\n    atomicStore(&out[{word}], {encode});\n")
    } else {
        format!(
            "    let sh = {shift};\n    var w = atomicLoad(&out[{word}]);\n    loop {{\n        let x = {};\n        let r = atomicCompareExchangeWeak(&out[{word}], w, {encode});\n        if (r.exchanged) {{ break; }}\n        w = r.old_value;\n    }}\n",
            combine(mode, dtype, decode, "v")
        )
    };
    let body = format!(
        r#"@group(0) @binding(0) var<storage, read> md: array<u32>;
@group(0) @binding(1) var<storage, read> pos: array<i32>;
@group(0) @binding(2) var<storage, read> vals: {val_decl};
@group(0) @binding(3) var<storage, read_write> out: array<atomic<u32>>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {{
    let t = (wg.y * nwg.x + wg.x) * 256u + li;
    if (t >= md[0]) {{ return; }}
    let q = pos[t + md[2]];
    if (q < 0 || u32(q) >= md[1]) {{ return; }}
    let p = u32(q);
    let e = t + md[3];
    let v: {ct} = {load};
{update}}}
"#
    );
    Generated {
        body,
        uses_f16: false,
        meta: vec![
            count as u32,
            len as u32,
            pos_offset as u32,
            val_offset as u32,
        ],
    }
}
