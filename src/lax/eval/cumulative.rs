//! Cumulative sums and products: the chunked kernels of `codegen::cumulative`, rows in
//! blocks where one kernel cannot bind them.

use super::windows::{
    as_out, bind_windows, check_bindings, check_u32_elements, input_windows, max_bindings, place,
    target,
};
use crate::array::Array;
use crate::codegen;
use crate::dtype::DType;
use crate::error::Result;
use crate::runtime::{BufferKind, Device};
use crate::shape::{Aval, Layout};

/// A cumulative sum or product along `axis`: the axis moved last in a contiguous copy (if
/// it is not already), float16 widened to float32, then the scan kernels.
pub(crate) fn cumulative(
    dev: &Device,
    op: crate::primitive::CumulativeOp,
    axis: usize,
    reverse: bool,
    x: &Array,
    out: Aval,
) -> Result<Array> {
    use crate::primitive::Literal;
    if out.size() == 0 {
        return crate::lax::full(&out.shape, Literal::I32(0).cast(out.dtype), Some(dev));
    }
    let r = x.ndim();
    let mut perm: Vec<usize> = (0..r).filter(|&d| d != axis).collect();
    perm.push(axis);
    let moved = crate::lax::transpose(x, &perm)?;
    // float16 and bfloat16 are scanned as float32 values rounded after every operation.
    let round = x.dtype();
    let wide = if matches!(round, DType::Float16 | DType::BFloat16) {
        crate::lax::convert_element_type(&moved, DType::Float32)?
    } else {
        moved
    };
    let l = wide.layout();
    let wide = if l.is_contiguous() && l.offset == 0 {
        wide
    } else {
        crate::lax::copy(&wide)?
    };
    let n = x.shape()[axis];
    let rows = out.size() / n;
    let name = op.name();
    check_u32_elements(name, out.size(), &out)?;
    let scanned = match cumulative_in_blocks(dev, (op, reverse), &wide, (rows, n), round, &out)? {
        Some(s) => s,
        None => cumulative_rows(
            dev,
            (op, reverse),
            &wide,
            (rows as u64, n as u64),
            round,
            &out,
        )?,
    };
    let scanned = crate::lax::reshape(&scanned, wide.shape())?;
    let mut inv = vec![0; r];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    let back = crate::lax::transpose(&scanned, &inv)?;
    as_out(back, &out)
}

/// Scans rows of `x` (as [`cumulative_rows`] takes them) whose buffers need more storage bindings
/// than one kernel may have (wgpu's GL backend binds 16 of 128 MiB): runs of rows, each
/// copied out, scanned and copied into place; rows too long for that in runs of columns,
/// each combined with the last value of the run before it (the first of the run after it
/// when `reverse`). `None` where the whole scan fits.
pub(super) fn cumulative_in_blocks(
    dev: &Device,
    (op, reverse): (crate::primitive::CumulativeOp, bool),
    x: &Array,
    (rows, n): (usize, usize),
    round: DType,
    out: &Aval,
) -> Result<Option<Array>> {
    let t = target(dev);
    let max = max_bindings(dev);
    // Input, chunk totals and output (every scanned dtype is 4 bytes), conservatively.
    let need = |r: usize, c: usize| {
        let w = codegen::windows_for(r as u64 * c as u64 * 4, &t);
        let chunks = (c as u64).div_ceil(crate::codegen::cumulative::CHUNK);
        2 * w + codegen::windows_for(r as u64 * chunks * 4, &t)
    };
    let whole = input_windows(dev, x.storage()?, (rows * n) as u64, &t);
    let whole = if whole == codegen::TEXTURE { 0 } else { whole };
    if whole + need(rows, n) - codegen::windows_for((rows * n) as u64 * 4, &t) <= max {
        return Ok(None);
    }
    let x2 = crate::lax::reshape(x, &[rows, n])?;
    let storage = dev.alloc(
        BufferKind::Storage,
        (rows * n) as u64 * 4,
        "cumsum",
        &out.shape,
        out.dtype,
    )?;
    let scan = |r0: usize, r1: usize, c0: usize, c1: usize| -> Result<Array> {
        let part = crate::lax::copy(&crate::lax::slice(&x2, &[r0, c0], &[r1, c1], None)?)?;
        cumulative_rows(
            dev,
            (op, reverse),
            &part,
            ((r1 - r0) as u64, (c1 - c0) as u64),
            round,
            out,
        )
    };
    let mut per = rows;
    while per > 1 && need(per, n) > max {
        per /= 2;
    }
    if need(per, n) <= max {
        for r0 in (0..rows).step_by(per) {
            let r1 = (r0 + per).min(rows);
            place(dev, &scan(r0, r1, 0, n)?, &storage, (r0 * n) as u64 * 4)?;
        }
    } else {
        let mut run = n;
        while run > 1 && need(1, run) > max {
            run /= 2;
        }
        let combine = match op {
            crate::primitive::CumulativeOp::Sum => crate::primitive::BinaryOp::Add,
            crate::primitive::CumulativeOp::Prod => crate::primitive::BinaryOp::Mul,
        };
        let mut starts: Vec<usize> = (0..n).step_by(run).collect();
        if reverse {
            starts.reverse();
        }
        for r in 0..rows {
            let mut carry: Option<Array> = None;
            for &c0 in &starts {
                let c1 = (c0 + run).min(n);
                let mut part = scan(r, r + 1, c0, c1)?;
                if let Some(c) = &carry {
                    let c = crate::lax::broadcast_in_dim(c, &[1, c1 - c0], &[0, 1])?;
                    part = crate::lax::binary(combine, &part, &c)?;
                    if round != part.dtype() {
                        let r = crate::lax::convert_element_type(&part, round)?;
                        part = crate::lax::convert_element_type(&r, part.dtype())?;
                    }
                }
                let end = if reverse { 0 } else { c1 - c0 - 1 };
                carry = Some(crate::lax::slice(&part, &[0, end], &[1, end + 1], None)?);
                place(dev, &part, &storage, (r * n + c0) as u64 * 4)?;
            }
        }
    }
    let shape = [rows, n];
    Ok(Some(Array::from_storage(
        dev.clone(),
        storage,
        Layout::contiguous(&shape),
        Aval::new(shape.to_vec(), x.dtype(), false),
    )))
}

