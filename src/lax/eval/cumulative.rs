//! Cumulative sums and products: the chunked kernels of `codegen::cumulative`, rows in
//! blocks where one kernel cannot bind them.

use super::cache::memo;
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
    if x.shape()[axis] == 1 {
        // The scan of one element is that element, as in XLA (a sum of one -0.0 is -0.0).
        return as_out(x.clone(), &out);
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

/// Scans rows of `x` (as [`cumulative_rows`] takes them) whose chunk totals need more
/// storage bindings than one kernel may have ([`cumulative_rows`] binds one window of the
/// input and output, and the totals whole; wgpu's GL backend binds 16 of 128 MiB, so
/// totals past 1.75 GiB, of inputs past 28 GiB): runs of rows, each copied out, scanned
/// and copied into place; rows too long for that in runs of columns, each combined with
/// the last value of the run before it (the first of the run after it when `reverse`),
/// which associates floats otherwise than XLA. `None` where the whole scan fits.
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
    // One window of input and of output, and the chunk totals (every scanned dtype is 4
    // bytes).
    let need = |r: usize, c: usize| {
        let chunks = (c as u64).div_ceil(crate::codegen::cumulative::CHUNK);
        2 + codegen::windows_for(r as u64 * chunks * 4, &t)
    };
    if need(rows, n) <= max {
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
///
/// Both passes run in spans of threads whose elements fit one binding, the input (and the
/// output) bound from an aligned element before the span's first: a kernel binds one
/// input window whatever the length, so rows longer than a kernel's bindings are scanned
/// whole, in XLA's association, and a load or store never picks among windows with a
/// `switch` (whose every arm lavapipe runs under a mask). On CPU adapters a large input is
/// staged into a texture instead, as elementwise kernels' are (one copy serves both
/// passes), and read whole.
pub(super) fn cumulative_rows(
    dev: &Device,
    (op, reverse): (crate::primitive::CumulativeOp, bool),
    x: &Array,
    (rows, n): (u64, u64),
    round: DType,
    out: &Aval,
) -> Result<Array> {
    use crate::codegen::cumulative::{kernel, meta, Phase, CHUNK};
    use crate::runtime::Binding;
    let name = op.name();
    let inner = &dev.0;
    let target = target(dev);
    let dtype = x.dtype();
    let bytes = rows * n * 4;
    let x_storage = x.storage()?;
    let texture = input_windows(dev, x_storage, rows * n, &target) == codegen::TEXTURE;
    let win_in = if texture { codegen::TEXTURE } else { 1 };
    let chunks = n.div_ceil(CHUNK);
    let threads = rows * chunks;
    let variant = inner.variants.cumulative;
    // Spans `(t0, t1, base)`: threads `t0..t1` whose elements lie in one window from the
    // element `base`, which a binding may start at.
    let align = u64::from(inner.info.limits.min_storage_buffer_offset_alignment).max(4) / 4;
    let window = target.window_bytes / 4;
    let first = |t: u64| t / chunks * n + t % chunks * CHUNK;
    let end = |t: u64| t / chunks * n + (t % chunks * CHUNK + CHUNK).min(n);
    let mut spans = Vec::new();
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
        spans.push((t0, lo, base));
        t0 = lo;
    }
    // A span's binding of `storage` from element `base` (the whole texture for a staged
    // input, which the kernel reads at absolute positions).
    fn from(
        storage: &crate::runtime::Storage,
        base: u64,
        staged: bool,
        window: u64,
    ) -> Binding<'_> {
        if staged {
            Binding::Texture {
                buffer: storage.buffer(),
                bytes: storage.bytes,
            }
        } else {
            Binding::Buffer {
                buffer: storage.buffer(),
                offset: base * 4,
                size: (storage.bytes - base * 4).min(window * 4),
            }
        }
    }
    // A pass's kernel (its metadata is the span's), made once per set of arguments.
    let scan_kernel = |phase: Phase, out_windows: u64| {
        let key = (
            "scan",
            (op, round, phase, reverse),
            ((rows, n), win_in, out_windows, variant),
        );
        memo(dev, key, || {
            let g = kernel(
                op,
                round,
                phase,
                reverse,
                (rows, n),
                win_in,
                out_windows,
                variant,
                &target,
            );
            inner.kernel(&g.body, || g.source())
        })
    };
    let input_bindings = u64::from(!texture);
    let prefix = if chunks > 1 {
        let totals = dev.alloc(BufferKind::Storage, threads * 4, name, &out.shape, dtype)?;
        let win_t = codegen::windows_for(threads * 4, &target);
        check_bindings(dev, name, input_bindings + win_t, bytes, out)?;
        let k = scan_kernel(Phase::Totals, win_t)?;
        let totals_bindings = bind_windows([(&totals, win_t)], target.window_bytes);
        for &(t0, t1, base) in &spans {
            let mut all = vec![from(x_storage, base, texture, window)];
            all.extend(totals_bindings.iter().cloned());
            let meta = meta(t1, n, chunks, t0, base);
            inner.dispatch(&k, &all, &meta, (t1 - t0).div_ceil(variant.workgroup()))?;
        }
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
    check_bindings(dev, name, input_bindings + win_p + 1, bytes, out)?;
    let k = scan_kernel(
        Phase::Chunks {
            prefix_windows: win_p,
        },
        1,
    )?;
    let prefix_bindings = match &prefix {
        Some(p) => bind_windows([(p.storage()?, win_p)], target.window_bytes),
        None => Vec::new(),
    };
    for &(t0, t1, base) in &spans {
        let mut all = vec![from(x_storage, base, texture, window)];
        all.extend(prefix_bindings.iter().cloned());
        all.push(from(&storage, base, false, window));
        let meta = meta(t1, n, chunks, t0, base);
        inner.dispatch(&k, &all, &meta, (t1 - t0).div_ceil(variant.workgroup()))?;
    }
    let shape = [rows as usize, n as usize];
    Ok(Array::from_storage(
        dev.clone(),
        storage,
        Layout::contiguous(&shape),
        Aval::new(shape.to_vec(), dtype, false),
    ))
}
