//! Buffers, kernels, the batched command queue and readback.
//!
//! Work is recorded into one open compute pass and submitted at sync points (readback,
//! `block_until_ready`, `synchronize`) or once `batch_limit` kernels are recorded: an op
//! returns as soon as it is encoded. Kernel metadata (sizes, strides, scalar parameters)
//! goes into one arena per batch, written with a single `write_buffer` at submit.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::device::{Device, DeviceInner};
use super::lock;
use super::pool::{size_class, BufferKind};
use super::state::{Batch, Kernel, Staged, STAGED_CACHE_BYTES, TEXTURE_POOL_BYTES};
use crate::codegen::TEXTURE_WIDTH;
use crate::dtype::DType;
use crate::error::{Error, Result};

/// Bytes of kernel metadata one batch may hold.
const META_ARENA: u64 = 64 * 1024;

/// Bytes of one dispatch's metadata binding (a uniform block of `META_WORDS` words).
const META_BINDING: u64 = crate::codegen::META_WORDS as u64 * 4;

/// The metadata buffer: the arena, and room for the last binding to extend past it.
const META_BUFFER: u64 = META_ARENA + META_BINDING;

/// A device buffer owned by one or more arrays; returns to the pool when the last owner
/// drops it.
pub(crate) struct Storage {
    buffer: Option<wgpu::Buffer>,
    /// Size of the buffer in bytes (its pool class).
    pub(crate) bytes: u64,
    kind: BufferKind,
    /// Set while a readback may leave the buffer mapped: then it is destroyed, not pooled.
    discard: AtomicBool,
    /// An application's buffer wrapped without a copy: never pooled or destroyed here.
    external: bool,
    /// Handed to the application with `Array::wgpu_buffer`.
    shared: AtomicBool,
    device: Arc<DeviceInner>,
}

impl Storage {
    pub(crate) fn buffer(&self) -> &wgpu::Buffer {
        self.buffer
            .as_ref()
            .expect("a storage buffer is present until the storage drops")
    }

    /// Whether an application holds this buffer: its own, wrapped (which may lack usages
    /// such as `COPY_SRC`), or one of ours handed out by [`Self::share`]. The application
    /// may write it, so kernels read it in place and never keep a staged copy.
    pub(crate) fn is_shared(&self) -> bool {
        self.external || self.shared.load(Ordering::Relaxed)
    }

    /// Marks the buffer as handed to the application (see [`Self::is_shared`]) and drops
    /// its staged copy.
    pub(crate) fn share(&self) {
        self.shared.store(true, Ordering::Relaxed);
        self.device.forget_staged(self.buffer());
    }

    /// Wraps an application's buffer (its owner keeps it; Olympus only reads and writes it).
    pub(crate) fn external(device: Arc<DeviceInner>, buffer: wgpu::Buffer) -> Arc<Storage> {
        Arc::new(Storage {
            bytes: buffer.size(),
            buffer: Some(buffer),
            kind: BufferKind::Storage,
            discard: AtomicBool::new(false),
            shared: AtomicBool::new(false),
            external: true,
            device,
        })
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        // Held until the buffer is dropped or destroyed too (both call into wgpu).
        let _gl = self.device.gl();
        if self.external {
            // The application's handle may be gone: this may be the last one.
            drop(self.buffer.take());
            return;
        }
        if let Some(b) = self.buffer.take() {
            // Its staged copy goes first: the buffer may next hold another array.
            self.device.forget_staged(&b);
            let mut pool = self.device.locked(&self.device.pool);
            if self.shared.load(Ordering::Relaxed) {
                // Handed to the application, which may hold it still: never reused (wgpu
                // frees it with the application's last handle).
                pool.stats.live_bytes -= self.bytes;
                pool.stats.live_buffers -= 1;
            } else if self.discard.load(Ordering::Relaxed) {
                pool.stats.live_bytes -= self.bytes;
                pool.stats.live_buffers -= 1;
                b.destroy();
            } else {
                pool.release(self.kind, self.bytes, b);
            }
        }
    }
}

/// One binding of a dispatch.
#[derive(Clone)]
pub(crate) enum Binding<'a> {
    /// A byte range of a buffer, bound as a storage buffer.
    Buffer {
        buffer: &'a wgpu::Buffer,
        offset: u64,
        size: u64,
    },
    /// The first `bytes` bytes of a buffer, copied into a texture of `TEXTURE_WIDTH`
    /// 16-byte texels per row (`Rgba32Uint`, a read-only storage texture) just before the
    /// dispatch.
    Texture {
        buffer: &'a wgpu::Buffer,
        bytes: u64,
    },
}

