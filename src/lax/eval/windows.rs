//! Binding windows and the checks around them: the device's kernel target, buffers bound
//! as several windows, rebased views, and the limits a dispatch must fit.

use std::sync::Arc;

use crate::array::Array;
use crate::codegen::{self, Target};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::primitive::Primitive;
use crate::runtime::{Binding, Device};
use crate::shape::{Aval, Layout};

/// A box of an array: its first index and one past its last along each dimension.
pub(super) type Region = (Vec<usize>, Vec<usize>);

/// `layout`'s box `at` as a layout of its own (a view's).
pub(super) fn box_layout(layout: &Layout, at: &Region) -> Layout {
    let (start, limit) = at;
    Layout {
        shape: start.iter().zip(limit).map(|(s, l)| l - s).collect(),
        strides: layout.strides.clone(),
        offset: (layout.offset as isize
            + start
                .iter()
                .zip(&layout.strides)
                .map(|(&s, &st)| s as isize * st)
                .sum::<isize>()) as usize,
    }
}

/// What kernels are generated for on `dev`.
pub(super) fn target(dev: &Device) -> Target {
    let cpu = dev.0.info.profile == crate::runtime::KernelProfile::Cpu;
    Target {
        f16_native: dev.0.info.f16_native,
        window_bytes: dev.0.window_bytes,
        vectors: if cpu { codegen::CPU_VECTORS } else { 1 },
        written_out: false,
    }
}

/// An operand of an elementwise kernel as far as the generated code and its metadata
/// depend on it: its layout and how its buffer is bound.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Operand<'a> {
    pub(crate) layout: &'a Layout,
    /// Windows the buffer is bound as.
    pub(crate) windows: u64,
    /// Whether the buffer extends to the next multiple of four elements past the data.
    pub(crate) padded: bool,
}

impl<'a> Operand<'a> {
    /// An operand of `dtype` read through `layout` from a buffer of `buffer_bytes` bytes.
    pub(crate) fn new(
        layout: &'a Layout,
        dtype: DType,
        buffer_bytes: u64,
        target: &Target,
    ) -> Operand<'a> {
        let end = layout.offset + crate::shape::size_of(&layout.shape);
        Operand {
            layout,
            windows: codegen::windows_for(buffer_bytes, target),
            padded: buffer_bytes >= (end.next_multiple_of(4) * dtype.storage_bytes()) as u64,
        }
    }
}

/// `x`, or a contiguous copy where it is strided.
pub(super) fn contiguous(x: &Array) -> Result<Array> {
    if x.layout().is_contiguous() {
        Ok(x.clone())
    } else {
        crate::lax::copy(x)
    }
}

/// Storage-buffer windows a kernel binds to read `x`'s box `at` (none where it would be
/// staged into a texture).
pub(super) fn region_windows(dev: &Device, x: &Array, at: &Region, t: &Target) -> Result<u64> {
    let st = x.storage()?;
    let layout = box_layout(x.layout(), at);
    let elements = crate::shape::size_of(&layout.shape) as u64;
    Ok(if input_windows(dev, st, elements, t) == codegen::TEXTURE {
        0
    } else {
        Rebased::new(dev, layout, x.dtype(), st.bytes, t).windows
    })
}

/// Whether [`place`] can copy `len` elements of `dtype` to element `first` of an array of
/// `total`: copies move whole 4-byte words, so a part of a packed dtype starts at a word's
/// first element and fills whole words, or runs to the end.
pub(super) fn placeable(dtype: DType, first: usize, len: usize, total: usize) -> bool {
    let per = dtype.per_word() as usize;
    first.is_multiple_of(per) && (len.is_multiple_of(per) || first + len == total)
}

/// Copies `part`'s elements (contiguous) into `dst` from byte `at` on: a box of a larger
/// result computed by itself. Copies move whole 4-byte words, so a part of a packed dtype
/// ends on a word's last element or at the end of `dst`'s values.
pub(super) fn place(
    dev: &Device,
    part: &Array,
    dst: &crate::runtime::Storage,
    at: u64,
) -> Result<()> {
    let part = contiguous(part)?;
    let eb = part.dtype().storage_bytes() as u64;
    let st = part.storage()?;
    let from = part.layout().offset as u64 * eb;
    let bytes = (part.size() as u64 * eb)
        .next_multiple_of(4)
        .min(dst.bytes - at)
        .min(st.bytes - from);
    dev.0.copy_buffer(st, from, dst, at, bytes)
}

/// `r` (an accumulator's values) as the output's dtype and weakness.
pub(super) fn as_out(r: Array, out: &Aval) -> Result<Array> {
    if r.dtype() == out.dtype {
        Ok(r.with_weak(out.weak))
    } else {
        crate::lax::bind(
            Primitive::ConvertElementType {
                dtype: out.dtype,
                weak: out.weak,
            },
            &[&r],
            None,
        )
    }
}

/// Fails when a kernel over operands `inputs` and an iteration space of `shape` needs more
/// metadata words (their sizes and strides: arrays of very high rank) than a dispatch
/// carries.
pub(super) fn check_metadata(
    func: &str,
    meta: &[u32],
    inputs: &[&Array],
    shape: &[usize],
) -> Result<()> {
    if meta.len() <= codegen::META_WORDS {
        return Ok(());
    }
    let operands: Vec<String> = inputs
        .iter()
        .map(|a| match a.shape() {
            s if s.len() <= 8 => format!("{}{s:?}", a.dtype()),
            s => format!("{}[{} dims, {} elements]", a.dtype(), s.len(), a.size()),
        })
        .collect();
    Err(Error::arg(
        func,
        format!(
            "a kernel over {} elements of rank {} with operands {} needs {} metadata words (sizes and strides); a dispatch carries {}",
            crate::shape::size_of(shape),
            shape.len(),
            operands.join(", "),
            meta.len(),
            codegen::META_WORDS
        ),
    ))
}

