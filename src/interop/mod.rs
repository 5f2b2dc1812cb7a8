//! Fitting into programs people already have: an application's own wgpu device
//! ([`Device::from_wgpu`](crate::Device::from_wgpu)), its buffers ([`Array::wgpu_buffer`],
//! [`Array::from_wgpu_buffer`]), NumPy files ([`crate::numpy::save`], [`crate::numpy::load`]) and,
//! with the `ndarray` feature, `ndarray` arrays.

#[cfg(feature = "ndarray")]
#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
mod ndarray;
pub(crate) mod npy;

use crate::array::Array;
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::runtime::{Device, Storage};
use crate::shape::{Aval, Layout};

/// A contiguous array's place in a wgpu buffer (see [`Array::wgpu_buffer`]).
#[derive(Clone, Debug)]
pub struct WgpuBufferView {
    /// The buffer (a cheap handle to the same GPU buffer).
    pub buffer: wgpu::Buffer,
    /// Byte offset of the first element.
    pub offset: u64,
    /// Bytes of the array's elements from `offset`.
    pub size: u64,
}

/// Bytes one element occupies in a buffer: float16 two (packed in pairs), the others four
/// (bool is a 32-bit 0/1 word).
fn element_bytes(d: DType) -> u64 {
    d.storage_bytes() as u64
}

impl Array {
    /// The wgpu buffer holding this array, for an application's own pipelines: a
    /// C-contiguous array of the array's dtype at `offset`, which is a multiple of the
    /// device's `min_storage_buffer_offset_alignment` (a non-contiguous view, or one whose
    /// start cannot be bound, is first copied into a new buffer). Elements are stored
    /// as `f32`, `i32`, `u32`, bool as a `u32` 0/1 word, float16 as packed halves.
    ///
    /// The buffer's usage flags are `STORAGE | COPY_SRC | COPY_DST`. Pending Olympus work is
    /// submitted first, so the application's later submissions on the same queue see the
    /// values. The buffer is never reused for another array, even after the `Array` is
    /// dropped (wgpu frees it with the application's last handle). Kernels read a buffer
    /// handed out this way in place from then on, so they see what the application
    /// writes into it.
    pub fn wgpu_buffer(&self) -> Result<WgpuBufferView> {
        self.check_concrete("wgpu_buffer")?;
        let b = element_bytes(self.dtype());
        let align = u64::from(
            self.device()
                .info()
                .limits
                .min_storage_buffer_offset_alignment,
        );
        // A contiguous view keeps its offset when a binding could start there.
        let c = if self.layout().is_contiguous()
            && (self.layout().offset as u64 * b).is_multiple_of(align)
        {
            self.clone()
        } else {
            crate::lax::copy(self)?
        };
        c.storage()?.share();
        let view = WgpuBufferView {
            buffer: c.storage()?.buffer().clone(),
            offset: c.layout().offset as u64 * b,
            size: c.size() as u64 * b,
        };
        c.device().0.flush();
        Ok(view)
    }

    /// Wraps an application's buffer as an array of `shape` and `dtype` without copying
    /// (elements laid out as [`Array::wgpu_buffer`] describes). The buffer must belong to
    /// `device`, have the `STORAGE` usage (and `COPY_SRC` to be read back) and hold the
    /// elements; Olympus reads it in place and never writes to it or frees it.
    pub fn from_wgpu_buffer(
        device: &Device,
        buffer: wgpu::Buffer,
        shape: &[usize],
        dtype: DType,
    ) -> Result<Array> {
        let func = "Array::from_wgpu_buffer";
        let n = crate::shape::checked_size(func, shape)?;
        let need = (n as u64 * element_bytes(dtype)).next_multiple_of(4);
        let usage = buffer.usage();
        let mut problems = Vec::new();
        if !usage.contains(wgpu::BufferUsages::STORAGE) {
            problems.push(format!("its usage {usage:?} lacks STORAGE"));
        }
        if !usage.contains(wgpu::BufferUsages::COPY_SRC) {
            problems.push(format!(
                "its usage {usage:?} lacks COPY_SRC (needed to read it back)"
            ));
        }
        if buffer.size() < need {
            problems.push(format!(
                "it holds {} bytes but {} {dtype} elements of shape {} need {need}",
                buffer.size(),
                n,
                fmt_shape(shape)
            ));
        }
        if !problems.is_empty() {
            return Err(Error::InvalidArgument {
                func: func.into(),
                reason: format!("the buffer does not fit: {}", problems.join("; ")),
            });
        }
        let storage = Storage::external(device.0.clone(), buffer);
        Ok(Array::from_storage(
            device.clone(),
            storage,
            Layout::contiguous(shape),
            Aval::new(shape.to_vec(), dtype, false),
        ))
    }
}
