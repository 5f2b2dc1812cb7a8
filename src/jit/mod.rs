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

mod ad;
mod batching;
mod compile;
mod grad;
mod ir;

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

pub use batching::{vmap, Axes};
pub use grad::{
    grad, grad_argnums, jvp, value_and_grad, value_and_grad_argnums, vjp, Arg, Argnums,
    TupleElement, Vjp, Whole,
};
pub(crate) use ir::fmt_aval;
pub use ir::Graph;

use crate::array::{current_device, Array, Aval, Tracer};
use crate::error::{Error, Result};
use crate::lax::Primitive;
use crate::runtime::Device;
use crate::tree::{tree_flatten, tree_unflatten, PyTree, TreeDef};

/// The state of one trace in progress.
struct TraceState {
    id: u64,
    name: Arc<str>,
    device: Device,
    graph: Graph,
    /// Captured arrays, in `graph.constvars` order.
    consts: Vec<Array>,
    /// Captured array (by handle identity) to its variable.
    const_vars: HashMap<usize, usize>,
}

thread_local! {
    /// The traces in progress on this thread, innermost last, with their ids.
    static TRACES: RefCell<Vec<(u64, Rc<RefCell<TraceState>>)>> = const { RefCell::new(Vec::new()) };
}

static NEXT_TRACE: AtomicU64 = AtomicU64::new(1);

/// Whether a function is being traced on this thread.
pub(crate) fn is_tracing() -> bool {
    TRACES.with(|t| !t.borrow().is_empty())
}

fn current_trace() -> Option<Rc<RefCell<TraceState>>> {
    TRACES.with(|t| t.borrow().last().map(|(_, s)| s.clone()))
}

/// Whether trace `id` is in progress on this thread (an outer trace of the current one).
fn is_active(id: u64) -> bool {
    TRACES.with(|t| t.borrow().iter().any(|(i, _)| *i == id))
}

fn escaped(func: &str, t: &Tracer) -> Error {
    Error::Tracing {
        func: func.to_string(),
        traced: t.name.to_string(),
        reason: "a traced array was used outside the trace that made it (it escaped the \
                 traced function, for example through a captured variable); return it from \
                 the function instead"
            .into(),
    }
}

impl TraceState {
    /// The variable for an operand: its own tracer, or a new constant for a captured array
    /// (a concrete array, or a value of an enclosing trace: `grad` inside `jit` traces the
    /// differentiated function while the outer trace is open).
    fn var_of(&mut self, func: &str, a: &Array) -> Result<usize> {
        match a.tracer() {
            Some(t) if t.trace == self.id => Ok(t.var),
            Some(t) if !is_active(t.trace) => Err(escaped(func, t)),
            _ => {
                let key = a.handle_id();
                if let Some(&v) = self.const_vars.get(&key) {
                    return Ok(v);
                }
                let v = self.graph.new_var(a.aval().clone());
                self.graph.constvars.push(v);
                self.consts.push(a.clone());
                self.const_vars.insert(key, v);
                Ok(v)
            }
        }
    }

    fn traced(&self, var: usize) -> Array {
        Array::traced(
            self.device.clone(),
            self.graph.avals[var].clone(),
            Tracer {
                trace: self.id,
                var,
                name: self.name.clone(),
            },
        )
    }
}

/// Records `prim` applied to `inputs` (with result type `out`) in the innermost trace of
/// this thread; `None` when nothing is being traced. An operand traced by a finished trace
/// is an error either way.
pub(crate) fn record(prim: &Primitive, inputs: &[&Array], out: &Aval) -> Option<Result<Array>> {
    let Some(trace) = current_trace() else {
        return inputs
            .iter()
            .find_map(|a| a.tracer())
            .map(|t| Err(escaped(prim.name(), t)));
    };
    let mut st = trace.borrow_mut();
    let args = match inputs
        .iter()
        .map(|a| st.var_of(prim.name(), a))
        .collect::<Result<Vec<_>>>()
    {
        Ok(a) => a,
        Err(e) => return Some(Err(e)),
    };
    let var = st.graph.new_var(out.clone());
    st.graph.eqns.push(ir::Eqn {
        prim: prim.clone(),
        inputs: args,
        out: var,
    });
    Some(Ok(st.traced(var)))
}

/// Pops the trace when tracing ends, also on errors.
struct TraceGuard;

