//! Sorts: bitonic stages for short rows, a radix sort for long ones, rows too long for
//! one kernel's bindings in ranked runs; `top_k` as a sort of a descending key.

use std::sync::Arc;

use super::cache::{memo, out_bytes};
use super::cumulative::cumulative_rows;
use super::windows::{
    as_out, bind_windows, check_bindings, check_u32_elements, contiguous, max_bindings, place,
    placeable, target,
};
use crate::array::Array;
use crate::codegen;
use crate::dtype::DType;
use crate::error::Result;
use crate::lax::Fusion;
use crate::primitive::Primitive;
use crate::runtime::{BufferKind, Device};
use crate::shape::{Aval, Layout};

/// `top_k` as a stable ascending argsort of a key that orders the values descending, then
/// the first `k` positions of each row and a gather of their values. Rows along another
/// axis than the last are read through a transposed view and given back transposed.
pub(crate) fn top_k(
    dev: &Device,
    x: &Array,
    k: usize,
    axis: usize,
    outs: &[Aval],
) -> Result<Vec<Array>> {
    let r = x.ndim();
    let last = r - 1;
    if axis != last {
        let mut perm: Vec<usize> = (0..r).filter(|&d| d != axis).collect();
        perm.push(axis);
        let mut inverse = vec![0; r];
        for (i, &p) in perm.iter().enumerate() {
            inverse[p] = i;
        }
        let rows = crate::lax::transpose(x, &perm)?;
        return top_k(dev, &rows, k, last, outs)?
            .iter()
            .map(|a| crate::lax::transpose(a, &inverse))
            .collect();
    }
    // Floats are read as the unsigned integers of their storage (a view of the same
    // buffer): a kernel that loads a float16 natively converts it, and a conversion quiets
    // signalling NaNs, which JAX returns as they are.
    let raw = match x.dtype() {
        DType::Float32 => Some(DType::UInt32),
        DType::Float16 | DType::BFloat16 => Some(DType::UInt16),
        _ => None,
    }
    .map(|u| reinterpret(x, u));
    let key = top_k_key(dev, x.dtype(), raw.as_ref().unwrap_or(x))?;
    let perm = crate::lax::sort(&key, true)?;
    let mut limit = x.shape().to_vec();
    limit[last] = k;
    let indices = crate::lax::slice(&perm, &vec![0; r], &limit, None)?;
    let mut values = crate::lax::gather(raw.as_ref().unwrap_or(x), &indices, last)?;
    if x.dtype() == DType::BFloat16 && values.size() > 0 {
        // XLA's CPU comparator converts bfloat16 through float32 and back, so the NaNs it
        // returns are quiet NaNs of their sign; JAX's answers carry that.
        let mut f = Fusion::new(values.shape());
        let v = f.input(&values);
        let bits = f.push(to_u32(), &[v])?;
        let canonical = quiet_bf16_nan(&mut f, bits)?;
        f.push(
            Primitive::ConvertElementType {
                dtype: DType::UInt16,
                weak: false,
            },
            &[canonical],
        )?;
        values = f.run(dev)?;
    }
    if raw.is_some() {
        values = reinterpret(&values, x.dtype());
    }
    Ok(vec![values.with_weak(outs[0].weak), indices])
}

/// `x`'s storage read as `dtype`, of the same width (a view of the same buffer).
pub(super) fn reinterpret(x: &Array, dtype: DType) -> Array {
    x.with_layout(
        x.layout().clone(),
        Aval::new(x.shape().to_vec(), dtype, false),
    )
}

/// The conversion of unsigned integers to uint32.
pub(super) fn to_u32() -> Primitive {
    Primitive::ConvertElementType {
        dtype: DType::UInt32,
        weak: false,
    }
}

/// bfloat16 bits (in a uint32) with every NaN made the quiet NaN of its sign.
pub(super) fn quiet_bf16_nan(f: &mut crate::lax::Fusion, bits: usize) -> Result<usize> {
    use crate::primitive::{BinaryOp, CompareOp, Literal};
    let sign = f.constant(Literal::U32(0x8000))?;
    let magnitude = f.constant(Literal::U32(0x7fff))?;
    let inf = f.constant(Literal::U32(0x7f80))?;
    let quiet = f.constant(Literal::U32(0x7fc0))?;
    let s = f.push(Primitive::Binary(BinaryOp::And), &[bits, sign])?;
    let m = f.push(Primitive::Binary(BinaryOp::And), &[bits, magnitude])?;
    let nan = f.push(Primitive::Compare(CompareOp::Gt), &[m, inf])?;
    let canonical = f.push(Primitive::Binary(BinaryOp::Or), &[s, quiet])?;
    f.push(Primitive::Select, &[nan, canonical, bits])
}

