//! The one kernel generator: a small elementwise program (one eager node, or a fused
//! cluster later) in, WGSL out.
//!
//! Every thread computes four consecutive output elements and stores them with one vector
//! store. Inputs are read one of two ways: *vector* loads (`vec4`) for contiguous inputs of
//! the output's shape, measured about 3.5x faster than scalar loads on lavapipe, or
//! *strided* loads (broadcasts, transposes, any view) that compute each element's offset
//! from the shape and strides in the metadata, reading views in place without a copy.
//! Buffers larger than one storage binding are bound as several windows; grids past the
//! workgroup limit are two-dimensional. Everything that varies between calls of the same
//! structure (sizes, strides, offsets, scalar parameters) lives in the metadata buffer, so
//! the source, and with it the pipeline cache key, depends only on the structure.

pub(crate) mod cumulative;
pub(crate) mod maps;
pub(crate) mod matmul;
pub(crate) mod reduce;
pub(crate) mod rules;
pub(crate) mod scatter;
pub(crate) mod sort;

use std::fmt::Write;

use crate::dtype::DType;
use crate::error::Result;
use crate::primitive::Primitive;
use crate::shape::Layout;
pub(crate) use maps::InputMap;
pub(crate) use rules::Walk;
use rules::{compute_type, decode, encode, Ctx};

/// Texels per row of a staging texture (a row is 64 KiB): kernels index staged inputs by
/// it, and the runtime copies buffers into textures of this width.
pub(crate) const TEXTURE_WIDTH: u64 = 4096;

/// Threads per workgroup.
pub(crate) const WORKGROUP: u64 = 256;
/// Output elements per `vec4`.
pub(crate) const PER_THREAD: u64 = 4;
/// `vec4`s per elementwise thread on CPU adapters. lavapipe runs a workgroup's threads as
/// SIMD batches, and a thread's vectors cost less than more threads: `a + b` on 16M
/// float32 (inputs in textures) took 13-16% less time with four than with one, interleaved
/// in one process (30.6-33 ms against 35-37); reading them strided by the workgroup
/// instead (as GPUs like) gained half that. With the vectors written out (see
/// `elementwise`), four beat two on every kernel timed (`a + b`, `exp`, `sin`, `log`,
/// `tanh`, `power`, `logaddexp`, the five-op chain), and eight on `a + b` (12.9 against
/// 14.2 ms) and the chain (28.9 against 30.6), within 5% of eight on the rest.
pub(crate) const CPU_VECTORS: u64 = 4;
/// Elementwise kernels over at least this many elements write a thread's vectors out
/// one after another (see `elementwise`); smaller ones loop over them. Written out, four
/// vectors make a kernel about four times longer, and LLVM takes 3-4x as long to compile
/// it (on lavapipe, `tanh` 162 -> 688 ms, `random.normal` 596 -> 2532 ms), a cost only
/// large outputs repay. (One vector per thread for small outputs compiled faster for
/// simple kernels but about 3x slower for `random.gamma`'s, and the test suite's core
/// binary went from 201 to 445 s on a cold Mesa cache.)
pub(crate) const CPU_VECTORS_FROM: u64 = 1 << 22;

/// Whether an elementwise kernel of `program` over `n` output elements writes a thread's
/// vectors out ([`Target::written_out`]): on CPU adapters, for outputs of
/// [`CPU_VECTORS_FROM`] elements or more, unless the program reads an operand through an
/// indexed map (`concatenate`, `pad`, `gather`, `search_sorted`). Each such read is an
/// offset loop per lane, and written out, LLVM's loop analysis grows with their number
/// until a many-operand `concatenate` takes minutes to compile; rolled, it compiles as
/// quickly as any kernel.
pub(crate) fn written_out(program: &Program, n: u64, t: &Target) -> bool {
    t.vectors > 1
        && n >= CPU_VECTORS_FROM
        && !program
            .nodes
            .iter()
            .any(|node| rules::elementwise(&node.prim) == Some(rules::Elementwise::Indexed))
}

/// Workgroup memory the kernels declare at most (the staged matmul's two tiles, the radix
/// sort's digit counts): a device offering less cannot run them (`missing_limits`).
pub(crate) const WORKGROUP_STORAGE_BYTES: u32 = {
    let families = [
        matmul::WORKGROUP_STORAGE_BYTES,
        sort::WORKGROUP_STORAGE_BYTES,
        cumulative::WORKGROUP_STORAGE_BYTES,
    ];
    let mut most = 0;
    let mut i = 0;
    while i < families.len() {
        if families[i] > most {
            most = families[i];
        }
        i += 1;
    }
    most
};

/// What a device offers that kernels choose their variants by, with the options that
/// force a choice.
pub(crate) struct Capabilities {
    /// The device is a CPU adapter (the CPU kernel profile).
    pub(crate) cpu: bool,
    /// The subgroup sizes (least, most) where the device has subgroup operations.
    pub(crate) subgroup_sizes: Option<(u32, u32)>,
    /// `DeviceOptions::matmul_workgroup_tiles`.
    pub(crate) workgroup_tiles: Option<bool>,
    /// `DeviceOptions::matmul_subgroups`.
    pub(crate) subgroups: Option<bool>,
    /// `DeviceOptions::matmul_register_tiles`.
    pub(crate) register_tiles: Option<bool>,
}

/// The kernel variants chosen for one device: each kernel family that has variants picks
/// one from the device's [`Capabilities`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Variants {
    /// The matmul kernel's inner loop.
    pub(crate) matmul: matmul::Variant,
    /// How the scan kernels load and store.
    pub(crate) cumulative: cumulative::Variant,
}

impl Variants {
    /// Each family's choice for a device offering `c`.
    pub(crate) fn choose(c: &Capabilities) -> Variants {
        Variants {
            matmul: matmul::Variant::choose(c),
            cumulative: cumulative::Variant::choose(c),
        }
    }
}

const PRELUDE: &str = include_str!("../../shaders/prelude.wgsl");

/// The prelude split into its functions: `(name, text)` in file order.
fn prelude_functions() -> &'static [(String, String)] {
    static SPLIT: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    SPLIT.get_or_init(|| {
        // Each function runs from its `fn` line to the closing `}` in column 0; the
        // comments between functions are for readers of the file and are left out.
        let mut out = Vec::new();
        let mut cur: Option<(String, String)> = None;
        for line in PRELUDE.lines() {
            if let Some(rest) = line.strip_prefix("fn ") {
                let name = rest.split('(').next().unwrap_or("").trim().to_string();
                cur = Some((name, String::new()));
            }
            if let Some((_, text)) = cur.as_mut() {
                text.push_str(line);
                text.push('\n');
            }
            if line == "}" {
                if let Some(f) = cur.take() {
                    out.push(f);
                }
            }
        }
        out
    })
}

/// The prelude functions `body` calls, directly or through each other, in file order.
/// Including only these keeps shader compilation quick.
pub(crate) fn prelude_for(body: &str) -> String {
    let funcs = prelude_functions();
    let mut used = vec![false; funcs.len()];
    let mut scan = body.to_string();
    loop {
        let mut added = String::new();
        for (i, (name, text)) in funcs.iter().enumerate() {
            if !used[i] && scan.contains(&format!("{name}(")) {
                used[i] = true;
                added.push_str(text);
            }
        }
        if added.is_empty() {
            break;
        }
        scan = added;
    }
    funcs
        .iter()
        .zip(&used)
        .filter(|(_, &u)| u)
        .map(|((_, text), _)| text.as_str())
        .collect()
}