/// A function traced for one signature: its graph, the arrays it captured (in
/// `graph.constvars` order) and the structure of its result.
pub(crate) struct Traced {
    pub(crate) graph: Graph,
    pub(crate) consts: Vec<Array>,
    pub(crate) out_def: TreeDef,
}

/// Traces `f` on traced leaves of types `avals` arranged as `def`: every primitive it binds
/// becomes an equation. Arrays of enclosing traces that `f` uses become constants, so a
/// transformation can trace inside another one's trace.
pub(crate) fn trace_fn<T: PyTree, U: PyTree>(
    name: &Arc<str>,
    device: &Device,
    def: &TreeDef,
    avals: &[Aval],
    f: impl FnOnce(T) -> Result<U>,
) -> Result<Traced> {
    let id = NEXT_TRACE.fetch_add(1, Ordering::Relaxed);
    let state = Rc::new(RefCell::new(TraceState {
        id,
        name: name.clone(),
        device: device.clone(),
        graph: Graph::default(),
        consts: Vec::new(),
        const_vars: HashMap::new(),
    }));
    let traced_leaves: Vec<Array> = {
        let mut st = state.borrow_mut();
        avals
            .iter()
            .map(|a| {
                let v = st.graph.new_var(a.clone());
                st.graph.invars.push(v);
                st.traced(v)
            })
            .collect()
    };
    let out_def = {
        TRACES.with(|t| t.borrow_mut().push((id, state.clone())));
        let _guard = TraceGuard;
        let x: T = tree_unflatten(def, traced_leaves)?;
        let y: U = f(x)?;
        let (outs, out_def) = tree_flatten(&y);
        let mut st = state.borrow_mut();
        let vars = outs
            .iter()
            .map(|a| st.var_of(name, a))
            .collect::<Result<Vec<_>>>()?;
        st.graph.outvars = vars;
        out_def
    };
    let st = Rc::try_unwrap(state)
        .map_err(|_| Error::Tracing {
            func: "jit".into(),
            traced: name.to_string(),
            reason: "the trace is still in use".into(),
        })?
        .into_inner();
    if cfg!(debug_assertions) {
        st.graph.verify()?;
    }
    Ok(Traced {
        graph: st.graph,
        consts: st.consts,
        out_def,
    })
}

/// Evaluates `graph` on `consts` and `args` by binding each equation: eagerly on concrete
/// arrays, or recorded into the enclosing trace when there is one. Returns every
/// variable's value (`None` for values never computed) so transformations can reuse them.
pub(crate) fn eval_graph(
    graph: &Graph,
    consts: &[Array],
    args: &[Array],
    device: &Device,
) -> Result<Vec<Option<Array>>> {
    let mut env: Vec<Option<Array>> = vec![None; graph.avals.len()];
    for (&v, a) in graph.constvars.iter().zip(consts) {
        env[v] = Some(a.clone());
    }
    for (&v, a) in graph.invars.iter().zip(args) {
        env[v] = Some(a.clone());
    }
    for e in &graph.eqns {
        let ins = e
            .inputs
            .iter()
            .map(|&i| env[i].as_ref().ok_or_else(|| missing(i)))
            .collect::<Result<Vec<&Array>>>()?;
        let out = crate::lax::bind(e.prim.clone(), &ins, Some(device))?;
        env[e.out] = Some(out);
    }
    Ok(env)
}

/// The error for a graph variable without a value (a malformed graph).
pub(crate) fn missing(v: usize) -> Error {
    Error::Tracing {
        func: "graph evaluation".into(),
        traced: "the traced function".into(),
        reason: format!("variable {} has no value", ir::var_name(v)),
    }
}

/// How many input buffers a fused kernel may read on `device`: its storage-buffer limit
/// less room for the output bindings and for inputs split into windows.
fn max_fused_inputs(device: &Device) -> usize {
    let limit = device.0.info.limits.max_storage_buffers_per_shader_stage as usize;
    limit.saturating_sub(4).max(2)
}

/// The device for a call over `leaves` (their common device, or the current one).
pub(crate) fn leaves_device(func: &str, leaves: &[Array]) -> Result<Device> {
    let refs: Vec<&Array> = leaves.iter().collect();
    match refs.first() {
        Some(_) => crate::lax::common_device(func, &refs, None),
        None => current_device(),
    }
}

impl Drop for TraceGuard {
    fn drop(&mut self) {
        TRACES.with(|t| t.borrow_mut().pop());
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
        if is_tracing() {
            return (self.f)(args);
        }
        let (leaves, def) = tree_flatten(&args);
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
            return Err(escaped(&self.name, t));
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
