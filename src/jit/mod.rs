//! `jit`: trace a function over pytrees into a typed graph, fuse it into WGSL kernels, and
//! cache the result by signature.
//!
//! A call of a [`Jit`] flattens its argument as a pytree (never through the
//! array-conversion protocol), and looks up an executable by the argument's structure
//! ([`TreeDef`], which carries static fields and Rust scalars) and the leaves' shapes,
//! dtypes and weak flags. On a miss it *traces*: the function runs once with traced arrays
//! in place of the leaves, every [`lax`](crate::lax) primitive it binds is recorded as an
//! equation of a [`Graph`], and the graph is compiled: dead code is removed and maximal
//! chains of elementwise primitives become single generated kernels whose intermediates
//! never get buffers. Later calls with new values of the same signature run the executable
//! without tracing.
//!
//! ```
//! use olympus::{jit, numpy as np, Array, Result};
//!
//! let f = jit(|(x, y): (Array, Array)| -> Result<Array> {
//!     np::divide(np::exp(np::add(np::multiply(&x, &y)?, 1.0)?)?, np::add(np::abs(&x)?, 1.0)?)
//! });
//! let x = np::linspace(-1.0, 1.0, 5, true)?;
//! let y = np::ones(&[5], olympus::DType::Float32)?;
//! let z = f.call((x.clone(), y.clone()))?;
//! assert_eq!(z.shape(), &[5]);
//! assert_eq!(f.call((y.clone(), x.clone()))?.shape(), &[5]);   // same signature: no retrace
//! assert_eq!(f.trace_count(), 1);
//! println!("{}", f.lower(&(x, y))?);                           // the traced graph
//! # Ok::<(), olympus::Error>(())
//! ```
//!
//! Inside the traced function, numpy and lax functions work unchanged on traced arrays;
//! reading values (`to_vec`, `item`, printing values, data-dependent shapes such as
//! `nonzero`) is an [`Error::Tracing`] naming the traced function. Non-array parameters are
//! static: Rust scalars, strings and `#[static]` fields of registered pytrees are part of
//! the cache key, so a new value retraces. Arrays the function captures from its
//! environment become constants of the graph.

pub(crate) mod ad;
pub(crate) mod batching;
mod compile;
mod custom;
mod grad;
mod linearize;
mod rule_tests;
pub(crate) mod transpose;

use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

pub use crate::primitive::Graph;
use crate::trace::{is_traced, trace_fn};
pub use batching::{vmap, Axes};
pub use custom::{custom_jvp, custom_vjp, CustomJvp, CustomVjp};
pub use grad::{
    grad, grad_argnums, jvp, linearize, value_and_grad, value_and_grad_argnums, vjp, Arg, Argnums,
    Linearize, TupleElement, Vjp, Whole,
};

use crate::array::{current_device, Array};
use crate::error::Result;
use crate::runtime::Device;
use crate::shape::Aval;
use crate::tree::{tree_flatten, tree_unflatten, PyTree, TreeDef};

/// How many input buffers a fused kernel may read on `device`.
fn max_fused_inputs(device: &Device) -> usize {
    fused_input_limit(device.0.info.limits.max_storage_buffers_per_shader_stage)
}

/// The storage bindings a fused kernel may use, whatever the device allows. NVIDIA's
/// Vulkan driver allows hundreds of thousands, and a jitted `gamma` sampler then fused
/// into one kernel reading 244 arrays whose body (each lane's code inlined per vector
/// lane) the driver's compiler did not finish in minutes. Capped at the 32 of common
/// devices (lavapipe reports 32), GPUs fuse as the tested software adapter does.
const MAX_FUSED_BINDINGS: u32 = 32;

/// Fused inputs for a device that binds `limit` storage buffers: the binding cap less
/// room for the output bindings and for inputs split into windows.
fn fused_input_limit(limit: u32) -> usize {
    (limit.min(MAX_FUSED_BINDINGS) as usize)
        .saturating_sub(4)
        .max(2)
}

/// The device for a call over `leaves` (their common device, or the current one).
pub(crate) fn leaves_device(func: &str, leaves: &[Array]) -> Result<Device> {
    let refs: Vec<&Array> = leaves.iter().collect();
    match refs.first() {
        Some(_) => crate::lax::common_device(func, &refs, None),
        None => current_device(),
    }
}

/// The cache key: argument structure (with static values) and leaf types.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Signature {
    def: TreeDef,
    avals: Vec<Aval>,
    device: Device,
}

/// A traced and compiled function for one signature.
struct Compiled {
    graph: Graph,
    exe: compile::Executable,
    consts: Vec<Array>,
    out_def: TreeDef,
}

/// A function compiled with [`jit`]: call it with [`Jit::call`].
pub struct Jit<T, U, F> {
    f: F,
    name: Arc<str>,
    cache: Mutex<HashMap<Signature, Arc<Compiled>>>,
    traces: AtomicUsize,
    _types: PhantomData<fn(T) -> U>,
}

