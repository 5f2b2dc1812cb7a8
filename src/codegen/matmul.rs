//! The matmul kernel: a batched `[b, m, k] x [b, k, n]` product; each workgroup covers an
//! output tile and each thread accumulates a block of it in `vec4` registers. Operands are
//! read through their strides, so transposed and broadcast views cost nothing. Three
//! variants of the inner loop ([`Variant`]):
//!
//! - *staged* (GPUs): 16x16 threads with 4x4 blocks; per step of 16 along `k` the
//!   workgroup stages a 64x16 tile of the left operand and a 16x64 tile of the right one in
//!   workgroup memory, and every thread does 16 rank-1 updates of its block from there;
//! - *direct* (CPU adapters): each thread of an 8x8 workgroup computes a block of up to
//!   16x16 straight from the buffers, four steps of `k` at a time: a tile of each operand
//!   per step, read as `vec4`s along whichever axis of the operand is contiguous (along
//!   `k`, or across it; element by element where neither is, or for float16). On
//!   lavapipe every load instruction is a loop over the SIMD lanes, so fewer, wider loads
//!   per multiply-add are what counts: 1024² went from 1.0-1.1 GFLOP/s (4x4 blocks, one
//!   element per load) to 3.6. Workgroup memory lost here: the staged kernel's two
//!   barriers per step cost more than the reuse saves when the "GPU" is the CPU's caches.
//!   Adapters without 8-lane subgroups (llvmpipe through GL) run it;
//! - *subgroup* (CPU adapters with 8-lane subgroups, lavapipe): a workgroup is one
//!   subgroup computing a 16x32 tile (8 or 32 rows by size); the lanes load the left
//!   operand's tile between them and share it with `subgroupBroadcast` (a register
//!   shuffle where a load is one load per lane and a transpose), each lane reading only
//!   its own four columns of the right one. 1024² on lavapipe: 15-16 GFLOP/s against the
//!   direct kernel's 9-14 interleaved in one process (up to 31 on a quiet machine), and
//!   milliseconds to compile where the direct kernel's large blocks took up to seconds;
//!   then 43 with inputs read as storage textures and 48 with each row's four steps of
//!   `k` taken together (2048²: 35 -> 47.5).
//!
//! - *register* (GPUs, where [`DeviceOptions::matmul_register_tiles`] asks for it; products
//!   of at least 128 rows and columns): 16x16 threads with 8x8 blocks on a 128x128 tile;
//!   per step of 8 along `k` the workgroup stages a 128x8 and an 8x128 tile, and every
//!   thread does 8 rank-1 updates of its block: 64 multiply-adds per four `vec4` loads
//!   from workgroup memory, against the staged kernel's 16 per two. A thread's rows are
//!   two runs of four 64 apart (its columns likewise), so neighbouring threads read
//!   neighbouring `vec4`s.
//!
//! [`DeviceOptions::matmul_register_tiles`]: crate::DeviceOptions::matmul_register_tiles
//!
//! Either way each output element adds its products in order of `k`. float16 inputs
//! accumulate in float32; int32 wraps; bool is "any of and" (counted in uint32).

use std::fmt::Write;

use super::{declare, declare_output, storage_types, Generated, Target};
use crate::dtype::DType;
use crate::shape::Layout;

/// Output tile edge.
pub(crate) const TILE: u64 = 64;

/// The longest `k` one dispatch of `variant` covers; longer products are summed from
/// slices of `k`. Mesa's software rasterizers (lavapipe, llvmpipe) end a thread's loops
/// after 65535 iterations in all, silently: the direct and subgroup kernels iterate once
/// per four steps of `k` (2^15 iterations here), the staged kernel about 21 times per 16
/// steps. On GPUs the slices also spread one long product over more workgroups.
pub(crate) fn max_k(variant: Variant) -> u64 {
    match variant {
        // The register kernel iterates about 14 times per 8 steps.
        Variant::Staged | Variant::Register => 1 << 15,
        Variant::Direct | Variant::Subgroup => 1 << 17,
    }
}

/// The inner loop a matmul kernel runs (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Variant {
    /// Tiles staged in workgroup memory (GPUs).
    Staged,
    /// Larger tiles staged in workgroup memory, 8x8 register blocks per thread (GPUs that
    /// ask for it; [`Variant::Staged`] for products under 128 rows or columns).
    Register,
    /// Each thread's block straight from the operands (CPU adapters).
    Direct,
    /// One 8-lane subgroup per workgroup sharing the left operand's values by broadcast
    /// (CPU adapters whose subgroups are 8 lanes wide).
    Subgroup,
}

