//! Devices: adapter choice, options, limits, and the lazily created default device.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use parking_lot::{ReentrantMutex, ReentrantMutexGuard};

use super::lock;
use super::pool::{MemoryStats, Pool};
use super::state::{Batch, StagedCache, TexturePool};
use crate::codegen::TEXTURE_WIDTH;
use crate::codegen::{Capabilities, Variants};
use crate::error::{Error, Result};

/// A graphics API wgpu can drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// Vulkan (Linux, Windows, Android; lavapipe is Mesa's software Vulkan).
    Vulkan,
    /// Metal (macOS, iOS).
    Metal,
    /// Direct3D 12 (Windows).
    Dx12,
    /// OpenGL / GLES through EGL or WGL (llvmpipe is Mesa's software GL).
    Gl,
}

impl Backend {
    /// Parses `vulkan`, `metal`, `dx12` or `gl` (case-insensitive), as `OLYMPUS_BACKEND` takes.
    pub fn parse(s: &str) -> Option<Backend> {
        match s.to_ascii_lowercase().as_str() {
            "vulkan" | "vk" => Some(Backend::Vulkan),
            "metal" | "mtl" => Some(Backend::Metal),
            "dx12" | "d3d12" => Some(Backend::Dx12),
            "gl" | "gles" | "opengl" => Some(Backend::Gl),
            _ => None,
        }
    }

    fn to_wgpu(self) -> wgpu::Backends {
        match self {
            Backend::Vulkan => wgpu::Backends::VULKAN,
            Backend::Metal => wgpu::Backends::METAL,
            Backend::Dx12 => wgpu::Backends::DX12,
            Backend::Gl => wgpu::Backends::GL,
        }
    }

    fn from_wgpu(b: wgpu::Backend) -> Option<Backend> {
        match b {
            wgpu::Backend::Vulkan => Some(Backend::Vulkan),
            wgpu::Backend::Metal => Some(Backend::Metal),
            wgpu::Backend::Dx12 => Some(Backend::Dx12),
            wgpu::Backend::Gl => Some(Backend::Gl),
            _ => None,
        }
    }
}

/// How `float16` arrays are stored and loaded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum F16Mode {
    /// Native `f16` in shaders where the adapter has `SHADER_F16`, emulation otherwise.
    #[default]
    Auto,
    /// Always emulate: two halves packed in a `u32`, converted with integer code.
    /// Results are bit-identical to the native path.
    Emulated,
}

/// Which kind of adapter the kernel choices are made for.
///
/// Software adapters (lavapipe, llvmpipe) and GPUs want different kernels for the same
/// operation: on a CPU adapter each thread handles four `vec4`s, large inputs are staged
/// into textures and matmul shares values across 8-lane subgroups; a GPU reads storage
/// buffers with one `vec4` a thread and stages matmul tiles in workgroup memory. `Gpu` makes
/// every GPU choice on any adapter, so CI on a software adapter runs the kernels a GPU
/// would (`OLYMPUS_PROFILE=gpu`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KernelProfile {
    /// By the adapter: `Cpu` on software adapters, `Gpu` on every other.
    #[default]
    Auto,
    /// The choices a GPU gets.
    Gpu,
    /// The choices a CPU (software) adapter gets.
    Cpu,
}

impl KernelProfile {
    /// Parses `auto`, `gpu` or `cpu` (case-insensitive), as `OLYMPUS_PROFILE` takes.
    pub fn parse(s: &str) -> Option<KernelProfile> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Some(KernelProfile::Auto),
            "gpu" => Some(KernelProfile::Gpu),
            "cpu" => Some(KernelProfile::Cpu),
            _ => None,
        }
    }
}

