//! Sharing an application's wgpu device and buffers.

use olympus::{numpy as np, Array, DType, Device, DeviceOptions};

/// The application's own device, as a renderer would create it.
fn app_device() -> (wgpu::Adapter, wgpu::Device, wgpu::Queue) {
    app_device_with(None)
}

/// The application's device with `limits` (the adapter's own when `None`).
fn app_device_with(limits: Option<wgpu::Limits>) -> (wgpu::Adapter, wgpu::Device, wgpu::Queue) {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN | wgpu::Backends::METAL | wgpu::Backends::DX12;
    let instance = wgpu::Instance::new(desc);
    let adapter =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
            .expect("an adapter");
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("app"),
        required_limits: limits.unwrap_or_else(|| adapter.limits()),
        ..Default::default()
    }))
    .expect("a device");
    (adapter, device, queue)
}

/// Copies `size` bytes at `offset` of `buffer` to a mappable buffer with the app's own
/// encoder, and reads them.
fn app_read(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    offset: u64,
    size: u64,
) -> Vec<u8> {
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("app staging"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut enc = device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(buffer, offset, &staging, 0, size);
    queue.submit([enc.finish()]);
    let slice = staging.slice(..);
    slice.map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
    slice.get_mapped_range().expect("mapped").to_vec()
}

#[test]
fn olympus_computes_on_the_applications_device() {
    let (adapter, device, queue) = app_device();
    let dev = Device::from_wgpu(
        &adapter,
        device.clone(),
        queue.clone(),
        DeviceOptions::default(),
    )
    .unwrap();
    let r = olympus::with_device(&dev, || {
        let x = np::arange(10).unwrap();
        let y = np::multiply(&x, 3).unwrap();
        // A transposed view is made contiguous for the application.
        let m = np::transpose(np::reshape(&y, &[2, 5]).unwrap(), None).unwrap();
        (y, m)
    });
    let (y, m) = r;
    assert_eq!(y.device(), &dev);
    let v = y.wgpu_buffer().unwrap();
    let bytes = app_read(&device, &queue, &v.buffer, v.offset, v.size);
    let got: Vec<i32> = bytes
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(got, (0..10).map(|i| i * 3).collect::<Vec<_>>());
    let v = m.wgpu_buffer().unwrap();
    let bytes = app_read(&device, &queue, &v.buffer, v.offset, v.size);
    let got: Vec<i32> = bytes
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(got, vec![0, 15, 3, 18, 6, 21, 9, 24, 12, 27]);
    // That buffer held a copy no array keeps: it is never handed to a later array.
    let later: Vec<Array> = olympus::with_device(&dev, || {
        (0..4).map(|k| np::multiply(&y, 100 + k).unwrap()).collect()
    });
    later[3].block_until_ready().unwrap();
    let bytes = app_read(&device, &queue, &v.buffer, v.offset, v.size);
    let again: Vec<i32> = bytes
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(again, got, "a handed-out buffer was reused");
    // A view whose start cannot be bound (16 bytes in) is copied to a bindable start.
    let tail = y.slice(olympus::s![4..]).unwrap();
    let v = tail.wgpu_buffer().unwrap();
    assert_eq!(v.size, 24);
    assert_eq!(
        v.offset % u64::from(dev.info().limits.min_storage_buffer_offset_alignment),
        0
    );
    let bytes = app_read(&device, &queue, &v.buffer, v.offset, v.size);
    assert_eq!(i32::from_le_bytes(bytes[..4].try_into().unwrap()), 12);
}

#[test]
fn applications_buffers_are_wrapped_without_a_copy() {
    let (adapter, device, queue) = app_device();
    let dev = Device::from_wgpu(
        &adapter,
        device.clone(),
        queue.clone(),
        DeviceOptions::default(),
    )
    .unwrap();
    // Five floats: the buffer ends at the last element (no vec4 padding).
    let data = [1.5f32, -2.0, 3.25, 4.0, 0.5];
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("app data"),
        size: 20,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    queue.write_buffer(
        &buffer,
        0,
        &data
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect::<Vec<_>>(),
    );
    let a = Array::from_wgpu_buffer(&dev, buffer.clone(), &[5], DType::Float32).unwrap();
    assert_eq!(a.to_vec::<f32>().unwrap(), data.to_vec());
    let b = np::add(&a, &a).unwrap();
    assert_eq!(
        b.to_vec::<f32>().unwrap(),
        data.iter().map(|x| x * 2.0).collect::<Vec<_>>()
    );
    assert_eq!(
        np::sum(&a, None, false).unwrap().item::<f32>().unwrap(),
        7.25
    );
    // The wrapped array hands back the same buffer.
    let v = a.wgpu_buffer().unwrap();
    assert_eq!((v.offset, v.size, v.buffer.size()), (0, 20, 20));
    drop(a);
    drop(b);
    // The application's buffer is untouched and still usable after the arrays are gone.
    let bytes = app_read(&device, &queue, &buffer, 0, 20);
    assert_eq!(
        bytes,
        data.iter()
            .flat_map(|f| f.to_le_bytes())
            .collect::<Vec<_>>()
    );
    // Buffers that do not fit are clear errors.
    let small = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 8,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let e = Array::from_wgpu_buffer(&dev, small, &[5], DType::Float32)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("from_wgpu_buffer") && e.contains("8 bytes") && e.contains("(5,)"),
        "{e}"
    );
    let uniform = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 64,
        usage: wgpu::BufferUsages::UNIFORM,
        mapped_at_creation: false,
    });
    let e = Array::from_wgpu_buffer(&dev, uniform, &[4], DType::Float32)
        .unwrap_err()
        .to_string();
    assert!(e.contains("STORAGE"), "{e}");
}

