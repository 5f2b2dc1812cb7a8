//! Batched matrix products: the tiled kernel, long contractions as split reductions,
//! skinny products as elementwise products and sums, and products in blocks.

use super::cache::{memo, out_bytes};
use super::program::blocks;
use super::reduce::{fused_reduce, fused_reduce_with, EpilogueCall};
use super::windows::{
    as_out, bind_windows_from, check_bindings, contiguous, input_windows, max_bindings, place,
    placeable, region_windows, target, Rebased, Region,
};
use crate::array::Array;
use crate::codegen::matmul::{tile, Variant, TILE};
use crate::codegen::{self, Node, Program};
use crate::dtype::DType;
use crate::error::Result;
use crate::primitive::Primitive;
use crate::runtime::{BufferKind, Device};
use crate::shape::{Aval, Layout};

/// For a product with few output tiles of `rows x cols` and a long `k` (matrix-vector
/// products, the weight gradients of a training step), the number of `k` slices to
/// compute in parallel: the kernel gives each output tile to one workgroup, so
/// `[32, 512] x [512, 1]` would run 512 steps on one workgroup. Measured on lavapipe: 9.0
/// ms as one tile, far less split into 16 slices whose partial products are summed by the
/// reduction kernels.
pub(super) fn k_splits(
    (batch, m, n, k): (usize, usize, usize, usize),
    (rows, cols): (usize, usize),
    dtype: DType,
) -> usize {
    let tiles = batch * m.div_ceil(rows) * n.div_ceil(cols);
    // Float32 and integer sums only: float16 would round each partial product.
    if batch != 1
        || tiles >= 8
        || k < 256
        || !matches!(dtype, DType::Float32 | DType::Int32 | DType::UInt32)
    {
        return 1;
    }
    // The most slices (at most 32, each at least 32 long) that divide k.
    (2..=32.min(k / 32))
        .rev()
        .find(|&s| k.is_multiple_of(s))
        .unwrap_or(1)
}

/// A product of at most [`LONG_DOT_OUTPUTS`] outputs over a `k` of at least
/// [`LONG_DOT_K`] as one fused reduction: `a` and `b` broadcast to `[batch, m, n, k]`
/// views, multiplied where the row reduction reads them and summed along `k` (a tree of
/// 64-way sums, every output's row split among many threads). The tiled kernel would
/// give each output tile's whole `k` to one workgroup (32 at most with its `k` split),
/// leaving nearly all of a GPU idle.
/// Float32 and integers only (float16 products would round before the sum).
pub(super) fn long_dot(dev: &Device, a: &Array, b: &Array, out: &Aval) -> Result<Option<Array>> {
    let (batch, m, k, n) = (a.shape()[0], a.shape()[1], a.shape()[2], b.shape()[2]);
    let exact = matches!(out.dtype, DType::Float32 | DType::Int32 | DType::UInt32);
    let outputs = batch * m * n;
    // CPU adapters run the tiled kernel's serial form, which steps through `k` faster
    // than the reduction's strided reads.
    let cpu = dev.0.info.profile == crate::runtime::KernelProfile::Cpu;
    // The reduction numbers its `outputs * k` elements in 32 bits.
    let indexed = (outputs as u64).saturating_mul(k as u64) <= u64::from(u32::MAX);
    if cpu || !exact || !indexed || outputs == 0 || outputs > LONG_DOT_OUTPUTS || k < LONG_DOT_K {
        return Ok(None);
    }
    let shape = [batch, m, n, k];
    let av = crate::lax::broadcast_in_dim(a, &shape, &[0, 1, 3])?;
    let bt = crate::lax::transpose(b, &[0, 2, 1])?;
    let bv = crate::lax::broadcast_in_dim(&bt, &shape, &[0, 2, 3])?;
    let d = out.dtype;
    let program = Program::new(
        vec![d, d],
        vec![Node {
            prim: Primitive::Binary(crate::primitive::BinaryOp::Mul),
            args: vec![0, 1],
            dtype: d,
        }],
    );
    let sum = crate::primitive::ReduceOp::Sum;
    fused_reduce(
        dev,
        sum,
        &[3],
        &program,
        &[&av, &bv],
        &shape,
        out.clone(),
        None,
    )
    .map(Some)
}

