//! The atomic scatter: a copy of the operand, then every update combined in place.

use super::cache::memo;
use super::windows::{
    bind_windows_from, check_bindings, contiguous, input_windows, max_bindings, target,
};
use crate::array::Array;
use crate::codegen;
use crate::error::Result;
use crate::runtime::Device;
use crate::shape::Aval;

/// A fresh copy of the operand, then the scatter kernel writes the updates into it.
pub(crate) fn scatter(
    dev: &Device,
    inputs: &[&Array],
    mode: crate::primitive::ScatterMode,
    out: Aval,
) -> Result<Array> {
    let target = crate::lax::copy(inputs[0])?;
    let count = inputs[1].size() as u64;
    if count == 0 || target.size() == 0 {
        return Ok(target.with_weak(out.weak));
    }
    // Updates that are one broadcast value (counts) are read from that one element.
    let uniform = inputs[2].layout().strides.iter().all(|&s| s == 0);
    let vals = if uniform {
        inputs[2].clone()
    } else {
        contiguous(inputs[2])?
    };
    let pos = contiguous(inputs[1])?;
    let t = self::target(dev);
    let len = target.size() as u64;
    let max = max_bindings(dev);
    let align = u64::from(dev.0.info.limits.min_storage_buffer_offset_alignment).max(16);
    let (pb, vb, tb) = (
        4,
        out.dtype.storage_bytes() as u64,
        out.dtype.storage_bytes() as u64,
    );
    let stores = [pos.storage()?, vals.storage()?, target.storage()?];
    // On CPU adapters large positions and values are staged into textures, as
    // elementwise kernels' inputs are (lavapipe loads a storage-buffer element in a loop
    // over the SIMD lanes, a texel as a vector).
    let staged: [bool; 2] = std::array::from_fn(|i| {
        !(i == 1 && uniform) && input_windows(dev, stores[i], count, &t) == codegen::TEXTURE
    });
    // Windows for `u` updates and a range of `r` elements of the array (bases aligned
    // down, so one alignment more); none for a staged operand.
    let windows = |u: u64, r: u64| {
        let v = if uniform { 1 } else { u };
        [
            u64::from(!staged[0]) * codegen::windows_for(u * pb + align, &t),
            u64::from(!staged[1]) * codegen::windows_for((v * vb).next_multiple_of(4) + align, &t),
            codegen::windows_for((r * tb).next_multiple_of(4), &t),
        ]
    };
    // Every operand past one binding is bound as several windows; where more than a
    // kernel may bind, the updates go in runs and the array in ranges (of whole aligned
    // words), every run scattered into every range.
    let quantum = align / tb;
    let (mut u, mut r) = (count, len);
    while windows(u, r).iter().sum::<u64>() > max {
        let w = windows(u, r);
        if w[0] + w[1] >= w[2] && u > 1 {
            u = u.div_ceil(2);
        } else if r > quantum {
            r = (r / 2).next_multiple_of(quantum);
        } else if u > 1 {
            u = u.div_ceil(2);
        } else {
            break;
        }
    }
    check_bindings(
        dev,
        "scatter",
        windows(u, r).iter().sum::<u64>(),
        stores[2].bytes,
        &out,
    )?;
    for first in (0..len).step_by(r as usize) {
        let range = r.min(len - first);
        for u0 in (0..count).step_by(u as usize) {
            let run = u.min(count - u0);
            let p0 = pos.layout().offset as u64 + u0;
            let v0 = vals.layout().offset as u64 + if uniform { 0 } else { u0 };
            // A staged operand is read from its start.
            let base = |o: u64, b: u64, st: bool| if st { 0 } else { o * b / align * align };
            let (pbase, vbase) = (base(p0, pb, staged[0]), base(v0, vb, staged[1]));
            // As many windows as each buffer holds past its base.
            let bases = [pbase, vbase, first * tb];
            let w: [u64; 3] = std::array::from_fn(|i| {
                windows(run, range)[i].min(codegen::windows_for(stores[i].bytes - bases[i], &t))
            });
            let private = crate::codegen::scatter::private_words(mode, out.dtype, range, run);
            let (p_at, v_at) = (p0 - pbase / pb, v0 - vbase / vb);
            let key = (
                "scatter",
                (mode, out.dtype, run, (first, range)),
                (p_at, (v_at, uniform), w, private),
            );
            let (kernel, meta) = memo(dev, key, || {
                let g = crate::codegen::scatter::scatter(
                    mode,
                    out.dtype,
                    run,
                    (first, range),
                    p_at,
                    (v_at, uniform),
                    w,
                    private,
                    &t,
                );
                let kernel = dev.0.kernel(&g.body, || g.source())?;
                Ok((kernel, std::sync::Arc::<[u32]>::from(g.meta)))
            })?;
            let per_group = match private {
                Some(_) => crate::codegen::scatter::PRIVATE_UPDATES,
                None => codegen::WORKGROUP,
            };
            let bindings =
                bind_windows_from((0..3).map(|i| (stores[i], w[i], bases[i])), t.window_bytes);
            dev.0
                .dispatch(&kernel, &bindings, &meta, run.div_ceil(per_group))?;
        }
    }
    Ok(target.with_weak(out.weak))
}