impl Variant {
    /// Staged tiles on GPUs (or where the options ask for them); elsewhere (CPU adapters,
    /// or options refusing tiles) the subgroup kernel where subgroups are exactly `LANES`
    /// wide and the options do not refuse it, else the direct one.
    pub(crate) fn choose(c: &super::Capabilities) -> Variant {
        let lanes = LANES as u32;
        if c.workgroup_tiles.unwrap_or(!c.cpu) {
            if c.register_tiles == Some(true) {
                Variant::Register
            } else {
                Variant::Staged
            }
        } else if c.subgroups != Some(false) && c.subgroup_sizes == Some((lanes, lanes)) {
            Variant::Subgroup
        } else {
            Variant::Direct
        }
    }

    /// The variant that computes an `m x n` product on a device that chose `self`: the
    /// register kernel's 128x128 tiles would leave most threads of a smaller product idle.
    pub(crate) fn for_product(self, m: u64, n: u64) -> Variant {
        match self {
            Variant::Register if m < REGISTER_TILE || n < REGISTER_TILE => Variant::Staged,
            v => v,
        }
    }
}

/// The register kernel's output tile edge.
const REGISTER_TILE: u64 = 128;

/// The output tile of one workgroup for an `m x n` output: `(rows, columns)`.
pub(crate) fn tile(variant: Variant, m: u64, n: u64) -> (u64, u64) {
    match variant {
        Variant::Staged => (TILE, TILE),
        Variant::Register => (REGISTER_TILE, REGISTER_TILE),
        Variant::Direct => {
            let (r, c) = direct_block(m, n);
            (W * r, W * c)
        }
        Variant::Subgroup => (subgroup_rows(m), 4 * LANES),
    }
}

/// Depth of the tiles staged in workgroup memory.
const TK: u32 = 16;

/// Depth of the register kernel's tiles.
const REGISTER_TK: u32 = 8;

/// Workgroup storage the staged matmul declares: two tiles of `TK * 16` four-lane vectors
/// of at most four bytes a lane (the register kernel's two of `REGISTER_TK * 32` are as
/// large). The device requires this much (`missing_limits`).
pub(crate) const WORKGROUP_STORAGE_BYTES: u32 = 2 * TK * 16 * 16;
const _: () = assert!(2 * REGISTER_TK * 32 * 16 == WORKGROUP_STORAGE_BYTES);

/// The dtype the kernel writes: float32 for both float dtypes (float16 results are
/// rounded by a conversion afterwards), otherwise the input dtype.
pub(crate) fn accumulator(d: DType) -> DType {
    match d {
        DType::Float16 => DType::Float32,
        d => d,
    }
}

/// How the direct kernel reads its tile of an operand per four steps of `k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Read {
    /// Four `vec4`s along the operand's contiguous `k` axis (one per row of the block, or
    /// per column for the right operand).
    AlongK,
    /// Four `vec4`s along the operand's other axis (`m` for the left operand, `n` for the
    /// right), one per step of `k`.
    Across,
    /// Element by element.
    Elements,
}

/// How the direct kernel reads an operand laid out as `[b, rows, cols]` whose `k` axis is
/// `k_axis` (2 for the left operand, 1 for the right) and other axis has `len` elements:
/// `vec4`s need 4-byte elements, a stride of 1 along the axis read, and element offsets
/// that stay multiples of four (so every `vec4` is aligned); reading across also needs a
/// whole number of `vec4`s along the axis.
fn read_mode(l: &Layout, k_axis: usize, len: u64, dtype: DType, t: &Target) -> Read {
    let ((_, bytes), _) = storage_types(dtype, t);
    if bytes != 4 || dtype == DType::Float16 || !l.offset.is_multiple_of(4) {
        return Read::Elements;
    }
    let other = 3 - k_axis;
    let aligned = |d: usize| l.strides[d].rem_euclid(4) == 0;
    if l.strides[k_axis] == 1 && aligned(0) && aligned(other) {
        Read::AlongK
    } else if l.strides[other] == 1 && len.is_multiple_of(4) && aligned(0) && aligned(k_axis) {
        Read::Across
    } else {
        Read::Elements
    }
}