/// Options for [`Device::new`].
#[derive(Clone, Debug)]
pub struct DeviceOptions {
    /// Only consider adapters of this backend.
    pub backend: Option<Backend>,
    /// Only consider adapters whose name contains this (case-insensitive).
    pub adapter: Option<String>,
    /// Which kind of adapter kernels are chosen for (the options below that are set
    /// override single choices).
    pub profile: KernelProfile,
    /// How `float16` is handled.
    pub f16: F16Mode,
    /// Kernels recorded before the queue is submitted without a sync point.
    pub batch_limit: usize,
    /// At most this many bytes of freed buffers are kept for reuse (default: no cap of its
    /// own). Below it the pool keeps as many bytes as live arrays hold and room for the
    /// largest buffer freed since it was last emptied (at least 64 MiB), so a loop that
    /// makes and drops a large temporary reuses one buffer; freed buffers past that go back
    /// to the driver as arrays are dropped, and [`Device::trim`] gives back the rest (and
    /// forgets the largest buffer). An allocation that runs out of memory empties
    /// the pool and is tried once more.
    pub pool_limit_bytes: u64,
    /// Lower the largest storage binding used (bytes; at least 256 and two of the
    /// adapter's storage offset alignments); tests use it to exercise chunked bindings on
    /// small arrays. `None` uses the adapter's limit.
    pub max_binding_bytes: Option<u64>,
    /// Lower the workgroups per grid dimension; tests use it to exercise 2-D grids.
    pub max_workgroups_per_dim: Option<u32>,
    /// Lower the storage buffers one kernel binds (at least 4); tests use it to exercise
    /// the splitting of fused kernels that read many arrays. `None` uses the adapter's
    /// limit.
    pub max_storage_buffers: Option<u32>,
    /// Whether the matmul kernel stages tiles in workgroup memory. `None` decides by the
    /// [`profile`](Self::profile): yes on GPUs, no on CPU (software) adapters, where the
    /// barriers cost more than the reuse saves.
    pub matmul_workgroup_tiles: Option<bool>,
    /// Whether products of at least 128 rows and columns that use workgroup tiles take the
    /// register-blocked kernel (128x128 tiles, an 8x8 block per thread) instead of the
    /// staged one (64x64 tiles, 4x4 blocks). `None` or `Some(false)`: the staged kernel.
    pub matmul_register_tiles: Option<bool>,
    /// Whether the matmul kernel that does not stage tiles shares its operands' values
    /// across an 8-lane subgroup (`subgroupBroadcast`) instead of each thread reading its
    /// own. `None` (or `Some(true)`) uses it where the device has the `SUBGROUP` feature
    /// and subgroups of exactly 8 lanes (lavapipe on AVX2: 1024² at 15-16 GFLOP/s against
    /// the direct kernel's 9-14, interleaved in one process); `Some(false)` never.
    pub matmul_subgroups: Option<bool>,
    /// Kernel inputs in buffers of at least this many bytes are copied into a texture and
    /// read with `textureLoad` (as a read-only storage texture) instead of from the storage
    /// buffer. `None` decides by the [`profile`](Self::profile): from 64 KiB on CPU
    /// (software) adapters, where
    /// Mesa's llvmpipe loads each storage-buffer element in a loop over the SIMD lanes but
    /// loads a storage texture's texels with plain vector loads (a 16M-element `a + b` of
    /// staged inputs took 13-18 ms on lavapipe against 117-119 ms from storage buffers);
    /// never on GPUs, nor where the device cannot bind two read-only `Rgba32Uint` storage
    /// textures. The size that counts is the larger of the buffer and the
    /// kernel's elements times four bytes, since every thread loads its operands (a
    /// broadcast scalar as often as a full array). `Some(u64::MAX)` turns it off; tests use
    /// `Some(0)`. A staged copy stays with its array while the array lives (the least
    /// recently read giving way), so later kernels reading the same array skip the copy;
    /// it goes when the array's buffer is freed or handed to the application
    /// ([`Array::wgpu_buffer`](crate::Array::wgpu_buffer)). Other textures are pooled.
    /// Staged copies keep up to 1 GiB and pooled textures 512 MiB, or each as many bytes
    /// as live arrays hold where that is more (a working set past the cap would otherwise
    /// be staged again, into a new texture, by every kernel), and both count in
    /// [`MemoryStats::texture_bytes`]. float16 is read as packed words. Buffers larger than
    /// the tallest texture (1 GiB where textures may have 16384 rows) are read in place.
    pub texture_input_bytes: Option<u64>,
}

impl Default for DeviceOptions {
    fn default() -> Self {
        DeviceOptions {
            backend: None,
            adapter: None,
            profile: KernelProfile::Auto,
            f16: F16Mode::Auto,
            batch_limit: 256,
            pool_limit_bytes: u64::MAX,
            max_binding_bytes: None,
            max_workgroups_per_dim: None,
            max_storage_buffers: None,
            matmul_workgroup_tiles: None,
            matmul_register_tiles: None,
            matmul_subgroups: None,
            texture_input_bytes: None,
        }
    }
}