/// One node of a program: a primitive applied to earlier values.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node {
    pub(crate) prim: Primitive,
    /// Value ids: `0..inputs.len()` are the inputs, then one per node in order.
    pub(crate) args: Vec<usize>,
    pub(crate) dtype: DType,
}

/// An elementwise program: inputs, nodes, and the values it outputs (by default the last
/// node; a fused kernel may store several values of its program).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Program {
    pub(crate) inputs: Vec<DType>,
    pub(crate) nodes: Vec<Node>,
    /// Value ids of the outputs, in order.
    pub(crate) outputs: Vec<usize>,
}

/// Equality is `PartialEq`'s: literals compare by their bits, so a program equals itself.
impl Eq for Program {}

/// The program's structure (each node's primitive by name, its operands and dtype): equal
/// programs hash alike, and programs that differ only in parameters share a hash.
impl std::hash::Hash for Program {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.inputs.hash(h);
        self.outputs.hash(h);
        for n in &self.nodes {
            (n.prim.name(), &n.args, n.dtype).hash(h);
        }
    }
}

impl Program {
    /// A program whose output is its last node (its only input when it has no nodes).
    pub(crate) fn new(inputs: Vec<DType>, nodes: Vec<Node>) -> Program {
        let last = (inputs.len() + nodes.len()).saturating_sub(1);
        Program {
            inputs,
            nodes,
            outputs: vec![last],
        }
    }

    /// The dtype of value `v`.
    pub(crate) fn dtype_of(&self, v: usize) -> DType {
        match v.checked_sub(self.inputs.len()) {
            Some(j) => self.nodes[j].dtype,
            None => self.inputs[v],
        }
    }
}

/// An input as the kernel will see it.
pub(crate) struct InputDesc<'a> {
    pub(crate) layout: &'a Layout,
    /// Windows the input's buffer is bound as.
    pub(crate) windows: u64,
    /// How elements are found.
    pub(crate) map: &'a InputMap,
    /// Whether the buffer extends to the next multiple of four elements past the data, so
    /// `vec4` loads stay inside it (always true for Olympus's own buffers; an
    /// application's buffer may end exactly at its last element).
    pub(crate) padded: bool,
}

/// What the target device supports.
pub(crate) struct Target {
    pub(crate) f16_native: bool,
    /// Bytes per binding window (a power of two).
    pub(crate) window_bytes: u64,
    /// `vec4`s of output each thread of an elementwise kernel computes, consecutive ones:
    /// [`CPU_VECTORS`] on CPU adapters, 1 on GPUs (whose neighbouring threads should read
    /// neighbouring vectors).
    pub(crate) vectors: u64,
    /// Whether a thread's vectors are written out one after another rather than looped
    /// over (outputs of [`CPU_VECTORS_FROM`] elements or more).
    pub(crate) written_out: bool,
}

/// A generated kernel: its body (bindings, loads, the program, stores), which identifies
/// it, and the metadata words of this call. The full source adds the prelude helpers the
/// body calls; it is only built when the pipeline cache misses.
pub(crate) struct Generated {
    pub(crate) body: String,
    pub(crate) uses_f16: bool,
    pub(crate) meta: Vec<u32>,
}

impl Generated {
    /// The complete WGSL module.
    pub(crate) fn source(&self) -> String {
        let mut full = String::new();
        if self.uses_f16 {
            full.push_str("enable f16;\n");
        }
        full.push_str(&prelude_for(&self.body));
        full.push_str(&uniform_metadata(&self.body));
        full
    }
}

/// Words of kernel metadata a dispatch may carry: the metadata is bound as a uniform block
/// of this size (16 KiB, the smallest limit a wgpu device has).
pub(crate) const META_WORDS: usize = 4096;