/// The most outputs [`long_dot`] computes as a reduction: each output's `k` elements are
/// read from both operands without reuse, which the tiled kernel's tiles would share.
pub(super) const LONG_DOT_OUTPUTS: usize = 64;
/// The shortest `k` [`long_dot`] takes.
pub(super) const LONG_DOT_K: usize = 4096;

/// Matrix-vector products (`n == 1` or `m == 1`) as one row or column reduction of the
/// products, which the reduction's first pass multiplies as it reads the operands (the
/// vector broadcast as a view): the tile kernel would give each 64x64 output tile (here
/// one column of it) to a workgroup of 256 threads, of which 16 do useful work, and a
/// separate multiply would store every product first. A long `k` is taken in slices of at
/// most 16M products, as the reduction numbers its elements in 32 bits.
/// Float32 and integers only (float16 products would round before the sum).
///
/// With an `epilogue`, a product of one slice computes it in the reduction's pass
/// ([`EpilogueCall`]); the result's second part is its outputs (empty without one).
pub(super) fn skinny_dot(
    dev: &Device,
    a: &Array,
    b: &Array,
    out: &Aval,
    epilogue: Option<&EpilogueCall<'_>>,
) -> Result<Option<(Array, Vec<Array>)>> {
    use crate::lax;
    use crate::primitive::BinaryOp;
    const MAX_PRODUCT: usize = 16 << 20;
    let (batch, m, k, n) = (a.shape()[0], a.shape()[1], a.shape()[2], b.shape()[2]);
    let exact = matches!(out.dtype, DType::Float32 | DType::Int32 | DType::UInt32);
    let outputs = batch * m * n;
    if !exact || (n != 1 && m != 1) || outputs == 0 || k == 0 || outputs > MAX_PRODUCT {
        return Ok(None);
    }
    // The sum along `axis` of the products of `x` and `y` (both of `shape`).
    let d = out.dtype;
    let products = Program::new(
        vec![d, d],
        vec![Node {
            prim: Primitive::Binary(BinaryOp::Mul),
            args: vec![0, 1],
            dtype: d,
        }],
    );
    // (With the epilogue's outputs where it is given one.)
    let mut more: Option<Vec<Array>> = None;
    let mut sum_of_products = |x: &Array, y: &Array, shape: &[usize], axis: usize, last: bool| {
        let mut kept = shape.to_vec();
        kept.remove(axis);
        let sum = crate::primitive::ReduceOp::Sum;
        let aval = Aval::new(kept, d, false);
        match epilogue.filter(|_| last) {
            Some(e) => {
                let first = (&products, &[x, y][..], shape);
                let (mut r, m) =
                    fused_reduce_with(dev, sum, &[axis], first, &[aval], None, Some(e))?;
                more = Some(m);
                Ok(r.remove(0))
            }
            None => fused_reduce(dev, sum, &[axis], &products, &[x, y], shape, aval, None),
        }
    };
    let slice = (MAX_PRODUCT / outputs).max(1);
    let mut total: Option<Array> = None;
    for k0 in (0..k).step_by(slice) {
        let k1 = (k0 + slice).min(k);
        let kc = k1 - k0;
        let (a, b) = if kc == k {
            (a.clone(), b.clone())
        } else {
            (
                lax::slice(a, &[0, 0, k0], &[batch, m, k1], None)?,
                lax::slice(b, &[0, k0, 0], &[batch, k1, n], None)?,
            )
        };
        // The matrix operand's layout picks the orientation, so that its loads stream: a
        // transposed matrix (the products of a backward pass: its middle axis is the
        // contiguous one) is summed along the other axis than one stored in rows.
        let transposed = |x: &Array| {
            let s = &x.layout().strides;
            s[1] == 1 && s[2] != 1
        };
        let part = if n == 1 && m > 1 && transposed(&a) {
            // a: [batch, m, k] -> [batch, k, m]; b: [batch, k, 1] -> [batch, k, m]; sum
            // over k.
            let at = lax::transpose(&a, &[0, 2, 1])?;
            let bb = lax::broadcast_in_dim(&b, &[batch, kc, m], &[0, 1, 2])?;
            lax::reshape(
                &sum_of_products(&at, &bb, &[batch, kc, m], 1, kc == k)?,
                &[batch, m, 1],
            )?
        } else if m == 1 && n > 1 && transposed(&b) {
            // b: [batch, k, n] -> [batch, n, k]; a: [batch, 1, k] -> [batch, n, k]; sum
            // over k.
            let bt = lax::transpose(&b, &[0, 2, 1])?;
            let ab = lax::broadcast_in_dim(&a, &[batch, n, kc], &[0, 1, 2])?;
            lax::reshape(
                &sum_of_products(&ab, &bt, &[batch, n, kc], 2, kc == k)?,
                &[batch, 1, n],
            )?
        } else if n == 1 {
            // b: [batch, k, 1] -> [batch, 1, k] -> [batch, m, k]; sum over k.
            let row = lax::reshape(&b, &[batch, 1, kc])?;
            let bb = lax::broadcast_in_dim(&row, &[batch, m, kc], &[0, 1, 2])?;
            lax::reshape(
                &sum_of_products(&a, &bb, &[batch, m, kc], 2, kc == k)?,
                &[batch, m, 1],
            )?
        } else {
            // a: [batch, 1, k] -> [batch, k, 1] -> [batch, k, n]; sum over k.
            let col = lax::reshape(&a, &[batch, kc, 1])?;
            let ab = lax::broadcast_in_dim(&col, &[batch, kc, n], &[0, 1, 2])?;
            lax::reshape(
                &sum_of_products(&ab, &b, &[batch, kc, n], 1, kc == k)?,
                &[batch, 1, n],
            )?
        };
        total = Some(match total {
            None => part,
            Some(t) => lax::binary(BinaryOp::Add, &t, &part)?,
        });
    }
    let Some(r) = total.map(|r| r.with_weak(out.weak)) else {
        return Ok(None);
    };
    let more = match (more, epilogue) {
        (Some(m), _) => m,
        (None, Some(e)) => e.run_after(dev, std::slice::from_ref(&r))?,
        (None, None) => Vec::new(),
    };
    Ok(Some((r, more)))
}