/// Scans the rows of the contiguous `[rows, n]` array `x` (float32, int32 or uint32):
/// chunk totals, their scan (recursively), then every chunk rescanned and offset by its
/// prefix. `round` is float16 or bfloat16 where `x` holds such values as float32 and
/// every operation rounds to them; else `x`'s dtype.
pub(super) fn cumulative_rows(
    dev: &Device,
    (op, reverse): (crate::primitive::CumulativeOp, bool),
    x: &Array,
    (rows, n): (u64, u64),
    round: DType,
    out: &Aval,
) -> Result<Array> {
    use crate::codegen::cumulative::{kernel, Phase, CHUNK};
    let name = op.name();
    let inner = &dev.0;
    let target = target(dev);
    let dtype = x.dtype();
    let bytes = rows * n * 4;
    // On CPU adapters a large input is staged into a texture, as elementwise kernels'
    // are (one copy serves both passes).
    // Buffers are bound as far as the values go (a pooled buffer may be larger).
    let win_in = match input_windows(dev, x.storage()?, rows * n, &target) {
        codegen::TEXTURE => codegen::TEXTURE,
        w => w.min(codegen::windows_for(bytes, &target)),
    };
    let chunks = n.div_ceil(CHUNK);
    let threads = rows * chunks;
    let groups = threads.div_ceil(codegen::WORKGROUP);
    let prefix = if chunks > 1 {
        let totals = dev.alloc(BufferKind::Storage, threads * 4, name, &out.shape, dtype)?;
        let win_t = codegen::windows_for(threads * 4, &target);
        check_bindings(dev, name, win_in + win_t, bytes, out)?;
        let g = kernel(
            op,
            round,
            Phase::Totals,
            reverse,
            (rows, n),
            win_in,
            win_t,
            &target,
        );
        let k = inner.kernel(&g.body, || g.source())?;
        let bindings = bind_windows(
            [(x.storage()?, win_in), (&totals, win_t)],
            target.window_bytes,
        );
        inner.dispatch(&k, &bindings, &g.meta, groups)?;
        let shape = [rows as usize, chunks as usize];
        let totals = Array::from_storage(
            dev.clone(),
            totals,
            Layout::contiguous(&shape),
            Aval::new(shape.to_vec(), dtype, false),
        );
        Some(cumulative_rows(
            dev,
            (op, reverse),
            &totals,
            (rows, chunks),
            round,
            out,
        )?)
    } else {
        None
    };
    let storage = dev.alloc(BufferKind::Storage, bytes, name, &out.shape, dtype)?;
    let win_p = match &prefix {
        Some(p) => codegen::windows_for(p.size() as u64 * 4, &target),
        None => 0,
    };
    check_bindings(dev, name, win_in + win_p + 1, bytes, out)?;
    let g = kernel(
        op,
        round,
        Phase::Chunks {
            prefix_windows: win_p,
        },
        reverse,
        (rows, n),
        win_in,
        1,
        &target,
    );
    let k = inner.kernel(&g.body, || g.source())?;
    let mut buffers = vec![(x.storage()?, win_in)];
    if let Some(p) = &prefix {
        buffers.push((p.storage()?, win_p));
    }
    let bindings = bind_windows(buffers, target.window_bytes);
    // Spans of threads whose elements fit one binding (`codegen::cumulative::meta`), each
    // bound from an element a binding may start at.
    let align = u64::from(inner.info.limits.min_storage_buffer_offset_alignment).max(4) / 4;
    let window = target.window_bytes / 4;
    let first = |t: u64| t / chunks * n + t % chunks * CHUNK;
    let end = |t: u64| t / chunks * n + (t % chunks * CHUNK + CHUNK).min(n);
    let mut t0 = 0;
    while t0 < threads {
        let base = first(t0) / align * align;
        // The most threads from `t0` on whose elements end within the window (one
        // chunk always fits: a window is far longer than the alignment and a chunk).
        let (mut lo, mut hi) = (t0 + 1, threads);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if end(mid - 1) - base <= window {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let mut all = bindings.clone();
        all.push(crate::runtime::Binding::Buffer {
            buffer: storage.buffer(),
            offset: base * 4,
            size: (storage.bytes - base * 4).min(window * 4),
        });
        let meta = codegen::cumulative::meta(lo, n, chunks, t0, base);
        inner.dispatch(&k, &all, &meta, (lo - t0).div_ceil(codegen::WORKGROUP))?;
        t0 = lo;
    }
    let shape = [rows as usize, n as usize];
    Ok(Array::from_storage(
        dev.clone(),
        storage,
        Layout::contiguous(&shape),
        Aval::new(shape.to_vec(), dtype, false),
    ))
}
