//! Particles in a flow: Olympus computes, wgpu draws, and no particle passes through the CPU.
//!
//! A few hundred thousand particles are carried by a time-varying, divergence-free flow (the
//! curl of a stream function on a periodic square) by a jitted step — one fused kernel per
//! frame. The application owns the wgpu device and hands it to Olympus
//! ([`Device::from_wgpu`]); its render pipeline reads the positions straight from the
//! Olympus buffer ([`Array::wgpu_buffer`]) in the vertex shader and draws one point per
//! particle, with fading trails.
//!
//! ```text
//! cargo run --release --example particles [frames] [path.png]   # headless: writes particles.png
//! cargo run --release --example particles --features window     # a window (no arguments)
//! ```
//!
//! The vertex shader reads a storage buffer, which Vulkan, Metal and DX12 adapters allow
//! (wgpu's GL backend does not, so the demo asks for one of the three).

use std::num::NonZeroU64;

use olympus::interop::WgpuBufferView;
use olympus::jit::Jit;
use olympus::{jit, numpy as np, random, s, Array, DType, Device, DeviceOptions, Result};

/// Particles drawn (headless and in the window).
pub const PARTICLES: usize = 300_000;
/// The picture's size in pixels.
pub const SIZE: u32 = 1024;
/// Time step of one frame.
const DT: f64 = 0.004;

/// The application's wgpu objects, created as a renderer would create them.
pub struct Gpu {
    pub instance: wgpu::Instance,
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
}

impl Gpu {
    /// A Vulkan, Metal or DX12 adapter (able to draw `surface`, when given) and a device
    /// with the adapter's full limits, which Olympus's kernels want too.
    pub fn new(
        instance: wgpu::Instance,
        surface: Option<&wgpu::Surface<'_>>,
    ) -> std::result::Result<Gpu, Box<dyn std::error::Error>> {
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            compatible_surface: surface,
            ..Default::default()
        }))?;
        let (device, queue) =
            pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
                label: Some("particles"),
                required_limits: adapter.limits(),
                ..Default::default()
            }))?;
        Ok(Gpu {
            instance,
            adapter,
            device,
            queue,
        })
    }

    /// Without a window: an instance over the backends whose vertex shaders read storage
    /// buffers.
    pub fn headless() -> std::result::Result<Gpu, Box<dyn std::error::Error>> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = wgpu::Backends::VULKAN | wgpu::Backends::METAL | wgpu::Backends::DX12;
        Gpu::new(wgpu::Instance::new(desc), None)
    }

    /// An Olympus device on this wgpu device: Olympus's kernels and the application's
    /// passes share the queue, so each sees the other's results in submission order.
    pub fn olympus(&self) -> Result<Device> {
        Device::from_wgpu(
            &self.adapter,
            self.device.clone(),
            self.queue.clone(),
            DeviceOptions::default(),
        )
    }
}

/// The flow's velocity at `p` (`(n, 2)` positions) and time `t` (a 0-d array): the curl
/// (∂ψ/∂y, −∂ψ/∂x) of the stream function
/// ψ = 0.35 sin(πx + 0.6t) sin(πy − 0.4t) + 0.12 sin(2πx + πy + 0.9t) + 0.08 cos(3πy − πx − 0.7t),
/// which has period 2 in x and y, so the square [−1, 1)² wraps smoothly.
fn velocity(p: &Array, t: &Array) -> Result<Array> {
    use std::f64::consts::PI;
    let (x, y) = (p.slice(s![.., 0])?, p.slice(s![.., 1])?);
    let (px, py) = ((PI * &x)?, (PI * &y)?);
    let a = (&px + (0.6 * t)?)?;
    let b = (&py - (0.4 * t)?)?;
    let c = ((2.0 * &px + &py)? + (0.9 * t)?)?;
    let d = ((3.0 * &py - &px)? - (0.7 * t)?)?;
    let (ca, sa) = (np::cos(&a)?, np::sin(&a)?);
    let (cb, sb) = (np::cos(&b)?, np::sin(&b)?);
    let (cc, sd) = (np::cos(&c)?, np::sin(&d)?);
    // ∂ψ/∂y and ∂ψ/∂x, term by term.
    let dy = (((0.35 * PI * &sa * &cb)? + (0.12 * PI * &cc)?)? - (0.24 * PI * &sd)?)?;
    let dx = (((0.35 * PI * &ca * &sb)? + (0.24 * PI * &cc)?)? + (0.08 * PI * &sd)?)?;
    np::stack(&[dy, np::negative(&dx)?], 1)
}