impl DeviceOptions {
    /// Defaults overridden by `OLYMPUS_BACKEND` (vulkan|metal|dx12|gl), `OLYMPUS_ADAPTER`
    /// (a substring of the adapter name) and `OLYMPUS_PROFILE` (auto|gpu|cpu, see
    /// [`KernelProfile`]). The default device uses these.
    pub fn from_env() -> Result<DeviceOptions> {
        let mut o = DeviceOptions::default();
        if let Ok(b) = std::env::var("OLYMPUS_BACKEND") {
            if !b.is_empty() {
                o.backend = Some(Backend::parse(&b).ok_or_else(|| {
                    Error::arg(
                        "Device::default",
                        format!("OLYMPUS_BACKEND={b:?} is not one of vulkan, metal, dx12, gl"),
                    )
                })?);
            }
        }
        if let Ok(a) = std::env::var("OLYMPUS_ADAPTER") {
            if !a.is_empty() {
                o.adapter = Some(a);
            }
        }
        if let Ok(p) = std::env::var("OLYMPUS_PROFILE") {
            if !p.is_empty() {
                o.profile = KernelProfile::parse(&p).ok_or_else(|| {
                    Error::arg(
                        "Device::default",
                        format!("OLYMPUS_PROFILE={p:?} is not one of auto, gpu, cpu"),
                    )
                })?;
            }
        }
        Ok(o)
    }
}

/// The limits Olympus's kernels need that `limits` lacks, each named with its value (empty
/// when the device can run every kernel): 256 invocations per workgroup along x (the
/// elementwise, reduction, scan and sort kernels), 4 storage buffers per stage (a
/// three-operand `where` and its output), the workgroup storage the kernels declare
/// (`codegen::WORKGROUP_STORAGE_BYTES`, 9280 bytes), and one metadata block of uniform
/// binding.
/// WebGPU's default and downlevel limits meet them all; larger buffers than one binding
/// are split into windows and larger grids into two dimensions, so those limits only
/// shape the work.
pub fn missing_limits(limits: &wgpu::Limits) -> Vec<String> {
    let needs = [
        (
            "max_compute_invocations_per_workgroup",
            limits.max_compute_invocations_per_workgroup,
            256,
        ),
        (
            "max_compute_workgroup_size_x",
            limits.max_compute_workgroup_size_x,
            256,
        ),
        (
            "max_compute_workgroup_size_y",
            limits.max_compute_workgroup_size_y,
            16,
        ),
        (
            "max_storage_buffers_per_shader_stage",
            limits.max_storage_buffers_per_shader_stage,
            4,
        ),
        (
            "max_compute_workgroup_storage_size",
            limits.max_compute_workgroup_storage_size,
            crate::codegen::WORKGROUP_STORAGE_BYTES,
        ),
        (
            "max_uniform_buffer_binding_size",
            u32::try_from(limits.max_uniform_buffer_binding_size).unwrap_or(u32::MAX),
            crate::codegen::META_WORDS as u32 * 4,
        ),
    ];
    needs
        .iter()
        .filter(|(_, has, need)| has < need)
        .map(|(name, has, need)| format!("{name} >= {need} (has {has})"))
        .collect()
}

/// What a device is: adapter name, backend, type, limits and features.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    /// The adapter's name (`"llvmpipe (LLVM 15.0.6, 256 bits)"`).
    pub name: String,
    /// The backend in use.
    pub backend: Backend,
    /// Discrete, integrated, virtual, CPU (software) or other.
    pub device_type: wgpu::DeviceType,
    /// The driver and its version.
    pub driver: String,
    /// The limits the device was opened with (the adapter's own).
    pub limits: wgpu::Limits,
    /// The features the device was opened with.
    pub features: wgpu::Features,
    /// Whether `float16` is native (`SHADER_F16`) or emulated.
    pub f16_native: bool,
    /// The kernel choices in effect: [`KernelProfile::Gpu`] or [`KernelProfile::Cpu`].
    pub profile: KernelProfile,
}

impl fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({:?}, {:?}, {}; f16 {}; {} kernels)",
            self.name,
            self.backend,
            self.device_type,
            self.driver,
            if self.f16_native {
                "native"
            } else {
                "emulated"
            },
            if self.profile == KernelProfile::Cpu {
                "CPU"
            } else {
                "GPU"
            }
        )
    }
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A program and what the evaluator keeps for it (see [`DeviceInner::eager`]).
pub(crate) type EagerEntry = (
    crate::codegen::Program,
    Arc<dyn std::any::Any + Send + Sync>,
);

/// A key of [`DeviceInner::memo`] and its value (types known to their call site).
pub(crate) type MemoEntry = (
    Box<dyn std::any::Any + Send + Sync>,
    Box<dyn std::any::Any + Send + Sync>,
);

