//! The sort kernel: one compare-exchange stage of a bitonic sorting network over rows of
//! `[rows, p]` keys (p a power of two) with their original positions. Keys compare by
//! value with NaN last, ties by position, and positions past the row's real length are
//! padding that sorts after everything — so the network's result equals a stable sort.
//! A sort of rows of length p runs log2(p)·(log2(p)+1)/2 stages.

use super::{declare, Generated, Target};
use crate::dtype::DType;

/// The WGSL type keys of `dtype` are sorted as (float16 as float32, bool as uint32).
pub(crate) fn key_dtype(d: DType) -> DType {
    match d {
        DType::Float16 => DType::Float32,
        DType::Bool => DType::UInt32,
        d => d,
    }
}

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
    let (ty, nan) = match key {
        DType::Float32 => ("f32", "(bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u"),
        DType::Int32 => ("i32", "false"),
        _ => ("u32", "false"),
    };
    let mut decls = String::new();
    let mut binding = 1;
    // Each buffer is read and written through its own windows: one read_write binding
    // per window, loaded by `keys(u)`/`pos(u)` and stored by `keys_st`/`pos_st`.
    declare_read_write(&mut decls, &mut binding, "keys", ty, windows, t);
    declare_read_write(&mut decls, &mut binding, "pos", "u32", windows, t);
    let body = format!(
        r#"@group(0) @binding(0) var<storage, read> md: array<u32>;
{decls}fn key_is_nan(x: {ty}) -> bool {{
    return {nan};
}}
// Whether (ka, ia) sorts strictly before (kb, ib).
fn before(ka: {ty}, ia: u32, kb: {ty}, ib: u32) -> bool {{
    let n = md[1];
    if (ia >= n) {{ return false; }}
    if (ib >= n) {{ return true; }}
    let na = key_is_nan(ka);
    let nb = key_is_nan(kb);
    if (na != nb) {{ return nb; }}
    if (!na) {{
        if (ka < kb) {{ return true; }}
        if (kb < ka) {{ return false; }}
    }}
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