impl DeviceInner {
    /// A buffer from the pool or the driver; `recorded`: see
    /// [`Pool::take`](super::pool::Pool::take).
    fn new_buffer(&self, kind: BufferKind, class: u64, recorded: bool) -> Option<wgpu::Buffer> {
        let _gl = self.gl();
        if let Some(b) = self.locked(&self.pool).take(kind, class, recorded) {
            return Some(b);
        }
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: class,
            usage: kind.usage(),
            mapped_at_creation: false,
        });
        if pollster::block_on(oom.pop()).is_some() {
            buffer.destroy();
            return None;
        }
        self.locked(&self.pool).created(class);
        Some(buffer)
    }

    /// Submits everything recorded so far; returns the index of the last submission.
    pub(crate) fn flush(&self) -> Option<wgpu::SubmissionIndex> {
        let _gl = self.gl();
        let mut b = self.locked(&self.batch);
        self.flush_locked(&mut b)
    }

    fn flush_locked(&self, b: &mut Batch) -> Option<wgpu::SubmissionIndex> {
        b.pass = None;
        let Some(encoder) = b.encoder.take() else {
            return b.last.clone();
        };
        if let Some(mb) = &b.meta_buf {
            if !b.meta.is_empty() {
                self.queue.write_buffer(mb, 0, &b.meta);
            }
        }
        let index = self.queue.submit([encoder.finish()]);
        let mut pool = self.locked(&self.pool);
        if let Some(mb) = b.meta_buf.take() {
            pool.release(BufferKind::Meta, META_BUFFER, mb);
        }
        pool.after_submit();
        drop(pool);
        b.meta.clear();
        b.dispatches = 0;
        b.last = Some(index.clone());
        Some(index)
    }

    /// Records a copy of `bytes` bytes of `src` from `src_offset` into `dst` at
    /// `dst_offset` (each a multiple of 4), in order with the recorded kernels. `dst` must
    /// be a buffer no staged texture copies (one allocated for the result being built).
    pub(crate) fn copy_buffer(
        &self,
        src: &Storage,
        src_offset: u64,
        dst: &Storage,
        dst_offset: u64,
        bytes: u64,
    ) -> Result<()> {
        self.check_alive()?;
        if bytes == 0 {
            return Ok(());
        }
        let _gl = self.gl();
        let mut b = self.locked(&self.batch);
        // Copies are recorded outside compute passes.
        b.pass = None;
        self.encoder(&mut b).copy_buffer_to_buffer(
            src.buffer(),
            src_offset,
            dst.buffer(),
            dst_offset,
            bytes,
        );
        Ok(())
    }

    fn encoder<'b>(&self, b: &'b mut Batch) -> &'b mut wgpu::CommandEncoder {
        b.encoder.get_or_insert_with(|| {
            self.device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None })
        })
    }

    /// The compiled kernel identified by `key`, from the cache, or compiled from
    /// `source()` on a miss.
    pub(crate) fn kernel(&self, key: &str, source: impl FnOnce() -> String) -> Result<Arc<Kernel>> {
        let _gl = self.gl();
        self.generated
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Some(k) = self.locked(&self.kernels).get(key) {
            return Ok(k.clone());
        }
        let mut source = source();
        if FMA_RN.iter().any(|h| source.contains(h)) && self.exact_fma() {
            source = native_fma(&source);
        }
        if source.contains(DIV_RN) && self.exact_div() {
            source = native_body(&source, DIV_RN, "return x / y;");
        }
        if source.contains(SQRT_RN) && self.exact_sqrt() {
            source = native_body(&source, SQRT_RN, "return sqrt(x);");
        }
        if source.contains(MUL_RN) && self.plain_products() {
            source = native_body(&source, MUL_RN, "return a * b;");
        }
        let source = source.as_str();
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let pipeline = self.compute_pipeline(source);
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(self.failure(
                "compile kernel",
                format!("{e}\n--- generated WGSL ---\n{source}"),
            ));
        }
        let layout = pipeline.get_bind_group_layout(0);
        let k = Arc::new(Kernel { pipeline, layout });
        self.locked(&self.kernels)
            .insert(key.to_string(), k.clone());
        Ok(k)
    }

    /// A compute pipeline for the WGSL `source`, entry point `main` (errors go to the
    /// caller's error scope).
    fn compute_pipeline(&self, source: &str) -> wgpu::ComputePipeline {
        let module = self
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: None,
                source: wgpu::ShaderSource::Wgsl(source.into()),
            });
        self.device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: None,
                layout: None,
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            })
    }

    /// Whether the adapter's WGSL `fma` rounds once (IEEE fusedMultiplyAdd), probed once
    /// per device on products whose rounding changes the result; WGSL allows either, and
    /// lavapipe's rounds twice. A failed probe counts as not exact.
    pub(crate) fn exact_fma(&self) -> bool {
        // The GL lock first: the probe takes it inside the once-cell's initialisation.
        let _gl = self.gl();
        *self
            .exact_fma
            .get_or_init(|| self.probe_fma().unwrap_or(false))
    }

    fn probe_fma(&self) -> Option<bool> {
        let cases = fma_cases();
        let got = self.probe("", "fma(a, b, c)", &cases)?;
        Some(
            cases
                .iter()
                .zip(&got)
                .all(|([a, b, c], r)| a.mul_add(*b, *c).to_bits() == r.to_bits()),
        )
    }

    /// Whether the adapter never fuses a float32 multiply with an add, so that the
    /// prelude's `mul_rn` needs no barrier: a software adapter whose `fma` rounds twice
    /// (so it has no fused operation to contract into) and whose `a * b + c` rounds the
    /// product, both probed once per device. True on lavapipe, where the barrier's four
    /// extra operations per multiply guard nothing. GPUs keep the barrier: they fuse or may
    /// (on GL ES before 3.2 naga writes `fma` as `a * b + c`, so the probes could not tell
    /// a driver that contracts only in other contexts), and a failed probe counts as
    /// fusing.
    pub(crate) fn plain_products(&self) -> bool {
        // The GL lock first: the probe takes it inside the once-cell's initialisation.
        let _gl = self.gl();
        *self.plain_products.get_or_init(|| {
            let cpu = self.info.device_type == wgpu::DeviceType::Cpu;
            cpu && self.probe_fma() == Some(false) && self.probe_contraction() == Some(false)
        })
    }

    /// Whether `a * b + c` is computed with one rounding for any of the fma probe's cases
    /// (`None` when the probe cannot run).
    fn probe_contraction(&self) -> Option<bool> {
        let cases = fma_cases();
        let got = self.probe("", "a * b + c", &cases)?;
        Some(
            cases
                .iter()
                .zip(&got)
                .any(|([a, b, c], r)| (a * b + c).to_bits() != r.to_bits()),
        )
    }

    /// Whether the adapter's float32 division rounds correctly, probed once per device on
    /// 4096 quotients of significands spread over [1, 2), some scaled past 2^126 (NVIDIA's
    /// is 1 ulp off on a few of them, and 0 past 2^126; WGSL allows 2.5 ulp within
    /// [2^-126, 2^126]). A failed probe counts as not exact.
    pub(crate) fn exact_div(&self) -> bool {
        // The GL lock first: the probe takes it inside the once-cell's initialisation.
        let _gl = self.gl();
        *self
            .exact_div
            .get_or_init(|| self.probe_div().unwrap_or(false))
    }

    fn probe_div(&self) -> Option<bool> {
        // A fixed xorshift sequence: the same cases on every run.
        let mut state = 0x9e37_79b9u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            f32::from_bits(0x3f80_0000 | (state >> 9))
        };
        // The last 256 divide by values past 2^126, whose reciprocals are subnormal.
        let big = 2f32.powi(126);
        let cases: Vec<[f32; 3]> = (0..4096)
            .map(|i| match i < 3840 {
                true => [next(), next(), 0.0],
                false => [next() * big, next() * big, 0.0],
            })
            .collect();
        let got = self.probe("", "a / b", &cases)?;
        Some(
            cases
                .iter()
                .zip(&got)
                .all(|([a, b, _], r)| (a / b).to_bits() == r.to_bits()),
        )
    }

    /// Whether the adapter's float32 square root rounds correctly, probed once per device
    /// on 4096 values spread over [1, 4) (WGSL allows the error of `1 / inverseSqrt`).
    pub(crate) fn exact_sqrt(&self) -> bool {
        // The GL lock first: the probe takes it inside the once-cell's initialisation.
        let _gl = self.gl();
        *self
            .exact_sqrt
            .get_or_init(|| self.probe_sqrt().unwrap_or(false))
    }

    fn probe_sqrt(&self) -> Option<bool> {
        let mut state = 0x2545_f491u32;
        let cases: Vec<[f32; 3]> = (0..4096)
            .map(|i| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                let m = f32::from_bits(0x3f80_0000 | (state >> 9));
                [if i % 2 == 0 { m } else { 2.0 * m }, 0.0, 0.0]
            })
            .collect();
        let got = self.probe("", "sqrt(a)", &cases)?;
        Some(
            cases
                .iter()
                .zip(&got)
                .all(|([a, _, _], r)| a.sqrt().to_bits() == r.to_bits()),
        )
    }

    /// The float32 values of `expr` (over `a`, `b`, `c`, with the WGSL functions of
    /// `prelude`) for each case, computed by a one-off kernel outside the batch; `None`
    /// when it cannot run.
    fn probe(&self, prelude: &str, expr: &str, cases: &[[f32; 3]]) -> Option<Vec<f32>> {
        let _gl = self.gl();
        let n = cases.len() as u64;
        let input: Vec<u8> = cases
            .iter()
            .flatten()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let source = format!(
            "{prelude}@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n\
            @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{\n\
            let n = arrayLength(&v) / 4u;\n\
            if (g.x < n) {{ let a = v[3u * g.x]; let b = v[3u * g.x + 1u]; let c = v[3u * g.x + 2u]; v[3u * n + g.x] = {expr}; }}\n\
            }}\n"
        );
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("olympus probe"),
            size: 16 * n,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let readback = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("olympus probe readback"),
            size: 4 * n,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let pipeline = self.compute_pipeline(&source);
        let bind = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: buffer.as_entire_binding(),
            }],
        });
        self.queue.write_buffer(&buffer, 0, &input);
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(n.div_ceil(64) as u32, 1, 1);
        }
        encoder.copy_buffer_to_buffer(&buffer, 12 * n, &readback, 0, 4 * n);
        let index = self.queue.submit([encoder.finish()]);
        if pollster::block_on(scope.pop()).is_some() {
            return None;
        }
        let (tx, rx) = std::sync::mpsc::channel();
        readback.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.wait_for(index, "probe").ok()?;
        rx.recv().ok()?.ok()?;
        let got: Vec<f32> = readback
            .slice(..)
            .get_mapped_range()
            .ok()?
            .chunks_exact(4)
            .map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        Some(got)
    }

    /// Records a copy of the first `bytes` bytes of `buffer` into a staging texture (ending
    /// the open compute pass: copies are recorded between passes) and returns it with its
    /// view; the caller returns it with [`Self::release_textures`].
    fn stage(
        &self,
        b: &mut Batch,
        buffer: &wgpu::Buffer,
        bytes: u64,
    ) -> Result<(wgpu::Texture, wgpu::TextureView)> {
        const ROW: u64 = TEXTURE_WIDTH * 16;
        let texels = bytes.div_ceil(16);
        let rows = texels.div_ceil(TEXTURE_WIDTH).max(1);
        let max_rows = u64::from(self.info.limits.max_texture_dimension_2d);
        let class = (size_class(rows * ROW) / ROW).min(max_rows) as u32;
        let texture = {
            let mut pool = self.locked(&self.textures);
            match pool.free.iter().position(|(r, _)| *r == class) {
                Some(i) => {
                    pool.bytes -= u64::from(class) * ROW;
                    Some(pool.free.swap_remove(i).1)
                }
                None => None,
            }
        };
        let texture = match texture {
            Some(t) => t,
            None => {
                let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
                let t = self.device.create_texture(&wgpu::TextureDescriptor {
                    label: Some("olympus input"),
                    size: wgpu::Extent3d {
                        width: TEXTURE_WIDTH as u32,
                        height: class,
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format: wgpu::TextureFormat::Rgba32Uint,
                    usage: wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::COPY_DST,
                    view_formats: &[],
                });
                if pollster::block_on(oom.pop()).is_some() {
                    t.destroy();
                    return Err(Error::Device {
                        func: crate::error::api_name("dispatch"),
                        reason: format!(
                            "out of memory allocating a {} MiB texture to stage a kernel input",
                            (u64::from(class) * ROW) >> 20
                        ),
                    });
                }
                t
            }
        };
        // Copies are recorded outside compute passes.
        b.pass = None;
        let encoder = self.encoder(b);
        let full = texels / TEXTURE_WIDTH;
        let rest = texels % TEXTURE_WIDTH;
        for (offset, y, width, height) in [
            (0, 0, TEXTURE_WIDTH, full),
            (full * ROW, full, rest, u64::from(rest > 0)),
        ] {
            if height == 0 {
                continue;
            }
            encoder.copy_buffer_to_texture(
                wgpu::TexelCopyBufferInfo {
                    buffer,
                    layout: wgpu::TexelCopyBufferLayout {
                        offset,
                        bytes_per_row: Some(ROW as u32),
                        rows_per_image: None,
                    },
                },
                wgpu::TexelCopyTextureInfo {
                    texture: &texture,
                    mip_level: 0,
                    origin: wgpu::Origin3d {
                        x: 0,
                        y: y as u32,
                        z: 0,
                    },
                    aspect: wgpu::TextureAspect::All,
                },
                wgpu::Extent3d {
                    width: width as u32,
                    height: height as u32,
                    depth_or_array_layers: 1,
                },
            );
        }
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        Ok((texture, view))
    }

    /// Drops every staged copy and pooled texture (memory is short).
    pub(crate) fn clear_textures(&self) {
        let _gl = self.gl();
        let mut staged = self.locked(&self.staged);
        staged.map.clear();
        staged.bytes = 0;
        drop(staged);
        let mut pool = self.locked(&self.textures);
        pool.free.clear();
        pool.bytes = 0;
    }

    /// Drops the staged copy of `buffer`, if any, returning its texture to the pool.
    pub(crate) fn forget_staged(&self, buffer: &wgpu::Buffer) {
        let _gl = self.gl();
        let old = {
            let mut staged = self.locked(&self.staged);
            if staged.map.is_empty() {
                return;
            }
            let old = staged.map.remove(buffer);
            if let Some(o) = &old {
                staged.bytes -= o.texture_bytes();
            }
            old
        };
        if let Some(o) = old {
            self.release_textures([o.texture]);
        }
    }

    /// Returns textures to the pool once the dispatch that reads them is recorded (not
    /// earlier: the inputs of one dispatch need distinct textures).
    fn release_textures(&self, textures: impl IntoIterator<Item = wgpu::Texture>) {
        let _gl = self.gl();
        const ROW: u64 = TEXTURE_WIDTH * 16;
        // As many bytes as the buffer pool keeps, so that a working set's textures stay.
        let budget = self.locked(&self.pool).budget();
        let mut pool = self.locked(&self.textures);
        for texture in textures {
            let rows = texture.height();
            pool.bytes += u64::from(rows) * ROW;
            pool.free.push((rows, texture));
        }
        // Dropped, not destroyed: a recorded bind group may still read it.
        while pool.bytes > TEXTURE_POOL_BYTES.max(budget) {
            let (r, _) = pool.free.remove(0);
            pool.bytes -= u64::from(r) * ROW;
        }
    }

    /// Records one dispatch of `groups` workgroups. `bindings` follow the metadata binding
    /// (binding 0) in order. Returns at once; the work is submitted later.
    pub(crate) fn dispatch(
        &self,
        kernel: &Kernel,
        bindings: &[Binding<'_>],
        meta: &[u32],
        groups: u64,
    ) -> Result<()> {
        self.check_alive()?;
        if groups == 0 {
            return Ok(());
        }
        self.dispatches.fetch_add(1, Ordering::Relaxed);
        let _gl = self.gl();
        // Past one grid row, rows of equal length: rows `max` wide would leave up to a
        // whole row of idle groups (nearly half the grid just past 65535 groups), and
        // lavapipe still pays for every launched group.
        let max = u64::from(self.max_groups);
        let y = groups.div_ceil(max);
        let x = groups.div_ceil(y);
        if y > max {
            return Err(Error::arg(
                "dispatch",
                format!("{groups} workgroups exceed the device's {max}x{max} grid"),
            ));
        }
        let align = u64::from(self.info.limits.min_uniform_buffer_offset_alignment).max(16);
        let meta_bytes: &[u8] = bytemuck::cast_slice(meta);
        let meta_len = (meta_bytes.len() as u64).max(4);
        if meta_len > META_BINDING {
            return Err(Error::arg(
                "dispatch",
                format!(
                    "the kernel's metadata ({} words: sizes and strides of its operands) exceeds the {} words a dispatch carries",
                    meta.len(),
                    crate::codegen::META_WORDS
                ),
            ));
        }
        let mut b = self.locked(&self.batch);
        if (b.meta.len() as u64).next_multiple_of(align) + meta_len > META_ARENA {
            self.flush_locked(&mut b);
        }
        if b.meta_buf.is_none() {
            let buf = self
                .new_buffer(BufferKind::Meta, META_BUFFER, false)
                .ok_or_else(|| Error::Device {
                    func: crate::error::api_name("dispatch"),
                    reason: "out of memory allocating kernel metadata".into(),
                })?;
            b.meta_buf = Some(buf);
        }
        let offset = (b.meta.len() as u64).next_multiple_of(align);
        b.meta.resize(offset as usize, 0);
        b.meta.extend_from_slice(meta_bytes);
        if meta_bytes.is_empty() {
            b.meta.extend_from_slice(&[0; 4]);
        }
        // Buffers bound as storage (outputs may be among them), without allocating.
        let written = || {
            bindings.iter().filter_map(|bd| match bd {
                Binding::Buffer { buffer, .. } => Some(*buffer),
                Binding::Texture { .. } => None,
            })
        };
        let mut textures = Vec::new();
        let mut views = Vec::with_capacity(bindings.len());
        let staged_cap = STAGED_CACHE_BYTES.max(self.locked(&self.pool).stats.live_bytes);
        {
            let mut staged = self.locked(&self.staged);
            // A buffer bound as storage may be written: its staged copy is stale after.
            if !staged.map.is_empty() {
                for buffer in written() {
                    if let Some(old) = staged.map.remove(buffer) {
                        staged.bytes -= old.texture_bytes();
                        textures.push(old.texture);
                    }
                }
            }
            for bd in bindings {
                let Binding::Texture { buffer, bytes } = bd else {
                    views.push(None);
                    continue;
                };
                staged.clock += 1;
                let clock = staged.clock;
                if let Some(hit) = staged.map.get_mut(*buffer) {
                    if hit.source_bytes == *bytes {
                        hit.used = clock;
                        views.push(Some(hit.view.clone()));
                        continue;
                    }
                }
                let (texture, view) = match self.stage(&mut b, buffer, *bytes) {
                    Ok(t) => t,
                    Err(e) => {
                        drop(staged);
                        self.release_textures(textures);
                        return Err(e);
                    }
                };
                views.push(Some(view.clone()));
                let entry = Staged {
                    texture,
                    view,
                    source_bytes: *bytes,
                    used: clock,
                };
                if written().any(|w| w == *buffer) || entry.texture_bytes() > staged_cap {
                    textures.push(entry.texture);
                    continue;
                }
                staged.bytes += entry.texture_bytes();
                if let Some(old) = staged.map.insert((*buffer).clone(), entry) {
                    staged.bytes -= old.texture_bytes();
                    textures.push(old.texture);
                }
                while staged.bytes > staged_cap {
                    let oldest = staged
                        .map
                        .iter()
                        .min_by_key(|(_, s)| s.used)
                        .map(|(k, _)| k.clone())
                        .expect("the cache holds the bytes it counts");
                    let old = staged.map.remove(&oldest).expect("found above");
                    staged.bytes -= old.texture_bytes();
                    textures.push(old.texture);
                }
            }
        }
        let meta_buf = b.meta_buf.as_ref().expect("allocated above");
        let mut entries = Vec::with_capacity(bindings.len() + 1);
        entries.push(wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: meta_buf,
                offset,
                size: std::num::NonZeroU64::new(META_BINDING),
            }),
        });
        for (i, (bd, view)) in bindings.iter().zip(&views).enumerate() {
            let resource = match (bd, view) {
                (_, Some(view)) => wgpu::BindingResource::TextureView(view),
                (
                    Binding::Buffer {
                        buffer,
                        offset,
                        size,
                    },
                    None,
                ) => wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset: *offset,
                    size: std::num::NonZeroU64::new(*size),
                }),
                (Binding::Texture { .. }, None) => unreachable!("every texture is staged above"),
            };
            entries.push(wgpu::BindGroupEntry {
                binding: i as u32 + 1,
                resource,
            });
        }
        let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &kernel.layout,
            entries: &entries,
        });
        drop(entries);
        self.release_textures(textures);
        if b.pass.is_none() {
            let pass = self
                .encoder(&mut b)
                .begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: None,
                    timestamp_writes: None,
                })
                .forget_lifetime();
            b.pass = Some(pass);
        }
        let pass = b.pass.as_mut().expect("opened above");
        pass.set_pipeline(&kernel.pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(x as u32, y as u32, 1);
        b.dispatches += 1;
        if b.dispatches >= self.options.batch_limit || self.locked(&self.pool).wants_submit() {
            self.flush_locked(&mut b);
        }
        Ok(())
    }
}