pub(crate) struct DeviceInner {
    pub(crate) id: u64,
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) info: DeviceInfo,
    pub(crate) options: DeviceOptions,
    /// Bytes one storage binding may cover (a power of two).
    pub(crate) window_bytes: u64,
    pub(crate) max_groups: u32,
    /// Inputs in buffers of `texture_inputs.0 ..= texture_inputs.1` bytes are read through
    /// textures (see [`DeviceOptions::texture_input_bytes`]); `None` never.
    pub(crate) texture_inputs: Option<(u64, u64)>,
    /// The kernel variants chosen for this device.
    pub(crate) variants: Variants,
    pub(crate) pool: Mutex<Pool>,
    /// Textures that staged kernel inputs, kept for reuse.
    pub(crate) textures: Mutex<TexturePool>,
    /// Staged copies of live buffers (see [`StagedCache`]).
    pub(crate) staged: Mutex<StagedCache>,
    pub(crate) batch: Mutex<Batch>,
    pub(crate) kernels: Mutex<HashMap<String, Arc<super::Kernel>>>,
    /// Kernel sources generated for this device (each looked up in `kernels`): a call
    /// that repeats an earlier one adds none.
    pub(crate) generated: AtomicU64,
    /// Kernel launches recorded on this device (tests count a jitted step's launches).
    pub(crate) dispatches: AtomicU64,
    /// The evaluator's kernels of un-jitted programs, by a hash of the program (its own
    /// table type, opaque here); they go with the device.
    pub(crate) eager: Mutex<HashMap<u64, Vec<EagerEntry>>>,
    /// Kernels the evaluator made for keys of its own, by hash (see `lax::eval::cache::memo`).
    pub(crate) memo: Mutex<HashMap<u64, Vec<MemoEntry>>>,
    /// Whether the adapter's WGSL `fma` rounds once; probed on first need.
    pub(crate) exact_fma: std::sync::OnceLock<bool>,
    /// Whether float32 division rounds correctly (probed on first use).
    pub(crate) exact_div: std::sync::OnceLock<bool>,
    /// Whether float32 square roots round correctly (probed on first use).
    pub(crate) exact_sqrt: std::sync::OnceLock<bool>,
    /// Whether a float32 product is always rounded before an add takes it (no fused
    /// multiply-add anywhere); probed on first use.
    pub(crate) plain_products: std::sync::OnceLock<bool>,
    /// Errors wgpu reported outside an error scope, surfaced at the next sync point.
    pub(crate) errors: Arc<Mutex<Vec<String>>>,
    pub(crate) lost: Arc<Mutex<Option<String>>>,
    /// On the GL backend, held around every call into wgpu (see [`DeviceInner::gl`]).
    gl: Option<ReentrantMutex<()>>,
}

/// A device mutex's guard that also holds the GL lock ([`DeviceInner::locked`]).
pub(crate) struct Locked<'a, T> {
    guard: MutexGuard<'a, T>,
    _gl: Option<ReentrantMutexGuard<'a, ()>>,
}

impl<T> std::ops::Deref for Locked<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> std::ops::DerefMut for Locked<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

/// A GPU (or software adapter) with its queue, buffer pool and pipeline cache.
///
/// Cheap to clone (a shared handle), `Send` and `Sync`. Arrays remember their device, and
/// an operation on arrays of two devices is an error.
#[derive(Clone)]
pub struct Device(pub(crate) Arc<DeviceInner>);

impl PartialEq for Device {
    fn eq(&self, other: &Device) -> bool {
        self.0.id == other.0.id
    }
}
impl Eq for Device {}

impl std::hash::Hash for Device {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.id.hash(state);
    }
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Device({}#{})", self.0.info.name, self.0.id)
    }
}

static DEFAULT: OnceLock<Result<Device>> = OnceLock::new();

fn type_rank(t: wgpu::DeviceType) -> u8 {
    match t {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}

fn backend_rank(b: wgpu::Backend) -> u8 {
    match b {
        wgpu::Backend::Vulkan => 0,
        wgpu::Backend::Metal => 1,
        wgpu::Backend::Dx12 => 2,
        wgpu::Backend::Gl => 3,
        _ => 4,
    }
}

/// Turns off Mesa's implicit Vulkan layer `VK_LAYER_MESA_device_select` for this process,
/// unless the user set one of its variables. The layer opens a Wayland connection to order
/// the devices, and where no session is running (every headless run, CI) libwayland prints
/// `error: XDG_RUNTIME_DIR is invalid or not set in the environment.` twice. Olympus ranks
/// the adapters itself (and `OLYMPUS_ADAPTER` picks one), so the layer has nothing to do
/// for it. Done once, before the first Vulkan instance exists, so no Vulkan thread reads
/// the environment meanwhile.
fn quiet_device_select_layer() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        const VARS: [&str; 3] = [
            "NODEVICE_SELECT",
            "MESA_VK_DEVICE_SELECT",
            "MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE",
        ];
        if VARS.iter().all(|v| std::env::var_os(v).is_none()) {
            std::env::set_var("NODEVICE_SELECT", "1");
        }
    });
}