/// A key whose stable ascending sort orders values of dtype `d` descending, as XLA's
/// `top_k` does, from `x`: the values, or for floats their storage bits as unsigned
/// integers. Floats order by IEEE's total order (NaN above +inf, -NaN below -inf, -0.0
/// below 0.0, NaNs by payload): a negative float's bits as they are (larger bits are
/// smaller values), a positive one's with every bit below the sign flipped. Integers are
/// complemented, which reverses their order; bool counts as 0 and 1. One fused kernel.
pub(super) fn top_k_key(dev: &Device, d: DType, x: &Array) -> Result<Array> {
    use crate::primitive::{BinaryOp, CompareOp, Literal, UnaryOp};
    let mut f = Fusion::new(x.shape());
    let v = f.input(x);
    if d.is_floating() {
        let mut bits = f.push(to_u32(), &[v])?;
        if d == DType::BFloat16 {
            // NaNs of one sign are equal there (see `top_k`).
            bits = quiet_bf16_nan(&mut f, bits)?;
        }
        let sign_bit = if d == DType::Float32 {
            1u32 << 31
        } else {
            1 << 15
        };
        let sign = f.constant(Literal::U32(sign_bit))?;
        let negative = f.push(Primitive::Compare(CompareOp::Ge), &[bits, sign])?;
        let mask = f.constant(Literal::U32(sign_bit - 1))?;
        let flipped = f.push(Primitive::Binary(BinaryOp::Xor), &[bits, mask])?;
        f.push(Primitive::Select, &[negative, bits, flipped])?;
    } else {
        let v = if d == DType::Bool {
            f.push(
                Primitive::ConvertElementType {
                    dtype: DType::Int32,
                    weak: false,
                },
                &[v],
            )?
        } else {
            v
        };
        f.push(Primitive::Unary(UnaryOp::Not), &[v])?;
    }
    f.run(dev)
}

/// Rows at least this long are radix sorted, shorter ones by the bitonic network, whose
/// few stages then cost less than the radix passes' dispatches. The workgroup kernels'
/// tile is 4096 keys, so they start later than the serial ones (1024-key tiles).
pub(super) const RADIX_FROM_SERIAL: usize = 128;
pub(super) const RADIX_FROM: usize = 1024;