/// The kernel for operands of `dtype` laid out as `[b, m, k]` (`a`) and `[b, k, n]` (`b`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn matmul(
    dtype: DType,
    a: &Layout,
    a_windows: u64,
    b: &Layout,
    b_windows: u64,
    out_windows: u64,
    dims: (u64, u64, u64, u64),
    variant: Variant,
    t: &Target,
) -> Generated {
    let staged = matches!(variant, Variant::Staged | Variant::Register);
    let (batch, m, n, k) = dims;
    let acc = accumulator(dtype);
    let (ct, zero) = match acc {
        DType::Int32 => ("i32", "0"),
        DType::UInt32 | DType::Bool => ("u32", "0u"),
        _ => ("f32", "0.0"),
    };
    let (read_a, read_b) = if staged {
        (Read::Elements, Read::Elements)
    } else {
        (read_mode(a, 2, m, dtype, t), read_mode(b, 1, n, dtype, t))
    };
    let mut src = String::new();
    src.push_str("@group(0) @binding(0) var<storage, read> md: array<u32>;\n");
    let mut binding = 1u32;
    for (name, read, windows) in [("ina", read_a, a_windows), ("inb", read_b, b_windows)] {
        let t = &super::input_target(t, windows);
        let ((sty, sbytes), (vty, _)) = storage_types(dtype, t);
        let (ty, bytes) = if read == Read::Elements {
            (sty, sbytes)
        } else {
            (vty, 16)
        };
        declare(&mut src, &mut binding, name, ty, bytes, windows, false, t);
    }
    declare_output(&mut src, &mut binding, "out", acc, false, out_windows, t);
    for (name, base, read, windows) in
        [("ina", 5, read_a, a_windows), ("inb", 9, read_b, b_windows)]
    {
        let t = &super::input_target(t, windows);
        let load = match dtype {
            DType::Float16 if t.f16_native => format!("f32({name}(e))"),
            DType::Float16 => {
                format!("f16_to_f32(({name}(e >> 1u) >> ((e & 1u) * 16u)) & 0xffffu)")
            }
            _ if read != Read::Elements => format!("{name}(e >> 2u)[e & 3u]"),
            _ => format!("{name}(e)"),
        };
        let _ = writeln!(
            src,
            "fn raw_{name}(e: u32) -> {ct} {{\n    return {load};\n}}"
        );
        // Element (p, r, c) of a 3-D operand: offset + p*s0 + r*s1 + c*s2 (strides signed).
        let _ = writeln!(
            src,
            "fn ld_{name}(p: u32, r: u32, c: u32) -> {ct} {{\n    let e = u32(bitcast<i32>(md[{base}u]) + i32(p) * bitcast<i32>(md[{}u]) + i32(r) * bitcast<i32>(md[{}u]) + i32(c) * bitcast<i32>(md[{}u]));\n    return {load};\n}}",
            base + 1,
            base + 2,
            base + 3
        );
    }
    let store = if dtype == DType::Bool {
        "select(0u, 1u, acc[i][j] != 0u)".to_string()
    } else {
        "acc[i][j]".to_string()
    };
    let _ = write!(
        src,
        "{}",
        if variant == Variant::Register {
            register(ct, zero, &store)
        } else if staged {
            format!(
                r#"var<workgroup> As: array<vec4<{ct}>, {asz}>;
var<workgroup> Bs: array<vec4<{ct}>, {asz}>;
{prologue}    var acc: array<vec4<{ct}>, 4>;
    for (var i = 0u; i < 4u; i = i + 1u) {{ acc[i] = vec4<{ct}>({zero}); }}
    for (var k0 = 0u; k0 < K; k0 = k0 + {TK}u) {{
{stage}        workgroupBarrier();
        for (var kk = 0u; kk < {TK}u; kk = kk + 1u) {{
            let av = As[kk * 16u + lid.y];
            let bv = Bs[kk * 16u + lid.x];
            acc[0] = acc[0] + av.x * bv;
            acc[1] = acc[1] + av.y * bv;
            acc[2] = acc[2] + av.z * bv;
            acc[3] = acc[3] + av.w * bv;
        }}
        workgroupBarrier();
    }}
    for (var i = 0u; i < 4u; i = i + 1u) {{
        let r = row0 + lid.y * 4u + i;
        if (r < M) {{
            for (var j = 0u; j < 4u; j = j + 1u) {{
                let c = col0 + lid.x * 4u + j;
                if (c < N) {{
                    out_st((p * M + r) * N + c, {store});
                }}
            }}
        }}
    }}
}}
"#,
                asz = TK * 16,
                prologue = tile_prologue(TILE),
                stage = stage_tiles(TILE, TK.into(), ct, zero),
            )
        } else if variant == Variant::Subgroup {
            subgroup(ct, zero, &store, read_a, read_b, subgroup_rows(m))
        } else {
            direct(ct, zero, &store, read_a, read_b, direct_block(m, n))
        }
    );
    let (tile_m, tile_n) = tile(variant, m, n);
    let tiles_m = m.div_ceil(tile_m);
    let tiles_n = n.div_ceil(tile_n);
    let mut meta = vec![m as u32, n as u32, k as u32, tiles_m as u32, tiles_n as u32];
    for l in [a, b] {
        meta.push(l.offset as u32);
        meta.extend(l.strides.iter().map(|&s| s as i32 as u32));
    }
    meta.push(batch as u32);
    Generated {
        body: src,
        uses_f16: t.f16_native && dtype == DType::Float16,
        meta,
    }
}

