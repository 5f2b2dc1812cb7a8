//! Helpers shared by the benches (each bench includes this file with `#[path]`).

use std::time::{Duration, Instant};

/// The median of `reps` timed runs of `f` after one warm-up run.
#[allow(dead_code)]
pub fn median(reps: usize, mut f: impl FnMut()) -> Duration {
    f();
    let mut times: Vec<Duration> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[reps / 2]
}

/// The default device's raw copy bandwidth in GB/s, counting bytes read and written: the
/// best of 10 rounds of 4 buffer-to-buffer copies of 64 MiB on the device's own queue, no
/// kernel involved. Memory-bound figures are printed as a fraction of it (see [`of_copy`]),
/// which says how close a kernel comes to what the adapter can move at all.
#[allow(dead_code)]
pub fn adapter_copy_gbps() -> f64 {
    static GBPS: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *GBPS.get_or_init(|| {
        let dev = olympus::Device::default_device().unwrap();
        let (device, queue) = (dev.wgpu_device(), dev.wgpu_queue());
        let size = 64 << 20;
        let buffer = |usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("bench copy"),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        let src = buffer(wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST);
        let dst = buffer(wgpu::BufferUsages::COPY_DST);
        // Touch the source once so the driver has committed its pages.
        queue.write_buffer(&src, 0, &vec![1u8; size as usize]);
        let round = || {
            let mut enc = device.create_command_encoder(&Default::default());
            for _ in 0..4 {
                enc.copy_buffer_to_buffer(&src, 0, &dst, 0, size);
            }
            queue.submit([enc.finish()]);
            device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
        };
        round();
        let best = (0..10)
            .map(|_| {
                let t = Instant::now();
                round();
                t.elapsed()
            })
            .min()
            .unwrap();
        (8 * size) as f64 / best.as_secs_f64() / 1e9
    })
}

/// `gbps` as a share of the adapter's raw copy bandwidth, e.g. "62% of copy".
#[allow(dead_code)]
pub fn of_copy(gbps: f64) -> String {
    format!("{:.0}% of copy", 100.0 * gbps / adapter_copy_gbps())
}

/// A line naming the adapter's raw copy bandwidth, printed before the fractions of it.
#[allow(dead_code)]
pub fn print_adapter_copy() {
    println!(
        "adapter_copy_64MB: {:.2} GB/s (buffer-to-buffer copy on the device, read + write)",
        adapter_copy_gbps()
    );
}

/// The `NAME: REST` lines a JAX script in `benches/` prints (`REST` by `NAME`), run with
/// JAX's CPU backend even where a GPU build of JAX is installed; empty where `python3`
/// cannot run it (the benches do not need Python).
#[allow(dead_code)]
pub fn jax_lines(script: &str) -> std::collections::BTreeMap<String, String> {
    let path = format!("{}/benches/{script}", env!("CARGO_MANIFEST_DIR"));
    let Ok(out) = std::process::Command::new("python3")
        .arg(path)
        .env("JAX_PLATFORMS", "cpu")
        .output()
    else {
        return Default::default();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once(": "))
        .map(|(name, rest)| (name.to_string(), rest.to_string()))
        .collect()
}
