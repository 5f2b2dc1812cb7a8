//! The sort kernels. Long rows are sorted by a least-significant-digit radix sort, short
//! ones by a bitonic network; both are stable and give the same order (JAX's: NaN last,
//! -0.0 equal to 0.0, ties in their original order).
//!
//! **Radix sort** ([`Radix`]): keys are mapped to unsigned words that order as the keys do,
//! then sorted stably by one 4-bit digit per pass, lowest first. A pass counts each digit
//! in every tile of a row, scans the counts of each row (digit-major, so the scan gives
//! every tile's first slot for each digit), and scatters each tile's keys to those slots
//! in order. A pass thus reads the keys twice and writes them once, whatever the row's
//! length: 8 passes for 32-bit keys, where a bitonic network over 16M keys runs 300
//! stages. On a GPU a workgroup owns a tile and ranks its keys through workgroup memory;
//! on a software adapter one thread owns a tile and walks it in order ([`Radix::serial`]),
//! since a software adapter pays dearly for workgroup memory and barriers.
//!
//! **Bitonic network** ([`stage`]): one compare-exchange stage over rows of `[rows, p]`
//! keys (p a power of two) with their original positions. Keys compare by value with NaN
//! last, ties by position, and positions past the row's real length are padding that
//! sorts after everything — so the network's result equals a stable sort. A sort of rows
//! of length p runs log2(p)·(log2(p)+1)/2 stages; it serves rows too short for a tile.

use super::{declare, Generated, Target};
use crate::dtype::DType;
use std::fmt::Write;

/// Bits of key a radix pass sorts by.
pub(crate) const DIGIT_BITS: u32 = 4;
/// Keys each thread of a workgroup tile owns: consecutive ones, so that a thread's count
/// of a digit and the counts of the threads before it place its keys in order.
const ITEMS: u64 = 16;
/// Keys a workgroup sorts per pass (GPU kernels).
const TILE: u64 = 256 * ITEMS;
/// Keys one thread sorts per pass (serial kernels): smaller tiles make a longer scan of
/// the counts, larger ones too few threads to fill a CPU's cores and SIMD lanes.
const SERIAL_TILE: u64 = 1024;
/// Workgroup storage the workgroup scatter declares: each thread's 16 digit counts packed
/// two to a word, the scan's 256 segment totals, and the tile's 16 digit offsets. The
/// device requires this much (`missing_limits`).
pub(crate) const WORKGROUP_STORAGE_BYTES: u32 = (8 * 256 + 256 + 16) * 4;

/// The WGSL type keys of `dtype` are sorted as (float16 as float32, bool as uint32).
pub(crate) fn key_dtype(d: DType) -> DType {
    match d {
        DType::Float16 => DType::Float32,
        DType::Bool => DType::UInt32,
        d => d,
    }
}

/// `fn ord(b: u32) -> u32`: the key with bits `b` as an unsigned word in sort order. Floats
/// follow JAX's order: every NaN after +inf (all equal), -0.0 equal to 0.0.
fn ord_function(key: DType) -> &'static str {
    match key {
        DType::Float32 => {
            "fn ord(b: u32) -> u32 {
    let m = b & 0x7fffffffu;
    if (m > 0x7f800000u) { return 0xffffffffu; }
    if (m == 0u) { return 0x80000000u; }
    if (b != m) { return ~b; }
    return b | 0x80000000u;
}
"
        }
        DType::Int32 => "fn ord(b: u32) -> u32 {\n    return b ^ 0x80000000u;\n}\n",
        _ => "fn ord(b: u32) -> u32 {\n    return b;\n}\n",
    }
}

/// A radix sort of `rows` rows of `n` keys of `dtype` (the array's dtype; its words are
/// [`key_dtype`]'s), with keys and positions bound as `windows` windows each and the
/// counts and their scan as `count_windows`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct Radix {
    pub(crate) dtype: DType,
    pub(crate) rows: u64,
    pub(crate) n: u64,
    /// One thread per tile, no workgroup memory (software adapters).
    pub(crate) serial: bool,
    pub(crate) windows: u64,
    pub(crate) count_windows: u64,
}