impl Device {
    /// A buffer of at least `bytes` bytes from the pool or freshly allocated, with
    /// out-of-memory caught in an error scope (the pool is emptied and the allocation
    /// retried once before giving up). Only commands recorded from now on may write it
    /// (a kernel's output, a copy's destination); [`Self::upload`] is for data written
    /// from the host.
    pub(crate) fn alloc(
        &self,
        kind: BufferKind,
        bytes: u64,
        func: &str,
        shape: &[usize],
        dtype: DType,
    ) -> Result<Arc<Storage>> {
        // Staging buffers are mapped: only storage is taken before its submit.
        let recorded = kind == BufferKind::Storage;
        self.alloc_for(kind, bytes, func, shape, dtype, recorded)
    }

    fn alloc_for(
        &self,
        kind: BufferKind,
        bytes: u64,
        func: &str,
        shape: &[usize],
        dtype: DType,
        recorded: bool,
    ) -> Result<Arc<Storage>> {
        let d = &self.0;
        d.check_alive()?;
        let oom = |reason: String| Error::OutOfMemory {
            func: crate::error::api_name(func),
            bytes,
            shape: shape.to_vec(),
            dtype,
            reason,
        };
        self.check_fits(Some(bytes), func, shape, dtype)?;
        let max = d.info.limits.max_buffer_size;
        // Within 25% of the largest buffer a size class may not fit where the request does:
        // such a buffer is made to measure.
        let class = size_class(bytes.next_multiple_of(4)).min(bytes.max(max / 4 * 4));
        let buffer = match d.new_buffer(kind, class, recorded) {
            Some(b) => b,
            None => {
                d.synchronize(func)?;
                d.locked(&d.pool).clear();
                d.clear_textures();
                d.new_buffer(kind, class, recorded)
                    .ok_or_else(|| oom("the device is out of memory".into()))?
            }
        };
        Ok(Arc::new(Storage {
            external: false,
            buffer: Some(buffer),
            bytes: class,
            kind,
            discard: AtomicBool::new(false),
            shared: AtomicBool::new(false),
            device: d.clone(),
        }))
    }