fn enumerate(backends: wgpu::Backends) -> Vec<wgpu::Adapter> {
    if backends.contains(wgpu::Backends::VULKAN) {
        quiet_device_select_layer();
    }
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = backends;
    let instance = wgpu::Instance::new(desc);
    pollster::block_on(instance.enumerate_adapters(backends))
}

fn backend_names(b: wgpu::Backends) -> String {
    let mut v = Vec::new();
    for (flag, name) in [
        (wgpu::Backends::VULKAN, "Vulkan"),
        (wgpu::Backends::METAL, "Metal"),
        (wgpu::Backends::DX12, "DX12"),
        (wgpu::Backends::GL, "GL"),
    ] {
        if b.contains(flag) {
            v.push(name);
        }
    }
    v.join("/")
}

impl Device {
    /// The default device, opened on first use with [`DeviceOptions::from_env`] and shared by
    /// every thread afterwards.
    ///
    /// Adapter choice: a discrete GPU, then an integrated one, then a software adapter
    /// (lavapipe through Vulkan); GL (llvmpipe) is tried only when Vulkan, Metal and DX12
    /// offer nothing. `OLYMPUS_BACKEND` and `OLYMPUS_ADAPTER` override the choice.
    pub fn default_device() -> Result<Device> {
        DEFAULT
            .get_or_init(|| DeviceOptions::from_env().and_then(Device::new))
            .clone()
    }

    /// Opens a new device with these options. Each call opens a separate device with its
    /// own queue and pool.
    pub fn new(options: DeviceOptions) -> Result<Device> {
        let primary = wgpu::Backends::VULKAN | wgpu::Backends::METAL | wgpu::Backends::DX12;
        let rounds: Vec<wgpu::Backends> = match options.backend {
            Some(b) => vec![b.to_wgpu()],
            None => vec![primary, wgpu::Backends::GL],
        };
        let mut tried = Vec::new();
        for backends in rounds {
            let found = enumerate(backends);
            let names: Vec<String> = found.iter().map(|a| a.get_info().name).collect();
            let mut lacking = Vec::new();
            let mut candidates: Vec<wgpu::Adapter> = found
                .into_iter()
                .filter(|a| Backend::from_wgpu(a.get_info().backend).is_some())
                .filter(|a| match &options.adapter {
                    Some(want) => a
                        .get_info()
                        .name
                        .to_lowercase()
                        .contains(&want.to_lowercase()),
                    None => true,
                })
                // An adapter below what the kernels need gives way to the next one.
                .filter(|a| {
                    let missing = missing_limits(&a.limits());
                    if !missing.is_empty() {
                        let name = a.get_info().name;
                        lacking.push(format!("{name} lacks {}", missing.join(", ")));
                    }
                    missing.is_empty()
                })
                .collect();
            candidates.sort_by_key(|a| {
                let i = a.get_info();
                (type_rank(i.device_type), backend_rank(i.backend))
            });
            if let Some(adapter) = candidates.into_iter().next() {
                return Device::open(adapter, options);
            }
            tried.push(if names.is_empty() {
                format!("{}: no adapters", backend_names(backends))
            } else if !lacking.is_empty() {
                format!("{}: {}", backend_names(backends), lacking.join("; "))
            } else {
                format!(
                    "{}: {} (none named like {:?})",
                    backend_names(backends),
                    names.join(", "),
                    options.adapter.as_deref().unwrap_or("")
                )
            });
        }
        Err(Error::NoAdapter {
            tried: format!(
                "{}; on Linux without a GPU, install Mesa's software Vulkan driver (apt-get install mesa-vulkan-drivers)",
                tried.join("; ")
            ),
        })
    }

    fn open(adapter: wgpu::Adapter, options: DeviceOptions) -> Result<Device> {
        let ainfo = adapter.get_info();
        let backend = Backend::from_wgpu(ainfo.backend).ok_or_else(|| Error::NoAdapter {
            tried: format!("unsupported backend {:?}", ainfo.backend),
        })?;
        let available = adapter.features();
        let wanted = wgpu::Features::SHADER_F16 | wgpu::Features::SUBGROUP;
        let features = available & wanted;
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("olympus"),
            required_features: features,
            required_limits: limits.clone(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| Error::NoAdapter {
            tried: format!("{} ({:?}): request_device failed: {e}", ainfo.name, backend),
        })?;
        Device::wrap(ainfo, backend, device, queue, options, true)
    }