impl Radix {
    /// Tiles per row.
    pub(crate) fn tiles(serial: bool, n: u64) -> u64 {
        n.div_ceil(if serial { SERIAL_TILE } else { TILE })
    }

    /// Words of counts: 16 digits for every tile of every row.
    pub(crate) fn count_len(serial: bool, rows: u64, n: u64) -> u64 {
        rows * 16 * Self::tiles(serial, n)
    }

    /// The digits' shifts, lowest first: all 32 bits of the word, but one pass for bool (0
    /// or 1) and the top 20 bits for float16 (sorted as float32, whose lowest 13 bits are
    /// then equal among keys that agree above them).
    pub(crate) fn shifts(&self) -> impl Iterator<Item = u32> {
        let (lo, end) = match self.dtype {
            DType::Bool => (0, DIGIT_BITS),
            DType::Float16 => (12, 32),
            _ => (0, 32),
        };
        (lo..end).step_by(DIGIT_BITS as usize)
    }

    /// Workgroups of either kernel.
    pub(crate) fn groups(&self) -> u64 {
        let tiles = self.rows * Self::tiles(self.serial, self.n);
        if self.serial {
            tiles.div_ceil(256)
        } else {
            tiles
        }
    }

    /// Metadata: [0] tiles in all, [1] row length, [2] tiles per row, [3] the digit's shift.
    fn meta(&self, shift: u32) -> Vec<u32> {
        let tiles = Self::tiles(self.serial, self.n);
        vec![
            (self.rows * tiles) as u32,
            self.n as u32,
            tiles as u32,
            shift,
        ]
    }

    /// The bindings, constants and `ord` common to both kernels; `keys` first.
    fn header(&self, t: &Target) -> (String, u32) {
        let mut src = String::from("@group(0) @binding(0) var<storage, read> md: array<u32>;\n");
        let mut binding = 1;
        declare(
            &mut src,
            &mut binding,
            "keys",
            "u32",
            4,
            self.windows,
            false,
            t,
        );
        let tile = if self.serial { SERIAL_TILE } else { TILE };
        let _ = writeln!(
            src,
            "const TILE: u32 = {tile}u;\nconst ITEMS: u32 = {ITEMS}u;\n{}",
            ord_function(key_dtype(self.dtype))
        );
        (src, binding)
    }

