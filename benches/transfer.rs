//! Upload (`Array::from_slice`) and readback (`to_vec`) of 64 MiB of float32, next to a
//! plain `memcpy` of the same bytes in the same run. Ends with `NAME: olympus X GB/s,
//! memcpy Y GB/s, ratio Z` lines.

#[path = "common/mod.rs"]
mod common;
use common::median;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, Criterion, Throughput};
use olympus::Array;

const N: usize = 16 << 20; // 64 MiB of f32

fn bench(c: &mut Criterion) {
    let host: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let mut g = c.benchmark_group("transfer_64MiB");
    g.throughput(Throughput::Bytes((N * 4) as u64));
    g.bench_function("upload", |b| {
        b.iter(|| {
            Array::from_slice(black_box(&host), &[N])
                .unwrap()
                .block_until_ready()
                .map(|_| ())
                .unwrap()
        })
    });
    let a = Array::from_slice(&host, &[N]).unwrap();
    g.bench_function("readback", |b| {
        b.iter(|| black_box(a.to_vec::<f32>().unwrap()))
    });
    g.finish();
}

fn summary() {
    let host: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let mut dst = vec![0f32; N];
    let gbps = |d: Duration| (N * 4) as f64 / d.as_secs_f64() / 1e9;
    let copy = median(11, || {
        dst.copy_from_slice(black_box(&host));
        black_box(&mut dst);
    });
    let up = median(11, || {
        Array::from_slice(black_box(&host), &[N])
            .unwrap()
            .block_until_ready()
            .unwrap();
    });
    let a = Array::from_slice(&host, &[N]).unwrap();
    let down = median(11, || {
        black_box(a.to_vec::<f32>().unwrap());
    });
    for (name, d) in [("upload_64MiB", up), ("readback_64MiB", down)] {
        println!(
            "{name}: olympus {:.2} GB/s, memcpy {:.2} GB/s, ratio {:.2}",
            gbps(d),
            gbps(copy),
            gbps(d) / gbps(copy)
        );
    }
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