/// [`dot`] followed by `epilogue`'s consumers of the product (a jitted matrix-vector
/// product's elementwise consumers): the product and the epilogue's outputs, which a
/// product that runs as one reduction pass computes in that pass. float32 and 32-bit
/// integers (as `jit` asks for it).
pub(crate) fn dot_with(
    dev: &Device,
    a: &Array,
    b: &Array,
    out: Aval,
    epilogue: &EpilogueCall<'_>,
) -> Result<(Array, Vec<Array>)> {
    if dot_in_blocks_needed(dev, a, b, &out)? {
        let r = dot(dev, a, b, out)?;
        let more = epilogue.run_after(dev, std::slice::from_ref(&r))?;
        return Ok((r, more));
    }
    if let Some(r) = skinny_dot(dev, a, b, &out, Some(epilogue))? {
        return Ok(r);
    }
    let r = dot(dev, a, b, out)?;
    let more = epilogue.run_after(dev, std::slice::from_ref(&r))?;
    Ok((r, more))
}

pub(crate) fn dot(dev: &Device, a: &Array, b: &Array, out: Aval) -> Result<Array> {
    use crate::codegen::matmul::accumulator;
    let (batch, m, k, n) = (a.shape()[0], a.shape()[1], a.shape()[2], b.shape()[2]);
    if let Some(r) = dot_in_blocks(dev, a, b, &out)? {
        return Ok(r);
    }
    if let Some((r, _)) = skinny_dot(dev, a, b, &out, None)? {
        return Ok(r);
    }
    if let Some(r) = long_dot(dev, a, b, &out)? {
        return Ok(r);
    }
    // Splits count the register and subgroup kernels' own tiles; the others', as
    // measured, 64x64 ones. (The subgroup kernel's 16x32 tiles already give lavapipe's
    // threads enough workgroups where 64x64 ones would not: `[128, 1024] x [1024, 10]`
    // is 8 of them, and 32 slices of `k` cost more in workgroups and a second kernel than
    // they spread.)
    let variant = dev.0.variants.matmul.for_product(m as u64, n as u64);
    let (rows, cols) = match variant {
        Variant::Register | Variant::Subgroup => tile(variant, m as u64, n as u64),
        _ => (TILE, TILE),
    };
    let s = k_splits((batch, m, n, k), (rows as usize, cols as usize), out.dtype);
    if s > 1 {
        // [1, m, k] -> [s, m, k/s] and [1, k, n] -> [s, k/s, n]: one batch entry per slice,
        // then the partial products are summed.
        let kk = k / s;
        let a3 = crate::lax::transpose(&crate::lax::reshape(a, &[m, s, kk])?, &[1, 0, 2])?;
        let b3 = crate::lax::reshape(b, &[s, kk, n])?;
        let parts = crate::lax::batch_matmul(&a3, &b3)?;
        let sum = crate::lax::reduce(crate::primitive::ReduceOp::Sum, &parts, &[0])?;
        return crate::lax::reshape(&sum, &[1, m, n]).map(|r| r.with_weak(out.weak));
    }
    let acc = accumulator(out.dtype);
    // Slices of `k` one dispatch covers, summed in the accumulator's dtype.
    let max_k = crate::codegen::matmul::max_k(variant) as usize;
    let mut total: Option<Array> = None;
    for k0 in (0..k.max(1)).step_by(max_k) {
        let k1 = (k0 + max_k).min(k);
        let (sa, sb) = if k0 == 0 && k1 == k {
            (a.clone(), b.clone())
        } else {
            (
                crate::lax::slice(a, &[0, 0, k0], &[batch, m, k1], None)?,
                crate::lax::slice(b, &[0, k0, 0], &[batch, k1, n], None)?,
            )
        };
        let part = dot_pass(dev, &sa, &sb, &out, acc)?;
        total = Some(match total {
            None => part,
            Some(t) => crate::lax::binary(crate::primitive::BinaryOp::Add, &t, &part)?,
        });
    }
    as_out(total.expect("at least one slice of k"), &out)
}

