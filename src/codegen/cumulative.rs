//! The cumulative kernels: running sums and products along the last axis of a contiguous
//! `[rows, n]` operand. Each thread owns a chunk of [`CHUNK`] consecutive elements of a
//! row. The `Totals` phase writes each chunk's combination; the totals (n / CHUNK per row)
//! are scanned in turn, and the `Chunks` phase scans every chunk from the identity and
//! combines each element with the scanned total of the chunks before it. A scan thus
//! reads its input twice and writes it once, plus the scan of a 1/CHUNK-sized problem,
//! whatever `n`.
//!
//! This is the association XLA's CPU backend uses (its `ReduceWindowRewriter` turns JAX's
//! cumulative reductions into scans of 16-element rows, the rows' totals scanned the same
//! way, each row then offset by the total before it, or after it when reversed), so float
//! results are JAX's bit for bit; float16 and bfloat16 round after every operation, as
//! XLA's narrow-float arithmetic does.

use super::{declare, Generated, Target};
use crate::dtype::DType;
use crate::primitive::CumulativeOp;
use std::fmt::Write;

/// Elements per thread: XLA's base length, so that the rounding matches JAX's.
pub(crate) const CHUNK: u64 = 16;

/// Which pass of a scan a kernel runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Each chunk's combination, to `[rows, chunks]`.
    Totals,
    /// Each chunk rescanned from its prefix: the scanned totals, bound after the input
    /// as `prefix_windows` windows (0 when every row is a single chunk).
    Chunks { prefix_windows: u64 },
}

/// The WGSL type a scan of `dtype` computes in (float16 and bfloat16 in float32, rounded
/// after every operation; bool is scanned as int32 by the caller).
fn wgsl_type(dtype: DType) -> &'static str {
    match dtype {
        DType::Int32 => "i32",
        DType::UInt32 => "u32",
        _ => "f32",
    }
}

/// One scan kernel over `rows` rows of length `n` (`reverse`: from the end of each row)
/// for `dtype` (float32, int32 or uint32; float16 and bfloat16 values held as float32),
/// with the input bound as `in_windows` windows and the output (the totals, or the scan)
/// as `out_windows`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn kernel(
    op: CumulativeOp,
    dtype: DType,
    phase: Phase,
    reverse: bool,
    (rows, n): (u64, u64),
    in_windows: u64,
    out_windows: u64,
    t: &Target,
) -> Generated {
    debug_assert_eq!(dtype.words(), 1, "scans take one-word elements");
    let ty = wgsl_type(dtype);
    let (identity, sign) = match op {
        CumulativeOp::Prod => ("1", "*"),
        CumulativeOp::Sum => ("0", "+"),
    };
    let round = |e: String| match dtype {
        DType::Float16 => format!("round_f16({e})"),
        DType::BFloat16 => format!("round_bf16({e})"),
        _ => e,
    };
    let combine = round(format!("acc {sign} v"));
    let mut src = String::new();
    let _ = writeln!(
        src,
        "@group(0) @binding(0) var<storage, read> md: array<u32>;"
    );
    let mut binding = 1u32;
    declare(&mut src, &mut binding, "x", ty, 4, in_windows, false, t);
    match phase {
        Phase::Totals => declare(
            &mut src,
            &mut binding,
            "totals",
            ty,
            4,
            out_windows,
            true,
            t,
        ),
        Phase::Chunks { prefix_windows } => {
            if prefix_windows > 0 {
                declare(
                    &mut src,
                    &mut binding,
                    "prefix",
                    ty,
                    4,
                    prefix_windows,
                    false,
                    t,
                );
            }
            declare(&mut src, &mut binding, "y", ty, 4, out_windows, true, t);
        }
    }
    // Chunks start at the row's start either way. Forward, element `i` combines its chunk
    // up to `i` in order and then the chunks before; reversed, its chunk from `i` to the
    // chunk's end (in order: XLA computes each short reversed scan as a window over the
    // elements after it, not as a running sum from the end) and then the chunks after.
    let (near, other) = if reverse {
        ("c + 1u < chunks", "t + 1u")
    } else {
        ("c > 0u", "t - 1u")
    };
    let has_prefix = matches!(phase, Phase::Chunks { prefix_windows } if prefix_windows > 0);
    let pre = if has_prefix {
        format!("var pre = {ty}({identity});\n    if ({near}) {{ pre = prefix({other}); }}")
    } else {
        String::new()
    };
    // The output is bound from element `md[4]` on (a span of it, see `meta`).
    let store = if has_prefix {
        format!(
            "if ({near}) {{ y_st(row * n + i - md[4], {}); }} else {{ y_st(row * n + i - md[4], acc); }}",
            round(format!("acc {sign} pre"))
        )
    } else {
        "y_st(row * n + i - md[4], acc);".to_string()
    };
    // The chunk's combination in order from `first` (to `last`, or to each `i`).
    let body = match (phase, reverse) {
        (Phase::Totals, _) => format!(
            "var acc = {ty}({identity});
    for (var i = first; i < last; i++) {{
        let v = x(row * n + i);
        acc = {combine};
    }}
    totals_st(t, acc);"
        ),
        (Phase::Chunks { .. }, false) => format!(
            "{pre}
    var acc = {ty}({identity});
    for (var i = first; i < last; i++) {{
        let v = x(row * n + i);
        acc = {combine};
        {store}
    }}"
        ),
        (Phase::Chunks { .. }, true) => format!(
            "{pre}
    for (var i = first; i < last; i++) {{
        var acc = {ty}({identity});
        for (var j = i; j < last; j++) {{
            let v = x(row * n + j);
            acc = {combine};
        }}
        {store}
    }}"
        ),
    };
    let _ = write!(
        src,
        r#"@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {{
    let t = md[3] + (wg.y * nwg.x + wg.x) * 256u + li;
    if (t >= md[0]) {{ return; }}
    let n = md[1];
    let chunks = md[2];
    let row = t / chunks;
    let c = t - row * chunks;
    let first = c * {CHUNK}u;
    let last = min(first + {CHUNK}u, n);
    {body}
}}
"#
    );
    let chunks = n.div_ceil(CHUNK).max(1);
    Generated {
        body: src,
        uses_f16: false,
        meta: meta(rows * chunks, n, chunks, 0, 0),
    }
}

/// A scan kernel's metadata: the threads `t0..end` of a dispatch (one chunk each, of
/// rows of `n` elements in `chunks` chunks), and the element its output binding starts
/// at (`base`; 0 for the totals). A scan whose output is larger than one binding runs in
/// spans of threads whose elements fit one binding, each bound from its first element on:
/// a store that picked one of several windows would pick it with a `switch`, whose every
/// arm lavapipe runs under a mask.
pub(crate) fn meta(end: u64, n: u64, chunks: u64, t0: u64, base: u64) -> Vec<u32> {
    vec![end as u32, n as u32, chunks as u32, t0 as u32, base as u32]
}