/// Sorts along the last dimension: long rows by radix passes ([`radix_sort`]) where their
/// bindings fit, others by the bitonic network: keys padded to a power of two with their
/// positions, the stages in place, then a view of the first `n` columns.
pub(crate) fn sort(dev: &Device, x: &Array, indices: bool, out: Aval) -> Result<Array> {
    use crate::codegen::sort::{key_dtype, stage};
    use crate::primitive::Literal;
    let r = x.ndim();
    let n = x.shape()[r - 1];
    let rows: usize = x.shape()[..r - 1].iter().product();
    if out.size() == 0 {
        return crate::lax::full(&out.shape, Literal::I32(0).cast(out.dtype), Some(dev));
    }
    let serial = dev.0.info.profile == crate::runtime::KernelProfile::Cpu;
    if n >= if serial {
        RADIX_FROM_SERIAL
    } else {
        RADIX_FROM
    } {
        if let Some(sorted) = radix_sort(dev, x, indices, (rows, n), serial, &out)? {
            return Ok(sorted);
        }
    }
    let p = n.next_power_of_two();
    let kd = key_dtype(x.dtype());
    let target = target(dev);
    // Keys and positions past one binding are bound as several windows each.
    let windows = |rows: usize| codegen::windows_for((rows * p) as u64 * 4, &target);
    // Too many for one kernel's bindings (wgpu's GL backend binds 16 of 128 MiB): runs of
    // rows, each copied out, sorted by itself and copied into place (odd-length float16
    // rows in pairs, as copies move whole words).
    let mut per = rows;
    while per > 1 && 2 * windows(per) > max_bindings(dev) {
        per /= 2;
    }
    if !placeable(out.dtype, 0, per * n, rows * n) {
        per &= !1;
    }
    if rows == 1 && 2 * windows(1) > max_bindings(dev) {
        return sort_long_row(dev, x, indices, n, &out);
    }
    if per < rows && per > 0 && 2 * windows(per) <= max_bindings(dev) {
        let x2 = crate::lax::reshape(x, &[rows, n])?;
        let eb = out.dtype.storage_bytes() as u64;
        let storage = dev.alloc(
            BufferKind::Storage,
            out_bytes(&out),
            "sort",
            &out.shape,
            out.dtype,
        )?;
        for r0 in (0..rows).step_by(per) {
            let r1 = (r0 + per).min(rows);
            let part = crate::lax::copy(&crate::lax::slice(&x2, &[r0, 0], &[r1, n], None)?)?;
            let aval = Aval::new(vec![r1 - r0, n], out.dtype, out.weak);
            place(
                dev,
                &sort(dev, &part, indices, aval)?,
                &storage,
                (r0 * n) as u64 * eb,
            )?;
        }
        return Ok(Array::from_storage(
            dev.clone(),
            storage,
            Layout::contiguous(&out.shape),
            out,
        ));
    }
    let keys = sort_keys(x, rows, n)?;
    // Fresh buffers the stages may overwrite (padding values are never compared: positions
    // past `n` sort last).
    let keys = crate::lax::pad(&keys, &[0, 0], &[0, p - n], Some(Literal::I32(0).cast(kd)))?;
    let pos = crate::lax::iota(crate::dtype::DType::UInt32, &[rows, p], 1, Some(dev))?;
    let inner = &dev.0;
    let total = (rows * p) as u64;
    check_u32_elements("sort", rows * p, &out)?;
    let windows = windows(rows);
    check_bindings(dev, "sort", 2 * windows, total * 4, &out)?;
    let bindings = bind_windows(
        [(keys.storage()?, windows), (pos.storage()?, windows)],
        target.window_bytes,
    );
    let groups = total.div_ceil(codegen::WORKGROUP);
    let mut k = 2u64;
    while k <= p as u64 {
        let mut j = k / 2;
        while j >= 1 {
            let sizes = (rows as u64, p as u64, n as u64, j, k);
            let (kernel, meta) = memo(dev, ("sort_stage", kd, sizes, windows), || {
                let (rows, p, n, j, k) = sizes;
                let g = stage(kd, rows, p, n, j, k, windows, &target);
                let kernel = inner.kernel(&g.body, || g.source())?;
                Ok((kernel, Arc::<[u32]>::from(g.meta)))
            })?;
            inner.dispatch(&kernel, &bindings, &meta, groups)?;
            j /= 2;
        }
        k *= 2;
    }
    let src = if indices { &pos } else { &keys };
    let cols = crate::lax::slice(src, &[0, 0], &[rows, n], None)?;
    as_out(crate::lax::reshape(&cols, &out.shape)?, &out)
}