/// The entry point of the kernels that stage tiles in workgroup memory, up to the corner
/// (`row0`, `col0`) of the `edge`-sided output tile of batch entry `p` that this
/// workgroup computes.
fn tile_prologue(edge: u64) -> String {
    format!(
        r#"@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) li: u32) {{
    let M = md[0];
    let N = md[1];
    let K = md[2];
    let tiles_m = md[3];
    let tiles_n = md[4];
    let g = wg.y * nwg.x + wg.x;
    // A 2-D grid rounds the workgroups up to whole rows: the extra ones store nothing.
    if (g >= md[13u] * tiles_m * tiles_n) {{ return; }}
    let tn = g % tiles_n;
    let tm = (g / tiles_n) % tiles_m;
    let p = g / (tiles_n * tiles_m);
    let row0 = tm * {edge}u;
    let col0 = tn * {edge}u;
"#
    )
}

/// One step's staging of an `edge x depth` tile of the left operand and a `depth x edge`
/// tile of the right one (1024 elements each, four per thread) in workgroup memory, as
/// `As[kk * edge/4 + r/4][r % 4]` and `Bs[kk * edge/4 + c/4][c % 4]`; zero outside the
/// operands.
fn stage_tiles(edge: u64, depth: u64, ct: &str, zero: &str) -> String {
    debug_assert_eq!(edge * depth, 1024);
    let vectors = edge / 4;
    format!(
        r#"        for (var q = 0u; q < 4u; q = q + 1u) {{
            let e = li + q * 256u;
            let r = e / {depth}u;
            let kk = e % {depth}u;
            var va: {ct} = {zero};
            if (row0 + r < M && k0 + kk < K) {{ va = ld_ina(p, row0 + r, k0 + kk); }}
            As[kk * {vectors}u + r / 4u][r % 4u] = va;
            let kb = e / {edge}u;
            let c = e % {edge}u;
            var vb: {ct} = {zero};
            if (k0 + kb < K && col0 + c < N) {{ vb = ld_inb(p, k0 + kb, col0 + c); }}
            Bs[kb * {vectors}u + c / 4u][c % 4u] = vb;
        }}
"#
    )
}