    /// The first lines of `main`: which tile this thread (serial) or workgroup works on.
    /// `count` is how many keys it owns, from `at` in the whole buffer (`start` in the row).
    fn tile_of(&self) -> &'static str {
        if self.serial {
            "    let g = (wg.y * nwg.x + wg.x) * 256u + li;
    if (g >= md[0]) { return; }
    let n = md[1];
    let tiles = md[2];
    let shift = md[3];
    let row = g / tiles;
    let tile = g - row * tiles;
    let start = tile * TILE;
    let count = min(n - start, TILE);
    let at = row * n + start;
"
        } else {
            // Barriers follow: no thread returns early.
            "    let g = wg.y * nwg.x + wg.x;
    let live = g < md[0];
    let n = md[1];
    let tiles = md[2];
    let shift = md[3];
    let row = g / tiles;
    let tile = g - row * tiles;
    let start = min(tile * TILE + li * ITEMS, n);
    let count = select(0u, min(n - start, ITEMS), live);
    let at = row * n + start;
"
        }
    }

    /// A pass's counts: how many keys of each tile have each digit at `shift`, to
    /// `counts[(row * 16 + digit) * tiles + tile]`.
    pub(crate) fn count(&self, shift: u32, t: &Target) -> Generated {
        let (mut src, mut binding) = self.header(t);
        declare(
            &mut src,
            &mut binding,
            "counts",
            "u32",
            4,
            self.count_windows,
            true,
            t,
        );
        let tile_of = self.tile_of();
        if self.serial {
            let _ = write!(
                src,
                r#"{SERIAL_COUNTS}@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {{
{tile_of}    var lo = vec4<u32>(0u);
    var hi = vec4<u32>(0u);
    for (var i = 0u; i < count; i++) {{
        let d = (ord(keys(at + i)) >> shift) & 15u;
        let one = one16(d);
        if (d < 8u) {{ lo += one; }} else {{ hi += one; }}
    }}
    for (var d = 0u; d < 16u; d++) {{
        counts_st((row * 16u + d) * tiles + tile, count16(lo, hi, d));
    }}
}}
"#
            );
        } else {
            let _ = write!(
                src,
                r#"{DIGIT_COUNTS}var<workgroup> hist: array<atomic<u32>, 16>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {{
{tile_of}    if (li < 16u) {{ atomicStore(&hist[li], 0u); }}
    workgroupBarrier();
    var c = vec4<u32>(0u);
    for (var i = 0u; i < count; i++) {{
        c += digit_one((ord(keys(at + i)) >> shift) & 15u);
    }}
    for (var d = 0u; d < 16u; d++) {{
        let m = digit_count(c, d);
        if (m != 0u) {{ atomicAdd(&hist[d], m); }}
    }}
    workgroupBarrier();
    if (live && li < 16u) {{
        counts_st((row * 16u + li) * tiles + tile, atomicLoad(&hist[li]));
    }}
}}
"#
            );
        }
        Generated {
            body: src,
            uses_f16: false,
            meta: self.meta(shift),
        }
    }

    /// A pass's scatter: every key of a tile (and its position, with `positions`) moved
    /// to its slot for the digit at `shift`. A key's slot is where the row's earlier tiles'
    /// keys of that digit end (the inclusive `scanned` counts less the tile's own
    /// `counts`), plus the tile's earlier keys of that digit. Positions are read from `pos`
    /// or, in the first pass (`first`), are the keys' columns.
    pub(crate) fn scatter(
        &self,
        shift: u32,
        positions: bool,
        first: bool,
        t: &Target,
    ) -> Generated {
        let (mut src, mut binding) = self.header(t);
        let (w, cw) = (self.windows, self.count_windows);
        if positions && !first {
            declare(&mut src, &mut binding, "pos", "u32", 4, w, false, t);
        }
        declare(&mut src, &mut binding, "counts", "u32", 4, cw, false, t);
        declare(&mut src, &mut binding, "scanned", "u32", 4, cw, false, t);
        declare(&mut src, &mut binding, "keys_out", "u32", 4, w, true, t);
        if positions {
            declare(&mut src, &mut binding, "pos_out", "u32", 4, w, true, t);
        }
        let store_pos = match (positions, first) {
            (false, _) => "",
            (true, true) => "pos_out_st(dst, start + i);",
            (true, false) => "pos_out_st(dst, pos(at + i));",
        };
        let tile_of = self.tile_of();
        if self.serial {
            let _ = write!(
                src,
                r#"@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {{
{tile_of}    // Each digit's next slot, four digits to a vec4 (no array indexed by a digit,
    // which a software adapter turns into a loop over its SIMD lanes).
    var s: array<vec4<u32>, 4>;
    for (var q = 0u; q < 4u; q++) {{
        for (var r = 0u; r < 4u; r++) {{
            let e = (row * 16u + q * 4u + r) * tiles + tile;
            s[q][r] = row * n + scanned(e) - counts(e);
        }}
    }}
    var s0 = s[0];
    var s1 = s[1];
    var s2 = s[2];
    var s3 = s[3];
    for (var i = 0u; i < count; i++) {{
        let key = keys(at + i);
        let d = (ord(key) >> shift) & 15u;
        let inc = select(vec4<u32>(0u), vec4<u32>(1u), vec4<u32>(0u, 1u, 2u, 3u) == vec4<u32>(d & 3u));
        var dst = 0u;
        switch d >> 2u {{
            case 0u: {{ dst = s0[d & 3u]; s0 += inc; }}
            case 1u: {{ dst = s1[d & 3u]; s1 += inc; }}
            case 2u: {{ dst = s2[d & 3u]; s2 += inc; }}
            default: {{ dst = s3[d & 3u]; s3 += inc; }}
        }}
        keys_out_st(dst, key);
        {store_pos}
    }}
}}
"#
            );
        } else {
            let _ = write!(
                src,
                r#"{DIGIT_COUNTS}// Thread t's count of digits 2j and 2j + 1 (16 bits each) at [j * 256 + t].
var<workgroup> table: array<u32, 2048>;
var<workgroup> seg: array<u32, 256>;
var<workgroup> base: array<u32, 16>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {{
{tile_of}    var c = vec4<u32>(0u);
    for (var i = 0u; i < count; i++) {{
        c += digit_one((ord(keys(at + i)) >> shift) & 15u);
    }}
    for (var j = 0u; j < 8u; j++) {{
        table[j * 256u + li] = digit_count(c, 2u * j) | (digit_count(c, 2u * j + 1u) << 16u);
    }}
    c = vec4<u32>(0u);
    if (live && li < 16u) {{
        let e = (row * 16u + li) * tiles + tile;
        base[li] = row * n + scanned(e) - counts(e);
    }}
    workgroupBarrier();
    // An exclusive scan of each of the table's 8 rows (both halves at once: a tile's count
    // of one digit is at most TILE, below 2^16): 32 threads a row scan 8 words each, then
    // one thread a row scans the 32 segments' totals.
    let o = (li >> 5u) * 256u + (li & 31u) * 8u;
    var sum = 0u;
    for (var j = 0u; j < 8u; j++) {{
        let v = table[o + j];
        table[o + j] = sum;
        sum += v;
    }}
    seg[li] = sum;
    workgroupBarrier();
    if (li < 8u) {{
        var acc = 0u;
        for (var j = 0u; j < 32u; j++) {{
            let v = seg[li * 32u + j];
            seg[li * 32u + j] = acc;
            acc += v;
        }}
    }}
    workgroupBarrier();
    // The keys again (now from cache), each to its slot: the tile's earlier keys of its
    // digit are the earlier threads' (its table entry and segment) and this thread's.
    for (var i = 0u; i < count; i++) {{
        let key = keys(at + i);
        let d = (ord(key) >> shift) & 15u;
        let e = (d >> 1u) * 256u + li;
        let earlier = ((table[e] + seg[e >> 3u]) >> ((d & 1u) * 16u)) & 0xffffu;
        let dst = base[d] + earlier + digit_count(c, d);
        c += digit_one(d);
        keys_out_st(dst, key);
        {store_pos}
    }}
}}
"#
            );
        }
        Generated {
            body: src,
            uses_f16: false,
            meta: self.meta(shift),
        }
    }
}