    /// `OutOfMemory` naming `func` unless `bytes` (`None`: past `u64`) fit the device's
    /// largest buffer: checked before anything is built for an array, on the host or here.
    pub(crate) fn check_fits(
        &self,
        bytes: Option<u64>,
        func: &str,
        shape: &[usize],
        dtype: DType,
    ) -> Result<()> {
        let max = self.0.info.limits.max_buffer_size;
        match bytes.and_then(|b| b.checked_next_multiple_of(4)) {
            Some(b) if b <= max => Ok(()),
            _ => Err(Error::OutOfMemory {
                func: crate::error::api_name(func),
                bytes: bytes.unwrap_or(u64::MAX),
                shape: shape.to_vec(),
                dtype,
                reason: format!("the device's largest buffer is {max} bytes"),
            }),
        }
    }

    /// An empty host vector with room for `n` values that will build (or read back) an
    /// array of `shape` and `dtype` on this device: `OutOfMemory` (never an abort) when the
    /// array could not fit the device or the host cannot reserve the room, even after the
    /// pool's idle buffers are freed.
    pub(crate) fn host_vec<T>(
        &self,
        n: usize,
        func: &str,
        shape: &[usize],
        dtype: DType,
    ) -> Result<Vec<T>> {
        let bytes = shape
            .iter()
            .try_fold(dtype.storage_bytes() as u64, |acc, &d| {
                acc.checked_mul(d as u64)
            });
        self.check_fits(bytes, func, shape, dtype)?;
        let mut v = Vec::new();
        if v.try_reserve_exact(n).is_err() {
            // The pool's idle buffers are host memory on a software adapter: give them
            // back and try once more, as a device allocation does.
            let d = &self.0;
            d.synchronize(func)?;
            d.locked(&d.pool).clear();
            d.clear_textures();
            v.try_reserve_exact(n).map_err(|e| Error::OutOfMemory {
                func: crate::error::api_name(func),
                bytes: bytes.unwrap_or(u64::MAX),
                shape: shape.to_vec(),
                dtype,
                reason: format!("the host could not reserve the elements: {e}"),
            })?;
        }
        Ok(v)
    }