/// The generators declare the metadata as `var<storage, read> md: array<u32>` and read
/// `md[i]`; the module binds it as a uniform block instead and reads it through
/// `mdw(i)`. On CPU adapters a uniform load at a constant index is one scalar load for all
/// SIMD lanes (a storage-buffer load is a loop over the lanes), and on GPUs uniforms are
/// the cached path for values every thread reads.
fn uniform_metadata(body: &str) -> String {
    const DECL: &str = "@group(0) @binding(0) var<storage, read> md: array<u32>;";
    fn rewrite(s: &str, out: &mut String) {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < s.len() {
            let starts = s[i..].starts_with("md[")
                && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'));
            if !starts {
                let c = s[i..].chars().next().expect("in bounds");
                out.push(c);
                i += c.len_utf8();
                continue;
            }
            // The index expression up to the matching bracket.
            let open = i + 2;
            let mut depth = 0usize;
            let mut close = None;
            for (k, b) in bytes.iter().enumerate().skip(open) {
                match b {
                    b'[' => depth += 1,
                    b']' => {
                        depth -= 1;
                        if depth == 0 {
                            close = Some(k);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let Some(close) = close else {
                // Unbalanced (never generated): left as it is, naga reports it.
                out.push_str(&s[i..]);
                return;
            };
            out.push_str("mdw(");
            rewrite(&s[open + 1..close], out);
            out.push(')');
            i = close + 1;
        }
    }
    let Some(at) = body.find(DECL) else {
        return body.to_string();
    };
    let mut out = String::with_capacity(body.len() + 256);
    out.push_str(&body[..at]);
    let _ = writeln!(
        out,
        "@group(0) @binding(0) var<uniform> md: array<vec4<u32>, {}>;\nfn mdw(i: u32) -> u32 {{\n    return md[i >> 2u][i & 3u];\n}}",
        META_WORDS / 4
    );
    rewrite(&body[at + DECL.len()..], &mut out);
    out
}

/// The vectors each thread of `walk` reads (one where it does not walk vectors).
fn ctx_vectors(walk: Walk) -> u64 {
    match walk {
        Walk::Vectors(n) => n,
        _ => 1,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Vector,
    Strided,
    /// A contiguous run of elements repeated along the leading dimensions (a row or block
    /// broadcast over rows, as in `x @ w + b`): element `i` is the run's `i % len`; `vector`
    /// where the run and its offset are whole `vec4`s. One remainder per load instead of
    /// a division and a remainder per dimension.
    Repeat {
        vector: bool,
    },
    /// Each element of a contiguous array repeated along the trailing dimensions (a
    /// column broadcast across columns): element `i` is the array's `i / len`.
    Spread,
    /// A contiguous operand of the output's shape that is not read as vectors (an offset
    /// inside a vector, as `x[1:]` has; an application's unpadded buffer; multi-word
    /// elements): element `i` is the buffer's `i + offset`, with no division per
    /// dimension.
    Contiguous,
    /// Every element is the same one (all strides zero: a broadcast scalar): loaded once
    /// per thread, no offset arithmetic.
    Splat,
    /// Blocks of a contiguous array, each repeated along middle dimensions before the
    /// next (`[a, c]` broadcast to `[a, b, c]`: the per-example rows `vmap` broadcasts
    /// across a product): element `i` is the array's `(i / period) * run + i % run`;
    /// `vector` where blocks and offset are whole `vec4`s.
    Tile {
        vector: bool,
    },
    /// Not read at all: a private variable the kernel sets ([`Naming::given`]).
    Given,
}

/// The length of the contiguous run `layout` repeats along its leading dimensions (whose
/// strides are zero; dimensions of size 1 count as either), where it is such a layout
/// with a run of at least two elements and at least one repeat.
fn repeated_run(layout: &Layout) -> Option<usize> {
    let mut run = 1usize;
    let mut d = layout.shape.len();
    while d > 0 {
        let (len, stride) = (layout.shape[d - 1], layout.strides[d - 1]);
        if len != 1 && stride != run as isize {
            break;
        }
        run *= len;
        d -= 1;
    }
    let leading = &layout.shape[..d];
    let repeats: usize = leading.iter().product();
    let zero = leading
        .iter()
        .zip(&layout.strides)
        .all(|(&len, &stride)| len == 1 || stride == 0);
    (zero && run >= 2 && repeats >= 2).then_some(run)
}

/// How many times `layout` repeats each element of a contiguous array along its trailing
/// dimensions (whose strides are zero; dimensions of size 1 count as either), where it is
/// such a layout with at least two elements each repeated at least twice.
fn spread_elements(layout: &Layout) -> Option<usize> {
    let mut times = 1usize;
    let mut d = layout.shape.len();
    while d > 0 && (layout.shape[d - 1] == 1 || layout.strides[d - 1] == 0) {
        times *= layout.shape[d - 1];
        d -= 1;
    }
    let leading = Layout {
        shape: layout.shape[..d].to_vec(),
        strides: layout.strides[..d].to_vec(),
        offset: 0,
    };
    let elements: usize = leading.shape.iter().product();
    (leading.is_contiguous() && times >= 2 && elements >= 2).then_some(times)
}

/// The block length and period (block times repeats) of a [`Access::Tile`] layout:
/// dimensions of size 1 aside, an inner contiguous run of at least two elements, middle
/// dimensions of stride zero repeating it at least twice, and outer dimensions stepping
/// from block to block, at least two blocks.
fn tiled_run(layout: &Layout) -> Option<(usize, usize)> {
    let dims: Vec<(usize, isize)> = layout
        .shape
        .iter()
        .zip(&layout.strides)
        .filter(|(&len, _)| len != 1)
        .map(|(&len, &stride)| (len, stride))
        .collect();
    let mut d = dims.len();
    let (mut run, mut repeats, mut blocks) = (1usize, 1usize, 1usize);
    while d > 0 && dims[d - 1].1 == run as isize {
        run *= dims[d - 1].0;
        d -= 1;
    }
    while d > 0 && dims[d - 1].1 == 0 {
        repeats *= dims[d - 1].0;
        d -= 1;
    }
    while d > 0 && dims[d - 1].1 == (run * blocks) as isize {
        blocks *= dims[d - 1].0;
        d -= 1;
    }
    (d == 0 && run >= 2 && repeats >= 2 && blocks >= 2).then_some((run, run * repeats))
}

/// The storage type of one element (`scalar`) and of four elements (`vector`), with the
/// bytes of each. Dtypes narrower than a word are read and written as packed words; a
/// two-word element is one `vec2` unit, which the elementwise kernels never read or write
/// as vectors (its `vector` type is that unit; the reduction and matmul kernels take
/// 4-byte elements only, the sort, scan and scatter kernels one-word dtypes).
fn storage_types(d: DType, t: &Target) -> ((&'static str, u64), (&'static str, u64)) {
    match d {
        #[cfg(test)]
        DType::TestPair => (("vec2<f32>", 8), ("vec2<f32>", 8)),
        DType::Bool | DType::UInt32 => (("u32", 4), ("vec4<u32>", 16)),
        DType::Int32 => (("i32", 4), ("vec4<i32>", 16)),
        DType::Float32 => (("f32", 4), ("vec4<f32>", 16)),
        DType::Float16 if t.f16_native => (("f16", 2), ("vec4<f16>", 8)),
        DType::Int8 | DType::UInt8 => (("u32", 4), ("u32", 4)),
        DType::Int16 | DType::UInt16 | DType::BFloat16 | DType::Float16 => {
            (("u32", 4), ("vec2<u32>", 8))
        }
    }
}

/// The 32-bit dtype that the matmul, sort, scan and reduction kernels take in place of an
/// 8- or 16-bit dtype (float16 excepted: those kernels read and write it themselves); the
/// caller widens such operands first. Elementwise and scatter kernels take every dtype.
pub(crate) fn widened(d: DType) -> Option<DType> {
    match d {
        DType::Int8 | DType::UInt8 | DType::Int16 | DType::UInt16 | DType::BFloat16 => {
            Some(d.compute_dtype())
        }
        _ => None,
    }
}

/// The value (in its compute type) of element `e` of an input of `d` read through the
/// accessor `name`: bool words compared with 0, native float16 widened, packed dtypes
/// unpacked from their word.
fn element_load(d: DType, name: &str, e: &str, t: &Target) -> String {
    match d {
        DType::Bool => format!("({name}({e}) != 0u)"),
        DType::Float16 if t.f16_native => format!("f32({name}({e}))"),
        d if d.per_word() > 1 => load_packed(d, name, e),
        _ => format!("{name}({e})"),
    }
}

/// The value of element `e` of a packed buffer read through the word accessor `name`.
pub(crate) fn load_packed(d: DType, name: &str, e: &str) -> String {
    let per = d.per_word();
    let bits = 32 / per;
    let mask = (1u64 << bits) - 1;
    decode(
        d,
        &format!(
            "(({name}({e} >> {}u) >> (({e} & {}u) * {bits}u)) & {mask:#x}u)",
            per.trailing_zeros(),
            per - 1
        ),
    )
}

/// The words holding four packed values of `d` (`vec4` `r` in the compute type): one word
/// for 8-bit dtypes, a `vec2<u32>` for 16-bit ones.
fn pack4(d: DType, r: &str) -> String {
    let e = |c: &str| encode(d, &format!("{r}.{c}"));
    match d.per_word() {
        4 => format!(
            "({} | ({} << 8u) | ({} << 16u) | ({} << 24u))",
            e("x"),
            e("y"),
            e("z"),
            e("w")
        ),
        _ => format!(
            "vec2<u32>({} | ({} << 16u), {} | ({} << 16u))",
            e("x"),
            e("y"),
            e("z"),
            e("w")
        ),
    }
}

/// A function `unpack4_{k}` giving the four values of `d` packed in one vector load.
fn unpack4(d: DType, k: usize) -> String {
    let (ty, lanes): (&str, [String; 4]) = match d.per_word() {
        4 => (
            "u32",
            [0, 8, 16, 24].map(|s| format!("((p >> {s}u) & 0xffu)")),
        ),
        _ => (
            "vec2<u32>",
            [
                "(p.x & 0xffffu)",
                "(p.x >> 16u)",
                "(p.y & 0xffffu)",
                "(p.y >> 16u)",
            ]
            .map(String::from),
        ),
    };
    let ct = rules::compute_type(d);
    let vals: Vec<String> = lanes.iter().map(|l| decode(d, l)).collect();
    format!(
        "fn unpack4_{k}(p: {ty}) -> vec4<{ct}> {{ return vec4<{ct}>({}); }}",
        vals.join(", ")
    )
}

/// The "windows" of an input that is staged into a texture (`Rgba32Uint`, `TEXTURE_WIDTH`
/// texels of four words per row) and read with `textureLoad` as a read-only storage
/// texture: on CPU adapters (llvmpipe) an image load is a short inline run of vector
/// loads, a storage-buffer load a loop over the SIMD lanes, and a sampled-texture fetch a
/// call that recomputes mip-level addressing (a 16M-element `a + b` took 19.2 ms through
/// sampled textures and 13.4 ms through storage textures). float16 inputs in textures are
/// read as packed words (see [`input_target`]).
pub(crate) const TEXTURE: u64 = 0;

/// The target an input bound as `windows` is read for: a texture holds words, so its
/// float16 elements are decoded from packed words even where the device has native
/// float16.
pub(crate) fn input_target(t: &Target, windows: u64) -> Target {
    Target {
        f16_native: t.f16_native && windows != TEXTURE,
        ..*t
    }
}

#[allow(clippy::too_many_arguments)]
/// Emits the binding declarations of one buffer bound as `windows` windows (or as a
/// texture, [`TEXTURE`]), and a raw accessor `fn {name}(u: u32) -> T` (or a store
/// `fn {name}_st(u, v)`).
fn declare(
    src: &mut String,
    binding: &mut u32,
    name: &str,
    ty: &str,
    unit_bytes: u64,
    windows: u64,
    write: bool,
    t: &Target,
) {
    if windows == TEXTURE && !write {
        // `u` counts units of `ty`: texels (`vec4`s of 32-bit words) or words.
        let width = TEXTURE_WIDTH;
        let shift = width.trailing_zeros();
        let _ = writeln!(
            src,
            "@group(0) @binding({}) var {name}_t: texture_storage_2d<rgba32uint, read>;",
            *binding
        );
        *binding += 1;
        let fetch = |v: &str| {
            format!(
                "textureLoad({name}_t, vec2<u32>({v} & {}u, {v} >> {shift}u))",
                width - 1
            )
        };
        let body = match unit_bytes {
            16 => format!("return bitcast<{ty}>({});", fetch("u")),
            // Half a texel: four packed halves, or one two-word element.
            8 => format!(
                "let x = {};\n    return bitcast<{ty}>(select(x.zw, x.xy, (u & 1u) == 0u));",
                fetch("(u >> 1u)")
            ),
            4 => format!("return bitcast<{ty}>({}[u & 3u]);", fetch("(u >> 2u)")),
            _ => unreachable!("textures are read in words (`input_target`)"),
        };
        let _ = writeln!(src, "fn {name}(u: u32) -> {ty} {{\n    {body}\n}}");
        return;
    }
    let access = if write { "read_write" } else { "read" };
    for w in 0..windows {
        let _ = writeln!(
            src,
            "@group(0) @binding({}) var<storage, {access}> {name}_{w}: array<{ty}>;",
            *binding
        );
        *binding += 1;
    }
    let per = t.window_bytes / unit_bytes;
    if write {
        window_function(
            src,
            &format!("{name}_st(u: u32, v: {ty})"),
            windows,
            per,
            |w| format!("{name}_{w}[r] = v;"),
        );
    } else {
        window_function(src, &format!("{name}(u: u32) -> {ty}"), windows, per, |w| {
            format!("return {name}_{w}[r];")
        });
    }
}

/// Emits `fn {signature}` whose body runs `access(w)` on window `w` of a buffer bound as
/// `windows` windows of `per` units, with `r` the unit's index in that window (`u` the
/// index in the whole buffer).
pub(crate) fn window_function(
    src: &mut String,
    signature: &str,
    windows: u64,
    per: u64,
    access: impl Fn(u64) -> String,
) {
    let _ = writeln!(src, "fn {signature} {{");
    if windows == 1 {
        let _ = writeln!(src, "    let r = u;\n    {}", access(0));
    } else {
        let _ = writeln!(
            src,
            "    let w = u / {per}u;\n    let r = u - w * {per}u;\n    switch w {{"
        );
        for w in 0..windows {
            let arm = if w + 1 == windows {
                "default".to_string()
            } else {
                format!("case {w}u")
            };
            let _ = writeln!(src, "        {arm}: {{ {} }}", access(w));
        }
        let _ = writeln!(src, "    }}");
    }
    let _ = writeln!(src, "}}");
}

/// Declares the output buffer `name` of `dtype` (stored as `vec4` words with `vector`, else
/// one element per word) and its store `out_st`. float16 results are always stored as
/// packed words: the rounding is our own integer code (bit-identical everywhere), and WGSL
/// cannot bitcast two words to four halves.
fn declare_output(
    src: &mut String,
    binding: &mut u32,
    name: &str,
    dtype: DType,
    vector: bool,
    windows: u64,
    t: &Target,
) {
    let packed = Target {
        f16_native: false,
        ..*t
    };
    let ((sty, sbytes), (vty, vbytes)) = storage_types(dtype, &packed);
    let (ty, bytes) = if vector { (vty, vbytes) } else { (sty, sbytes) };
    declare(src, binding, name, ty, bytes, windows, true, t);
}

/// Number of windows a buffer of `bytes` bytes is bound as.
pub(crate) fn windows_for(bytes: u64, t: &Target) -> u64 {
    bytes.div_ceil(t.window_bytes).max(1)
}

/// A program emitted as functions of a flat index into its (virtual, contiguous) output:
/// `value4(t)` gives elements `4t .. 4t + 4` and, where asked for, `value1(i)` element
/// `i`, both in the output's compute type. The source declares the metadata binding, the
/// constant `B` (where the layouts start) and the inputs from binding 1 on; a kernel adds
/// its output and entry point. The elementwise kernel stores `value4`; a fused reduction
/// combines values of either.
pub(crate) struct Values {
    pub(crate) src: String,
    /// Metadata words after the kernel's `header` words.
    pub(crate) meta: Vec<u32>,
    pub(crate) uses_f16: bool,
    /// The next free binding.
    pub(crate) binding: u32,
    /// Whether the values read `walk_pos`, which the caller sets before it reads them
    /// (see [`Walk`]).
    pub(crate) walks: bool,
}

/// Metadata words before an elementwise kernel's program words: the first and the last
/// vector index its dispatch computes (see [`elementwise`]).
pub(crate) const ELEMENTWISE_SPAN: usize = 2;

/// Generates the kernel for `program` over `inputs`, writing each of its outputs to a
/// contiguous buffer of `out_shape`, each output bound as one binding.
///
/// Its metadata starts with the first and last vector index (`t`, four elements each) the
/// dispatch computes, [`ELEMENTWISE_SPAN`]: the whole output as generated, or one part of
/// it per dispatch, each output bound from that part's first vector on. Outputs larger
/// than one window are split so, not bound as several windows: a store would pick its
/// window with a `switch`, which lavapipe runs with every arm masked, so each store
/// would cost as many as there are windows.
pub(crate) fn elementwise(
    program: &Program,
    inputs: &[InputDesc<'_>],
    out_shape: &[usize],
    t: &Target,
) -> Result<Generated> {
    let n = crate::shape::size_of(out_shape) as u64;
    let walk = match t.vectors {
        1 => Walk::Flat,
        n => Walk::Vectors(n),
    };
    let v = values(
        program,
        inputs,
        out_shape,
        ELEMENTWISE_SPAN,
        false,
        false,
        walk,
        t,
    )?;
    let Values {
        mut src,
        meta: words,
        uses_f16,
        mut binding,
        walks,
    } = v;
    let single = program.outputs.len() == 1;
    let mut stores = String::new();
    for (j, &value) in program.outputs.iter().enumerate() {
        let dtype = program.dtype_of(value);
        let (name, r) = if single {
            ("out".to_string(), "r".to_string())
        } else {
            (format!("out{j}"), format!("r.o{j}"))
        };
        // Four values are one vector store, or four unit stores of multi-word elements.
        let vector = dtype.words() == 1;
        declare_output(&mut src, &mut binding, &name, dtype, vector, 1, t);
        if !vector {
            for l in 0..PER_THREAD {
                let _ = writeln!(
                    stores,
                    "    {name}_st((t - md[0]) * {PER_THREAD}u + {l}u, {r}[{l}]);"
                );
            }
            continue;
        }
        let store = match dtype {
            DType::Bool => format!("select(vec4<u32>(0u), vec4<u32>(1u), {r})"),
            d if d.per_word() > 1 => pack4(d, &r),
            _ => r,
        };
        let _ = writeln!(stores, "    {name}_st(t - md[0], {store});");
    }
    // Threads past the end return at once (small arrays launch a whole workgroup); the
    // one thread that straddles it computes the last vector again for its vectors past
    // the end and stores nothing for them: an early `return` among them costs lavapipe a
    // return mask (`a + b` on 16M float32: 23.6 ms against 18.4 this way, interleaved in
    // one process).
    // For large outputs a thread's vectors are written out one after another, all values
    // first, then the stores: LLVM leaves a loop over them rolled when the body is long,
    // and then each vector's chain runs alone. Interleaved on lavapipe with four vectors:
    // the five-op chain 41.9 -> 29.1 ms, `exp` 29.8 -> 22.3, `log` 145 -> 110, `a + b`
    // 14.1 -> 13.4.
    let mut body = String::new();
    if t.written_out {
        for j in 0..t.vectors {
            let _ = writeln!(body, "    let r{j} = value4(min(t0 + {j}u, last));");
        }
        for j in 0..t.vectors {
            // The first vector exists (`t0 <= last`); later ones may lie past the end.
            let (open, close) = if j == 0 {
                ("", "")
            } else {
                ("    if (t <= last) {\n", "    }\n")
            };
            let _ = write!(
                body,
                "    {{\n    let t = t0 + {j}u;\n    let r = r{j};\n{open}{stores}{close}    }}\n"
            );
        }
    } else {
        let _ = write!(
            body,
            "    for (var j = 0u; j < {}u; j = j + 1u) {{\n    let t = t0 + j;\n    let r = value4(min(t, last));\n    if (t <= last) {{\n{stores}    }}\n    }}\n",
            t.vectors
        );
    }
    let _ = writeln!(
        src,
        "@compute @workgroup_size({WORKGROUP})\nfn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {{\n    let t0 = md[0] + ((wg.y * nwg.x + wg.x) * {WORKGROUP}u + li) * {vectors}u;\n    let last = md[1];\n    if (t0 > last) {{ return; }}\n{start}{body}}}",
        vectors = t.vectors,
        start = if walks { "    walk_start(t0);\n" } else { "" },
    );
    // Metadata: the span, then the program's words. Empty outputs launch nothing.
    let mut meta = Vec::with_capacity(ELEMENTWISE_SPAN + words.len());
    meta.extend([0, (n.saturating_sub(1) / PER_THREAD) as u32]);
    meta.extend(words);
    Ok(Generated {
        body: src,
        uses_f16,
        meta,
    })
}

/// `fn search_{l|r}_x{k}(i, v) -> i32`: the binary search of a
/// [`Primitive::SearchSorted`] query `v` in the row of input `k` (a gather-mapped input of
/// `len` elements along the row, `stride` apart, whose element at `e` `load` reads) of
/// output index `i`: how many of the
/// row's elements order before `v` (`right`: not after it). Floats order as the sort does,
/// NaN last and -0.0 equal to 0.0; bool `false` before `true`.
fn search_function(
    k: usize,
    d: DType,
    (len, stride): (&str, &str),
    load: &str,
    right: bool,
) -> String {
    let ct = compute_type(d);
    let lt = |a: &str, b: &str| match d.compute_dtype() {
        DType::Bool => format!("(!{a} && {b})"),
        DType::Int32 | DType::UInt32 => format!("({a} < {b})"),
        _ => format!("({a} < {b} || (is_nan_f32({b}) && !is_nan_f32({a})))"),
    };
    // Left: the first element not before `v`; right: the first one after it.
    let (side, go_right) = if right {
        ("r", format!("!{}", lt("v", "a")))
    } else {
        ("l", lt("a", "v"))
    };
    format!(
        "fn search_{side}_x{k}(i: u32, v: {ct}) -> i32 {{
    let base = i32(off{k}(i));
    let stride = bitcast<i32>({stride});
    var lo = 0;
    var hi = i32({len});
    while (lo < hi) {{
        let mid = lo + (hi - lo) / 2;
        let e = u32(base + mid * stride);
        let a: {ct} = {load};
        if ({go_right}) {{ lo = mid + 1; }} else {{ hi = mid; }}
    }}
    return lo;
}}
"
    )
}

/// Emits `program` over `inputs` as [`Values`] over a contiguous output of `out_shape`,
/// for a kernel whose metadata starts with `header` words of its own. `scalar` adds
/// `value1`; `round` rounds a float16 output to float16 (a kernel that stores float16
/// rounds when it packs).
#[allow(clippy::too_many_arguments)]
pub(crate) fn values(
    program: &Program,
    inputs: &[InputDesc<'_>],
    out_shape: &[usize],
    header: usize,
    scalar: bool,
    round: bool,
    walk: Walk,
    t: &Target,
) -> Result<Values> {
    let naming = Naming {
        prefix: "",
        binding: 1,
        given: &[],
    };
    values_named(
        program,
        inputs,
        out_shape,
        (header, scalar, round, walk),
        t,
        &naming,
    )
}

/// How [`values_named`] names what it declares, for a second program in a kernel that
/// already has one (a reduction's epilogue): every function, struct, binding and constant
/// takes `prefix`, bindings start at `binding`, and the inputs marked `given` are not read
/// from buffers but from private variables `{prefix}given{k}` the kernel sets before it
/// calls `{prefix}value1` (the epilogue's reduced values). The metadata binding `md` is
/// declared only without a prefix.
pub(crate) struct Naming<'a> {
    pub(crate) prefix: &'a str,
    pub(crate) binding: u32,
    pub(crate) given: &'a [bool],
}

/// [`values`] with the names and bindings of `naming`.
pub(crate) fn values_named(
    program: &Program,
    inputs: &[InputDesc<'_>],
    out_shape: &[usize],
    (header, scalar, round, walk): (usize, bool, bool, Walk),
    t: &Target,
    naming: &Naming<'_>,
) -> Result<Values> {
    let p = naming.prefix;
    let given = |k: usize| naming.given.get(k).copied().unwrap_or(false);
    // (Indexed reads name their helpers without the prefix: a named program reads plainly.)
    debug_assert!(p.is_empty() || inputs.iter().all(|i| *i.map == InputMap::Plain));
    let mut ctx = Ctx::new(header, walk, p);

    // Decide the access of each input and collect its parameters. Multi-word elements
    // are read one at a time (their `vec2` unit), never as vectors of four.
    let access: Vec<Access> = inputs
        .iter()
        .zip(&program.inputs)
        .enumerate()
        .map(|(k, (i, d))| {
            let vectors = d.words() == 1;
            if given(k) {
                Access::Given
            } else if vectors
                && *i.map == InputMap::Plain
                && i.padded
                && i.layout.shape == out_shape
                && i.layout.is_contiguous()
                && i.layout.offset % 4 == 0
            {
                Access::Vector
            } else if *i.map == InputMap::Plain && i.layout.strides.iter().all(|&s| s == 0) {
                Access::Splat
            } else if *i.map == InputMap::Plain
                && i.layout.shape == out_shape
                && i.layout.is_contiguous()
            {
                Access::Contiguous
            } else if let (InputMap::Plain, true, Some(run)) =
                (i.map, i.layout.shape == out_shape, repeated_run(i.layout))
            {
                // Whole vectors of the run are whole vectors of the output too. Bound as
                // several windows, the last may end inside a vector of an application's
                // buffer, which a vector binding cannot hold.
                Access::Repeat {
                    vector: vectors && run % 4 == 0 && i.layout.offset % 4 == 0 && i.windows <= 1,
                }
            } else if *i.map == InputMap::Plain
                && i.layout.shape == out_shape
                && spread_elements(i.layout).is_some()
            {
                Access::Spread
            } else if let (InputMap::Plain, true, Some((run, _))) =
                (i.map, i.layout.shape == out_shape, tiled_run(i.layout))
            {
                Access::Tile {
                    vector: vectors && run % 4 == 0 && i.layout.offset % 4 == 0 && i.windows <= 1,
                }
            } else {
                Access::Strided
            }
        })
        .collect();
    let mut vec_offset = Vec::new();
    let mut gather_params = Vec::new();
    let mut stepped_offsets: Vec<Option<String>> = Vec::new();
    // A repeated run's length and offset (in vectors where it is read as vectors).
    let mut repeat_params = Vec::new();
    // A tiled operand's element (or vector) at the index `@` (see [`Access::Tile`]).
    let mut tile_index = Vec::new();
    for (k, inp) in inputs.iter().enumerate() {
        if access[k] == Access::Vector {
            vec_offset.push(Some(ctx.param((inp.layout.offset / 4) as u32)));
        } else if access[k] == Access::Splat {
            vec_offset.push(Some(ctx.param(inp.layout.offset as u32)));
        } else {
            vec_offset.push(None);
        }
        match access[k] {
            Access::Repeat { vector } => {
                let unit = if vector { 4 } else { 1 };
                let len = repeated_run(inp.layout).expect("a repeated run");
                let offset = ctx.param((inp.layout.offset / unit) as u32);
                // (The run's element or vector at the index `@`, less the offset.)
                let run = len / unit;
                // Units of the run a thread of `Walk::Vectors(n)` reads past its first.
                let per = 4 / unit;
                let at = match walk {
                    Walk::Rows(k) if k == len as u64 => {
                        format!("(@ - {} / {unit}u)", ctx.walk_pos())
                    }
                    _ => match ctx.stepped_division(run as u32, "@", per as u32) {
                        Some((_, r)) => r,
                        None => format!("@ % {}", ctx.param(run as u32)),
                    },
                };
                repeat_params.push(Some((at, offset)));
            }
            Access::Spread => {
                let times = spread_elements(inp.layout).expect("a spread layout");
                let elements = crate::shape::size_of(&inp.layout.shape) / times;
                let offset = ctx.param(inp.layout.offset as u32);
                // Lanes past the output's end (in its last vector) read the last element.
                let at = match walk {
                    Walk::Columns(cols) if cols == times as u64 => ctx.walk_pos(),
                    _ => {
                        let q = match ctx.stepped_division(times as u32, "i", 4) {
                            Some((q, _)) => q,
                            None => format!("i / {}", ctx.param(times as u32)),
                        };
                        format!("min({q}, {})", ctx.param(elements as u32 - 1))
                    }
                };
                repeat_params.push(Some((at, offset)));
            }
            Access::Contiguous => {
                // Lanes past the output's end (in its last vector) read its last element:
                // past it may lie past the buffer.
                let n = crate::shape::size_of(out_shape).saturating_sub(1);
                let last = ctx.param(n as u32);
                let offset = ctx.param(inp.layout.offset as u32);
                repeat_params.push(Some((format!("min(i, {last})"), offset)));
            }
            _ => repeat_params.push(None),
        }
        if let Access::Tile { vector } = access[k] {
            let unit = if vector { 4 } else { 1 };
            let (run, period) = tiled_run(inp.layout).expect("a tiled layout");
            let (run, period, per) = ((run / unit) as u32, (period / unit) as u32, 4 / unit);
            let offset = ctx.param((inp.layout.offset / unit) as u32);
            // Lanes past the output's end (in its last vector) read its last element;
            // vectors of whole blocks end with the output.
            let at = if vector {
                "@".to_string()
            } else {
                let n = crate::shape::size_of(out_shape).saturating_sub(1);
                format!("min(@, {})", ctx.param(n as u32))
            };
            // The block, then the place in its run (each stepped where the thread walks
            // whole runs).
            let stepped = (run as u64 >= ctx_vectors(walk) * per as u64)
                .then(|| ctx.stepped_division(period, &at, per as u32))
                .flatten()
                .zip(ctx.stepped_division(run, &at, per as u32));
            let index = match stepped {
                Some(((q, _), (_, r))) => format!("{q} * {} + {r} + {offset}", ctx.param(run)),
                None => {
                    let (period, run) = (ctx.param(period), ctx.param(run));
                    format!("{at} / {period} * {run} + {at} % {run} + {offset}")
                }
            };
            tile_index.push(Some(index));
        } else {
            tile_index.push(None);
        }
        if let InputMap::Gather { stride, len } = inp.map {
            gather_params.push(Some((
                ctx.param(*stride as i32 as u32),
                ctx.param(*len as u32),
            )));
        } else {
            gather_params.push(None);
        }
        // A strided operand read by threads that walk vectors along rows of at least as
        // many elements as a thread reads: its offsets at the thread's first element and
        // at the next row's first are computed once, and each element's is one of them
        // plus a multiple of the innermost stride (`{p}offs{k}`), instead of the walk
        // through every dimension (a division and a remainder each, lane by lane on
        // lavapipe) per element.
        stepped_offsets.push(match (access[k], walk, out_shape.last()) {
            (Access::Strided, Walk::Vectors(n), Some(&inner))
                if *inp.map == InputMap::Plain && inner as u64 >= 4 * n =>
            {
                let inner = ctx.param(inner as u32);
                let stride = ctx.param(inp.layout.strides[out_shape.len() - 1] as i32 as u32);
                let size = crate::shape::size_of(out_shape);
                let last = ctx.param(size as u32 - 1);
                let pos = ctx.walk_pos();
                let c0 = ctx.walk_var(&format!("(t0 * 4u) % {inner}"));
                let o0 = ctx.walk_var(&format!("{p}off{k}(t0 * 4u)"));
                let o1 = ctx.walk_var(&format!("{p}off{k}(t0 * 4u - {c0} + {inner})"));
                // (Lanes past the output's end read its last element, in the next row
                // at most.)
                Some(format!(
                    "fn {p}offs{k}(i: u32) -> u32 {{\n    let d = min(i, {last}) - {pos} * 4u;\n    let c = {c0} + d;\n    let s = bitcast<i32>({stride});\n    return u32(select(bitcast<i32>({o0}) + i32(d) * s, bitcast<i32>({o1}) + i32(c - {inner}) * s, c >= {inner}));\n}}"
                ))
            }
            _ => None,
        });
    }

    // The lane function: the program on scalars of compute type.
    let mut body = String::new();
    let mut sig = vec!["i: u32".to_string()];
    for (k, d) in program.inputs.iter().enumerate() {
        if gather_params[k].is_none() {
            sig.push(format!("x{k}: {}", compute_type(*d)));
        }
    }
    let mut dtypes = program.inputs.clone();
    let n_in = program.inputs.len();
    // Shader compilers fold inexact float arithmetic, as WGSL lets them assume no
    // infinities or NaNs: Mesa's NIR turns `x - x` into 0 (NaN for infinities), `(x + x) -
    // x` into `x` (which overflows first), `sqrt(x) * sqrt(x)` into `x` (unrounded). XLA
    // computes each operation as written, and so do eager kernels, which read each operand
    // from its own binding. So the compiler sees through no operation boundary: a float
    // node's value is opaque (its bits XORed with a metadata word that is always 0), and a
    // value read by several operands is read after its first use through a copy XORed with
    // a distinct multiple of that word, so no two operands are one value to the compiler.
    // A node's own formula is as in its eager kernel.
    let mut uses = vec![0u32; n_in + program.nodes.len()];
    let mut zero: Option<String> = None;
    let bits_of = |d: DType| match compute_type(d) {
        "f32" => Some("u32"),
        "vec2<f32>" => Some("vec2<u32>"),
        _ => None,
    };
    let mut opaque = |x: &str, d: DType, k: u32, ctx: &mut Ctx| match bits_of(d) {
        Some(bits) => {
            let z = zero.get_or_insert_with(|| ctx.param(0));
            let ty = compute_type(d);
            format!("bitcast<{ty}>(bitcast<{bits}>({x}) ^ {bits}({z} * {k}u))")
        }
        None => x.to_string(),
    };
    for (j, node) in program.nodes.iter().enumerate() {
        // (An indexed primitive reads its operands through their maps, by name.)
        let indexed = rules::elementwise(&node.prim) == Some(rules::Elementwise::Indexed);
        let mut args = Vec::with_capacity(node.args.len());
        for &a in &node.args {
            uses[a] += 1;
            let x = format!("x{a}");
            args.push(if uses[a] == 1 || indexed {
                x
            } else {
                opaque(&x, dtypes[a], uses[a] + 1, &mut ctx)
            });
        }
        let arg_dtypes: Vec<DType> = node.args.iter().map(|&a| dtypes[a]).collect();
        let mut e = rules::emit(&node.prim, &args, &arg_dtypes, node.dtype, &mut ctx)?;
        let last = j + 1 == program.nodes.len();
        // Narrow values are rounded or wrapped once per operation; a store packs (so
        // rounds or wraps) the output. Operations that move values, and conversions
        // (which narrow themselves), need no narrowing.
        if (!last || round)
            && !rules::moves_values(&node.prim)
            && !rules::is_narrowed(node.dtype, &e)
        {
            e = rules::narrow(node.dtype, &e);
        }
        let id = n_in + j;
        if program.nodes[j + 1..].iter().any(|n| n.args.contains(&id)) {
            e = opaque(&e, node.dtype, 1, &mut ctx);
        }
        let _ = writeln!(body, "    let x{id} = {e};");
        dtypes.push(node.dtype);
    }

    let uses_f16 = t.f16_native
        && (program.inputs.contains(&DType::Float16)
            || program
                .outputs
                .iter()
                .any(|&v| program.dtype_of(v) == DType::Float16));
    let mut src = String::new();
    if p.is_empty() {
        src.push_str("@group(0) @binding(0) var<storage, read> md: array<u32>;\n");
    }
    let base = header + ctx.params.len();
    let _ = writeln!(src, "const {p}B: u32 = {base}u;");
    let mut binding = naming.binding;

    // Loads: `pre` (per thread of four elements) and `lane_args` feed `value4`,
    // `pre1` and `lane1` feed `value1`.
    let (mut plain_slots, mut clamp_slots) = (0u32, 0u32);
    let mut lane_args: Vec<String> = Vec::new();
    let mut pre = String::new();
    let mut pre1 = String::new();
    let mut lane1: Vec<String> = Vec::new();
    for (k, inp) in inputs.iter().enumerate() {
        let d = program.inputs[k];
        let t = &input_target(t, inp.windows);
        let ((sty, sbytes), (vty, vbytes)) = storage_types(d, t);
        let name = format!("{p}in{k}");
        if access[k] == Access::Given {
            let _ = writeln!(src, "var<private> {p}given{k}: {};", compute_type(d));
            lane_args.push(format!("{p}given{k}"));
            lane1.push(format!("{p}given{k}"));
            continue;
        }
        let vector = matches!(
            access[k],
            Access::Vector | Access::Repeat { vector: true } | Access::Tile { vector: true }
        );
        let (ty, bytes) = if vector { (vty, vbytes) } else { (sty, sbytes) };
        declare(
            &mut src,
            &mut binding,
            &name,
            ty,
            bytes,
            inp.windows,
            false,
            t,
        );
        match access[k] {
            Access::Given => unreachable!("given inputs are declared above"),
            Access::Splat => {
                let e = vec_offset[k]
                    .as_ref()
                    .expect("splat inputs have an offset param");
                let load = element_load(d, &name, e, t);
                let _ = writeln!(pre, "    let s{k} = {load};");
                lane_args.push(format!("s{k}"));
                lane1.push(load);
            }
            Access::Vector | Access::Repeat { vector: true } | Access::Tile { vector: true } => {
                // The vector at index `at` of the output's vectors.
                let index = |at: &str| match (&repeat_params[k], &tile_index[k]) {
                    (_, Some(tile)) => tile.replace('@', at),
                    (Some((run, off)), None) => format!("{} + {off}", run.replace('@', at)),
                    (None, None) => {
                        let off = vec_offset[k]
                            .as_ref()
                            .expect("vector inputs have an offset param");
                        format!("{at} + {off}")
                    }
                };
                let conv = |at: &str| {
                    let raw = format!("{name}({})", index(at));
                    match d {
                        DType::Bool => format!("({raw} != vec4<u32>(0u))"),
                        DType::Float16 if t.f16_native => format!("vec4<f32>({raw})"),
                        d if d.per_word() > 1 => format!("{p}unpack4_{k}({raw})"),
                        _ => raw,
                    }
                };
                let _ = writeln!(pre1, "    let v{k} = {};", conv("(i / 4u)"));
                lane1.push(format!("v{k}[i % 4u]"));
                let conv = conv("t");
                if d.per_word() > 1 && !(d == DType::Float16 && t.f16_native) {
                    let _ = writeln!(src, "fn {p}{}", unpack4(d, k).trim_start_matches("fn "));
                }
                let _ = writeln!(pre, "    let v{k} = {conv};");
                lane_args.push(format!("v{k}[L]"));
            }
            Access::Repeat { vector: false }
            | Access::Spread
            | Access::Contiguous
            | Access::Tile { vector: false } => {
                let at = match (&repeat_params[k], &tile_index[k]) {
                    (_, Some(tile)) => tile.replace('@', "i"),
                    (Some((run, off)), None) if matches!(access[k], Access::Repeat { .. }) => {
                        format!("{} + {off}", run.replace('@', "i"))
                    }
                    // (A spread's or contiguous operand's parameter is already the index
                    // into its elements.)
                    (Some((len, off)), None) => format!("{len} + {off}"),
                    (None, None) => unreachable!("runs, spreads and contiguous reads have params"),
                };
                let load = element_load(d, &name, "e", t);
                let _ = writeln!(
                    src,
                    "fn {p}ld{k}(i: u32) -> {} {{\n    let e = {at};\n    return {load};\n}}",
                    compute_type(d)
                );
                // A spread over whole vectors gives a vector's four lanes one element:
                // one load and one division per vector.
                let shared = access[k] == Access::Spread
                    && spread_elements(inp.layout).is_some_and(|times| times % 4 == 0);
                if shared {
                    let _ = writeln!(pre, "    let s{k} = {p}ld{k}(t * 4u);");
                    lane_args.push(format!("s{k}"));
                } else {
                    lane_args.push(format!("{p}ld{k}(i)"));
                }
                lane1.push(format!("{p}ld{k}(i)"));
            }
            Access::Strided => {
                // Where this input's metadata starts: after the rank and the output
                // shape, past the slots of earlier strided inputs (plain and gather slots
                // hold an offset and the strides, clamp slots also a (lo, len) per
                // dimension).
                let slot = format!(
                    "{p}B + 1u + rank + {plain_slots}u * (rank + 1u) + {clamp_slots}u * (3u * rank + 1u)"
                );
                let clamp = matches!(inp.map, InputMap::Clamp(_));
                if clamp {
                    clamp_slots += 1;
                } else {
                    plain_slots += 1;
                }
                let coord = if clamp {
                    "let c = clamp(i32(rem % sz) - bitcast<i32>(md[s + rank + 2u * d - 1u]), 0, i32(md[s + rank + 2u * d]) - 1);"
                } else {
                    "let c = i32(rem % sz);"
                };
                let _ = writeln!(src, "fn {p}off{k}(i: u32) -> u32 {{\n    let rank = md[{p}B];\n    let s = {slot};\n    var o = bitcast<i32>(md[s]);\n    var rem = i;\n    for (var d = rank; d > 0u; d = d - 1u) {{\n        let sz = md[{p}B + d];\n        {coord}\n        o = o + c * bitcast<i32>(md[s + d]);\n        rem = rem / sz;\n    }}\n    return u32(o);\n}}");
                if clamp {
                    let _ = writeln!(src, "fn inb_x{k}(i: u32) -> bool {{\n    let rank = md[B];\n    let s = {slot};\n    var rem = i;\n    var ok = true;\n    for (var d = rank; d > 0u; d = d - 1u) {{\n        let sz = md[B + d];\n        let c = i32(rem % sz) - bitcast<i32>(md[s + rank + 2u * d - 1u]);\n        ok = ok && c >= 0 && c < i32(md[s + rank + 2u * d]);\n        rem = rem / sz;\n    }}\n    return ok;\n}}");
                }
                let load = element_load(d, &name, "e", t);
                if let Some((stride, len)) = &gather_params[k] {
                    let _ = writeln!(
                        src,
                        "fn ld_x{k}(i: u32, j: i32) -> {} {{\n    let e = u32(i32(off{k}(i)) + clamp(j, 0, i32({len}) - 1) * bitcast<i32>({stride}));\n    return {load};\n}}",
                        compute_type(d)
                    );
                    for right in [false, true] {
                        let searched = program.nodes.iter().any(|n| {
                            matches!(n.prim, Primitive::SearchSorted { right: r, .. } if r == right)
                                && n.args[0] == k
                        });
                        if searched {
                            src.push_str(&search_function(k, d, (len, stride), &load, right));
                        }
                    }
                } else {
                    let off = match &stepped_offsets[k] {
                        Some(offs) => {
                            let _ = writeln!(src, "{offs}");
                            "offs"
                        }
                        None => "off",
                    };
                    let _ = writeln!(
                        src,
                        "fn {p}ld{k}(i: u32) -> {} {{\n    let e = {p}{off}{k}(i);\n    return {load};\n}}",
                        compute_type(d)
                    );
                    lane_args.push(format!("{p}ld{k}(i)"));
                    lane1.push(format!("{p}ld{k}(i)"));
                }
            }
        }
    }

    // One output: `lane` returns it and `value4` a vector of it. Several: structs with a
    // field `o{j}` per output.
    let out_dtypes: Vec<DType> = program
        .outputs
        .iter()
        .map(|&v| program.dtype_of(v))
        .collect();
    let cts: Vec<&str> = out_dtypes.iter().map(|&d| compute_type(d)).collect();
    let quads: Vec<String> = out_dtypes.iter().map(|&d| rules::quad_type(d)).collect();
    let single = cts.len() == 1;
    let (lane_ty, value4_ty) = if single {
        (cts[0].to_string(), quads[0].clone())
    } else {
        let field = |j: usize, ty: String| format!("o{j}: {ty}");
        let lane: Vec<String> = cts
            .iter()
            .enumerate()
            .map(|(j, ct)| field(j, ct.to_string()))
            .collect();
        let vec: Vec<String> = quads
            .iter()
            .enumerate()
            .map(|(j, q)| field(j, q.clone()))
            .collect();
        let _ = writeln!(src, "struct {p}Lane {{ {} }}", lane.join(", "));
        let _ = writeln!(src, "struct {p}Value4 {{ {} }}", vec.join(", "));
        (format!("{p}Lane"), format!("{p}Value4"))
    };
    let results: Vec<String> = program.outputs.iter().map(|v| format!("x{v}")).collect();
    let ret = if single {
        results[0].clone()
    } else {
        format!("{p}Lane({})", results.join(", "))
    };
    let _ = writeln!(
        src,
        "fn {p}lane({}) -> {lane_ty} {{\n{body}    return {ret};\n}}",
        sig.join(", ")
    );
    let _ = writeln!(src, "fn {p}value4(t: u32) -> {value4_ty} {{\n{pre}");
    for lane in 0..PER_THREAD {
        let args: Vec<String> = lane_args
            .iter()
            .map(|a| a.replace("[L]", &format!("[{lane}]")))
            .collect();
        let mut call = vec![format!("t * {PER_THREAD}u + {lane}u")];
        for a in args {
            call.push(a.replace("(i)", &format!("(t * {PER_THREAD}u + {lane}u)")));
        }
        let _ = writeln!(src, "    let l{lane} = {p}lane({});", call.join(", "));
    }
    let gather = |field: &str| {
        let lanes: Vec<String> = (0..PER_THREAD).map(|l| format!("l{l}{field}")).collect();
        lanes.join(", ")
    };
    if single {
        let _ = writeln!(src, "    return {}({});\n}}", quads[0], gather(""));
    } else {
        let fields: Vec<String> = quads
            .iter()
            .enumerate()
            .map(|(j, q)| format!("{q}({})", gather(&format!(".o{j}"))))
            .collect();
        let _ = writeln!(src, "    return {p}Value4({});\n}}", fields.join(", "));
    }
    if scalar {
        // (Several outputs: the `Lane` struct.)
        let mut call = vec!["i".to_string()];
        call.extend(lane1);
        let _ = writeln!(
            src,
            "fn {p}value1(i: u32) -> {lane_ty} {{\n{pre1}    return {p}lane({});\n}}",
            call.join(", ")
        );
    }

    // Metadata: params, rank, out shape, then offset and strides of each strided input.
    let mut meta = Vec::with_capacity(ctx.params.len() + 1 + out_shape.len() * 3);
    meta.extend_from_slice(&ctx.params);
    meta.push(out_shape.len() as u32);
    meta.extend(out_shape.iter().map(|&d| d as u32));
    for (k, inp) in inputs.iter().enumerate() {
        if access[k] == Access::Strided {
            // The strides are aligned to the output's rank (broadcasting applied).
            meta.push(inp.layout.offset as u32);
            meta.extend(inp.layout.strides.iter().map(|&s| s as i32 as u32));
            if let InputMap::Clamp(m) = inp.map {
                for &(lo, len) in m {
                    meta.push(lo as i32 as u32);
                    meta.push(len as u32);
                }
            }
        }
    }
    let walks = ctx.walks;
    if walks {
        src = format!("var<private> {p}walk_pos: u32;\n{}{src}", ctx.walk_decls);
    }
    if let (true, Walk::Vectors(_)) = (walks, walk) {
        let _ = writeln!(
            src,
            "fn {p}walk_start(t0: u32) {{\n    {p}walk_pos = t0;\n{}}}",
            ctx.walk_starts
        );
    }
    Ok(Values {
        src,
        meta,
        uses_f16,
        binding,
        walks,
    })
}

pub(crate) mod tests;