/// One frame: a midpoint (second-order Runge–Kutta) step of the flow, wrapped back into
/// [−1, 1)². Jitted, it is traced once and runs as fused kernels.
fn advect((pos, t): (Array, Array)) -> Result<Array> {
    let mid = (&pos + (DT / 2.0 * velocity(&pos, &t)?)?)?;
    let next = (&pos + (DT * velocity(&mid, &(&t + DT / 2.0)?)?)?)?;
    &next - (2.0 * np::floor(((&next + 1.0)? / 2.0)?)?)?
}

/// The step's plain function type, so the jitted step can live in a struct.
type Step = fn((Array, Array)) -> Result<Array>;

/// The particles and the jitted step that moves them.
pub struct Particles {
    /// Positions, `(n, 2)` float32 in [−1, 1)², x to the right and y up.
    pub pos: Array,
    /// Each particle's colour, a float32 in [0, 1) through the palette: vertical bands of
    /// the starting position, so the picture shows how the flow stirs them.
    pub hue: Array,
    /// The flow's time.
    pub time: f64,
    step: Jit<(Array, Array), Array, Step>,
}

impl Particles {
    /// `n` particles spread uniformly at random (seeded) over the square.
    pub fn new(n: usize, seed: u64) -> Result<Particles> {
        let pos = random::uniform(&random::key(seed)?, &[n, 2], -1.0, 1.0, DType::Float32)?;
        let x = pos.slice(s![.., 0])?;
        let bands = (np::floor(((&x + 1.0)? * 3.0)?)? / 6.0)?;
        let hue = (&bands + (0.05 * pos.slice(s![.., 1])?)?)?;
        Ok(Particles {
            pos,
            hue,
            time: 0.0,
            step: jit(advect as Step).named("advect"),
        })
    }

    /// Advances one frame (the work is queued; nothing waits for the GPU).
    pub fn step(&mut self) -> Result<()> {
        let t = np::asarray(self.time as f32)?;
        self.pos = self.step.call((self.pos.clone(), t))?;
        self.time += DT;
        Ok(())
    }
}

/// The drawing side: one point per particle, added onto trails that fade each frame.
const SHADER: &str = r#"
struct Params { intensity: f32, fade: f32 }

@group(0) @binding(0) var<storage, read> pos: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read> hue: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

struct Point {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec3<f32>,
}

// A cosine palette: a smooth loop through warm and cool colours as h goes 0 -> 1.
fn palette(h: f32) -> vec3<f32> {
    return 0.5 + 0.5 * cos(6.2831853 * (h + vec3<f32>(0.0, 0.33, 0.67)));
}

@vertex
fn point_vs(@builtin(vertex_index) i: u32) -> Point {
    var out: Point;
    out.clip = vec4<f32>(pos[i], 0.0, 1.0);
    out.color = palette(hue[i]) * params.intensity;
    return out;
}

@fragment
fn point_fs(p: Point) -> @location(0) vec4<f32> {
    return vec4<f32>(p.color, 1.0);
}

// A triangle over the whole target, drawn in black with alpha `fade` before the points.
@vertex
fn fade_vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fade_fs() -> @location(0) vec4<f32> {
    return vec4<f32>(0.0, 0.0, 0.0, params.fade);
}
"#;

/// Draws particles into a texture of its own that keeps the trails between frames.
pub struct Renderer {
    points: wgpu::RenderPipeline,
    fade: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    params: wgpu::Buffer,
    /// The picture, `size`×`size` in `format`, kept between frames.
    pub target: wgpu::Texture,
    size: u32,
    cleared: bool,
}