    /// Wraps an application's own wgpu device and queue (a renderer's, say), so arrays live
    /// next to its resources and no second device is opened. From then on it behaves like
    /// any Olympus device: buffer pool, pipeline cache, asynchronous dispatch.
    ///
    /// What Olympus needs is checked here and missing pieces are named in the error: the
    /// limits of [`missing_limits`], which WebGPU's defaults (`wgpu::Limits::default()`
    /// and `downlevel_defaults()`) meet. `SHADER_F16` is used when the device was created
    /// with it.
    ///
    /// Sharing the queue: Olympus records its kernels into its own command encoders and
    /// submits them to the queue at sync points (readbacks, [`Device::synchronize`],
    /// [`Array::wgpu_buffer`](crate::Array::wgpu_buffer)) or every `batch_limit` kernels;
    /// ordering with the application's submissions is queue order. Olympus does not install
    /// an uncaptured-error handler or a device-lost callback on a shared device (those
    /// belong to the application); it still catches allocation failures with error scopes.
    pub fn from_wgpu(
        adapter: &wgpu::Adapter,
        device: wgpu::Device,
        queue: wgpu::Queue,
        options: DeviceOptions,
    ) -> Result<Device> {
        let ainfo = adapter.get_info();
        let backend = Backend::from_wgpu(ainfo.backend).ok_or_else(|| Error::NoAdapter {
            tried: format!("unsupported backend {:?}", ainfo.backend),
        })?;
        let missing = missing_limits(&device.limits());
        if !missing.is_empty() {
            return Err(Error::Device {
                func: "Device::from_wgpu".into(),
                reason: format!(
                    "the device of {} lacks what Olympus needs: {}",
                    ainfo.name,
                    missing.join(", ")
                ),
            });
        }
        Device::wrap(ainfo, backend, device, queue, options, false)
    }