/// Compiles `f` (`jax.jit`): see the [module docs](self).
///
/// `T` and `U` are pytrees: arrays, tuples, Vecs, options, maps, and your own types
/// registered with [`register_pytree!`](crate::register_pytree) (which arrive inside `f` as
/// themselves, with traced fields). A type that only implements the array-conversion
/// protocol is not a pytree: register it, or call `asarray` first. This does not compile:
///
/// ```compile_fail
/// use olympus::{jit, numpy as np, Array, Result, SupportsOlympusArray};
/// struct Celsius(Vec<f32>);
/// impl SupportsOlympusArray for Celsius {
///     fn olympus_array(&self) -> Result<Array> { np::asarray(self.0.clone()) }
/// }
/// // error: `Celsius` is not a pytree (register it, or call `asarray` first)
/// let f = jit(|t: Celsius| np::add(&t, 1.0));
/// ```
pub fn jit<T, U, F>(f: F) -> Jit<T, U, F>
where
    T: PyTree,
    U: PyTree,
    F: Fn(T) -> Result<U>,
{
    let full = std::any::type_name::<F>();
    Jit {
        f,
        name: Arc::from(full),
        cache: Mutex::new(HashMap::new()),
        traces: AtomicUsize::new(0),
        _types: PhantomData,
    }
}

impl<T, U, F> Jit<T, U, F>
where
    T: PyTree,
    U: PyTree,
    F: Fn(T) -> Result<U>,
{
    /// The same function under another name (used in IR dumps and error messages).
    pub fn named(mut self, name: &str) -> Self {
        self.name = Arc::from(name);
        self
    }

    /// The name errors and dumps use.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Calls the compiled function: traces and compiles on the first call with a new
    /// signature, then runs the cached executable. Inside another function being traced,
    /// `f` is traced inline into the outer graph.
    pub fn call(&self, args: T) -> Result<U> {
        let (leaves, def) = tree_flatten(&args);
        if is_traced(&leaves.iter().collect::<Vec<_>>()) {
            // (Inside `grad`, as abstract as compiled: its values cannot be read.)
            return crate::trace::opaque(|| (self.f)(args));
        }
        drop(args);
        let (compiled, device) = self.compiled(def, &leaves)?;
        let outs = compiled.exe.run(&device, &leaves, &compiled.consts)?;
        tree_unflatten(&compiled.out_def, outs)
    }

    /// The traced graph for `args`' signature (tracing it if it is not cached); its
    /// `Display` is the jaxpr-style listing.
    pub fn lower(&self, args: &T) -> Result<Lowered> {
        let (leaves, def) = tree_flatten(args);
        let (compiled, _) = self.compiled(def, &leaves)?;
        Ok(Lowered {
            graph: compiled.graph.clone(),
            fused_kernels: compiled.exe.fused_kernels(),
            steps: compiled.exe.steps.len(),
        })
    }

    /// How many times the function has been traced (once per new signature).
    pub fn trace_count(&self) -> usize {
        self.traces.load(Ordering::Relaxed)
    }

    /// Number of cached executables.
    pub fn cache_size(&self) -> usize {
        self.cache.lock().map(|c| c.len()).unwrap_or(0)
    }

    fn compiled(&self, def: TreeDef, leaves: &[Array]) -> Result<(Arc<Compiled>, Device)> {
        let device = leaves_device(&self.name, leaves)?;
        if let Some(t) = leaves.iter().find_map(|a| a.tracer()) {
            return Err(crate::trace::escaped(&self.name, t));
        }
        let key = Signature {
            def,
            avals: leaves.iter().map(|a| a.aval().clone()).collect(),
            device: device.clone(),
        };
        if let Some(c) = self.cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return Ok((c, device));
        }
        let c = Arc::new(self.trace(&key)?);
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(key, c.clone());
        }
        Ok((c, device))
    }

    fn trace(&self, key: &Signature) -> Result<Compiled> {
        self.traces.fetch_add(1, Ordering::Relaxed);
        let t = trace_fn(&self.name, &key.device, &key.def, &key.avals, |x: T| {
            (self.f)(x)
        })?;
        let exe = compile::compile(&t.graph, max_fused_inputs(&key.device));
        Ok(Compiled {
            graph: t.graph,
            exe,
            consts: t.consts,
            out_def: t.out_def,
        })
    }
}

/// A traced function for one signature, as [`Jit::lower`] returns it.
#[derive(Clone, Debug)]
pub struct Lowered {
    graph: Graph,
    fused_kernels: usize,
    steps: usize,
}

impl Lowered {
    /// The traced graph.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// Number of generated kernels for fused elementwise chains in the executable.
    pub fn fused_kernels(&self) -> usize {
        self.fused_kernels
    }

    /// Number of steps a call runs (fused kernels plus other primitives, views included).
    pub fn steps(&self) -> usize {
        self.steps
    }
}

impl fmt::Display for Lowered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.graph, f)
    }
}

#[cfg(test)]
mod tests {
    use super::fused_input_limit;

    /// A device's large binding limit does not make fused kernels larger than a 32-binding
    /// device's: the body of one giant kernel is more than a driver's compiler can take.
    #[test]
    fn fused_kernels_bind_at_most_32_buffers_on_any_device() {
        assert_eq!(fused_input_limit(1_048_576), 28);
        assert_eq!(fused_input_limit(32), 28);
        assert_eq!(fused_input_limit(16), 12);
        assert_eq!(fused_input_limit(4), 2);
    }
}
