//! The kernels of elementwise programs: their generation for the operands' layouts (each
//! read through the primitive's input maps, `Lowering::input_maps`), and the per-step
//! cache `jit` keeps of them.

use std::sync::Arc;

use super::windows::{input_windows, Operand};
use crate::array::Array;
use crate::codegen::rules::{elementwise, Elementwise};
use crate::codegen::{self, InputDesc, Program, Target};
use crate::error::Result;
use crate::primitive::Primitive;
use crate::runtime::{Device, Kernel};
use crate::shape::{Aval, Layout};

/// Whether every value of `prim` depends only on its operands' elements at its own index
/// (constants included), so that any part of its output is computed from the same part of
/// its operands.
pub(super) fn pointwise(prim: &Primitive) -> bool {
    elementwise(prim) == Some(Elementwise::Pointwise)
}

pub(super) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The buffers of `inputs` and the operands they are as far as a generated kernel cares,
/// for a kernel over `elements` elements.
pub(super) fn operands_of<'a>(
    dev: &Device,
    inputs: &[&'a Array],
    elements: u64,
    target: &Target,
) -> Result<(Vec<&'a Arc<crate::runtime::Storage>>, Vec<Operand<'a>>)> {
    let stores = inputs
        .iter()
        .map(|a| a.storage())
        .collect::<Result<Vec<_>>>()?;
    let max_textures = dev.0.info.limits.max_storage_textures_per_shader_stage as usize;
    let mut textures = 0;
    let operands = inputs
        .iter()
        .zip(&stores)
        .map(|(a, st)| {
            let mut o = Operand::new(a.layout(), a.dtype(), st.bytes, target);
            if textures < max_textures
                && input_windows(dev, st, elements, target) == codegen::TEXTURE
            {
                o.windows = codegen::TEXTURE;
                textures += 1;
            }
            o
        })
        .collect();
    Ok((stores, operands))
}