    /// A new storage buffer holding `data` (written at the next submit, before any kernel
    /// recorded in the meantime runs).
    pub(crate) fn upload(
        &self,
        data: &[u8],
        func: &str,
        shape: &[usize],
        dtype: DType,
    ) -> Result<Arc<Storage>> {
        let s = self.alloc_for(
            BufferKind::Storage,
            data.len() as u64,
            func,
            shape,
            dtype,
            false,
        )?;
        let _gl = self.0.gl();
        let whole = data.len() / 4 * 4;
        if whole > 0 {
            self.0.queue.write_buffer(s.buffer(), 0, &data[..whole]);
        }
        if whole < data.len() {
            let mut tail = [0u8; 4];
            tail[..data.len() - whole].copy_from_slice(&data[whole..]);
            self.0.queue.write_buffer(s.buffer(), whole as u64, &tail);
        }
        Ok(s)
    }

    /// Copies `bytes` bytes of `src` into a staging buffer and submits; the caller maps it.
    fn stage(
        &self,
        src: &Storage,
        bytes: u64,
        func: &str,
    ) -> Result<(Arc<Storage>, u64, wgpu::SubmissionIndex)> {
        let d = &self.0;
        d.check_alive()?;
        let _gl = d.gl();
        let len = bytes.next_multiple_of(4).max(4);
        let staging = self.alloc(BufferKind::Staging, len, func, &[], DType::UInt32)?;
        let mut b = d.locked(&d.batch);
        b.pass = None;
        d.encoder(&mut b)
            .copy_buffer_to_buffer(src.buffer(), 0, staging.buffer(), 0, len);
        let index = d.flush_locked(&mut b).expect("a copy was just recorded");
        Ok((staging, len, index))
    }