/// The register kernel's body (see the module docs). Thread `(x, y)` owns rows
/// `y*4 .. y*4+4` and `64 + y*4 ..` of the tile and the columns likewise by `x`:
/// `acc[2 * i + h]` holds row `i` of those eight, columns `h * 64 + x * 4 ..+4`.
fn register(ct: &str, zero: &str, store: &str) -> String {
    let tk = REGISTER_TK;
    let mut updates = String::new();
    for (i, a) in [
        "a0.x", "a0.y", "a0.z", "a0.w", "a1.x", "a1.y", "a1.z", "a1.w",
    ]
    .iter()
    .enumerate()
    {
        for (h, b) in ["b0", "b1"].iter().enumerate() {
            let _ = writeln!(
                updates,
                "            acc[{r}] = acc[{r}] + {a} * {b};",
                r = 2 * i + h
            );
        }
    }
    let store = store.replace("acc[i][j]", "acc[i * 2u + h][j]");
    format!(
        r#"var<workgroup> As: array<vec4<{ct}>, {asz}>;
var<workgroup> Bs: array<vec4<{ct}>, {asz}>;
{prologue}    var acc: array<vec4<{ct}>, 16>;
    for (var i = 0u; i < 16u; i = i + 1u) {{ acc[i] = vec4<{ct}>({zero}); }}
    for (var k0 = 0u; k0 < K; k0 = k0 + {tk}u) {{
{stage}        workgroupBarrier();
        for (var kk = 0u; kk < {tk}u; kk = kk + 1u) {{
            let a0 = As[kk * 32u + lid.y];
            let a1 = As[kk * 32u + 16u + lid.y];
            let b0 = Bs[kk * 32u + lid.x];
            let b1 = Bs[kk * 32u + 16u + lid.x];
{updates}        }}
        workgroupBarrier();
    }}
    for (var i = 0u; i < 8u; i = i + 1u) {{
        let r = row0 + (i / 4u) * 64u + lid.y * 4u + i % 4u;
        if (r < M) {{
            for (var h = 0u; h < 2u; h = h + 1u) {{
                for (var j = 0u; j < 4u; j = j + 1u) {{
                    let c = col0 + h * 64u + lid.x * 4u + j;
                    if (c < N) {{
                        out_st((p * M + r) * N + c, {store});
                    }}
                }}
            }}
        }}
    }}
}}
"#,
        asz = tk * 32,
        prologue = tile_prologue(REGISTER_TILE),
        stage = stage_tiles(REGISTER_TILE, tk.into(), ct, zero),
    )
}

/// The direct kernel's workgroup edge: 8x8 threads.
const W: u64 = 8;

/// Rows and columns of the block each thread of the direct kernel computes for an
/// `m x n` output: 16x16 (a 128x128 tile per 8x8 workgroup) from 256 on, 8x8 from 64, 4x4
/// below, since threads past the edge compute values nobody stores. Measured on lavapipe
/// at 1024² (GFLOP/s, and the one-off shader compile): 8x8 blocks 2.2 (0.03 s), 16x16
/// 3.6 (0.1-2 s), 32x32 5.5-7.3 but 0.5-18 s to compile depending on the operands'
/// layouts, 64x32 91 s: loads per multiply-add fall as the block grows, until the
/// compiler drowns in registers.
pub(crate) fn direct_block(m: u64, n: u64) -> (u64, u64) {
    let edge = |len: u64| match len {
        256.. => 16,
        64.. => 8,
        _ => 4,
    };
    (edge(m), edge(n))
}