    fn wrap(
        ainfo: wgpu::AdapterInfo,
        backend: Backend,
        device: wgpu::Device,
        queue: wgpu::Queue,
        options: DeviceOptions,
        owned: bool,
    ) -> Result<Device> {
        let features = device.features() & wgpu::Features::SHADER_F16;
        let profile = match options.profile {
            KernelProfile::Auto if ainfo.device_type == wgpu::DeviceType::Cpu => KernelProfile::Cpu,
            KernelProfile::Auto => KernelProfile::Gpu,
            p => p,
        };
        let cpu = profile == KernelProfile::Cpu;
        let mut limits = device.limits();
        if let Some(m) = options.max_storage_buffers {
            limits.max_storage_buffers_per_shader_stage =
                limits.max_storage_buffers_per_shader_stage.min(m.max(4));
        }
        let variants = Variants::choose(&Capabilities {
            cpu,
            subgroup_sizes: device
                .features()
                .contains(wgpu::Features::SUBGROUP)
                .then_some((ainfo.subgroup_min_size, ainfo.subgroup_max_size)),
            workgroup_tiles: options.matmul_workgroup_tiles,
            subgroups: options.matmul_subgroups,
            register_tiles: options.matmul_register_tiles,
        });
        let errors = Arc::new(Mutex::new(Vec::new()));
        let lost = Arc::new(Mutex::new(None));
        if owned {
            let sink = errors.clone();
            device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
                lock(&sink).push(e.to_string());
            }));
            let lost_sink = lost.clone();
            device.set_device_lost_callback(move |reason, msg| {
                *lock(&lost_sink) = Some(format!("{reason:?}: {msg}"));
            });
        }
        let f16_native =
            features.contains(wgpu::Features::SHADER_F16) && options.f16 == F16Mode::Auto;
        // At least two offset alignments: a span of a kernel bound from the aligned element
        // before its first then always holds the first thread's elements (a scan chunk).
        let floor = 256.max(2 * u64::from(limits.min_storage_buffer_offset_alignment));
        let binding = limits
            .max_storage_buffer_binding_size
            .min(options.max_binding_bytes.unwrap_or(u64::MAX))
            .max(floor);
        // A power of two, so windows start at offsets every alignment divides.
        let window_bytes = 1u64 << (63 - binding.leading_zeros());
        let max_groups = limits
            .max_compute_workgroups_per_dimension
            .min(options.max_workgroups_per_dim.unwrap_or(u32::MAX))
            .max(1);
        // A texture row holds `TEXTURE_WIDTH` texels of 16 bytes; the tallest texture sets
        // the largest buffer that can be staged, and so does the pool: two textures of the
        // largest size must fit, or every dispatch would make a new one.
        let texture_max = u64::from(limits.max_texture_dimension_2d) * TEXTURE_WIDTH * 16;
        let texture_min = options.texture_input_bytes.or(cpu.then_some(64 * 1024));
        // Inputs are read as read-only storage textures; a matmul binds two.
        let format = wgpu::TextureFormat::Rgba32Uint.guaranteed_format_features(device.features());
        let storage_read = format
            .allowed_usages
            .contains(wgpu::TextureUsages::STORAGE_BINDING)
            && format
                .flags
                .contains(wgpu::TextureFormatFeatureFlags::STORAGE_READ_ONLY)
            && limits.max_storage_textures_per_shader_stage >= 2;
        let texture_inputs = texture_min.filter(|&m| {
            storage_read
                && m <= texture_max
                && u64::from(limits.max_texture_dimension_2d) >= TEXTURE_WIDTH
        });
        let texture_inputs = texture_inputs.map(|m| (m, texture_max));
        let info = DeviceInfo {
            name: ainfo.name,
            backend,
            device_type: ainfo.device_type,
            driver: format!("{} {}", ainfo.driver, ainfo.driver_info)
                .trim()
                .to_string(),
            limits,
            features,
            f16_native,
            profile,
        };
        Ok(Device(Arc::new(DeviceInner {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            device,
            queue,
            info,
            pool: Mutex::new(Pool::new(options.pool_limit_bytes)),
            options,
            window_bytes,
            max_groups,
            texture_inputs,
            variants,
            textures: Mutex::new(Default::default()),
            staged: Mutex::new(Default::default()),
            batch: Mutex::new(Batch::default()),
            kernels: Mutex::new(HashMap::new()),
            generated: AtomicU64::new(0),
            dispatches: AtomicU64::new(0),
            eager: Mutex::new(HashMap::new()),
            memo: Mutex::new(HashMap::new()),
            exact_fma: std::sync::OnceLock::new(),
            exact_div: std::sync::OnceLock::new(),
            exact_sqrt: std::sync::OnceLock::new(),
            plain_products: std::sync::OnceLock::new(),
            errors,
            lost,
            gl: (backend == Backend::Gl).then(|| ReentrantMutex::new(())),
        })))
    }

    /// Name, backend, type, limits and features of the device.
    pub fn info(&self) -> &DeviceInfo {
        &self.0.info
    }

    /// Bytes held by live arrays, by the buffer pool, and by staging textures (pooled, or
    /// kept with live arrays).
    pub fn memory_stats(&self) -> MemoryStats {
        // One mutex at a time: `dispatch` holds `staged` while it takes `textures`.
        let textures = self.0.locked(&self.0.textures).bytes();
        let staged = self.0.locked(&self.0.staged).bytes();
        let stats = self.0.locked(&self.0.pool).stats;
        MemoryStats {
            texture_bytes: textures + staged,
            ..stats
        }
    }

    /// Submits all recorded work and waits until the device has finished it.
    ///
    /// On lavapipe, call it before the process exits if work may still be queued:
    /// lavapipe compiles each kernel on its queue thread when the kernel first runs, and
    /// a process that exits meanwhile can crash inside LLVM, whose static data the exit
    /// destroys under that thread.
    pub fn synchronize(&self) -> Result<()> {
        self.0.synchronize("synchronize")
    }

    /// Gives every pooled buffer and staging texture back to the driver, after the
    /// recorded work has finished; live arrays are untouched. The pool already keeps no
    /// more than the live arrays hold and room for the largest buffer freed since it was
    /// last emptied (see [`DeviceOptions::pool_limit_bytes`]); this is for an application
    /// about to go idle or to hand memory to something else.
    pub fn trim(&self) -> Result<()> {
        self.0.synchronize("trim")?;
        let _gl = self.0.gl();
        // Everything recorded has run, so buffers awaiting a submit are free too.
        let mut pool = self.0.locked(&self.0.pool);
        pool.after_submit();
        pool.clear();
        drop(pool);
        self.0.clear_textures();
        Ok(())
    }

    /// Destroys the device now, releasing its memory. Every later operation on it, and on
    /// arrays that live on it, returns [`Error::DeviceLost`] (as when a driver loses the
    /// device), never a panic.
    pub fn destroy(&self) {
        let _gl = self.0.gl();
        let _ = self.0.flush();
        *lock(&self.0.lost) = Some("the device was destroyed with Device::destroy".into());
        self.0.locked(&self.0.pool).clear();
        self.0.device.destroy();
    }

    /// The wgpu device Olympus runs on, for an application's own pipelines over the
    /// buffers [`Array::wgpu_buffer`](crate::Array::wgpu_buffer) hands out (the device
    /// given to [`Device::from_wgpu`], or the one Olympus opened).
    pub fn wgpu_device(&self) -> &wgpu::Device {
        &self.0.device
    }

    /// The queue Olympus submits to. Work the application submits here runs after the
    /// Olympus work already submitted; [`Array::wgpu_buffer`](crate::Array::wgpu_buffer)
    /// submits what an array still waits on.
    pub fn wgpu_queue(&self) -> &wgpu::Queue {
        &self.0.queue
    }

    /// Number of compiled kernels in the pipeline cache.
    pub fn cached_kernels(&self) -> usize {
        self.0.locked(&self.0.kernels).len()
    }
}