impl Renderer {
    /// Pipelines drawing into a `size`×`size` texture of `format`.
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat, size: u32) -> Renderer {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("particles"),
            source: wgpu::ShaderSource::Wgsl(SHADER.into()),
        });
        let storage = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::VERTEX,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: true },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("particles"),
            entries: &[
                storage(0),
                storage(1),
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("particles"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = |vs: &str, fs: &str, topology, blend| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(vs),
                layout: Some(&pipeline_layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some(vs),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                primitive: wgpu::PrimitiveState {
                    topology,
                    ..Default::default()
                },
                depth_stencil: None,
                multisample: Default::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(fs),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format,
                        blend: Some(blend),
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        // Points add their light; the fade blends black over what is there.
        let points = pipeline(
            "point_vs",
            "point_fs",
            wgpu::PrimitiveTopology::PointList,
            wgpu::BlendState {
                color: wgpu::BlendComponent {
                    src_factor: wgpu::BlendFactor::One,
                    dst_factor: wgpu::BlendFactor::One,
                    operation: wgpu::BlendOperation::Add,
                },
                alpha: wgpu::BlendComponent::REPLACE,
            },
        );
        let fade = pipeline(
            "fade_vs",
            "fade_fs",
            wgpu::PrimitiveTopology::TriangleList,
            wgpu::BlendState::ALPHA_BLENDING,
        );
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("particles params"),
            size: 16,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let target = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("particles picture"),
            size: wgpu::Extent3d {
                width: size,
                height: size,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        Renderer {
            points,
            fade,
            layout,
            params,
            target,
            size,
            cleared: false,
        }
    }

    /// Fades the picture by `fade` (1 clears it) and adds each particle's point, with its
    /// colour scaled by `intensity`. The vertex shader reads `particles.pos` and `.hue`
    /// from Olympus's buffers: `wgpu_buffer` submits the pending step first, and this
    /// pass goes to the same queue after it.
    pub fn draw(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        particles: &Particles,
        fade: f32,
        intensity: f32,
    ) -> Result<()> {
        let (pos, hue) = (particles.pos.wgpu_buffer()?, particles.hue.wgpu_buffer()?);
        let mut params = [0u8; 16];
        params[..4].copy_from_slice(&intensity.to_le_bytes());
        params[4..8].copy_from_slice(&fade.to_le_bytes());
        queue.write_buffer(&self.params, 0, &params);
        fn bind(v: &WgpuBufferView) -> wgpu::BindingResource<'_> {
            wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &v.buffer,
                offset: v.offset,
                size: NonZeroU64::new(v.size),
            })
        }
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("particles"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: bind(&pos),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: bind(&hue),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: self.params.as_entire_binding(),
                },
            ],
        });
        let view = self.target.create_view(&Default::default());
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let load = if self.cleared {
                wgpu::LoadOp::Load
            } else {
                wgpu::LoadOp::Clear(wgpu::Color::BLACK)
            };
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("particles"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load,
                        store: wgpu::StoreOp::Store,
                    },
                })],
                ..Default::default()
            });
            pass.set_bind_group(0, &group, &[]);
            pass.set_pipeline(&self.fade);
            pass.draw(0..3, 0..1);
            pass.set_pipeline(&self.points);
            pass.draw(0..particles.pos.shape()[0] as u32, 0..1);
        }
        queue.submit([encoder.finish()]);
        self.cleared = true;
        Ok(())
    }

    /// The picture's pixels, row by row from the top, 4 bytes each.
    pub fn read(&self, device: &wgpu::Device, queue: &wgpu::Queue) -> Vec<u8> {
        // Rows of a texture copy are padded to 256 bytes.
        let row = (self.size * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("particles readback"),
            size: u64::from(row * self.size),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.copy_texture_to_buffer(
            self.target.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &staging,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(row),
                    rows_per_image: None,
                },
            },
            self.target.size(),
        );
        queue.submit([encoder.finish()]);
        let slice = staging.slice(..);
        slice.map_async(wgpu::MapMode::Read, |r| r.expect("mapping the picture"));
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("waiting for the picture");
        let data = slice.get_mapped_range().expect("the mapped picture");
        data.chunks(row as usize)
            .flat_map(|r| &r[..(self.size * 4) as usize])
            .copied()
            .collect()
    }
}

/// Brightness of a point per frame, and how much of the picture each frame fades: trails
/// a few dozen frames long.
const INTENSITY: f32 = 0.15;
const FADE: f32 = 0.06;

fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
    #[cfg(feature = "window")]
    if std::env::args().len() == 1 {
        return window::run();
    }
    let mut args = std::env::args().skip(1);
    let frames: usize = args.next().map_or(Ok(240), |a| a.parse())?;
    let path = args.next().unwrap_or_else(|| "particles.png".into());

    let gpu = Gpu::headless()?;
    let dev = gpu.olympus()?;
    println!("adapter: {}", dev.info());
    olympus::with_device(
        &dev,
        || -> std::result::Result<(), Box<dyn std::error::Error>> {
            let mut particles = Particles::new(PARTICLES, 7)?;
            let mut renderer = Renderer::new(&gpu.device, wgpu::TextureFormat::Rgba8Unorm, SIZE);
            let start = std::time::Instant::now();
            for _ in 0..frames {
                particles.step()?;
                renderer.draw(&gpu.device, &gpu.queue, &particles, FADE, INTENSITY)?;
            }
            let pixels = renderer.read(&gpu.device, &gpu.queue);
            let secs = start.elapsed().as_secs_f64();
            println!(
                "{frames} frames of {PARTICLES} particles in {secs:.2} s ({:.1} frames/s)",
                frames as f64 / secs
            );
            image::save_buffer(&path, &pixels, SIZE, SIZE, image::ExtendedColorType::Rgba8)?;
            println!("wrote {path}");
            Ok(())
        },
    )
}

/// The same loop in a window (`--features window`): each frame steps the particles, draws
/// them into the trail texture and copies it to the window's surface.
#[cfg(feature = "window")]
mod window {
    use std::sync::Arc;