/// The direct kernel's body (see the module docs): each thread computes an `R x C` block
/// of the output, `C/4` `vec4` registers per row. Per four steps of `k` it reads an
/// `R x 4` tile of the left operand and a `4 x C` tile of the right one (as `vec4`s along
/// `k`, along the other axis, or element by element), then a tail of single steps.
fn direct(
    ct: &str,
    zero: &str,
    store: &str,
    read_a: Read,
    read_b: Read,
    (rn, cn): (u64, u64),
) -> String {
    let cq = cn / 4;
    let mut pre = String::new();
    let mut body = String::new();
    // Element offsets at k = 0: per row (column), or per group of four rows (columns)
    // read across. Rows (columns) past the edge read row (column) 0, or the last whole
    // vec4, and are not stored.
    if read_a == Read::Across {
        for q in 0..rn / 4 {
            pre += &format!(
                "    let ea{q} = abase + i32(min(r0 + {}u, M - 4u));\n",
                4 * q
            );
        }
    } else {
        for i in 0..rn {
            pre += &format!(
                "    let ea{i} = abase + i32(select(0u, r0 + {i}u, r0 + {i}u < M)) * sam;\n"
            );
        }
    }
    if read_b == Read::Across {
        for q in 0..cq {
            pre += &format!(
                "    let eb{q} = bbase + i32(min(c0 + {}u, N - 4u));\n",
                4 * q
            );
        }
    } else {
        for j in 0..cn {
            pre += &format!(
                "    let eb{j} = bbase + i32(select(0u, c0 + {j}u, c0 + {j}u < N)) * sbn;\n"
            );
        }
    }
    // `a{kk}_{i}`: row i of the left tile at k + kk; `b{kk}_{q}`: columns 4q..4q+4 of the
    // right tile at k + kk.
    match read_a {
        Read::AlongK => {
            for i in 0..rn {
                body += &format!("        let ra{i} = ina(u32(ea{i} >> 2) + kq);\n");
                for kk in 0..4 {
                    body += &format!("        let a{kk}_{i} = ra{i}[{kk}];\n");
                }
            }
        }
        Read::Across => {
            for kk in 0..4 {
                for q in 0..rn / 4 {
                    body += &format!(
                        "        let av{kk}_{q} = ina(u32(ea{q} + i32(k + {kk}u) * sak) >> 2u);\n"
                    );
                    for l in 0..4 {
                        body += &format!("        let a{kk}_{} = av{kk}_{q}[{l}];\n", 4 * q + l);
                    }
                }
            }
        }
        Read::Elements => {
            for kk in 0..4 {
                for i in 0..rn {
                    body += &format!(
                        "        let a{kk}_{i} = raw_ina(u32(ea{i} + i32(k + {kk}u) * sak));\n"
                    );
                }
            }
        }
    }
    match read_b {
        Read::AlongK => {
            for j in 0..cn {
                body += &format!("        let rb{j} = inb(u32(eb{j} >> 2) + kq);\n");
            }
            for kk in 0..4 {
                for q in 0..cq {
                    let e: Vec<String> = (0..4).map(|l| format!("rb{}[{kk}]", 4 * q + l)).collect();
                    body += &format!("        let b{kk}_{q} = vec4<{ct}>({});\n", e.join(", "));
                }
            }
        }
        Read::Across => {
            for kk in 0..4 {
                for q in 0..cq {
                    body += &format!(
                        "        let b{kk}_{q} = inb(u32(eb{q} + i32(k + {kk}u) * sbk) >> 2u);\n"
                    );
                }
            }
        }
        Read::Elements => {
            for kk in 0..4 {
                for q in 0..cq {
                    let e: Vec<String> = (0..4)
                        .map(|l| format!("raw_inb(u32(eb{} + i32(k + {kk}u) * sbk))", 4 * q + l))
                        .collect();
                    body += &format!("        let b{kk}_{q} = vec4<{ct}>({});\n", e.join(", "));
                }
            }
        }
    }
    let mut accs = String::new();
    let mut tail = String::new();
    let mut stores = String::new();
    // The tail's element offsets of rows and columns (read across: inside the group).
    let row = |i: u64| {
        if read_a == Read::Across {
            format!("ea{} + {}", i / 4, i % 4)
        } else {
            format!("ea{i}")
        }
    };
    let col = |j: u64| {
        if read_b == Read::Across {
            format!("eb{} + {}", j / 4, j % 4)
        } else {
            format!("eb{j}")
        }
    };
    for q in 0..cq {
        let e: Vec<String> = (0..4)
            .map(|l| format!("raw_inb(u32({} + i32(k) * sbk))", col(4 * q + l)))
            .collect();
        tail += &format!("        let b_{q} = vec4<{ct}>({});\n", e.join(", "));
    }
    for i in 0..rn {
        tail += &format!(
            "        let a_{i} = raw_ina(u32({} + i32(k) * sak));\n",
            row(i)
        );
        for q in 0..cq {
            accs += &format!("    var acc{i}_{q} = vec4<{ct}>({zero});\n");
            tail += &format!("        acc{i}_{q} = acc{i}_{q} + a_{i} * b_{q};\n");
            for l in 0..4 {
                let v = store.replace("acc[i][j]", &format!("acc{i}_{q}[{l}]"));
                let j = 4 * q + l;
                stores += &format!("    if (r0 + {i}u < M && c0 + {j}u < N) {{ out_st((p * M + r0 + {i}u) * N + c0 + {j}u, {v}); }}\n");
            }
        }
    }
    for kk in 0..4 {
        for i in 0..rn {
            for q in 0..cq {
                body += &format!("        acc{i}_{q} = acc{i}_{q} + a{kk}_{i} * b{kk}_{q};\n");
            }
        }
    }
    cpu_main(
        &format!("@compute @workgroup_size({W}, {W})\nfn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {{"),
        &format!(
            "    let r0 = tm * {}u + lid.y * {rn}u;\n    let c0 = tn * {}u + lid.x * {cn}u;\n",
            W * rn,
            W * cn
        ),
        [&pre, &accs, &body, &tail, &stores],
    )
}

/// Lanes of the subgroup kernel's workgroup (one subgroup).
pub(crate) const LANES: u64 = 8;