impl DeviceInner {
    /// Serialises calls into wgpu on a GL device: `None` elsewhere. wgpu's GL backend keeps
    /// one GL context per device and a thread that waits over 6 s for it panics ("Could not
    /// lock adapter context"), which a long kernel or compile on a software adapter under
    /// load can cause. Olympus's threads wait here instead, with no time limit; the lock is
    /// reentrant, taken before any of the device's mutexes (see [`Self::locked`]), and
    /// released between the slices of a wait ([`Self::wait_for`]).
    pub(crate) fn gl(&self) -> Option<ReentrantMutexGuard<'_, ()>> {
        self.gl.as_ref().map(ReentrantMutex::lock)
    }

    /// Locks one of the device's mutexes, taking the GL lock first: a thread that holds a
    /// device mutex holds the GL lock too, so the two can never wait for each other.
    pub(crate) fn locked<'a, T>(&'a self, m: &'a Mutex<T>) -> Locked<'a, T> {
        let gl = self.gl();
        Locked {
            guard: lock(m),
            _gl: gl,
        }
    }

    /// Waits until the work of submission `index` has run. On GL it waits in short slices,
    /// letting other threads call into the device in between.
    pub(crate) fn wait_for(&self, index: wgpu::SubmissionIndex, func: &str) -> Result<()> {
        let slice = self
            .gl
            .as_ref()
            .map(|_| std::time::Duration::from_millis(1));
        loop {
            // A device lost while waiting never signals.
            self.check_alive()?;
            let gl = self.gl();
            let poll = wgpu::PollType::Wait {
                submission_index: Some(index.clone()),
                timeout: slice,
            };
            let polled = self.device.poll(poll);
            // Hand the lock to a thread waiting for it, if any, before the next slice.
            if let Some(g) = gl {
                ReentrantMutexGuard::unlock_fair(g);
            }
            match polled {
                Ok(_) => return Ok(()),
                Err(wgpu::PollError::Timeout) if slice.is_some() => continue,
                Err(e) => return Err(self.failure(func, e.to_string())),
            }
        }
    }

    /// The error for a wgpu failure `reason` in `func`: [`Error::DeviceLost`] where the
    /// device is gone (another thread may have destroyed it after this one checked, and
    /// wgpu then answers with its own text, such as a wait for a submission it no longer
    /// knows), else [`Error::Device`].
    pub(crate) fn failure(&self, func: &str, reason: impl Into<String>) -> Error {
        match self.check_alive() {
            Err(lost) => lost,
            Ok(()) => Error::Device {
                func: func.to_string(),
                reason: reason.into(),
            },
        }
    }

    /// `Err(DeviceLost)` once the device is gone; called before recording work.
    pub(crate) fn check_alive(&self) -> Result<()> {
        if let Some(reason) = lock(&self.lost).clone() {
            return Err(Error::DeviceLost { reason });
        }
        Ok(())
    }

    /// Surfaces errors wgpu reported outside error scopes since the last sync point.
    pub(crate) fn take_errors(&self, func: &str) -> Result<()> {
        self.check_alive()?;
        let errs: Vec<String> = std::mem::take(&mut *lock(&self.errors));
        if errs.is_empty() {
            Ok(())
        } else {
            Err(self.failure(func, errs.join("; ")))
        }
    }

    pub(crate) fn synchronize(&self, func: &str) -> Result<()> {
        self.check_alive()?;
        let _ = self.flush();
        // An empty submission also flushes uploads queued with `write_buffer` since the last
        // one, so waiting for it waits for them too.
        let index = {
            let _gl = self.gl();
            self.queue.submit([])
        };
        self.wait_for(index, func)?;
        self.take_errors(func)
    }
}