/// A workgroup thread's counts of the 16 digits, 8 bits each (ITEMS < 256) four to a word
/// of a `vec4`: counted and read without indexing an array by a per-thread digit.
const DIGIT_COUNTS: &str = "fn digit_one(d: u32) -> vec4<u32> {
    return select(vec4<u32>(0u), vec4<u32>(1u << ((d & 3u) * 8u)), vec4<u32>(0u, 1u, 2u, 3u) == vec4<u32>(d >> 2u));
}
fn digit_count(c: vec4<u32>, d: u32) -> u32 {
    return (c[d >> 2u] >> ((d & 3u) * 8u)) & 0xffu;
}
";

/// A serial thread's counts of the 16 digits, 16 bits each (SERIAL_TILE < 2^16), in two
/// `vec4`s (digits 0-7 and 8-15).
const SERIAL_COUNTS: &str = "fn one16(d: u32) -> vec4<u32> {
    return select(vec4<u32>(0u), vec4<u32>(1u << ((d & 1u) * 16u)), vec4<u32>(0u, 1u, 2u, 3u) == vec4<u32>((d >> 1u) & 3u));
}
fn count16(lo: vec4<u32>, hi: vec4<u32>, d: u32) -> u32 {
    let w = select(lo, hi, d >= 8u)[(d >> 1u) & 3u];
    return (w >> ((d & 1u) * 16u)) & 0xffffu;
}
";