#[test]
fn an_application_draws_with_the_device_olympus_opened() {
    // A program that let Olympus open the device reaches it for its own passes.
    let dev = Device::default_device().unwrap();
    let x = olympus::with_device(&dev, || np::multiply(np::arange(1000).unwrap(), 3).unwrap());
    let v = x.wgpu_buffer().unwrap();
    let bytes = app_read(
        dev.wgpu_device(),
        dev.wgpu_queue(),
        &v.buffer,
        v.offset,
        v.size,
    );
    let got: Vec<i32> = bytes
        .chunks_exact(4)
        .map(|b| i32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(got, (0..1000).map(|i| 3 * i).collect::<Vec<i32>>());
}

#[test]
fn devices_without_what_olympus_needs_are_refused() {
    let (adapter, device, queue) = app_device_with(Some(wgpu::Limits::downlevel_webgl2_defaults()));
    let e = Device::from_wgpu(&adapter, device, queue, DeviceOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("max_compute_invocations_per_workgroup"), "{e}");
}

#[test]
fn kernels_see_what_the_application_writes_into_a_handed_out_buffer() {
    let (adapter, device, queue) = app_device();
    // Every input staged into a texture (as CPU adapters do for large ones), so that a
    // staged copy kept from before the application's write would show.
    let dev = Device::from_wgpu(
        &adapter,
        device.clone(),
        queue.clone(),
        DeviceOptions {
            texture_input_bytes: Some(0),
            ..DeviceOptions::default()
        },
    )
    .unwrap();
    let n: i32 = 4096 * 4 + 5;
    let x = olympus::with_device(&dev, || {
        np::multiply(np::arange(i64::from(n)).unwrap(), 2).unwrap()
    });
    let first = olympus::with_device(&dev, || np::add(&x, 1).unwrap());
    assert_eq!(first.to_vec::<i32>().unwrap()[7], 15);
    let v = x.wgpu_buffer().unwrap();
    let new: Vec<u8> = (0..n).flat_map(|i| (-i).to_le_bytes()).collect();
    queue.write_buffer(&v.buffer, v.offset, &new);
    let again = olympus::with_device(&dev, || np::add(&x, 1).unwrap());
    let got = again.to_vec::<i32>().unwrap();
    assert!(
        got.iter().enumerate().all(|(i, &g)| g == 1 - i as i32),
        "{:?}",
        &got[..8]
    );
}

/// A device opened with WebGPU's downlevel limits (4 storage buffers a stage, 16 KiB of
/// uniforms, 2048-texel textures, no `SHADER_F16`) runs every kernel family and gives the
/// default device's answers, with the workgroup-tiled matmul a GPU would get.
#[test]
fn webgpu_downlevel_limits_run_every_kernel_family() {
    let (adapter, device, queue) = app_device_with(Some(wgpu::Limits::downlevel_defaults()));
    let options = DeviceOptions {
        matmul_workgroup_tiles: Some(true),
        ..DeviceOptions::default()
    };
    let small = Device::from_wgpu(&adapter, device, queue, options).unwrap();
    let work = || -> olympus::Result<Vec<Vec<f64>>> {
        let n = 300_001;
        let x = np::sin(np::arange((0.0, n as f64, 1.0))?)?;
        let m = np::reshape(np::arange((0.0, 1.0, 1.0 / 4096.0))?, &[64, 64])?;
        let h = np::exp(x.astype(DType::Float16)?)?;
        let idx = np::remainder(np::arange(1000)?, 77)?;
        let out = vec![
            np::sum(&x, None, false)?,
            np::max(&x, Some(&[0]), false)?,
            np::sum(
                np::reshape(&x.slice(olympus::s![..300_000])?, &[600, 500])?,
                Some(&[0]),
                false,
            )?,
            np::matmul(&m, np::transpose(&m, None)?)?,
            np::sort(&x.slice(olympus::s![..20_000])?, Some(-1))?,
            np::argsort(&x.slice(olympus::s![..5_000])?, Some(-1))?,
            np::cumsum(&x, None)?,
            h,
            np::zeros(&[77], DType::Float32)?.at(idx.clone()).add(1.5)?,
            np::take(&x, &idx, None)?,
            np::concatenate([&x, &x], 0)?,
            // Three operands and the output: all four storage buffers.
            np::r#where(np::greater(&x, 0.5)?, &x, np::negative(&x)?)?,
            np::clip(&x, np::negative(&x)?, 0.25)?,
        ];
        out.iter().map(|a| a.to_f64_vec()).collect()
    };
    let want = work().unwrap();
    let got = olympus::with_device(&small, work).unwrap();
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.len(), w.len(), "result {k}");
        for (i, (a, b)) in g.iter().zip(w).enumerate() {
            // Sums may associate differently with other workgroup shapes.
            let tol = 1e-5 * b.abs().max(1.0);
            assert!((a - b).abs() <= tol, "result {k}[{i}]: {a} vs {b}");
        }
    }
}