/// Rows of the subgroup kernel's output tile for `m` rows: 16 (two rows per lane loaded
/// and shared), 8 for short outputs, 32 for tall ones. Measured on lavapipe at 1024²
/// (GFLOP/s, against 10-13 for the direct kernel's 16x16 blocks): 16x32 tiles 28-33,
/// 8x32 24-26, 32x32 18-25, 16x64 19-24, 16x128 11; every variant compiles in 4-70 ms.
/// Each lane keeps `rows` `vec4` accumulators, which spill past 16; but every row tile
/// streams the whole right operand, and at 2048² (16 MB of it) 32 rows won five of six
/// interleaved rounds (19-27 GFLOP/s against 15-28) while 1024² was even.
pub(crate) fn subgroup_rows(m: u64) -> u64 {
    match m {
        0..=8 => 8,
        9..=2047 => 16,
        _ => 32,
    }
}

/// The subgroup kernel's body (CPU adapters with 8-lane subgroups; see the module docs).
/// A workgroup is one subgroup and computes a `rows x 32` output tile: lane `l` owns
/// columns `4l..4l+4` of it and accumulates them for every row. Per four steps of `k`
/// the lanes read the left operand's `rows x 4` tile between them (`rows / 8` loads
/// each, as `vec4`s along `k`, across rows, or element by element) and pass it round with
/// `subgroupBroadcast`, and each lane reads its own `4 x 4` tile of the right operand. On
/// lavapipe every load is one load per SIMD lane and a transpose while a broadcast is a
/// register shuffle, so sharing the left operand halves the loads per multiply-add of the
/// direct kernel with a quarter of its accumulators. Past `k`'s last multiple of four, single
/// steps; rows and columns past the edge read the last row or column and are not
/// stored.
fn subgroup(ct: &str, zero: &str, store: &str, read_a: Read, read_b: Read, rows: u64) -> String {
    let groups = rows / LANES;
    // Read across, each load holds four rows at one step of `k`: `quads` lanes cover the
    // rows of a step, so one load covers `8 / quads` steps.
    let quads = rows / 4;
    let steps = LANES / quads;
    let mut pre = String::new();
    let mut body = String::new();
    let mut tail = String::new();
    let mut accs = String::new();
    let mut stores = String::new();
    // Element offsets at k = 0 of the rows this lane reads (`ea{g}`: row 8g + l) and of
    // its four columns (`eb{j}`); the tail reads through these in every mode.
    for g in 0..groups {
        pre += &format!(
            "    let ea{g} = abase + i32(min(m0 + {}u + l, M - 1u)) * sam;\n",
            LANES * g
        );
    }
    for j in 0..4 {
        pre += &format!("    let eb{j} = bbase + i32(min(c0 + {j}u, N - 1u)) * sbn;\n");
    }
    if read_a == Read::Across {
        pre += &format!("    let eaq = abase + i32(min(m0 + 4u * (l % {quads}u), M - 4u));\n");
    }
    if read_b == Read::Across {
        pre += "    let ebq = bbase + i32(min(c0, N - 4u));\n";
    }
    // `a(kk, i)`: row i of the left tile at k + kk, from the broadcasts.
    let a = |kk: u64, i: u64| -> String {
        if read_a == Read::Across {
            format!("q{kk}_{}[{}]", i / 4, i % 4)
        } else {
            format!("r{i}[{kk}]")
        }
    };
    match read_a {
        Read::AlongK => {
            for g in 0..groups {
                body += &format!("        let va{g} = ina(u32(ea{g} >> 2) + kq);\n");
            }
        }
        Read::Across => {
            for g in 0..groups {
                body += &format!(
                    "        let va{g} = ina(u32(eaq + i32(k + {}u + l / {quads}u) * sak) >> 2u);\n",
                    g * steps
                );
            }
        }
        Read::Elements => {
            for g in 0..groups {
                let e: Vec<String> = (0..4)
                    .map(|kk| format!("raw_ina(u32(ea{g} + i32(k + {kk}u) * sak))"))
                    .collect();
                body += &format!("        let va{g} = vec4<{ct}>({});\n", e.join(", "));
            }
        }
    }
    if read_a == Read::Across {
        for kk in 0..4 {
            for q in 0..quads {
                body += &format!(
                    "        let q{kk}_{q} = subgroupBroadcast(va{}, {}u);\n",
                    kk / steps,
                    (kk % steps) * quads + q
                );
            }
        }
    } else {
        for i in 0..rows {
            body += &format!(
                "        let r{i} = subgroupBroadcast(va{}, {}u);\n",
                i / LANES,
                i % LANES
            );
        }
    }
    match read_b {
        Read::AlongK => {
            for j in 0..4 {
                body += &format!("        let rb{j} = inb(u32(eb{j} >> 2) + kq);\n");
            }
            for kk in 0..4 {
                body += &format!(
                    "        let b{kk} = vec4<{ct}>(rb0[{kk}], rb1[{kk}], rb2[{kk}], rb3[{kk}]);\n"
                );
            }
        }
        Read::Across => {
            for kk in 0..4 {
                body +=
                    &format!("        let b{kk} = inb(u32(ebq + i32(k + {kk}u) * sbk) >> 2u);\n");
            }
        }
        Read::Elements => {
            for kk in 0..4 {
                let e: Vec<String> = (0..4)
                    .map(|j| format!("raw_inb(u32(eb{j} + i32(k + {kk}u) * sbk))"))
                    .collect();
                body += &format!("        let b{kk} = vec4<{ct}>({});\n", e.join(", "));
            }
        }
    }
    // Row by row, so each accumulator takes its four steps while in registers (lavapipe
    // spills most of the tile's accumulators; the order within an element is unchanged).
    for i in 0..rows {
        for kk in 0..4 {
            body += &format!("        acc{i} = acc{i} + {} * b{kk};\n", a(kk, i));
        }
    }
    for g in 0..groups {
        tail += &format!("        let ta{g} = raw_ina(u32(ea{g} + i32(k) * sak));\n");
    }
    let e: Vec<String> = (0..4)
        .map(|j| format!("raw_inb(u32(eb{j} + i32(k) * sbk))"))
        .collect();
    tail += &format!("        let tb = vec4<{ct}>({});\n", e.join(", "));
    for i in 0..rows {
        accs += &format!("    var acc{i} = vec4<{ct}>({zero});\n");
        tail += &format!(
            "        acc{i} = acc{i} + subgroupBroadcast(ta{}, {}u) * tb;\n",
            i / LANES,
            i % LANES
        );
        for j in 0..4 {
            let v = store.replace("acc[i][j]", &format!("acc{i}[{j}]"));
            stores += &format!("    if (m0 + {i}u < M && c0 + {j}u < N) {{ out_st((p * M + m0 + {i}u) * N + c0 + {j}u, {v}); }}\n");
        }
    }
    cpu_main(
        &format!("@compute @workgroup_size({LANES})\nfn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(subgroup_invocation_id) l: u32) {{"),
        &format!(
            "    let m0 = tm * {rows}u;\n    let c0 = tn * {}u + 4u * l;\n",
            4 * LANES
        ),
        [&pre, &accs, &body, &tail, &stores],
    )
}