    fn finish_read<R>(
        &self,
        staging: &Storage,
        len: u64,
        bytes: u64,
        func: &str,
        decode: impl FnOnce(&[u8]) -> R,
    ) -> Result<R> {
        let _gl = self.0.gl();
        let slice = staging.buffer().slice(0..len);
        let data = match slice.get_mapped_range() {
            Ok(view) => decode(&view[..bytes as usize]),
            Err(e) => {
                return Err(self.0.failure(
                    func,
                    format!("reading the mapped readback buffer failed: {e}"),
                ))
            }
        };
        staging.buffer().unmap();
        staging.discard.store(false, Ordering::Relaxed);
        self.0.take_errors(func)?;
        Ok(data)
    }

    /// Reads the first `bytes` bytes of a buffer back, waiting for the device, and decodes
    /// them straight from the mapped staging buffer.
    pub(crate) fn read<R>(
        &self,
        src: &Storage,
        bytes: u64,
        func: &str,
        decode: impl FnOnce(&[u8]) -> R,
    ) -> Result<R> {
        let (staging, len, index) = self.stage(src, bytes, func)?;
        staging.discard.store(true, Ordering::Relaxed);
        let (tx, rx) = std::sync::mpsc::channel();
        {
            let _gl = self.0.gl();
            staging
                .buffer()
                .slice(0..len)
                .map_async(wgpu::MapMode::Read, move |r| {
                    let _ = tx.send(r);
                });
        }
        let dev_err = |reason: String| self.0.failure(func, reason);
        self.0.wait_for(index, func)?;
        match rx.recv() {
            Ok(Ok(())) => self.finish_read(&staging, len, bytes, func, decode),
            Ok(Err(e)) => Err(dev_err(format!("mapping the readback buffer failed: {e}"))),
            Err(_) => Err(self
                .0
                .take_errors(func)
                .err()
                .unwrap_or_else(|| dev_err("the readback never completed".into()))),
        }
    }