/// Sorts one row too long for the sort kernels' bindings (wgpu's GL backend binds 16
/// windows of 128 MiB, so rows past 2^28 keys): runs of the row sorted by themselves, then
/// each key's place in the whole found by binary searches of the other runs (counting the
/// equal keys of earlier runs before it, keeping the sort stable) and the keys or their
/// positions scattered there.
pub(super) fn sort_long_row(
    dev: &Device,
    x: &Array,
    indices: bool,
    n: usize,
    out: &Aval,
) -> Result<Array> {
    use crate::lax;
    use crate::primitive::{BinaryOp, CompareOp, Literal};
    let t = target(dev);
    let fits = |c: usize| {
        2 * codegen::windows_for(c.next_power_of_two() as u64 * 4, &t) <= max_bindings(dev)
    };
    let mut run = n.next_power_of_two() / 2;
    while run > 1 && !fits(run) {
        run /= 2;
    }
    let keys = sort_keys(x, 1, n)?;
    let kd = keys.dtype();
    let u32s = |v: u32, shape: &[usize]| lax::full(shape, Literal::U32(v), Some(dev));
    let i32s = |v: usize, shape: &[usize]| lax::full(shape, Literal::I32(v as i32), Some(dev));
    // Sorted keys as unsigned words in the sort's order (every NaN last, -0.0 as 0.0).
    let ordered = |k: &Array| -> Result<Array> {
        let shape = k.shape().to_vec();
        let bits = lax::bitcast_convert_type(k, DType::UInt32)?;
        let sign = u32s(0x8000_0000, &shape)?;
        match kd {
            DType::Float32 => {
                let negative = lax::compare(CompareOp::Ge, &bits, &sign)?;
                let flipped = lax::unary(crate::primitive::UnaryOp::Not, &bits)?;
                let raised = lax::binary(BinaryOp::Or, &bits, &sign)?;
                let mut w = lax::select(&negative, &flipped, &raised)?;
                let zero = lax::compare(CompareOp::Eq, &bits, &sign)?;
                w = lax::select(&zero, &sign, &w)?;
                let nan = lax::compare(CompareOp::Ne, k, k)?;
                lax::select(&nan, &u32s(u32::MAX, &shape)?, &w)
            }
            DType::Int32 => lax::binary(BinaryOp::Xor, &bits, &sign),
            _ => Ok(bits),
        }
    };
    let starts: Vec<usize> = (0..n).step_by(run).collect();
    let mut sorted = Vec::new();
    for &c0 in &starts {
        let c1 = (c0 + run).min(n);
        let part = lax::copy(&lax::slice(&keys, &[0, c0], &[1, c1], None)?)?;
        let values = sort(dev, &part, false, Aval::new(vec![1, c1 - c0], kd, false))?;
        let values = lax::reshape(&contiguous(&values)?, &[c1 - c0])?;
        let positions = if indices {
            let p = sort(
                dev,
                &part,
                true,
                Aval::new(vec![1, c1 - c0], DType::Int32, false),
            )?;
            let p = lax::reshape(&contiguous(&p)?, &[c1 - c0])?;
            Some(lax::binary(BinaryOp::Add, &p, &i32s(c0, &[c1 - c0])?)?)
        } else {
            None
        };
        sorted.push((ordered(&values)?, values, positions));
    }
    // How many of the sorted `words` come before each of `query`: those below it, and
    // those equal to it when `equal`.
    let count = |words: &Array, query: &Array, equal: bool| -> Result<Array> {
        let len = words.size();
        let shape = query.shape().to_vec();
        let (mut low, mut high) = (i32s(0, &shape)?, i32s(len, &shape)?);
        let one = i32s(1, &shape)?;
        for _ in 0..(usize::BITS - len.leading_zeros()) {
            let mid = lax::binary(BinaryOp::ShiftRight, &lax::add(&low, &high)?, &one)?;
            let at = lax::gather(words, &mid, 0)?;
            // Go left while the query comes before words[mid].
            let op = if equal { CompareOp::Lt } else { CompareOp::Le };
            let left = lax::compare(op, query, &at)?;
            low = lax::select(&left, &low, &lax::add(&mid, &one)?)?;
            high = lax::select(&left, &mid, &high)?;
        }
        Ok(high)
    };
    let (dtype, fill) = if indices {
        (DType::Int32, Literal::I32(0))
    } else {
        (kd, Literal::I32(0).cast(kd))
    };
    let mut result = lax::full(&[n], fill, Some(dev))?;
    for (j, (words, values, positions)) in sorted.iter().enumerate() {
        let len = values.size();
        let mut rank = lax::iota(DType::Int32, &[len], 0, Some(dev))?;
        for (i, (other, ..)) in sorted.iter().enumerate() {
            if i != j {
                rank = lax::add(&rank, &count(other, words, i < j)?)?;
            }
        }
        let updates = positions.as_ref().unwrap_or(values);
        result = lax::scatter(&result, &rank, updates, crate::primitive::ScatterMode::Set)?;
    }
    debug_assert_eq!(result.dtype(), dtype);
    as_out(lax::reshape(&result, &out.shape)?, out)
}

/// `x` as `[rows, n]` keys of the type the sort kernels compare
/// ([`crate::codegen::sort::key_dtype`]).
pub(super) fn sort_keys(x: &Array, rows: usize, n: usize) -> Result<Array> {
    let kd = crate::codegen::sort::key_dtype(x.dtype());
    let keys = crate::lax::reshape(x, &[rows, n])?;
    if kd == x.dtype() {
        Ok(keys)
    } else {
        crate::lax::convert_element_type(&keys, kd)
    }
}