/// A device that binds 4 storage buffers of 4 KiB (WebGPU's downlevel count, tiny
/// windows): every operand below spans more windows than one kernel may bind, as arrays
/// past 1.9 GiB do on wgpu's GL backend (16 bindings of 128 MiB). Elementwise ops and
/// reductions run in slabs along the leading axis, each kernel binding only its part.
#[test]
fn operands_past_what_one_kernel_binds_run_in_slabs() {
    let (adapter, device, queue) = app_device_with(Some(wgpu::Limits::downlevel_defaults()));
    let options = DeviceOptions {
        max_binding_bytes: Some(4096),
        ..DeviceOptions::default()
    };
    let tiny = Device::from_wgpu(&adapter, device, queue, options).unwrap();
    assert_eq!(tiny.info().limits.max_storage_buffers_per_shader_stage, 4);
    let values = |n: usize, seed: u32| -> Vec<f32> {
        (0..n)
            .map(|i| ((i as u32).wrapping_mul(2654435761) ^ seed) as f32 / 4.3e9 - 0.5)
            .collect()
    };
    let on =
        |dev: &Device, v: &[f32], shape: &[usize]| Array::from_slice_on(dev, v, shape).unwrap();
    // 10,001 float32 are 10 windows; (200, 64) 13; (64, 16, 8) 8.
    let (a, b) = (values(10_001, 1), values(10_001, 2));
    let m = values(200 * 64, 3);
    let c = values(64 * 16 * 8, 4);
    let row = values(64, 5);
    let f32s = |x: &Array| x.astype(DType::Float32).unwrap().to_vec::<f32>().unwrap();

    // Elementwise results are exact: compare them with the host's float32 arithmetic.
    olympus::with_device(&tiny, || {
        let (ga, gb) = (on(&tiny, &a, &[10_001]), on(&tiny, &b, &[10_001]));
        let sum = f32s(&np::add(&ga, &gb).unwrap());
        assert!(sum
            .iter()
            .zip(a.iter().zip(&b))
            .all(|(s, (x, y))| *s == x + y));
        let w = np::r#where(
            np::greater(&ga, 0.0).unwrap(),
            &ga,
            np::multiply(&gb, 2.0).unwrap(),
        )
        .unwrap();
        let want: Vec<f32> = a
            .iter()
            .zip(&b)
            .map(|(&x, &y)| if x > 0.0 { x } else { 2.0 * y })
            .collect();
        assert_eq!(f32s(&w), want);
        // float16 packs two to a word: odd lengths, slabs of whole pairs.
        let h = np::add(
            ga.astype(DType::Float16).unwrap(),
            gb.astype(DType::Float16).unwrap(),
        )
        .unwrap();
        let want: Vec<f32> = a
            .iter()
            .zip(&b)
            .map(|(&x, &y)| {
                let (x, y) = (
                    half::f16::from_f32(x).to_f32(),
                    half::f16::from_f32(y).to_f32(),
                );
                half::f16::from_f32(x + y).to_f32()
            })
            .collect();
        assert_eq!(f32s(&h), want);
        // A reversed view, and a row broadcast down the leading axis.
        let gm = on(&tiny, &m, &[200, 64]);
        let flipped = f32s(
            &np::add(
                gm.slice(olympus::s![..;-1, ..]).unwrap(),
                on(&tiny, &row, &[64]),
            )
            .unwrap(),
        );
        for i in [0usize, 1, 99, 199] {
            for j in [0usize, 31, 63] {
                assert_eq!(
                    flipped[i * 64 + j],
                    m[(199 - i) * 64 + j] + row[j],
                    "({i}, {j})"
                );
            }
        }
    });

    // Reductions against the default device (the sums' order differs, so within 1e-5).
    let reductions = |dev: &Device| -> Vec<Vec<f32>> {
        olympus::with_device(dev, || {
            let (ga, gm, gc) = (
                on(dev, &a, &[10_001]),
                on(dev, &m, &[200, 64]),
                on(dev, &c, &[64, 16, 8]),
            );
            let ax = |x: &Array, axes: &[isize]| np::sum(x, Some(axes), false).unwrap();
            vec![
                f32s(&np::sum(&ga, None, false).unwrap()),
                f32s(&np::max(&ga, None, false).unwrap()),
                f32s(&np::min(&gm, None, false).unwrap()),
                f32s(&np::mean(&ga, None, false).unwrap()),
                f32s(&ax(&gm, &[0])),
                f32s(&ax(&gm, &[1])),
                f32s(&ax(&gc, &[0, 2])),
                f32s(&ax(&gc, &[1])),
                f32s(&np::max(&gc, Some(&[2]), true).unwrap()),
                f32s(&np::any(np::greater(&gm, 0.49).unwrap(), Some(&[1]), false).unwrap()),
                f32s(&np::all(np::greater(&gc, -0.49).unwrap(), None, false).unwrap()),
                f32s(&np::sum(ga.astype(DType::Float16).unwrap(), None, false).unwrap()),
            ]
        })
    };
    let (got, want) = (
        reductions(&tiny),
        reductions(&Device::default_device().unwrap()),
    );
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.len(), w.len(), "reduction {i}");
        for (x, y) in g.iter().zip(w) {
            assert!(
                (x - y).abs() <= 1e-5 * y.abs().max(1.0),
                "reduction {i}: {x} vs {y}"
            );
        }
    }

    // A kernel that cannot fit however it is split (four operands and an output, each at
    // least one binding, where the device has four) names the bindings it would need.
    let e = olympus::with_device(&tiny, || {
        let w = Array::from_slice(&[1u32; 100], &[100])?;
        olympus::lax::threefry2x32(&w, &w, &w, &w, olympus::lax::ThreefryOutput::First)
    })
    .unwrap_err()
    .to_string();
    assert!(e.contains("max_storage_buffers_per_shader_stage"), "{e}");
}

