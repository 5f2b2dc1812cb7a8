//! The scatter kernel behind `x.at[...]` updates: for every update `t`, combine
//! `values[t]` into `out[positions[t]]`. Combining updates (add, multiply, min, max) are
//! atomic read-modify-write loops on the 32-bit word holding the element, so duplicate
//! positions accumulate; an 8- or 16-bit element shares its word with neighbours, so even
//! its plain stores go through the loop (and its combined value is wrapped or rounded to
//! its dtype at every update, as XLA computes it). Positions outside the array are dropped (JAX's
//! behaviour for scatters it cannot check).

use super::{declare, rules::compute_type, window_function, Generated, Target};
use crate::dtype::DType;
use std::fmt::Write;

pub(crate) use crate::primitive::ScatterMode;

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

/// Declares the output's words as `windows` windows of atomics, with `out_load(u)`,
/// `out_store(u, w)` and `out_cas(u, old, new)` (which gives `(old value, exchanged)`):
/// WGSL cannot pass a pointer to a storage atomic, so each helper switches on the window.
fn declare_atomic_out(src: &mut String, binding: u32, windows: u64, t: &Target, add: bool) {
    let per = t.window_bytes / 4;
    for w in 0..windows {
        let _ = writeln!(
            src,
            "@group(0) @binding({}) var<storage, read_write> out_{w}: array<atomic<u32>>;",
            binding + w as u32
        );
    }
    let helper = |src: &mut String, sig: &str, op: &str| {
        window_function(src, sig, windows, per, |w| {
            op.replace("{w}", &w.to_string())
        });
    };
    helper(
        src,
        "out_load(u: u32) -> u32",
        "return atomicLoad(&out_{w}[r]);",
    );
    helper(
        src,
        "out_store(u: u32, v: u32)",
        "atomicStore(&out_{w}[r], v);",
    );
    if add {
        helper(src, "out_add(u: u32, v: u32)", "atomicAdd(&out_{w}[r], v);");
    }
    helper(
        src,
        "out_cas(u: u32, expected: u32, desired: u32) -> vec2<u32>",
        "let x = atomicCompareExchangeWeak(&out_{w}[r], expected, desired); return vec2<u32>(x.old_value, u32(x.exchanged));",
    );
}

/// The kernel for elements of `dtype` (storage words of the output bound as atomics), with
/// the positions, values and output bound as `windows` windows each (`[pos, vals, out]`).
/// The output binding holds elements `first..first + len` of the array: positions outside
/// them are dropped, so an array too large for one kernel's bindings is updated range by
/// range. With `private` (from [`private_words`]) the sums gather in workgroup memory first.
/// With `uniform`, every update has the value at `val_offset` (a broadcast scalar: counts).
#[allow(clippy::too_many_arguments)]
pub(crate) fn scatter(
    mode: ScatterMode,
    dtype: DType,
    count: u64,
    (first, len): (u64, u64),
    pos_offset: u64,
    (val_offset, uniform): (u64, bool),
    windows: [u64; 3],
    private: Option<u64>,
    t: &Target,
) -> Generated {
    debug_assert_eq!(dtype.words(), 1, "scatter takes one-word elements");
    let value_at = if uniform { "md[3]" } else { "t + md[3]" };
    let ct = compute_type(dtype);
    // Values arrive as words: 8- and 16-bit dtypes packed, bool as 0/1.
    let per = dtype.per_word();
    let (bits, mask) = (32 / per, (1u64 << (32 / per)) - 1);
    let (val_ty, load) = match dtype {
        DType::Bool => ("u32", "(vals(e) != 0u)".to_string()),
        DType::Float32 => ("f32", "vals(e)".to_string()),
        DType::Int32 => ("i32", "vals(e)".to_string()),
        DType::UInt32 => ("u32", "vals(e)".to_string()),
        d => ("u32", super::load_packed(d, "vals", "e")),
    };
    // Decode the element from its word, and encode it back into the word.
    let (decode, encode) = match dtype {
        DType::Bool => ("(w != 0u)".to_string(), "select(0u, 1u, x)".to_string()),
        DType::Float32 => ("bitcast<f32>(w)".to_string(), "bitcast<u32>(x)".to_string()),
        DType::Int32 => ("bitcast<i32>(w)".to_string(), "bitcast<u32>(x)".to_string()),
        DType::UInt32 => ("w".to_string(), "x".to_string()),
        d => (
            super::decode(d, &format!("((w >> sh) & {mask:#x}u)")),
            format!(
                "(w & ~({mask:#x}u << sh)) | ({} << sh)",
                super::encode(d, "x")
            ),
        ),
    };
    let (word, shift) = if per > 1 {
        (
            format!("p >> {}u", per.trailing_zeros()),
            format!("(p & {}u) * {bits}u", per - 1),
        )
    } else {
        ("p".to_string(), "0u".to_string())
    };
    // Integer sums wrap, so a native atomic add gives the same words as the loop without
    // retrying under contention (bincount and histogram counts pile onto few bins).
    let native_add = mode == ScatterMode::Add && dtype.is_integer() && per == 1;
    let update = if mode == ScatterMode::Set && per == 1 {
        format!("    let x = v;\n    out_store({word}, {encode});\n")
    } else if native_add {
        "    out_add(p, bitcast<u32>(v));\n".to_string()
    } else {
        format!(
            "    let sh = {shift};\n    var w = out_load({word});\n    loop {{\n        let x = {};\n        let r = out_cas({word}, w, {encode});\n        if (r.y != 0u) {{ break; }}\n        w = r.x;\n    }}\n",
            combine(mode, dtype, &decode, "v")
        )
    };
    let mut decls = String::new();
    let mut binding = 1;
    declare(
        &mut decls,
        &mut binding,
        "pos",
        "i32",
        4,
        windows[0],
        false,
        t,
    );
    declare(
        &mut decls,
        &mut binding,
        "vals",
        val_ty,
        4,
        windows[1],
        false,
        t,
    );
    declare_atomic_out(
        &mut decls,
        binding,
        windows[2],
        t,
        native_add || private.is_some(),
    );
    let body = match private {
        Some(words) => private_add(dtype, &decls, &load, value_at, words),
        None => format!(
            r#"@group(0) @binding(0) var<storage, read> md: array<u32>;
{decls}@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {{
    let t = (wg.y * nwg.x + wg.x) * 256u + li;
    if (t >= md[0]) {{ return; }}
    let q = pos(t + md[2]);
    if (q < 0 || u32(q) < md[4] || u32(q) - md[4] >= md[1]) {{ return; }}
    let p = u32(q) - md[4];
    let e = {value_at};
    let v: {ct} = {load};
{update}}}
"#
        ),
    };
    Generated {
        body,
        uses_f16: false,
        meta: vec![
            count as u32,
            len as u32,
            pos_offset as u32,
            val_offset as u32,
            first as u32,
        ],
    }
}

