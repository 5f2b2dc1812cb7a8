//! The state a device keeps for its command queue: compiled kernels, the batch being
//! recorded, staging textures and the staged copies of live buffers. The device holds it; the queue's
//! methods (`queue.rs`) work on it.

/// A compiled compute pipeline and its bind-group layout.
pub(crate) struct Kernel {
    pub(super) pipeline: wgpu::ComputePipeline,
    pub(super) layout: wgpu::BindGroupLayout,
}

pub(crate) use crate::codegen::TEXTURE_WIDTH;

/// Bytes of staging textures kept for reuse.
pub(crate) const TEXTURE_POOL_BYTES: u64 = 512 << 20;

/// Bytes of staged copies kept with live buffers ([`StagedCache`]).
pub(crate) const STAGED_CACHE_BYTES: u64 = 1 << 30;

/// Texture copies of live buffers, kept after the dispatch that staged them so that later
/// kernels reading the same array skip the copy. A buffer's contents only change when a
/// dispatch binds it as a storage buffer (an output; uploads go to fresh buffers), which
/// drops its entry, as does the buffer's return to the pool. The oldest entries give way
/// past [`STAGED_CACHE_BYTES`].
#[derive(Default)]
pub(crate) struct StagedCache {
    pub(super) map: std::collections::HashMap<wgpu::Buffer, Staged>,
    pub(super) bytes: u64,
    pub(super) clock: u64,
}

pub(super) struct Staged {
    pub(super) texture: wgpu::Texture,
    pub(super) view: wgpu::TextureView,
    /// Bytes of the buffer that were copied.
    pub(super) source_bytes: u64,
    pub(super) used: u64,
}

impl Staged {
    pub(super) fn texture_bytes(&self) -> u64 {
        u64::from(self.texture.height()) * TEXTURE_WIDTH * 16
    }
}

impl StagedCache {
    /// Bytes of the cached textures.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// Staging textures kept for reuse, by rows. A texture can be reused by the very next
/// dispatch: commands run in the order they are recorded, and wgpu orders the copy into
/// it after the kernels that read it before.
#[derive(Default)]
pub(crate) struct TexturePool {
    pub(super) free: Vec<(u32, wgpu::Texture)>,
    pub(super) bytes: u64,
}

impl TexturePool {
    /// Bytes of the pooled textures.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// Work recorded since the last submit: the open encoder and compute pass, and the
/// kernels' metadata arena.
#[derive(Default)]
pub(crate) struct Batch {
    pub(super) encoder: Option<wgpu::CommandEncoder>,
    pub(super) pass: Option<wgpu::ComputePass<'static>>,
    pub(super) dispatches: usize,
    pub(super) meta: Vec<u8>,
    pub(super) meta_buf: Option<wgpu::Buffer>,
    pub(super) last: Option<wgpu::SubmissionIndex>,
}
