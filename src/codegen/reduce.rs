//! Reduction kernels from the same generator: each workgroup reduces one chunk of one
//! output row. Every thread first combines a contiguous run of `PER_THREAD` elements (DESIGN:
//! 3x faster than a grid-stride loop on lavapipe), then the workgroup combines its 256
//! values as a tree in workgroup memory. Rows longer than one chunk leave partials that the
//! next pass reduces the same way, so float32 sums accumulate as a tree and their error
//! grows like log n. float16 accumulates in float32.

use std::fmt::Write;

use super::{declare, storage_types, Generated, Target, WORKGROUP};
use crate::dtype::DType;
use crate::lax::ReduceOp;
use crate::shape::Layout;

/// Elements each thread combines sequentially.
pub(crate) const PER_THREAD: u64 = 16;
/// Elements one workgroup reduces.
pub(crate) const CHUNK: u64 = WORKGROUP * PER_THREAD;

/// The accumulator dtype of a reduction over `input` (float16 accumulates in float32;
/// and/or accumulate 0/1 words, which are bool's storage).
pub(crate) fn accumulator(op: ReduceOp, input: DType) -> DType {
    match (op, input) {
        (ReduceOp::And | ReduceOp::Or, _) => DType::Bool,
        (_, DType::Float16) => DType::Float32,
        (_, d) => d,
    }
}

fn acc_type(d: DType) -> &'static str {
    match d {
        DType::Int32 => "i32",
        DType::UInt32 | DType::Bool => "u32",
        _ => "f32",
    }
}

fn identity(op: ReduceOp, acc: DType) -> &'static str {
    use ReduceOp::*;
    match (op, acc) {
        (Sum, DType::Int32) => "0",
        (Sum, DType::UInt32) => "0u",
        (Sum, _) => "0.0",
        (Prod, DType::Int32) => "1",
        (Prod, DType::UInt32) => "1u",
        (Prod, _) => "1.0",
        (Max, DType::Int32) => "(-2147483647 - 1)",
        (Max, DType::UInt32) => "0u",
        (Max, _) => "bitcast<f32>(0xff800000u)",
        (Min, DType::Int32) => "2147483647",
        (Min, DType::UInt32) => "4294967295u",
        (Min, _) => "bitcast<f32>(0x7f800000u)",
        (And, _) => "1u",
        (Or, _) => "0u",
    }
}

fn combine(op: ReduceOp, acc: DType, a: &str, b: &str) -> String {
    use ReduceOp::*;
    let float = acc.is_floating();
    match op {
        Sum => format!("({a} + {b})"),
        Prod => format!("({a} * {b})"),
        Max if float => format!("nan_max_f32({a}, {b})"),
        Min if float => format!("nan_min_f32({a}, {b})"),
        Max | Or => format!("max({a}, {b})"),
        Min | And => format!("min({a}, {b})"),
    }
}

#[allow(clippy::too_many_arguments)]
/// One pass: reduces each of `rows` rows of `k` elements of `input` (read through its
/// layout, whose last dimensions are the reduced ones) to `parts` partial values per row.
pub(crate) fn reduction(
    op: ReduceOp,
    in_dtype: DType,
    layout: &Layout,
    windows: u64,
    rows: u64,
    k: u64,
    parts: u64,
    out_windows: u64,
    t: &Target,
) -> Generated {
    let acc = accumulator(op, in_dtype);
    let at = acc_type(acc);
    let contiguous = layout.is_contiguous();
    let mut src = String::new();
    src.push_str("@group(0) @binding(0) var<storage, read> md: array<u32>;\nconst B: u32 = 4u;\n");
    let mut binding = 1u32;
    let ((sty, sbytes), _) = storage_types(in_dtype, t);
    declare(
        &mut src,
        &mut binding,
        "in0",
        sty,
        sbytes,
        windows,
        false,
        t,
    );
    let packed = Target {
        f16_native: false,
        window_bytes: t.window_bytes,
    };
    let ((oty, obytes), _) = storage_types(acc, &packed);
    declare(
        &mut src,
        &mut binding,
        "out",
        oty,
        obytes,
        out_windows,
        true,
        t,
    );
    if contiguous {
        let _ = writeln!(src, "fn off0(i: u32) -> u32 {{\n    return i + md[3];\n}}");
    } else {
        let _ = writeln!(src, "fn off0(i: u32) -> u32 {{\n    let rank = md[B];\n    let s = B + 1u + rank;\n    var o = bitcast<i32>(md[s]);\n    var rem = i;\n    for (var d = rank; d > 0u; d = d - 1u) {{\n        let sz = md[B + d];\n        o = o + i32(rem % sz) * bitcast<i32>(md[s + d]);\n        rem = rem / sz;\n    }}\n    return u32(o);\n}}");
    }
    let load = match in_dtype {
        DType::Bool => "in0(e)".to_string(),
        DType::Float16 if t.f16_native => "f32(in0(e))".to_string(),
        DType::Float16 => "f16_to_f32((in0(e >> 1u) >> ((e & 1u) * 16u)) & 0xffffu)".to_string(),
        _ => "in0(e)".to_string(),
    };
    let _ = writeln!(
        src,
        "fn ld(i: u32) -> {at} {{\n    let e = off0(i);\n    return {load};\n}}"
    );
    let id = identity(op, acc);
    let _ = writeln!(src, "var<workgroup> sh: array<{at}, {WORKGROUP}>;");
    let _ = writeln!(
        src,
        "@compute @workgroup_size({WORKGROUP})\nfn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {{\n    let g = wg.y * nwg.x + wg.x;\n    let rows = md[0];\n    let k = md[1];\n    let parts = md[2];\n    let row = g / parts;\n    let part = g - row * parts;\n    if (row >= rows) {{ return; }}\n    let start = part * {CHUNK}u + li * {PER_THREAD}u;\n    var acc: {at} = {id};\n    for (var j = 0u; j < {PER_THREAD}u; j = j + 1u) {{\n        let kk = start + j;\n        if (kk < k) {{\n            acc = {};\n        }}\n    }}\n    sh[li] = acc;\n    workgroupBarrier();\n    for (var s = {}u; s > 0u; s = s >> 1u) {{\n        if (li < s) {{\n            sh[li] = {};\n        }}\n        workgroupBarrier();\n    }}\n    if (li == 0u) {{\n        out_st(g, sh[0]);\n    }}\n}}",
        combine(op, acc, "acc", "ld(row * k + kk)"),
        WORKGROUP / 2,
        combine(op, acc, "sh[li]", "sh[li + s]"),
    );
    // rows, k and parts are sizes of one buffer's worth of elements: they fit u32.
    let mut meta = vec![rows as u32, k as u32, parts as u32, layout.offset as u32];
    meta.push(layout.shape.len() as u32);
    meta.extend(layout.shape.iter().map(|&d| d as u32));
    meta.push(layout.offset as u32);
    meta.extend(layout.strides.iter().map(|&s| s as i32 as u32));
    let uses_f16 = t.f16_native && in_dtype == DType::Float16;
    Generated {
        body: src,
        uses_f16,
        meta,
    }
}