/// Updates each workgroup of the privatized sum kernel combines: 32 per thread, so a
/// workgroup's flush of at most [`PRIVATE_WORDS`] words costs a fraction of its updates.
pub(crate) const PRIVATE_UPDATES: u64 = 32 * super::WORKGROUP;

/// The largest output (in words) summed in workgroup memory: 8 KiB, under the 9280 bytes
/// of workgroup storage every device Olympus runs on has.
const PRIVATE_WORDS: u64 = 2048;

/// The words of workgroup memory a sum of `count` updates into `len` elements gathers in,
/// or `None` to update the array directly. Sums into a small array (bincount, histogram
/// counts) pile onto few words, and global atomics on one word serialize, across the
/// cores of a CPU adapter as across a GPU's; so where the array fits in workgroup memory
/// and gets at least one update per word, each workgroup sums its run of updates in
/// workgroup atomics and adds the nonzero words to the array once. 32-bit integers and
/// float32 only: narrow elements share words with their neighbours.
pub(crate) fn private_words(mode: ScatterMode, dtype: DType, len: u64, count: u64) -> Option<u64> {
    let eligible = matches!(dtype, DType::Int32 | DType::UInt32 | DType::Float32);
    (mode == ScatterMode::Add && eligible && len <= PRIVATE_WORDS && count >= len)
        // A power of two, so few sizes share a kernel.
        .then(|| len.next_power_of_two().max(64))
}

/// The body of the privatized sum (see [`private_words`]): workgroup `g` sums updates
/// `g * PRIVATE_UPDATES..` into `acc`, then adds each nonzero sum to the output (an
/// integer add, or a float compare-exchange loop). Float sums thus add in another order
/// than the direct kernel's, which is no more defined: atomics order updates by arrival.
fn private_add(dtype: DType, decls: &str, load: &str, value_at: &str, words: u64) -> String {
    let ct = compute_type(dtype);
    let (local, flush) = if dtype == DType::Float32 {
        (
            "var w = atomicLoad(&acc[p]);\n                loop {\n                    let r = atomicCompareExchangeWeak(&acc[p], w, bitcast<u32>(bitcast<f32>(w) + v));\n                    if (r.exchanged) { break; }\n                    w = r.old_value;\n                }",
            "var w = out_load(i);\n            loop {\n                let r = out_cas(i, w, bitcast<u32>(bitcast<f32>(w) + bitcast<f32>(c)));\n                if (r.y != 0u) { break; }\n                w = r.x;\n            }",
        )
    } else {
        ("atomicAdd(&acc[p], bitcast<u32>(v));", "out_add(i, c);")
    };
    // The sums start from the identity: 0, or for floats -0.0 (x + -0.0 is x for every
    // x, +0.0 included), and a word still holding it adds nothing to the array.
    let zero = if dtype == DType::Float32 {
        "0x80000000u"
    } else {
        "0u"
    };
    let per_thread = PRIVATE_UPDATES / super::WORKGROUP;
    format!(
        r#"@group(0) @binding(0) var<storage, read> md: array<u32>;
{decls}var<workgroup> acc: array<atomic<u32>, {words}>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {{
    for (var i = li; i < {words}u; i += 256u) {{ atomicStore(&acc[i], {zero}); }}
    workgroupBarrier();
    let base = (wg.y * nwg.x + wg.x) * {PRIVATE_UPDATES}u;
    for (var k = 0u; k < {per_thread}u; k++) {{
        let t = base + k * 256u + li;
        if (t < md[0]) {{
            let q = pos(t + md[2]);
            if (q >= 0 && u32(q) >= md[4] && u32(q) - md[4] < md[1]) {{
                let p = u32(q) - md[4];
                let e = {value_at};
                let v: {ct} = {load};
                {local}
            }}
        }}
    }}
    workgroupBarrier();
    for (var i = li; i < md[1]; i += 256u) {{
        let c = atomicLoad(&acc[i]);
        if (c != {zero}) {{
            {flush}
        }}
    }}
}}
"#
    )
}
