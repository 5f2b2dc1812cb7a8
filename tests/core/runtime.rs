//! The device, the queue, the pool, readback, limits and errors.

use crate::common::*;
use olympus::{lax, numpy as np, Array, DType, Device, DeviceOptions, Error};

#[test]
fn default_device_is_shared_and_described() {
    let a = Device::default_device().unwrap();
    let b = Device::default_device().unwrap();
    assert_eq!(a, b);
    let info = a.info();
    assert!(!info.name.is_empty());
    assert!(info.limits.max_storage_buffer_binding_size > 0);
    eprintln!("adapter: {info}");
    let x = np::zeros(&[2], DType::Float32).unwrap();
    assert_eq!(x.device(), &a);
}

#[test]
fn two_threads_use_the_default_device_at_once() {
    let handles: Vec<_> = (0..2)
        .map(|t| {
            std::thread::spawn(move || {
                for i in 0..50 {
                    let v: Vec<f32> = (0..1000).map(|k| (k + i + t * 7) as f32).collect();
                    let x = Array::from_slice(&v, &[1000]).unwrap();
                    let y = np::multiply(np::add(&x, 1.0).unwrap(), 2.0).unwrap();
                    let want: Vec<f32> = v.iter().map(|a| (a + 1.0) * 2.0).collect();
                    assert_eq!(y.to_vec::<f32>().unwrap(), want);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn arrays_are_send_sync_and_cheap_to_clone() {
    fn check<T: Send + Sync + Clone>() {}
    check::<Array>();
    check::<Device>();
    let x = np::arange(10).unwrap();
    let y = x.clone();
    let before = x.device().memory_stats().live_buffers;
    let _z = y.clone();
    assert_eq!(x.device().memory_stats().live_buffers, before);
}

#[test]
fn memory_stays_flat_over_ten_thousand_ops() {
    // A private device, so other tests do not move the counters.
    let dev = Device::new(DeviceOptions::default()).unwrap();
    olympus::with_device(&dev, || {
        let a = np::asarray(vec![1.0f32; 4096]).unwrap();
        let mut x = np::zeros(&[4096], DType::Float32).unwrap();
        let mut samples = Vec::new();
        for i in 0..10_000 {
            x = np::add(&x, &a).unwrap();
            if i % 1000 == 999 {
                x.block_until_ready().unwrap();
                let s = dev.memory_stats();
                samples.push((s.live_bytes, s.pooled_bytes));
            }
        }
        assert_eq!(x.to_vec::<f32>().unwrap()[17], 10_000.0);
        eprintln!("(live, pooled) bytes every 1000 ops: {samples:?}");
        let (l0, p0) = samples[1];
        for &(l, p) in &samples[1..] {
            assert_eq!(l, l0, "live bytes grew: {samples:?}");
            assert_eq!(p, p0, "pooled bytes grew: {samples:?}");
        }
    });
}

#[test]
fn dispatch_is_asynchronous_until_readback() {
    let x = np::ones(&[1 << 20], DType::Float32).unwrap();
    let mut y = x.clone();
    for _ in 0..20 {
        y = np::add(&y, &x).unwrap();
    }
    // Nothing has been waited for yet; reading waits.
    let v = y.to_vec::<f32>().unwrap();
    assert!(v.iter().all(|&e| e == 21.0));
}

#[test]
fn to_vec_async_does_not_block() {
    let x = np::multiply(np::arange(100).unwrap(), 3).unwrap();
    let fut = x.to_vec_async::<i32>();
    let v = futures::executor::block_on(fut).unwrap();
    assert_eq!(v, (0..100).map(|i| i * 3).collect::<Vec<_>>());
    // Two readbacks in flight at once.
    let a = np::arange(10).unwrap().to_vec_async::<i32>();
    let b = np::arange(20).unwrap().to_vec_async::<i32>();
    let (a, b) = futures::executor::block_on(futures::future::join(a, b));
    assert_eq!(a.unwrap().len() + b.unwrap().len(), 30);
    // Reading with the wrong type is an error, not a panic.
    let e = futures::executor::block_on(x.to_vec_async::<f32>()).unwrap_err();
    assert!(e.to_string().contains("int32"), "{e}");
}

#[test]
fn mixing_devices_is_an_error() {
    let other = Device::new(DeviceOptions::default()).unwrap();
    let a = np::ones(&[3], DType::Float32).unwrap();
    let b = olympus::with_device(&other, || np::ones(&[3], DType::Float32)).unwrap();
    assert_eq!(b.device(), &other);
    let e = np::add(&a, &b).unwrap_err();
    assert!(matches!(e, Error::DeviceMismatch { .. }), "{e}");
    assert!(e.to_string().contains("add"), "{e}");
    // Moving one over fixes it.
    let c = b.to_device(a.device()).unwrap();
    assert_eq!(
        np::add(&a, &c).unwrap().to_vec::<f32>().unwrap(),
        vec![2.0; 3]
    );
}

#[test]
fn no_adapter_says_what_was_tried() {
    let e = Device::new(DeviceOptions {
        adapter: Some("no-such-adapter-xyz".into()),
        ..DeviceOptions::default()
    })
    .unwrap_err();
    match &e {
        Error::NoAdapter { tried } => assert!(
            tried.contains("no-such-adapter-xyz") || tried.contains("no adapters"),
            "{tried}"
        ),
        other => panic!("expected NoAdapter, got {other}"),
    }
}

#[test]
fn oversize_arrays_are_clear_errors_and_the_device_stays_usable() {
    // More than the largest buffer the device allows.
    let dev = Device::default_device().unwrap();
    let max = dev.info().limits.max_buffer_size;
    let n = (max / 4 + 1024) as usize;
    let e = np::zeros(&[n], DType::Float32).unwrap_err();
    match &e {
        Error::OutOfMemory {
            func, shape, dtype, ..
        } => {
            assert_eq!(func, "zeros");
            assert_eq!(shape, &vec![n]);
            assert_eq!(*dtype, DType::Float32);
        }
        other => panic!("expected OutOfMemory, got {other}"),
    }
    // Element counts past usize are shape errors, not panics.
    assert_error(
        np::zeros(&[usize::MAX, 4], DType::Float32),
        "zeros",
        "ShapeMismatch",
    );
    // The device still works.
    assert_eq!(
        np::add(np::ones(&[2], DType::Int32).unwrap(), 1)
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![2, 2]
    );
}

#[test]
fn windows_and_2d_grids_on_small_arrays() {
    // A device whose bindings cover 8 KiB and whose grids are 4 workgroups wide, so that
    // chunked bindings and 2-D grids run on small, quick arrays.
    let dev = Device::new(DeviceOptions {
        max_binding_bytes: Some(8192),
        max_workgroups_per_dim: Some(4),
        ..DeviceOptions::default()
    })
    .unwrap();
    let mut r = rng();
    olympus::with_device(&dev, || {
        for d in every_dtype() {
            let (rows, cols) = (90, 100);
            let n = rows * cols;
            let va = random_values(&mut r, d, n);
            let vb = random_values(&mut r, d, n);
            let vc = random_values(&mut r, d, n);
            let a = make(&va, &[rows, cols], d);
            let b = make(&vb, &[rows, cols], d);
            // A transposed (strided) operand read through windows too.
            let ct = lax::transpose(&make(&vc, &[cols, rows], d), &[1, 0]).unwrap();
            let s = np::add(np::add(&a, &b).unwrap(), &ct).unwrap_or_else(|e| panic!("{d}: {e}"));
            let add = |x: f64, y: f64| add_ref(x, y, d);
            let want: Vec<f64> = (0..n)
                .map(|i| add(add(va[i], vb[i]), vc[(i % cols) * rows + i / cols]))
                .collect();
            assert_close(&format!("windowed {d}"), &s, &want, d, EXACT);
        }
        // Scans whose output is bound in spans of chunks (each span's elements in one
        // 8 KiB binding), rows that end inside a chunk and spans that start inside a row,
        // forward and reversed, against XLA's association.
        for d in [DType::Int32, DType::Float32, DType::BFloat16] {
            for (rows, n) in [(90, 100), (3, 5000), (1, 20000)] {
                let v = random_values(&mut r, d, rows * n);
                let x = make(&v, &[rows, n], d);
                for reverse in [false, true] {
                    let got = lax::cumsum(&x, 1, reverse).unwrap();
                    let want: Vec<f64> = v
                        .chunks(n)
                        .flat_map(|row| {
                            if reverse {
                                xla_scan_reversed(row, d, false)
                            } else {
                                xla_scan(row, d, false)
                            }
                        })
                        .collect();
                    let what = format!("spanned cumsum {d} {rows}x{n} reverse {reverse}");
                    assert_close(&what, &got, &want, d, EXACT);
                }
            }
        }
    });
}

#[test]
fn forty_million_floats() {
    // 160 MB per array: past lavapipe's 128 MiB binding limit.
    let n = 40_000_000usize;
    let a = np::arange((0.0f32, n as f32, 1.0f32)).unwrap();
    let b = np::full(&[n], 0.5, Some(DType::Float32)).unwrap();
    let c = np::add(&a, &b).unwrap();
    let v = c.to_vec::<f32>().unwrap();
    assert_eq!(v.len(), n);
    for i in [
        0,
        1,
        7,
        16_777_215,
        33_554_431,
        33_554_432,
        33_554_433,
        n / 2 + 3,
        n - 1,
    ] {
        let want = (i as f64 as f32) + 0.5;
        assert_eq!(v[i], want, "element {i}");
    }
    // Every element, against the reference.
    let bad = v
        .iter()
        .enumerate()
        .filter(|(i, &x)| x != (*i as f32) + 0.5)
        .count();
    assert_eq!(bad, 0);
    let e = np::exp(np::multiply(&b, 0.0).unwrap()).unwrap();
    let ev = e.to_vec::<f32>().unwrap();
    assert!(ev.iter().all(|&x| x == 1.0));
}

#[test]
fn a_lost_device_gives_errors_not_panics() {
    let dev = Device::new(DeviceOptions::default()).unwrap();
    let x = olympus::with_device(&dev, || np::arange(10)).unwrap();
    let y = np::add(&x, 1).unwrap();
    dev.destroy();
    for e in [
        np::add(&x, 1).unwrap_err(),
        y.to_vec::<i32>().unwrap_err(),
        olympus::with_device(&dev, || np::zeros(&[3], DType::Float32)).unwrap_err(),
        dev.synchronize().unwrap_err(),
        futures::executor::block_on(x.to_vec_async::<i32>()).unwrap_err(),
    ] {
        assert!(matches!(e, Error::DeviceLost { .. }), "{e}");
    }
    // Other devices are unaffected.
    assert_eq!(
        np::add(np::arange(3).unwrap(), 1)
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![1, 2, 3]
    );
}

/// A device destroyed while other threads run work on it (recording, compiling, waiting,
/// reading back) gives those threads `DeviceLost`, the same error a later call gets, never
/// wgpu's own text or a panic. Several rounds, so the destroy lands at different points.
#[test]
fn a_device_destroyed_under_other_threads_gives_device_lost() {
    for round in 0..6 {
        let dev = Device::new(DeviceOptions::default()).unwrap();
        let workers: Vec<_> = (0..3)
            .map(|t| {
                let dev = dev.clone();
                std::thread::spawn(move || -> Vec<Error> {
                    let mut errors = Vec::new();
                    for i in 0..200 {
                        let r = olympus::with_device(&dev, || {
                            let x = np::arange(1000 + 7 * i + t)?;
                            // A fresh kernel now and then (a new constant), so some
                            // destroys land in a compile.
                            let y = np::add(np::multiply(&x, (i % 5) + 2)?, 1)?;
                            let s = np::sum(&y, None, false)?;
                            if i % 2 == 0 {
                                s.to_vec::<i32>().map(|_| ())
                            } else {
                                futures::executor::block_on(s.to_vec_async::<i32>()).map(|_| ())
                            }
                        });
                        if let Err(e) = r {
                            errors.push(e);
                        }
                    }
                    errors
                })
            })
            .collect();
        std::thread::sleep(std::time::Duration::from_millis(5 + 20 * round));
        dev.destroy();
        for w in workers {
            let errors = w.join().expect("a worker panicked");
            for e in errors {
                assert!(matches!(e, Error::DeviceLost { .. }), "round {round}: {e}");
            }
        }
    }
}

/// A kernel whose metadata (the sizes and strides of its operands) would not fit the
/// uniform block a dispatch carries is a clear error, not a panic.
#[test]
fn oversize_kernel_metadata_is_an_error() {
    let rank = 1400;
    let mut shape = vec![1usize; rank];
    shape[0] = 2;
    shape[rank - 1] = 2;
    let x = np::reshape(
        np::asarray(vec![0.0f32, 1.0, 2.0, 3.0]).unwrap(),
        &shape.iter().map(|&d| d as isize).collect::<Vec<_>>(),
    )
    .unwrap();
    let mut perm: Vec<isize> = (0..rank as isize).collect();
    perm.swap(0, rank - 1);
    let t = np::transpose(&x, Some(&perm)).unwrap();
    let e = np::add(&t, &t)
        .and_then(|r| r.to_vec::<f32>())
        .unwrap_err()
        .to_string();
    assert!(e.contains("metadata") && e.contains("4096"), "{e}");
}

/// 2,000 eager ops on a 4 MiB array keep the pool near its 64 MiB floor (a batch's worth of
/// freed buffers used to wait for the next submit: about 1 GB), the high-water marks say
/// so, and `trim` gives the rest back.
#[test]
fn the_pool_gives_memory_back() {
    let dev = Device::new(DeviceOptions::default()).unwrap();
    olympus::with_device(&dev, || {
        let n = 1 << 20;
        let a = np::ones(&[n], DType::Float32).unwrap();
        let mut x = np::zeros(&[n], DType::Float32).unwrap();
        for _ in 0..2000 {
            x = np::add(&x, &a).unwrap();
        }
        assert_eq!(x.to_vec::<f32>().unwrap()[12345], 2000.0);
        let s = dev.memory_stats();
        assert!(s.peak_pooled_bytes <= 80 << 20, "{s:?}");
        // The floor, and the small buffers of the readback still awaiting a submit.
        assert!(s.pooled_bytes <= (64 << 20) + (1 << 20), "{s:?}");
        assert!(s.peak_live_bytes >= 8 << 20, "{s:?}");
        assert!(s.peak_live_bytes >= s.live_bytes, "{s:?}");
        dev.trim().unwrap();
        let t = dev.memory_stats();
        assert_eq!(
            (t.pooled_bytes, t.pooled_buffers, t.texture_bytes),
            (0, 0, 0),
            "{t:?}"
        );
        assert_eq!(t.live_bytes, s.live_bytes, "{t:?}");
        let total = np::sum(&x, None, false).unwrap().item::<f32>().unwrap();
        assert_eq!(total, 2000.0 * n as f32);
    });
}

/// A loop that makes and drops a temporary larger than the pool's floor reuses one buffer
/// for it (a pool that gave it back made a new one every time, 4-35x slower once arrays
/// passed 1 GiB), whether each step waits for its result or not.
#[test]
fn a_large_temporary_is_reused_not_reallocated() {
    let dev = Device::new(DeviceOptions::default()).unwrap();
    olympus::with_device(&dev, || {
        let n = 24 << 20; // 96 MiB of float32, past the 64 MiB floor
        let x = np::ones(&[n], DType::Float32).unwrap();
        let mut created = Vec::new();
        for i in 0..12 {
            let t = np::multiply(&x, 2.0).unwrap();
            if i % 2 == 0 {
                t.block_until_ready().unwrap();
            }
            drop(t);
            created.push(dev.memory_stats().created_buffers);
        }
        assert!(
            created[11] <= created[1] + 1,
            "buffers created after each step: {created:?}"
        );
        let s = np::sum(np::multiply(&x, 2.0).unwrap(), None, false).unwrap();
        assert_eq!(s.item::<f32>().unwrap(), 2.0 * n as f32);
    });
}

/// Arrays dropped before anything is submitted give their memory back at once, down to
/// the pool's budget (live bytes, and room for the largest freed buffer or 64 MiB),
/// without waiting for a submit.
#[test]
fn dropped_arrays_return_memory_without_a_submit() {
    let dev = Device::new(DeviceOptions {
        batch_limit: 10_000,
        ..Default::default()
    })
    .unwrap();
    olympus::with_device(&dev, || {
        let x = np::ones(&[4 << 20], DType::Float32).unwrap();
        x.block_until_ready().unwrap();
        let many: Vec<Array> = (0..10).map(|i| np::add(&x, i as f32).unwrap()).collect();
        let live = dev.memory_stats().live_bytes;
        assert!(live >= 11 * (16 << 20), "{:?}", dev.memory_stats());
        drop(many);
        let s = dev.memory_stats();
        assert!(s.pooled_bytes <= s.live_bytes + (64 << 20), "{s:?}");
        assert_eq!(
            np::sum(&x, None, false).unwrap().item::<f32>().unwrap(),
            (4 << 20) as f32
        );
    });
}

/// An eager op's kernel is reused by equal programs only: filling with 0.0 and with -0.0
/// are different programs (their literals' bits differ), in either order.
#[test]
fn eager_kernels_keep_the_sign_of_a_zero_literal() {
    let dev = Device::new(DeviceOptions::default()).unwrap();
    olympus::with_device(&dev, || {
        for zero in [0.0f32, -0.0, 0.0, -0.0] {
            let filled = lax::full(&[4], lax::Literal::F32(zero), None).unwrap();
            let y = filled.to_vec::<f32>().unwrap();
            assert!(
                y.iter().all(|v| v.to_bits() == zero.to_bits()),
                "full({zero:?}) gave {y:?}"
            );
        }
    });
}

/// WebGPU's default and downlevel limits run every kernel; a device below them is refused
/// with each missing limit named, and the open device meets them.
#[test]
fn webgpu_default_limits_are_enough() {
    use olympus::runtime::missing_limits;
    assert_eq!(
        missing_limits(&wgpu::Limits::default()),
        Vec::<String>::new()
    );
    assert_eq!(
        missing_limits(&wgpu::Limits::downlevel_defaults()),
        Vec::<String>::new()
    );
    let small = wgpu::Limits {
        max_compute_workgroup_storage_size: 4096,
        max_storage_buffers_per_shader_stage: 2,
        ..wgpu::Limits::downlevel_defaults()
    };
    let missing = missing_limits(&small);
    assert_eq!(missing.len(), 2, "{missing:?}");
    assert!(missing[0].contains("max_storage_buffers_per_shader_stage >= 4 (has 2)"));
    assert!(missing[1].contains("max_compute_workgroup_storage_size >= 9280 (has 4096)"));
    let dev = Device::default_device().unwrap();
    assert!(missing_limits(&dev.info().limits).is_empty());
}

/// `KernelProfile::Gpu` makes a GPU's kernel choices on any adapter (CI runs the whole
/// suite that way with `OLYMPUS_PROFILE=gpu`); the answers are the same.
#[test]
fn the_gpu_profile_gives_the_same_answers() {
    use olympus::KernelProfile;
    let gpu = Device::new(DeviceOptions {
        profile: KernelProfile::Gpu,
        ..DeviceOptions::default()
    })
    .unwrap();
    assert_eq!(gpu.info().profile, KernelProfile::Gpu);
    assert!(
        gpu.info().to_string().ends_with("GPU kernels)"),
        "{}",
        gpu.info()
    );
    let work = || -> olympus::Result<Vec<Vec<f64>>> {
        let x = np::cos(np::arange((0.0, 200_000.0, 1.0))?)?;
        let m = np::reshape(x.slice(olympus::s![..40_000])?, &[200, 200])?;
        let out = [
            np::add(&x, 1.5)?,
            np::sum(&x, None, false)?,
            np::sum(&m, Some(&[0]), false)?,
            np::matmul(&m, &m)?,
            np::cumsum(&x, None)?,
            np::sort(&x, None)?,
        ];
        out.iter().map(|a| a.to_f64_vec()).collect()
    };
    let want = work().unwrap();
    let got = olympus::with_device(&gpu, work).unwrap();
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        for (a, b) in g.iter().zip(w) {
            assert!(
                (a - b).abs() <= 1e-4 * b.abs().max(1.0),
                "result {k}: {a} vs {b}"
            );
        }
    }
}

const QUIET_CHILD: &str = "OLYMPUS_QUIET_CHILD";

/// A fresh process prints nothing on stderr where no desktop session runs (no
/// `XDG_RUNTIME_DIR`, as on CI): Mesa's device-select Vulkan layer, which probes Wayland and
/// has libwayland print an error twice, is off for Olympus's process. The child opens the
/// default device and computes; its stderr must be empty.
#[test]
fn a_fresh_process_prints_nothing_on_stderr() {
    let exe = std::env::current_exe().expect("test binary path");
    let out = std::process::Command::new(exe)
        .args([
            "runtime::quiet_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env_remove("XDG_RUNTIME_DIR")
        // The parent turned the layer off for itself; the child must do it on its own.
        .env_remove("NODEVICE_SELECT")
        .env(QUIET_CHILD, "1")
        .output()
        .expect("spawn the child test process");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("QUIET CHILD OK"),
        "the child failed ({}):\n{stdout}",
        out.status
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "",
        "stderr of a fresh process"
    );
}

/// The child side of `a_fresh_process_prints_nothing_on_stderr`.
#[test]
#[ignore = "runs only as a child process of a_fresh_process_prints_nothing_on_stderr"]
fn quiet_child() {
    if std::env::var_os(QUIET_CHILD).is_none() {
        return;
    }
    let x = olympus::numpy::arange(5).unwrap();
    let y = olympus::numpy::multiply(&x, 2).unwrap();
    assert_eq!(y.to_vec::<i32>().unwrap(), [0, 2, 4, 6, 8]);
    println!("QUIET CHILD OK");
}

/// Threads sharing one device while the machine is loaded: one runs long kernels (each
/// holds a software adapter for seconds), the others compile, allocate, drop and read
/// back in between. On the GL backend wgpu panics when a thread waits over 6 s for the GL
/// context another holds ("Could not lock adapter context"); Olympus serialises its GL
/// calls on a lock of its own and waits in short slices, so every thread finishes.
#[test]
fn threads_share_one_device_under_cpu_load() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let stop = Arc::new(AtomicBool::new(false));
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let busy: Vec<_> = (0..2 * cores)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut x = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                }
            })
        })
        .collect();
    // On GL a matmul of 3072² keeps llvmpipe busy for seconds, and wgpu's waits for it
    // hold the GL context for up to 4 s each; elsewhere a smaller one still overlaps the
    // other threads' work.
    let gl = Device::default_device().unwrap().info().backend == olympus::Backend::Gl;
    let (n, reps) = if gl { (3072, 2) } else { (1024, 3) };
    let done = Arc::new(AtomicBool::new(false));
    let finished = done.clone();
    let long = std::thread::spawn(move || -> olympus::Result<f32> {
        let a = np::ones(&[n, n], DType::Float32)?;
        let mut total = 0.0;
        for _ in 0..reps {
            let c = np::matmul(&a, &a)?;
            total += c.slice(olympus::s![0, 0])?.item::<f32>()?;
        }
        finished.store(true, Ordering::Relaxed);
        Ok(total)
    });
    let short: Vec<_> = (0..3)
        .map(|t| {
            let done = done.clone();
            std::thread::spawn(move || -> olympus::Result<usize> {
                let mut round = 0;
                while !done.load(Ordering::Relaxed) || round < 10 {
                    let len = 1000 + 37 * round + t;
                    let x = np::arange(len as f64)?.astype(DType::Float32)?;
                    let y = np::sort(np::negative(&x)?, Some(-1))?;
                    assert_eq!(y.slice(olympus::s![0])?.item::<f32>()?, -(len as f32 - 1.0));
                    let s = np::sum(np::multiply(&x, 2.0 + round as f64)?, None, false)?;
                    let want = (len * (len - 1)) as f64 * (2.0 + round as f64) / 2.0;
                    assert!((f64::from(s.item::<f32>()?) - want).abs() <= want * 1e-5);
                    round += 1;
                }
                Ok(round)
            })
        })
        .collect();
    let results: Vec<_> = short.into_iter().map(|h| h.join()).collect();
    let long = long.join();
    stop.store(true, Ordering::Relaxed);
    for b in busy {
        b.join().unwrap();
    }
    for r in results {
        r.expect("a thread panicked").unwrap();
    }
    assert_eq!(
        long.expect("the long thread panicked").unwrap(),
        (reps * n) as f32
    );
}