/// Whether [`dot_in_blocks`] computes the product: its operands and output need more
/// storage bindings than one kernel has.
fn dot_in_blocks_needed(dev: &Device, a: &Array, b: &Array, out: &Aval) -> Result<bool> {
    let (batch, m, k, n) = (a.shape()[0], a.shape()[1], a.shape()[2], b.shape()[2]);
    let t = target(dev);
    let acc = crate::codegen::matmul::accumulator(out.dtype);
    let written = codegen::windows_for(out_bytes(&Aval::new(vec![batch * m * n], acc, false)), &t);
    let whole = |x: &Array| (vec![0; 3], x.shape().to_vec());
    let need =
        region_windows(dev, a, &whole(a), &t)? + region_windows(dev, b, &whole(b), &t)? + written;
    Ok(need > max_bindings(dev) && batch * m * n != 0 && k != 0)
}

/// A product whose operands and output need more storage bindings than one kernel may
/// have (wgpu's GL backend binds 16 of 128 MiB): runs of output rows (whole batch entries,
/// or rows of one), each computed from the rows of `a` it reads and all of `b` and copied
/// into place; where `b` alone is too large, slices of `k` whose products are summed.
/// `None` where the whole product fits.
pub(super) fn dot_in_blocks(
    dev: &Device,
    a: &Array,
    b: &Array,
    out: &Aval,
) -> Result<Option<Array>> {
    if !dot_in_blocks_needed(dev, a, b, out)? {
        return Ok(None);
    }
    let (batch, m, k, n) = (a.shape()[0], a.shape()[1], a.shape()[2], b.shape()[2]);
    let t = target(dev);
    let acc = crate::codegen::matmul::accumulator(out.dtype);
    let max = max_bindings(dev);
    let written = |elements: usize| {
        codegen::windows_for(out_bytes(&Aval::new(vec![elements], acc, false)), &t)
    };
    // Runs of rows of a strided operand (a transposed one) span its whole buffer: copied
    // first (in boxes, as every copy may be), they span only their own.
    let (a, b) = (&contiguous(a)?, &contiguous(b)?);
    let shape = vec![batch, m, n];
    let reads = |(s, l): &Region| -> (Region, Region) {
        (
            (vec![s[0], s[1], 0], vec![l[0], l[1], k]),
            (vec![s[0], 0, 0], vec![l[0], k, n]),
        )
    };
    let fits = |r: &Region| -> Result<bool> {
        let (ra, rb) = reads(r);
        let rows = (r.1[0] - r.0[0]) * (r.1[1] - r.0[1]);
        let first = (r.0[0] * m + r.0[1]) * n;
        if !placeable(out.dtype, first, rows * n, batch * m * n) {
            return Ok(false);
        }
        Ok(
            region_windows(dev, a, &ra, &t)? + region_windows(dev, b, &rb, &t)? + written(rows * n)
                <= max,
        )
    };
    let mut plan = None;
    'search: for depth in 0..2 {
        let mut run = shape[depth];
        while run > 0 {
            let mut all = true;
            for r in blocks(&shape, depth, run) {
                all &= fits(&r)?;
                if !all {
                    break;
                }
            }
            if all {
                plan = Some((depth, run));
                break 'search;
            }
            run /= 2;
        }
    }
    let Some((depth, run)) = plan else {
        // `b` alone is too large: slices of `k`, each product split as needed, summed.
        if acc != out.dtype {
            // float16: the products and sums in float32 (exact products, as the kernel
            // forms them), rounded once at the end.
            let wide = |x: &Array| crate::lax::convert_element_type(x, acc);
            let r = dot(
                dev,
                &wide(a)?,
                &wide(b)?,
                Aval::new(out.shape.clone(), acc, out.weak),
            )?;
            return as_out(r, out).map(Some);
        }
        if k < 2 {
            return Ok(None);
        }
        let rows_of_b = |kc: usize| region_windows(dev, b, &(vec![0; 3], vec![batch, kc, n]), &t);
        let mut kc = k / 2;
        while kc > 1 && 2 * rows_of_b(kc)? > max {
            kc /= 2;
        }
        if 2 * rows_of_b(kc)? > max {
            return Ok(None);
        }
        let mut total: Option<Array> = None;
        for k0 in (0..k).step_by(kc) {
            let k1 = (k0 + kc).min(k);
            let sa = crate::lax::slice(a, &[0, 0, k0], &[batch, m, k1], None)?;
            let sb = crate::lax::slice(b, &[0, k0, 0], &[batch, k1, n], None)?;
            let part = dot(dev, &sa, &sb, out.clone())?;
            total = Some(match total {
                None => part,
                Some(t) => crate::lax::binary(crate::primitive::BinaryOp::Add, &t, &part)?,
            });
        }
        return Ok(total);
    };
    let eb = out.dtype.storage_bytes() as u64;
    let storage = dev.alloc(
        BufferKind::Storage,
        out_bytes(out),
        "matmul",
        &out.shape,
        out.dtype,
    )?;
    for r in blocks(&shape, depth, run) {
        let ((sa, la), (sb, lb)) = reads(&r);
        let part = dot(
            dev,
            &crate::lax::slice(a, &sa, &la, None)?,
            &crate::lax::slice(b, &sb, &lb, None)?,
            Aval::new(
                r.1.iter().zip(&r.0).map(|(l, s)| l - s).collect(),
                out.dtype,
                out.weak,
            ),
        )?;
        let first = ((r.0[0] * m + r.0[1]) * n) as u64;
        place(dev, &part, &storage, first * eb)?;
    }
    Ok(Some(Array::from_storage(
        dev.clone(),
        storage,
        Layout::contiguous(&out.shape),
        out.clone(),
    )))
}