/// The radix sort of the `[rows, n]` rows of `x` (see [`crate::codegen::sort`]): keys as
/// contiguous words, then per digit a count, a scan of the counts and a scatter into a
/// second pair of buffers, alternating. `None` where its bindings exceed the device's
/// (the bitonic network binds fewer).
pub(super) fn radix_sort(
    dev: &Device,
    x: &Array,
    indices: bool,
    (rows, n): (usize, usize),
    serial: bool,
    out: &Aval,
) -> Result<Option<Array>> {
    use crate::codegen::sort::{key_dtype, Radix};
    use crate::runtime::Storage;
    check_u32_elements("sort", rows * n, out)?;
    let t = target(dev);
    let bytes = (rows * n) as u64 * 4;
    let count_len = Radix::count_len(serial, rows as u64, n as u64);
    let radix = Radix {
        dtype: x.dtype(),
        rows: rows as u64,
        n: n as u64,
        serial,
        windows: codegen::windows_for(bytes, &t),
        count_windows: codegen::windows_for(count_len * 4, &t),
    };
    let (windows, count_windows) = (radix.windows, radix.count_windows);
    let arrays = if indices { 4 } else { 2 };
    if arrays * windows + 2 * count_windows > max_bindings(dev) {
        return Ok(None);
    }
    let kd = key_dtype(x.dtype());
    let keys = sort_keys(x, rows, n)?;
    let l = keys.layout();
    let keys = if l.is_contiguous() && l.offset == 0 {
        keys
    } else {
        crate::lax::copy(&keys)?
    };
    let inner = &dev.0;
    let alloc = |bytes: u64| dev.alloc(BufferKind::Storage, bytes, "sort", &out.shape, out.dtype);
    let counts = alloc(count_len * 4)?;
    let count_shape = [rows, count_len as usize / rows];
    let counts_array = Array::from_storage(
        dev.clone(),
        counts.clone(),
        Layout::contiguous(&count_shape),
        Aval::new(count_shape.to_vec(), DType::UInt32, false),
    );
    // The keys and positions being read, and the buffers a pass writes (the input's own
    // buffer is never written).
    let mut cur_keys = keys.storage()?.clone();
    let mut cur_pos: Option<Arc<Storage>> = None;
    let mut spare: Option<(Arc<Storage>, Option<Arc<Storage>>)> = None;
    let groups = radix.groups();
    for (pass, shift) in radix.shifts().enumerate() {
        let first = pass == 0;
        let (kernel, meta) = memo(dev, ("radix_count", radix.clone(), shift), || {
            let g = radix.count(shift, &t);
            let kernel = inner.kernel(&g.body, || g.source())?;
            Ok((kernel, Arc::<[u32]>::from(g.meta)))
        })?;
        let bindings = bind_windows(
            [(&cur_keys, windows), (&counts, count_windows)],
            t.window_bytes,
        );
        inner.dispatch(&kernel, &bindings, &meta, groups)?;
        let scanned = cumulative_rows(
            dev,
            (crate::primitive::CumulativeOp::Sum, false),
            &counts_array,
            (count_shape[0] as u64, count_shape[1] as u64),
            DType::UInt32,
            out,
        )?;
        let (out_keys, out_pos) = match spare.take() {
            Some(s) => s,
            None => (
                alloc(bytes)?,
                if indices { Some(alloc(bytes)?) } else { None },
            ),
        };
        let key = ("radix_scatter", radix.clone(), (shift, indices, first));
        let (kernel, meta) = memo(dev, key, || {
            let g = radix.scatter(shift, indices, first, &t);
            let kernel = inner.kernel(&g.body, || g.source())?;
            Ok((kernel, Arc::<[u32]>::from(g.meta)))
        })?;
        let mut buffers = vec![(&cur_keys, windows)];
        if let Some(p) = &cur_pos {
            buffers.push((p, windows));
        }
        buffers.push((&counts, count_windows));
        buffers.push((scanned.storage()?, count_windows));
        buffers.push((&out_keys, windows));
        if let Some(p) = &out_pos {
            buffers.push((p, windows));
        }
        let bindings = bind_windows(buffers, t.window_bytes);
        inner.dispatch(&kernel, &bindings, &meta, groups)?;
        let read_keys = std::mem::replace(&mut cur_keys, out_keys);
        let read_pos = std::mem::replace(&mut cur_pos, out_pos);
        if !first {
            spare = Some((read_keys, read_pos));
        }
    }
    let shape = [rows, n];
    // Positions are below 2^31 (a row of 2^31 keys would need 8 GiB), so their words are
    // the int32 result's.
    let (storage, dtype) = match cur_pos {
        Some(p) => (p, DType::Int32),
        None => (cur_keys, kd),
    };
    let sorted = Array::from_storage(
        dev.clone(),
        storage,
        Layout::contiguous(&shape),
        Aval::new(shape.to_vec(), dtype, false),
    );
    Ok(Some(as_out(
        crate::lax::reshape(&sorted, &out.shape)?,
        out,
    )?))
}
