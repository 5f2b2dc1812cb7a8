//! 16M float32 uniform and normal samples generated on the device, next to the `rand`
//! crate's `SmallRng` filling a Vec on the CPU in the same run. Ends with
//! `NAME: olympus X GB/s, rand Y GB/s, ratio Z` lines (GB/s of output).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion, Throughput};
use olympus::{random, DType};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const N: usize = 16 << 20;

fn best(reps: usize, mut f: impl FnMut()) -> Duration {
    f();
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn rand_uniform(rng: &mut SmallRng, out: &mut [f32]) {
    for o in out.iter_mut() {
        *o = rng.random::<f32>();
    }
}

/// Box–Muller pairs: the usual CPU way to fill normals without extra crates.
fn rand_normal(rng: &mut SmallRng, out: &mut [f32]) {
    for pair in out.chunks_mut(2) {
        let u1: f32 = rng.random::<f32>().max(f32::MIN_POSITIVE);
        let u2: f32 = rng.random();
        let r = (-2.0 * u1.ln()).sqrt();
        let t = std::f32::consts::TAU * u2;
        pair[0] = r * t.cos();
        if pair.len() > 1 {
            pair[1] = r * t.sin();
        }
    }
}

fn bench(c: &mut Criterion) {
    let key = random::key(0).unwrap();
    let mut g = c.benchmark_group("random_16M_f32");
    g.throughput(Throughput::Bytes((N * 4) as u64));
    g.bench_function("uniform/olympus", |b| {
        b.iter(|| {
            random::uniform(&key, &[N], 0.0, 1.0, DType::Float32)
                .unwrap()
                .block_until_ready()
                .map(|_| ())
                .unwrap()
        })
    });
    let mut rng = SmallRng::seed_from_u64(0);
    let mut out = vec![0f32; N];
    g.bench_function("uniform/rand", |b| {
        b.iter(|| rand_uniform(&mut rng, black_box(&mut out)))
    });
    g.finish();
}

fn summary() {
    let key = random::key(0).unwrap();
    let mut rng = SmallRng::seed_from_u64(0);
    let mut out = vec![0f32; N];
    let gbps = |d: Duration| (N * 4) as f64 / d.as_secs_f64() / 1e9;
    let line = |name: &str, o: Duration, r: Duration| {
        println!(
            "{name}: olympus {:.2} GB/s, rand {:.2} GB/s, ratio {:.2}",
            gbps(o),
            gbps(r),
            gbps(o) / gbps(r)
        );
    };
    let o = best(5, || {
        random::uniform(&key, &[N], 0.0, 1.0, DType::Float32)
            .unwrap()
            .block_until_ready()
            .unwrap();
    });
    let r = best(5, || rand_uniform(&mut rng, black_box(&mut out)));
    line("uniform_16M_f32", o, r);
    // The same samples as a matrix: the counters are then iotas along two axes, which
    // should cost nothing next to the bits.
    let m = best(5, || {
        random::uniform(&key, &[4096, N / 4096], 0.0, 1.0, DType::Float32)
            .unwrap()
            .block_until_ready()
            .unwrap();
    });
    println!(
        "uniform_4096x4096_f32: olympus {:.2} GB/s, as one axis {:.2} GB/s, ratio {:.2}",
        gbps(m),
        gbps(o),
        gbps(m) / gbps(o)
    );
    let o = best(5, || {
        random::normal(&key, &[N], DType::Float32)
            .unwrap()
            .block_until_ready()
            .unwrap();
    });
    let r = best(5, || rand_normal(&mut rng, black_box(&mut out)));
    line("normal_16M_f32 (rand: Box-Muller on SmallRng)", o, r);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(Duration::from_secs(3));
    targets = bench
}

fn main() {
    println!(
        "adapter: {}",
        olympus::Device::default_device().unwrap().info()
    );
    benches();
    Criterion::default().configure_from_args().final_summary();
    summary();
}