/// One dispatch of the matmul kernel: the `[b, m, n]` product of `a` and `b` in the
/// accumulator dtype `acc` (weak as `out`).
pub(super) fn dot_pass(
    dev: &Device,
    a: &Array,
    b: &Array,
    out: &Aval,
    acc: DType,
) -> Result<Array> {
    use crate::codegen::matmul::matmul;
    let (batch, m, k, n) = (a.shape()[0], a.shape()[1], a.shape()[2], b.shape()[2]);
    let count = (batch * m * n) as u64;
    let bytes = count * acc.storage_bytes() as u64;
    let storage = dev.alloc(BufferKind::Storage, bytes, "matmul", &out.shape, out.dtype)?;
    if count > 0 {
        let inner = &dev.0;
        let target = target(dev);
        let variant = inner.variants.matmul.for_product(m as u64, n as u64);
        let wo = codegen::windows_for(bytes.min(storage.bytes), &target);
        // Operands as bound: whole buffers, or (where those need too many bindings) the
        // parts their views read.
        let whole = [
            input_windows(dev, a.storage()?, count, &target),
            input_windows(dev, b.storage()?, count, &target),
        ];
        let rebase = whole.iter().sum::<u64>() + wo > max_bindings(dev);
        let bound = [a, b]
            .into_iter()
            .zip(whole)
            .map(|(x, w)| {
                let st = x.storage()?;
                Ok(if rebase && w != codegen::TEXTURE {
                    let r = Rebased::new(dev, x.layout().clone(), x.dtype(), st.bytes, &target);
                    (st, r.layout, r.windows, r.base)
                } else {
                    (st, x.layout().clone(), w, 0)
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let (wa, wb) = (bound[0].2, bound[1].2);
        check_bindings(dev, "matmul", wa + wb + wo, bytes, out)?;
        let sizes = (batch as u64, m as u64, n as u64, k as u64);
        let key = (
            "matmul",
            (out.dtype, bound[0].1.clone(), wa, bound[1].1.clone(), wb),
            (wo, sizes, variant),
        );
        let (kernel, meta) = memo(dev, key, || {
            let g = matmul(
                out.dtype,
                &bound[0].1,
                wa,
                &bound[1].1,
                wb,
                wo,
                sizes,
                variant,
                &target,
            );
            let kernel = inner.kernel(&g.body, || g.source())?;
            Ok((kernel, std::sync::Arc::<[u32]>::from(g.meta)))
        })?;
        let bindings = bind_windows_from(
            bound
                .iter()
                .map(|(st, _, w, base)| (*st, *w, *base))
                .chain([(&storage, wo, 0)]),
            target.window_bytes,
        );
        let (tile_m, tile_n) = crate::codegen::matmul::tile(variant, m as u64, n as u64);
        let groups = batch as u64 * (m as u64).div_ceil(tile_m) * (n as u64).div_ceil(tile_n);
        inner.dispatch(&kernel, &bindings, &meta, groups)?;
    }
    Ok(Array::from_storage(
        dev.clone(),
        storage,
        Layout::contiguous(&out.shape),
        Aval::new(out.shape.clone(), acc, out.weak),
    ))
}