    use winit::application::ApplicationHandler;
    use winit::event::WindowEvent;
    use winit::event_loop::{ActiveEventLoop, EventLoop};
    use winit::window::{Window, WindowId};

    use super::{Gpu, Particles, Renderer, FADE, INTENSITY, PARTICLES, SIZE};

    struct Running {
        window: Arc<Window>,
        surface: wgpu::Surface<'static>,
        gpu: Gpu,
        olympus: olympus::Device,
        particles: Particles,
        renderer: Renderer,
    }

    #[derive(Default)]
    struct App {
        running: Option<Running>,
        error: Option<Box<dyn std::error::Error>>,
    }

    impl App {
        fn start(
            &mut self,
            event_loop: &ActiveEventLoop,
        ) -> Result<Running, Box<dyn std::error::Error>> {
            let window = Arc::new(
                event_loop.create_window(
                    Window::default_attributes()
                        .with_title("Olympus particles")
                        .with_inner_size(winit::dpi::PhysicalSize::new(SIZE, SIZE))
                        .with_resizable(false),
                )?,
            );
            let mut desc = wgpu::InstanceDescriptor::new_with_display_handle(Box::new(
                event_loop.owned_display_handle(),
            ));
            desc.backends = wgpu::Backends::VULKAN | wgpu::Backends::METAL | wgpu::Backends::DX12;
            let instance = wgpu::Instance::new(desc);
            let surface = instance.create_surface(window.clone())?;
            let gpu = Gpu::new(instance, Some(&surface))?;
            let caps = surface.get_capabilities(&gpu.adapter);
            if !caps.usages.contains(wgpu::TextureUsages::COPY_DST) {
                return Err("the window's surface cannot be copied into".into());
            }
            let format = caps.formats[0];
            surface.configure(
                &gpu.device,
                &wgpu::SurfaceConfiguration {
                    usage: wgpu::TextureUsages::COPY_DST,
                    format,
                    color_space: wgpu::SurfaceColorSpace::Auto,
                    width: SIZE,
                    height: SIZE,
                    present_mode: wgpu::PresentMode::AutoVsync,
                    desired_maximum_frame_latency: 2,
                    alpha_mode: caps.alpha_modes[0],
                    view_formats: vec![],
                },
            );
            let olympus = gpu.olympus()?;
            let particles = olympus::with_device(&olympus, || Particles::new(PARTICLES, 7))?;
            let renderer = Renderer::new(&gpu.device, format, SIZE);
            Ok(Running {
                window,
                surface,
                gpu,
                olympus,
                particles,
                renderer,
            })
        }
    }

    impl Running {
        fn frame(&mut self) -> Result<(), Box<dyn std::error::Error>> {
            olympus::with_device(&self.olympus, || self.particles.step())?;
            let (device, queue) = (&self.gpu.device, &self.gpu.queue);
            self.renderer
                .draw(device, queue, &self.particles, FADE, INTENSITY)?;
            let frame = match self.surface.get_current_texture() {
                wgpu::CurrentSurfaceTexture::Success(f)
                | wgpu::CurrentSurfaceTexture::Suboptimal(f) => f,
                _ => return Ok(()), // skipped: the surface is not ready this frame
            };
            let mut encoder = device.create_command_encoder(&Default::default());
            let (a, b) = (frame.texture.size(), self.renderer.target.size());
            let size = wgpu::Extent3d {
                width: a.width.min(b.width),
                height: a.height.min(b.height),
                depth_or_array_layers: 1,
            };
            encoder.copy_texture_to_texture(
                self.renderer.target.as_image_copy(),
                frame.texture.as_image_copy(),
                size,
            );
            queue.submit([encoder.finish()]);
            self.window.pre_present_notify();
            queue.present(frame);
            Ok(())
        }
    }

    impl ApplicationHandler for App {
        fn resumed(&mut self, event_loop: &ActiveEventLoop) {
            if self.running.is_none() {
                match self.start(event_loop) {
                    Ok(r) => self.running = Some(r),
                    Err(e) => {
                        self.error = Some(e);
                        event_loop.exit();
                    }
                }
            }
        }

        fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
            match event {
                WindowEvent::CloseRequested => event_loop.exit(),
                WindowEvent::RedrawRequested => {
                    if let Some(r) = &mut self.running {
                        if let Err(e) = r.frame() {
                            self.error = Some(e);
                            event_loop.exit();
                        }
                        r.window.request_redraw();
                    }
                }
                _ => {}
            }
        }
    }

    pub fn run() -> Result<(), Box<dyn std::error::Error>> {
        let event_loop = EventLoop::new()?;
        let mut app = App::default();
        event_loop.run_app(&mut app)?;
        match app.error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