/// The kernel and metadata for `operands` and an output of `shape` in `out_windows`
/// windows: from `cache` when it holds them, else made by `generate` (and kept).
pub(super) fn cached_kernel(
    dev: &Device,
    cache: Option<&KernelCache>,
    operands: &[Operand<'_>],
    shape: &[usize],
    out_windows: &[u64],
    generate: impl FnOnce() -> Result<codegen::Generated>,
) -> Result<(Arc<Kernel>, Arc<[u32]>)> {
    let inner = &dev.0;
    if let Some(hit) = cache.and_then(|c| c.get(inner.id, operands, shape, out_windows)) {
        return Ok(hit);
    }
    let g = generate()?;
    let kernel = inner.kernel(&g.body, || g.source())?;
    let meta: Arc<[u32]> = g.meta.into();
    if let Some(c) = cache {
        c.insert(
            inner.id,
            operands,
            shape,
            out_windows,
            kernel.clone(),
            meta.clone(),
        );
    }
    Ok((kernel, meta))
}

/// Bytes [`run`] asks for to hold the contiguous output `out` (whole vector stores).
pub(crate) fn out_bytes(out: &Aval) -> u64 {
    // Saturating: a size past any buffer is refused by the allocation, never wrapped.
    (out.size() as u64)
        .checked_next_multiple_of(codegen::PER_THREAD)
        .and_then(|n| n.checked_mul(out.dtype.storage_bytes() as u64))
        .unwrap_or(u64::MAX)
}

/// The kernel [`run`] launches for `program` over `operands`, writing contiguous outputs
/// of `out_shape`: source and this call's metadata.
pub(crate) fn elementwise_kernel(
    program: &Program,
    operands: &[Operand<'_>],
    out_shape: &[usize],
    target: &Target,
) -> Result<codegen::Generated> {
    with_inputs(program, operands, out_shape, |descs| {
        codegen::elementwise(program, descs, out_shape, target)
    })
}

/// Calls `f` with the generator's view of `program`'s `operands`: each one's layout over
/// `out_shape` and how its elements are found.
pub(super) fn with_inputs<R>(
    program: &Program,
    operands: &[Operand<'_>],
    out_shape: &[usize],
    f: impl FnOnce(&[InputDesc<'_>]) -> R,
) -> R {
    let layouts: Vec<&Layout> = operands.iter().map(|o| o.layout).collect();
    // Each input through the map of the indexed node that reads it (a lone `pad` or
    // `gather`, or a pad fused into its reader), else plainly.
    let mut mapped = codegen::maps::plain(&layouts);
    for node in &program.nodes {
        let indexed = elementwise(&node.prim) == Some(Elementwise::Indexed);
        if indexed && node.args.iter().all(|&a| a < layouts.len()) {
            let read: Vec<&Layout> = node.args.iter().map(|&a| layouts[a]).collect();
            let maps = codegen::rules::input_maps(&node.prim, &read, out_shape);
            for (&a, m) in node.args.iter().zip(maps) {
                mapped[a] = m;
            }
        }
    }
    let descs: Vec<InputDesc<'_>> = operands
        .iter()
        .zip(&mapped)
        .map(|(o, (layout, map))| InputDesc {
            layout,
            map,
            windows: o.windows,
            padded: o.padded,
        })
        .collect();
    f(&descs)
}

/// The kernels of un-jitted calls of `program` on `dev`, shared by every call of an equal
/// program: an eager op generates, formats and hashes its WGSL source only on its first
/// call with given layouts (the per-op cost a loop of eager ops paid every time). Programs
/// are found by a hash of their structure, then compared (literals by their bits); the
/// table is bounded, and goes with the device.
pub(super) fn eager_cache(dev: &Device, program: &Program) -> Arc<KernelCache> {
    use std::hash::{Hash, Hasher};
    /// Programs kept at once, and per hash (the hash leaves out parameters such as shapes).
    const PROGRAMS: usize = 4096;
    const PER_HASH: usize = 64;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    program.hash(&mut h);
    let key = h.finish();
    let mut table = crate::runtime::lock(&dev.0.eager);
    if table.len() >= PROGRAMS {
        table.clear();
    }
    let bucket = table.entry(key).or_default();
    let found = bucket
        .iter()
        .find(|(p, _)| p == program)
        .and_then(|(_, c)| c.clone().downcast::<KernelCache>().ok());
    if let Some(c) = found {
        return c;
    }
    if bucket.len() >= PER_HASH {
        bucket.remove(0);
    }
    let cache = Arc::new(KernelCache::default());
    bucket.push((program.clone(), cache.clone()));
    cache
}

/// `make()`'s value for `key`, kept on `dev`. `key` holds everything `make` reads: the
/// call site's name, then the kernel generator's arguments (the device's target aside,
/// which is the device's own). So a call that repeats an earlier one generates, formats
/// and hashes no kernel source: generating it costs more than the launch it feeds. Keys
/// are found by hash, then compared; the table is bounded, and goes with the device.
pub(crate) fn memo<K, V>(dev: &Device, key: K, make: impl FnOnce() -> Result<V>) -> Result<V>
where
    K: std::hash::Hash + Eq + Send + Sync + 'static,
    V: Clone + Send + Sync + 'static,
{
    use std::hash::{Hash, Hasher};
    /// Hashes kept at once, and keys per hash (programs that differ only in parameters
    /// share a hash), a few kilobytes each at most.
    const KEYS: usize = 4096;
    const PER_HASH: usize = 64;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::any::TypeId::of::<K>().hash(&mut h);
    key.hash(&mut h);
    let hash = h.finish();
    let find = |bucket: &Vec<crate::runtime::MemoEntry>| {
        bucket.iter().find_map(|(k, v)| {
            (k.downcast_ref::<K>() == Some(&key))
                .then(|| v.downcast_ref::<V>().cloned())
                .flatten()
        })
    };
    if let Some(v) = crate::runtime::lock(&dev.0.memo).get(&hash).and_then(find) {
        return Ok(v);
    }
    // Made unlocked: `make` compiles, and may reach this table for another key.
    let v = make()?;
    let mut table = crate::runtime::lock(&dev.0.memo);
    if table.len() >= KEYS {
        table.clear();
    }
    let bucket = table.entry(hash).or_default();
    if find(bucket).is_none() {
        if bucket.len() >= PER_HASH {
            bucket.remove(0);
        }
        bucket.push((Box::new(key), Box::new(v.clone())));
    }
    Ok(v)
}

/// Kernels [`run_cached`] made for one program, each with the metadata of its call, keyed
/// by everything else the source and the metadata depend on: the device (its float16 mode
/// and window size), the output's shape and windows, and each operand's layout, windows
/// and padding. A call over the same layouts reuses both; a new layout generates once more
/// (the device's pipeline cache still finds a kernel of the same structure).
#[derive(Default)]
pub(crate) struct KernelCache(std::sync::Mutex<Vec<CachedKernel>>);

pub(super) struct CachedKernel {
    pub(super) device: u64,
    pub(super) out_shape: Vec<usize>,
    pub(super) out_windows: Vec<u64>,
    pub(super) operands: Vec<(Layout, u64, bool)>,
    pub(super) kernel: Arc<Kernel>,
    pub(super) meta: Arc<[u32]>,
}

impl KernelCache {
    /// Layout combinations kept per program (a function called on ever new views, such as
    /// slices at moving offsets, would otherwise grow it without bound).
    const ENTRIES: usize = 8;

    pub(super) fn get(
        &self,
        device: u64,
        operands: &[Operand<'_>],
        out_shape: &[usize],
        out_windows: &[u64],
    ) -> Option<(Arc<Kernel>, Arc<[u32]>)> {
        let entries = crate::runtime::lock(&self.0);
        entries
            .iter()
            .find(|e| {
                e.device == device
                    && e.out_windows == out_windows
                    && e.out_shape == out_shape
                    && e.operands.len() == operands.len()
                    && e.operands
                        .iter()
                        .zip(operands)
                        .all(|((l, w, p), o)| l == o.layout && *w == o.windows && *p == o.padded)
            })
            .map(|e| (e.kernel.clone(), e.meta.clone()))
    }

    pub(super) fn insert(
        &self,
        device: u64,
        operands: &[Operand<'_>],
        out_shape: &[usize],
        out_windows: &[u64],
        kernel: Arc<Kernel>,
        meta: Arc<[u32]>,
    ) {
        let mut entries = crate::runtime::lock(&self.0);
        if entries.len() >= Self::ENTRIES {
            entries.remove(0);
        }
        entries.push(CachedKernel {
            device,
            out_shape: out_shape.to_vec(),
            out_windows: out_windows.to_vec(),
            operands: operands
                .iter()
                .map(|o| (o.layout.clone(), o.windows, o.padded))
                .collect(),
            kernel,
            meta,
        });
    }
}

impl Clone for KernelCache {
    /// An empty cache: a copy generates its kernels again on first use.
    fn clone(&self) -> Self {
        KernelCache::default()
    }
}

impl std::fmt::Debug for KernelCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = crate::runtime::lock(&self.0).len();
        write!(f, "KernelCache({n} kernels)")
    }
}

pub(super) fn program_name(p: &Program) -> &'static str {
    p.nodes.last().map(|n| n.prim.name()).unwrap_or("copy")
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use crate::numpy as np;
    use crate::{random, s, with_device, Array, DType, Device, DeviceOptions, Result};

    type Op = (&'static str, fn(&Array, &Array) -> Result<Array>);

    /// Ops over `x` (`[m, k]`) and `y` (`[k, k]`).
    const OPS: [Op; 12] = [
        ("add", |x, _| np::add(x, x)),
        ("sum", |x, _| np::sum(x, None, false)),
        ("sum of columns", |x, _| np::sum(x, Some(&[0]), false)),
        ("sum of a transpose", |x, _| {
            np::sum(np::transpose(x, None)?, Some(&[1]), false)
        }),
        ("argmax", |x, _| np::argmax(x, Some(1), false)),
        ("cumsum", |x, _| np::cumsum(x, Some(1))),
        ("long cumsum", |x, _| np::cumsum(x, None)),
        ("sort", |x, _| np::sort(x, Some(1))),
        ("matmul", |x, y| np::matmul(x, y)),
        ("matrix-vector product", |x, y| {
            np::dot(x, y.slice(s![.., 0])?)
        }),
        ("vector-matrix product", |x, y| np::dot(x.slice(s![0])?, y)),
        ("scatter-add", |x, _| {
            x.at(s![.., 3]).add(x.slice(s![.., 0])?)
        }),
    ];

    /// The inputs `(x, y)`: contiguous, a view from an offset, transposed views,
    /// float16, and other shapes; the same values on every device.
    fn inputs() -> Result<Vec<(Array, Array)>> {
        let key = random::key(7)?;
        let draw = |k: u32, shape: &[usize]| -> Result<Array> {
            random::normal(&random::fold_in(&key, k)?, shape, DType::Float32)
        };
        let (x, y) = (draw(0, &[300, 300])?, draw(1, &[300, 300])?);
        let tall = draw(2, &[301, 300])?;
        let half = |a: &Array| a.astype(DType::Float16);
        let t = |a: &Array| np::transpose(a, None);
        Ok(vec![
            (x.clone(), y.clone()),
            (tall.slice(s![1..])?, y.clone()),
            (t(&x)?, t(&y)?),
            (half(&x)?, half(&y)?),
            (draw(3, &[64, 37])?, draw(4, &[37, 37])?),
        ])
    }

    /// Every op over every input on `dev`, in the order of `order` (indices of
    /// (input, op) pairs): each result's words as float32, by pair.
    fn run_all(dev: &Device, order: &[(usize, usize)]) -> Result<Vec<Vec<u32>>> {
        with_device(dev, || {
            let inputs = inputs()?;
            let mut out = vec![Vec::new(); order.len()];
            for &(i, o) in order {
                let (x, y) = &inputs[i];
                let r = OPS[o].1(x, y)?.astype(DType::Float32)?.to_vec::<f32>()?;
                out[i * OPS.len() + o] = r.iter().map(|f| f.to_bits()).collect();
            }
            Ok(out)
        })
    }

    /// A second pass of ops over inputs the device has seen generates no kernel source
    /// (reductions, arg-reductions, scans, sorts, matrix products and scatters find theirs
    /// by their generator's arguments; elementwise ops by program). Each op's values are
    /// the same on a device that ran the inputs in the opposite order: a key that left out
    /// an argument would reuse a kernel made for another shape, layout or dtype.
    #[test]
    fn repeated_calls_generate_no_kernel_source() -> Result<()> {
        // Devices of their own: other tests compile on the shared one meanwhile.
        let (a, b) = (
            Device::new(DeviceOptions::default())?,
            Device::new(DeviceOptions::default())?,
        );
        let pairs: Vec<(usize, usize)> = (0..5)
            .flat_map(|i| (0..OPS.len()).map(move |o| (i, o)))
            .collect();
        let first = run_all(&a, &pairs)?;
        let before = a.0.generated.load(Ordering::Relaxed);
        let again = run_all(&a, &pairs)?;
        let after = a.0.generated.load(Ordering::Relaxed);
        assert_eq!(after, before, "{} sources generated", after - before);
        assert_eq!(again, first);
        let reversed: Vec<(usize, usize)> = pairs.iter().rev().copied().collect();
        let other = run_all(&b, &reversed)?;
        for (k, (x, y)) in first.iter().zip(&other).enumerate() {
            let (input, op) = (k / OPS.len(), OPS[k % OPS.len()].0);
            assert!(x == y, "{op} of input {input} differs between the devices");
        }
        // A jitted step (matrix-vector products, which run as reductions, a scan, a sort):
        // its second call generates nothing either.
        with_device(&a, || -> Result<()> {
            let step = crate::jit(|(m, v): (Array, Array)| {
                let r = np::dot(&m, &v)?;
                let s = np::sort(np::cumsum(&r, None)?, None)?;
                np::dot(&s, &m)
            });
            let (m, v) = (inputs()?[0].0.clone(), inputs()?[0].1.slice(s![0])?);
            step.call((m.clone(), v.clone()))?.to_vec::<f32>()?;
            let before = a.0.generated.load(Ordering::Relaxed);
            step.call((m, v))?.to_vec::<f32>()?;
            assert_eq!(a.0.generated.load(Ordering::Relaxed), before, "jitted step");
            Ok(())
        })?;
        // A loop folding its step into a key: one kernel for every step.
        with_device(&a, || -> Result<()> {
            let key = random::key(3)?;
            random::fold_in(&key, 1000u32)?.to_vec::<u32>()?;
            let before = a.0.generated.load(Ordering::Relaxed);
            for step in 1001..1004u32 {
                random::fold_in(&key, step)?.to_vec::<u32>()?;
            }
            assert_eq!(a.0.generated.load(Ordering::Relaxed), before, "fold_in");
            Ok(())
        })
    }
}