    /// Like [`Device::read`], but the returned future waits without blocking the thread:
    /// a helper thread polls the device while the future is pending.
    pub(crate) fn read_async<R: Send + 'static>(
        &self,
        src: &Storage,
        bytes: u64,
        func: &'static str,
        decode: impl FnOnce(&[u8]) -> R + Send + 'static,
    ) -> impl Future<Output = Result<R>> + Send + 'static {
        let staged = self.stage(src, bytes, func);
        let this = self.clone();
        async move {
            let (staging, len, index) = staged?;
            staging.discard.store(true, Ordering::Relaxed);
            // The map callback answers, or the waiting thread when the wait fails (then the
            // callback may never run).
            type Answer = std::sync::Mutex<Option<futures::channel::oneshot::Sender<Result<()>>>>;
            let (tx, rx) = futures::channel::oneshot::channel::<Result<()>>();
            let tx: Arc<Answer> = Arc::new(std::sync::Mutex::new(Some(tx)));
            let answer = |tx: &Answer, r: Result<()>| {
                if let Some(t) = lock(tx).take() {
                    let _ = t.send(r);
                }
            };
            {
                let _gl = this.0.gl();
                let tx = tx.clone();
                staging
                    .buffer()
                    .slice(0..len)
                    .map_async(wgpu::MapMode::Read, move |r| {
                        let r = r.map_err(|e| Error::Device {
                            func: func.to_string(),
                            reason: format!("mapping the readback buffer failed: {e}"),
                        });
                        answer(&tx, r);
                    });
            }
            let inner = this.0.clone();
            std::thread::Builder::new()
                .name("olympus readback".into())
                .spawn(move || {
                    if let Err(e) = inner.wait_for(index, func) {
                        answer(&tx, Err(e));
                    }
                })
                .map_err(|e| Error::Device {
                    func: func.to_string(),
                    reason: format!("could not start the thread that waits for the readback: {e}"),
                })?;
            match rx.await {
                Ok(Ok(())) => this.finish_read(&staging, len, bytes, func, decode),
                // A map that failed because another thread destroyed the device is
                // that device's loss.
                Ok(Err(e)) => Err(this.0.check_alive().err().unwrap_or(e)),
                Err(_) => Err(this.0.failure(func, "the readback was cancelled")),
            }
        }
    }
}

/// The prelude's correctly rounded multiply-adds (`fma_rn`, and `fma_poly` for operands
/// known to be in range), by their first lines.
const FMA_RN: [&str; 2] = [
    "fn fma_rn(a: f32, b: f32, c: f32) -> f32 {",
    "fn fma_poly(a: f32, b: f32, c: f32) -> f32 {",
];

/// Multiply-adds whose single rounding differs from rounding the product first: a * b -
/// fl(a * b) is the product's rounding error, non-zero for these operands, and 0 with the
/// product rounded. The last case is a tie of the product's rounding: (1 + 2^-12)^2 - 1.
fn fma_cases() -> Vec<[f32; 3]> {
    let mut cases: Vec<[f32; 3]> = (1..=15u16)
        .map(|k| {
            let a = 1.0 + f32::from(k) * 2f32.powi(-12) + 2f32.powi(-23);
            let b = 1.0 + f32::from(2 * k + 1) * 2f32.powi(-11) + 2f32.powi(-22);
            [a, b, -(a * b)]
        })
        .collect();
    let t = 1.0 + 2f32.powi(-12);
    cases.push([t, t, -1.0]);
    cases
}

/// The head of the prelude's float32 product with a barrier against fusion.
const MUL_RN: &str = "fn mul_rn(a: f32, b: f32) -> f32 {";

/// The head of the prelude's correctly rounded division.
const DIV_RN: &str = "fn div_rn(x: f32, y: f32) -> f32 {";

/// The head of the prelude's correctly rounded square root.
const SQRT_RN: &str = "fn sqrt_rn(x: f32) -> f32 {";

/// `source` with the bodies of the prelude's multiply-adds replaced by the adapter's own
/// `fma`, for adapters whose `fma` rounds once.
fn native_fma(source: &str) -> String {
    FMA_RN.iter().fold(source.to_string(), |s, head| {
        native_body(&s, head, "return fma(a, b, c);")
    })
}