/// Every kind of kernel on a device that binds 16 storage buffers of 4 KiB (wgpu's GL
/// backend's count, tiny windows), against the default device: operands and results past
/// what one kernel may bind are split (slabs, boxes of the output, runs of rows, ranges of
/// a scatter's array, slices of a product's `k`). Values are small integers, so every
/// result is exact whatever the split.
#[test]
fn every_kernel_kind_runs_past_what_one_kernel_binds() {
    // 20,000 float32 are 20 windows; every case below needs more than 16.
    let ints = |n: usize, seed: u32, m: u32| -> Vec<f32> {
        (0..n)
            .map(|i| ((i as u32 ^ seed).wrapping_mul(2654435761) >> 7) % m)
            .map(|v| v as f32 - (m / 2) as f32)
            .collect()
    };
    let run = |dev: &Device| -> Vec<(&'static str, Vec<f32>)> {
        olympus::with_device(dev, || {
            let arr = |v: &[f32], shape: &[usize]| Array::from_slice(v, shape).unwrap();
            let x = arr(&ints(40_000, 1, 9), &[40_000]);
            let m = arr(&ints(200 * 200, 2, 9), &[200, 200]);
            let t = np::transpose(&m, None).unwrap();
            let h = m.astype(DType::Float16).unwrap();
            let idx: Vec<i32> = ints(40_000, 3, 80_000).iter().map(|&v| v as i32).collect();
            let idx = Array::from_slice(&idx, &[40_000]).unwrap();
            let key = olympus::random::key(7).unwrap();
            // Ties, NaN of both signs, both zeros and both infinities across one long row.
            let mut v = ints(20_001, 4, 50);
            let specials = [
                f32::NAN,
                -f32::NAN,
                -0.0,
                0.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
            ];
            for (i, s) in specials.iter().cycle().take(600).enumerate() {
                v[(i * 4_999) % 20_001] = *s;
            }
            let special = arr(&v, &[20_001]);
            let mut cases: Vec<(&'static str, olympus::Result<Array>)> = vec![
                ("arange", np::arange(50_000)),
                (
                    "uniform",
                    olympus::random::uniform(&key, &[30_000], 0.0, 1.0, DType::Float32),
                ),
                ("transposed copy", np::add(&t, 1.0)),
                (
                    "float16 transposed",
                    np::negative(np::transpose(&h, None).unwrap()),
                ),
                ("concatenate 0", np::concatenate([&m, &t], 0)),
                ("concatenate 1", np::concatenate([&m, &t, &m], 1)),
                ("float16 concatenate", np::concatenate([&h, &h], 1)),
                (
                    "pad",
                    np::pad(&m, &[(3, 5), (0, 7)], np::PadMode::Constant(2.0)),
                ),
                ("edge pad", np::pad(&x, &[(100, 9000)], np::PadMode::Edge)),
                (
                    "take",
                    np::take(&x, np::remainder(&idx, 40_000).unwrap(), None),
                ),
                (
                    "take along",
                    np::take_along_axis(
                        &m,
                        np::remainder(np::reshape(&idx, &[200, 200]).unwrap(), 200).unwrap(),
                        1,
                    ),
                ),
                ("roll", np::roll(&m, &[7, -3], Some(&[0, 1]))),
                ("matmul", np::matmul(&m, &t)),
                (
                    "batched matmul",
                    np::matmul(
                        np::reshape(&x, &[4, 100, 100]).unwrap(),
                        np::reshape(&x, &[4, 100, 100]).unwrap(),
                    ),
                ),
                (
                    "long k",
                    np::matmul(
                        np::reshape(&x, &[2, 20_000]).unwrap(),
                        np::reshape(&x, &[20_000, 2]).unwrap(),
                    ),
                ),
                ("dot", np::dot(&x, &x)),
                ("cumsum", np::cumsum(&x, None)),
                ("cumsum 0", np::cumsum(&m, Some(0))),
                ("cumsum 1", np::cumsum(&t, Some(1))),
                (
                    "int cumsum",
                    np::cumsum(x.astype(DType::Int32).unwrap(), None),
                ),
                (
                    "cumprod",
                    np::cumprod(
                        np::add(np::remainder(&x, 2.0).unwrap(), 0.0)
                            .unwrap()
                            .reshape(&[8, 5000])
                            .unwrap(),
                        Some(1),
                    ),
                ),
                ("set", x.at(np::remainder(&idx, 40_000).unwrap()).set(5.0)),
                ("add", x.at(np::remainder(&idx, 100).unwrap()).add(&x)),
                (
                    "sort rows",
                    np::sort(np::reshape(&x, &[10, 4000]).unwrap(), Some(-1)),
                ),
                (
                    "argsort rows",
                    np::argsort(np::reshape(&x, &[10, 4000]).unwrap(), Some(-1)),
                ),
                ("flatnonzero", np::flatnonzero(&x, None, None)),
                ("argmax", np::argmax(&m, Some(1), false)),
                ("argmax one row", np::argmax(&x, None, false)),
                (
                    "searchsorted",
                    np::searchsorted(np::sort(&x, None).unwrap(), &m, np::Side::Right, None),
                ),
                (
                    "bincount",
                    np::bincount(np::remainder(&idx, 100).unwrap(), None, 0, Some(100)),
                ),
                ("reverse cumsum", olympus::lax::cumsum(&x, 0, true)),
                ("sort one row", np::sort(&special, None)),
                ("argsort one row", np::argsort(&special, None)),
                (
                    "float16 argsort one row",
                    np::argsort(special.astype(DType::Float16).unwrap(), None),
                ),
                (
                    "int argsort one row",
                    np::argsort(x.astype(DType::Int32).unwrap(), None),
                ),
                (
                    "float16 matmul",
                    np::matmul(&h, np::transpose(&h, None).unwrap()),
                ),
                (
                    "float16 sort rows",
                    np::sort(np::reshape(&h, &[8, 5000]).unwrap(), Some(-1)),
                ),
                (
                    "jit chain",
                    olympus::jit(|a: Array| {
                        np::add(np::multiply(&a, 2.0)?, np::transpose(&a, None)?)
                    })
                    .call(m.clone()),
                ),
                (
                    "jit sum",
                    olympus::jit(|a: Array| np::sum(np::multiply(&a, &a)?, Some(&[1]), false))
                        .call(m.clone()),
                ),
            ];
            cases
                .drain(..)
                .map(|(name, r)| {
                    let v = r
                        .and_then(|a| a.astype(DType::Float32))
                        .and_then(|a| a.to_vec::<f32>())
                        .unwrap_or_else(|e| panic!("{name}: {e}"));
                    (name, v)
                })
                .collect()
        })
    };
    let want = run(&Device::default_device().unwrap());
    // With inputs staged into textures where the adapter would (they bind no storage
    // buffer), and with every input read from its storage buffer.
    for texture_input_bytes in [None, Some(u64::MAX)] {
        let tiny = Device::new(DeviceOptions {
            max_binding_bytes: Some(4096),
            max_storage_buffers: Some(16),
            texture_input_bytes,
            // The backend and kernel profile of the pass (GL in CI's third).
            ..DeviceOptions::from_env().unwrap()
        })
        .unwrap();
        assert_eq!(tiny.info().limits.max_storage_buffers_per_shader_stage, 16);
        for ((name, g), (_, w)) in run(&tiny).iter().zip(&want) {
            assert_eq!(g.len(), w.len(), "{name}");
            if let Some(i) = (0..g.len()).find(|&i| g[i].to_bits() != w[i].to_bits()) {
                panic!(
                    "{name}[{i}] ({texture_input_bytes:?}): {} vs {}",
                    g[i], w[i]
                );
            }
        }
    }
}