/// One stage `(j, k)` over `rows` rows of `p` padded keys, `n` of them real, with the keys
/// and positions each bound as `windows` windows (arrays past one binding).
#[allow(clippy::too_many_arguments)]
pub(crate) fn stage(
    key: DType,
    rows: u64,
    p: u64,
    n: u64,
    j: u64,
    k: u64,
    windows: u64,
    t: &Target,
) -> Generated {
    // Keys travel as their bits and compare by `ord`, the radix passes' order: a float
    // comparison would read subnormals as zeros on adapters that flush them (NVIDIA), so
    // short rows would order them apart from long ones.
    debug_assert_eq!(key.words(), 1, "sort keys are one word");
    let ord = ord_function(key);
    let mut decls = String::new();
    let mut binding = 1;
    // Each buffer is read and written through its own windows: one read_write binding
    // per window, loaded by `keys(u)`/`pos(u)` and stored by `keys_st`/`pos_st`.
    declare_read_write(&mut decls, &mut binding, "keys", "u32", windows, t);
    declare_read_write(&mut decls, &mut binding, "pos", "u32", windows, t);
    let body = format!(
        r#"@group(0) @binding(0) var<storage, read> md: array<u32>;
{decls}{ord}// Whether (ka, ia) sorts strictly before (kb, ib).
fn before(ka: u32, ia: u32, kb: u32, ib: u32) -> bool {{
    let n = md[1];
    if (ia >= n) {{ return false; }}
    if (ib >= n) {{ return true; }}
    let oa = ord(ka);
    let ob = ord(kb);
    if (oa != ob) {{ return oa < ob; }}
    return ia < ib;
}}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {{
    let t = (wg.y * nwg.x + wg.x) * 256u + li;
    if (t >= md[0]) {{ return; }}
    let p = md[2];
    let j = md[3];
    let k = md[4];
    let row = t / p;
    let i = t - row * p;
    let l = i ^ j;
    if (l <= i) {{ return; }}
    let a = row * p + i;
    let b = row * p + l;
    let ka = keys(a);
    let kb = keys(b);
    let ia = pos(a);
    let ib = pos(b);
    let ascending = (i & k) == 0u;
    var swap = false;
    if (ascending) {{ swap = before(kb, ib, ka, ia); }} else {{ swap = before(ka, ia, kb, ib); }}
    if (swap) {{
        keys_st(a, kb);
        keys_st(b, ka);
        pos_st(a, ib);
        pos_st(b, ia);
    }}
}}
"#
    );
    Generated {
        body,
        uses_f16: false,
        meta: vec![(rows * p) as u32, n as u32, p as u32, j as u32, k as u32],
    }
}

/// Declares `name` as `windows` read-write windows with a load `name(u)` and a store
/// `name_st(u, v)`: the generator's store declarations, plus the load function of its
/// read declarations (whose own `read` bindings are dropped: the same names are bound
/// read-write).
fn declare_read_write(
    src: &mut String,
    binding: &mut u32,
    name: &str,
    ty: &str,
    windows: u64,
    t: &Target,
) {
    let first = *binding;
    declare(src, binding, name, ty, 4, windows, true, t);
    let mut load = String::new();
    let mut b = first;
    declare(&mut load, &mut b, name, ty, 4, windows, false, t);
    for line in load.lines().filter(|l| !l.starts_with("@group")) {
        src.push_str(line);
        src.push('\n');
    }
}