/// Fails when a kernel that counts elements in 32 bits (scans, sorts) would need more.
pub(super) fn check_u32_elements(func: &str, elements: usize, out: &Aval) -> Result<()> {
    if elements > u32::MAX as usize {
        return Err(Error::OutOfMemory {
            func: crate::error::api_name(func),
            bytes: (elements as u64).saturating_mul(4),
            shape: out.shape.clone(),
            dtype: out.dtype,
            reason: "the kernel counts elements in 32 bits: at most 2^32 - 1".into(),
        });
    }
    Ok(())
}

/// Fails when a kernel would bind more storage buffers than the device allows. `total`
/// counts storage-buffer bindings only: the metadata is a uniform block, and staged inputs
/// are textures, each with limits of their own.
pub(super) fn check_bindings(
    dev: &Device,
    func: &str,
    total: u64,
    bytes: u64,
    out: &Aval,
) -> Result<()> {
    let max_bindings = u64::from(dev.0.info.limits.max_storage_buffers_per_shader_stage);
    if total > max_bindings {
        return Err(Error::OutOfMemory {
            func: crate::error::api_name(func),
            bytes,
            shape: out.shape.clone(),
            dtype: out.dtype,
            reason: format!(
                "the operands need {total} storage-buffer bindings of at most {} bytes; the device's limit is {max_bindings} (max_storage_buffers_per_shader_stage)",
                dev.0.window_bytes
            ),
        });
    }
    Ok(())
}

/// The windows of each buffer as bindings, in order ([`codegen::TEXTURE`]: the buffer
/// staged into a texture).
pub(super) fn bind_windows<'a>(
    buffers: impl IntoIterator<Item = (&'a Arc<crate::runtime::Storage>, u64)>,
    window_bytes: u64,
) -> Vec<Binding<'a>> {
    bind_windows_from(buffers.into_iter().map(|(s, w)| (s, w, 0)), window_bytes)
}

/// [`bind_windows`] with each buffer's windows starting at a byte offset (see [`Rebased`]).
pub(super) fn bind_windows_from<'a>(
    buffers: impl IntoIterator<Item = (&'a Arc<crate::runtime::Storage>, u64, u64)>,
    window_bytes: u64,
) -> Vec<Binding<'a>> {
    let mut bindings = Vec::new();
    for (s, windows, base) in buffers {
        if windows == codegen::TEXTURE {
            bindings.push(Binding::Texture {
                buffer: s.buffer(),
                bytes: s.bytes,
            });
        }
        for w in 0..windows {
            let offset = base + w * window_bytes;
            bindings.push(Binding::Buffer {
                buffer: s.buffer(),
                offset,
                size: (s.bytes - offset).min(window_bytes),
            });
        }
    }
    bindings
}

/// An operand read from the part of its buffer its layout touches, bound from the aligned
/// byte offset `base` on (the layout's offset counts from there). A kernel then binds only
/// the windows its slice reads, so a slab of a buffer larger than a kernel may bind at once
/// (wgpu's GL backend binds 16 windows of 128 MiB) can be read by itself.
pub(super) struct Rebased {
    pub(super) layout: Layout,
    pub(super) base: u64,
    pub(super) windows: u64,
    pub(super) padded: bool,
}

impl Rebased {
    pub(super) fn new(
        dev: &Device,
        layout: Layout,
        dtype: DType,
        buffer_bytes: u64,
        t: &Target,
    ) -> Rebased {
        let eb = dtype.storage_bytes() as u64;
        let align = u64::from(dev.0.info.limits.min_storage_buffer_offset_alignment).max(16);
        let (lo, hi) = layout.span().unwrap_or((layout.offset, layout.offset));
        let base = (lo as u64 * eb) / align * align;
        // Vector loads may read up to the next multiple of four elements where the buffer
        // holds them (as `Operand::padded` says).
        let end4 = (hi as u64).next_multiple_of(4) * eb;
        let padded = buffer_bytes >= end4;
        let end = if padded {
            end4
        } else {
            (hi as u64 * eb).next_multiple_of(4).min(buffer_bytes)
        };
        let mut layout = layout;
        layout.offset -= (base / eb) as usize;
        Rebased {
            layout,
            base,
            windows: codegen::windows_for(end.saturating_sub(base), t),
            padded,
        }
    }

    pub(super) fn operand(&self) -> Operand<'_> {
        Operand {
            layout: &self.layout,
            windows: self.windows,
            padded: self.padded,
        }
    }
}

/// Storage-buffer bindings a kernel may use on `dev`.
pub(super) fn max_bindings(dev: &Device) -> u64 {
    u64::from(dev.0.info.limits.max_storage_buffers_per_shader_stage)
}

/// How a kernel over `elements` elements reads an input from `st`: [`codegen::TEXTURE`]
/// where the device stages inputs into textures and the buffer or the kernel is large
/// enough (every thread loads its operands, so a broadcast scalar is loaded as often as a
/// full operand), for buffers no application holds; else the windows its buffer is bound as.
pub(super) fn input_windows(
    dev: &Device,
    st: &crate::runtime::Storage,
    elements: u64,
    target: &Target,
) -> u64 {
    match dev.0.texture_inputs {
        Some((min, max))
            if !st.is_shared() && st.bytes <= max && st.bytes.max(elements * 4) >= min =>
        {
            codegen::TEXTURE
        }
        _ => codegen::windows_for(st.bytes, target),
    }
}