/// `source` with the body of the prelude function that starts with `head` replaced by
/// `body` (one line).
fn native_body(source: &str, head: &str, body: &str) -> String {
    let Some(start) = source.find(head) else {
        return source.to_string();
    };
    let Some(len) = source[start..].find("\n}\n") else {
        return source.to_string();
    };
    format!(
        "{}{head}\n    {body}{}",
        &source[..start],
        &source[start + len..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On adapters whose `fma` rounds once, both prelude multiply-adds become the
    /// adapter's `fma`, and the module stays valid.
    #[test]
    fn native_fma_replaces_both_multiply_adds() {
        let main = "@compute @workgroup_size(1) fn main() {\n    \
            let y = erf_inv_f32(0.5) + fma_rn(1.0, 2.0, 3.0);\n}\n";
        let source = format!("{}{main}", crate::codegen::prelude_for(main));
        assert!(FMA_RN.iter().all(|h| source.contains(h)));
        let native = native_fma(&source);
        for head in FMA_RN {
            assert!(
                native.contains(&format!("{head}\n    return fma(a, b, c);\n}}\n")),
                "{head}"
            );
        }
        assert!(!native.contains("return fma_core(a, b, c);"));
        assert!(native.contains(main));
        crate::codegen::tests::validate(&native).unwrap();
        crate::codegen::tests::validate(&source).unwrap();
    }

    /// The probe of the adapter's `fma` runs (lavapipe's rounds twice; GPUs' usually once).
    #[test]
    fn fma_probe_runs() {
        let dev = Device::default_device().unwrap();
        assert!(dev.0.probe_fma().is_some());
        assert_eq!(dev.0.exact_fma(), dev.0.probe_fma().unwrap());
    }

    /// The contraction probe runs, and products lose their barrier exactly on software
    /// adapters where neither `fma` nor `a * b + c` rounds once (lavapipe); the plain
    /// product validates.
    #[test]
    fn contraction_probe_runs_and_plain_products_validate() {
        let dev = Device::default_device().unwrap();
        let contracted = dev.0.probe_contraction().unwrap();
        let cpu = dev.0.info.device_type == wgpu::DeviceType::Cpu;
        assert_eq!(
            dev.0.plain_products(),
            cpu && !contracted && !dev.0.probe_fma().unwrap()
        );
        if dev.0.info.name.contains("llvmpipe") {
            assert!(dev.0.plain_products(), "lavapipe and llvmpipe never fuse");
        }
        let main = "@compute @workgroup_size(1) fn main() {\n    let y = mul_rn(1.0, 3.0);\n}\n";
        let source = format!("{}{main}", crate::codegen::prelude_for(main));
        let native = native_body(&source, MUL_RN, "return a * b;");
        assert!(native.contains(&format!("{MUL_RN}\n    return a * b;\n}}\n")));
        crate::codegen::tests::validate(&native).unwrap();
    }

    /// The probe of the adapter's division runs (lavapipe's rounds correctly), and the
    /// prelude's division becomes the adapter's own in a valid module.
    #[test]
    fn division_probe_runs_and_native_division_validates() {
        let dev = Device::default_device().unwrap();
        assert!(dev.0.probe_div().is_some());
        assert_eq!(dev.0.exact_div(), dev.0.probe_div().unwrap());
        let main = "@compute @workgroup_size(1) fn main() {\n    let y = div_rn(1.0, 3.0);\n}\n";
        let source = format!("{}{main}", crate::codegen::prelude_for(main));
        assert!(source.contains(DIV_RN));
        let native = native_body(&source, DIV_RN, "return x / y;");
        assert!(native.contains(&format!("{DIV_RN}\n    return x / y;\n}}\n")));
        assert!(dev.0.probe_sqrt().is_some());
        let main = "@compute @workgroup_size(1) fn main() {\n    let y = sqrt_rn(2.0);\n}\n";
        let source = format!("{}{main}", crate::codegen::prelude_for(main));
        let native = native_body(&source, SQRT_RN, "return sqrt(x);");
        assert!(native.contains(&format!("{SQRT_RN}\n    return sqrt(x);\n}}\n")));
        crate::codegen::tests::validate(&native).unwrap();
        crate::codegen::tests::validate(&source).unwrap();
    }

    /// The prelude's own division, as adapters whose `/` is not exact run it (NVIDIA),
    /// rounds as IEEE: significand quotients, divisors past 2^125 (whose reciprocals are
    /// subnormal: NVIDIA's quotient was 0), huge and tiny dividends, infinities and NaN.
    /// A subnormal quotient may come out flushed to zero of its sign.
    #[test]
    fn emulated_division_rounds_correctly() {
        let dev = Device::default_device().unwrap();
        let mut state = 0x2545_f491u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        let mut cases = Vec::new();
        for i in 0..8192 {
            let (ea, eb) = match i % 4 {
                0 => (0, 0),
                1 => (126, 126),
                2 => (127, 125 + (i / 4) % 3),
                _ => ((i / 4) % 256 - 128, 110 + (i / 4) % 18),
            };
            let f = |bits: u32, e: i32| {
                f32::from_bits(0x3f80_0000 | (bits >> 9)) * 2f32.powi(e.min(127))
            };
            let sign = if i % 3 == 0 { -1.0 } else { 1.0 };
            cases.push([sign * f(next(), ea), f(next(), eb), 0.0]);
        }
        let big = f32::MAX;
        for [a, b] in [
            [3e38, big],
            [big, big],
            [1.0, big],
            [-2e38, 1e38],
            [1.0, f32::INFINITY],
            [f32::INFINITY, 3e38],
            [f32::NAN, 3e38],
            [0.0, 3e38],
            [-0.0, 3e38],
        ] {
            cases.push([a, b, 0.0]);
        }
        // The multiply-adds as kernels get them: the adapter's own where it rounds once.
        let main = "div_rn(a, b)";
        let mut prelude = crate::codegen::prelude_for(main);
        if dev.0.exact_fma() {
            prelude = native_fma(&prelude);
        }
        let got = dev.0.probe(&prelude, main, &cases).unwrap();
        for ([a, b, _], g) in cases.iter().zip(&got) {
            let want = a / b;
            let flushed = want.is_subnormal() && *g == 0.0 && g.signum() == want.signum();
            assert!(
                g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()) || flushed,
                "div_rn({a:e}, {b:e}) = {g:e}, want {want:e}"
            );
        }
    }
}