/// The main function both CPU kernels share: `head` (attributes and signature), the
/// workgroup's tile and batch entry from its index, `origin` (the thread's first row and
/// column), the operands' bases and strides, then `pre` and `accs` (offsets and
/// accumulators), the loop over four steps of `k` running `body`, the single steps
/// running `tail`, and `stores`.
fn cpu_main(head: &str, origin: &str, [pre, accs, body, tail, stores]: [&str; 5]) -> String {
    format!(
        r#"{head}
    let M = md[0];
    let N = md[1];
    let K = md[2];
    let tiles_m = md[3];
    let tiles_n = md[4];
    let g = wg.y * nwg.x + wg.x;
    // A 2-D grid rounds the workgroups up to whole rows: the extra ones store nothing.
    if (g >= md[13u] * tiles_m * tiles_n) {{ return; }}
    let tn = g % tiles_n;
    let tm = (g / tiles_n) % tiles_m;
    let p = g / (tiles_n * tiles_m);
{origin}    let abase = bitcast<i32>(md[5u]) + i32(p) * bitcast<i32>(md[6u]);
    let sam = bitcast<i32>(md[7u]);
    let sak = bitcast<i32>(md[8u]);
    let bbase = bitcast<i32>(md[9u]) + i32(p) * bitcast<i32>(md[10u]);
    let sbk = bitcast<i32>(md[11u]);
    let sbn = bitcast<i32>(md[12u]);
{pre}{accs}    let K4 = K / 4u;
    for (var kq = 0u; kq < K4; kq = kq + 1u) {{
        let k = kq * 4u;
{body}    }}
    for (var k = K4 * 4u; k < K; k = k + 1u) {{
{tail}    }}
{stores}}}
"#
    )
}
