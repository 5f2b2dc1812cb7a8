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

/// How a scan kernel reads and writes its elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Variant {
    /// Each thread loads and stores its own chunk: on CPU adapters a thread's 16
    /// elements are one run of its SIMD lane's cache lines, and workgroup barriers cost
    /// more than they save (lavapipe).
    Direct,
    /// A workgroup of [`STAGED_THREADS`] loads the elements of all its chunks (one
    /// contiguous range of the buffer) side by side into workgroup memory, each thread
    /// scans its chunk there, and the workgroup stores the results side by side: on GPUs
    /// neighbouring threads then touch neighbouring words (each thread's own chunk puts
    /// its neighbours 64 bytes apart, so a warp's load spans 32 lines instead of 4).
    /// The association, and so every bit, is the direct kernel's.
    Staged,
}

impl Variant {
    /// The staged kernel on GPUs, the direct one on CPU adapters.
    pub(crate) fn choose(c: &super::Capabilities) -> Variant {
        if c.cpu {
            Variant::Direct
        } else {
            Variant::Staged
        }
    }

    /// Threads per workgroup.
    pub(crate) fn workgroup(self) -> u64 {
        match self {
            Variant::Direct => super::WORKGROUP,
            Variant::Staged => STAGED_THREADS,
        }
    }
}

/// Threads of a staged workgroup: its 2048 elements, with a padding word after every 16
/// (so the 16-word chunks of neighbouring threads start in different memory banks rather
/// than 16 words apart, two banks for a whole warp), take 8.5 KiB of workgroup memory,
/// under the 9280 bytes a device is asked for (`codegen::WORKGROUP_STORAGE_BYTES`).
pub(crate) const STAGED_THREADS: u64 = 128;

/// Words of a staged scan's tile: its elements and their padding.
const TILE_WORDS: u64 = STAGED_THREADS * (CHUNK + 1);

/// Workgroup memory of a staged scan kernel.
pub(crate) const WORKGROUP_STORAGE_BYTES: u32 = (TILE_WORDS * 4) as u32;

/// Which pass of a scan a kernel runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
/// as `out_windows`, in the `variant`'s form.
#[allow(clippy::too_many_arguments)]
pub(crate) fn kernel(
    op: CumulativeOp,
    dtype: DType,
    phase: Phase,
    reverse: bool,
    (rows, n): (u64, u64),
    in_windows: u64,
    out_windows: u64,
    variant: Variant,
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
    let staged = variant == Variant::Staged;
    // Element `e` of the row-major input, and the store of the result `v` of element `e`:
    // the buffers themselves, or the workgroup's tile of the range `start..`. The output,
    // and the input unless it is a texture, are bound from element `md[4]` on (a span of
    // them, see `meta`).
    let input = |e: &str| {
        if in_windows == super::TEXTURE {
            format!("x({e})")
        } else {
            format!("x({e} - md[4])")
        }
    };
    let load = |e: &str| {
        if staged {
            format!("tile[pad({e} - start)]")
        } else {
            input(e)
        }
    };
    let put = |e: &str, v: &str| {
        if staged {
            format!("tile[pad({e} - start)] = {v};")
        } else {
            format!("y_st({e} - md[4], {v});")
        }
    };
    let has_prefix = matches!(phase, Phase::Chunks { prefix_windows } if prefix_windows > 0);
    let pre = if has_prefix {
        format!("var pre = {ty}({identity});\n    if ({near}) {{ pre = prefix({other}); }}")
    } else {
        String::new()
    };
    let store = if has_prefix {
        format!(
            "if ({near}) {{ {} }} else {{ {} }}",
            put("row * n + i", &round(format!("acc {sign} pre"))),
            put("row * n + i", "acc")
        )
    } else {
        put("row * n + i", "acc")
    };
    // The chunk's combination in order from `first` (to `last`, or to each `i`). (A
    // reversed chunk stored in place in the tile is safe: element `i` reads only elements
    // from `i` on, and is stored after the last read of it.)
    let body = match (phase, reverse) {
        (Phase::Totals, _) => format!(
            "var acc = {ty}({identity});
    for (var i = first; i < last; i++) {{
        let v = {};
        acc = {combine};
    }}
    totals_st(t, acc);",
            load("row * n + i")
        ),
        (Phase::Chunks { .. }, false) => format!(
            "{pre}
    var acc = {ty}({identity});
    for (var i = first; i < last; i++) {{
        let v = {};
        acc = {combine};
        {store}
    }}",
            load("row * n + i")
        ),
        (Phase::Chunks { .. }, true) => format!(
            "{pre}
    for (var i = first; i < last; i++) {{
        var acc = {ty}({identity});
        for (var j = i; j < last; j++) {{
            let v = {};
            acc = {combine};
        }}
        {store}
    }}",
            load("row * n + j")
        ),
    };
    if staged {
        // The workgroup's chunks are one contiguous range of the buffer (chunks tile each
        // row, rows follow each other), loaded and stored side by side.
        let w = STAGED_THREADS;
        let store_tile = if matches!(phase, Phase::Chunks { .. }) {
            format!(
                "    workgroupBarrier();
    for (var s = 0u; s < {CHUNK}u; s++) {{
        let j = s * {w}u + li;
        if (j < len) {{ y_st(start + j - md[4], tile[pad(j)]); }}
    }}
"
            )
        } else {
            String::new()
        };
        let _ = write!(
            src,
            r#"var<workgroup> tile: array<{ty}, {tile}>;
fn pad(k: u32) -> u32 {{
    return k + (k >> 4u);
}}
@compute @workgroup_size({w})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {{
    let tw = md[3] + (wg.y * nwg.x + wg.x) * {w}u;
    if (tw >= md[0]) {{ return; }}
    let n = md[1];
    let chunks = md[2];
    let tl = min(tw + {last}u, md[0] - 1u);
    let start = tw / chunks * n + tw % chunks * {CHUNK}u;
    let len = tl / chunks * n + min(tl % chunks * {CHUNK}u + {CHUNK}u, n) - start;
    for (var s = 0u; s < {CHUNK}u; s++) {{
        let j = s * {w}u + li;
        if (j < len) {{ tile[pad(j)] = {}; }}
    }}
    workgroupBarrier();
    let t = tw + li;
    if (t < md[0]) {{
    let row = t / chunks;
    let c = t - row * chunks;
    let first = c * {CHUNK}u;
    let last = min(first + {CHUNK}u, n);
    {body}
    }}
{store_tile}}}
"#,
            input("start + j"),
            tile = TILE_WORDS,
            last = w - 1,
        );
    } else {
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
    }
    let chunks = n.div_ceil(CHUNK).max(1);
    Generated {
        body: src,
        uses_f16: false,
        meta: meta(rows * chunks, n, chunks, 0, 0),
    }
}

/// A scan kernel's metadata: the threads `t0..end` of a dispatch (one chunk each, of
/// rows of `n` elements in `chunks` chunks), and the element its input and output
/// bindings start at (`base`; a texture input is read whole). A scan runs in spans of
/// threads whose elements fit one binding, each bound from its first element on: a load
/// or store that picked one of several windows would pick it with a `switch`, whose every
/// arm lavapipe runs under a mask, and a long row would need more bindings than a kernel
/// has.
pub(crate) fn meta(end: u64, n: u64, chunks: u64, t0: u64, base: u64) -> Vec<u32> {
    vec![end as u32, n as u32, chunks as u32, t0 as u32, base as u32]
}
