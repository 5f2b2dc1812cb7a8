//! The trace core: the thread's stack of traces in progress, the traced arrays they hand
//! out (an [`Array`] with a [`Tracer`]: its trace and graph variable), and [`record`],
//! which [`lax::bind`](crate::lax::bind) calls to turn a primitive applied to traced
//! operands into an equation of the innermost trace's [`Graph`].
//!
//! It sits below `lax` and the transformations: `jit`, `grad` and `vmap` trace functions
//! with [`trace_fn`] and transform or compile the graphs. Traces nest: a function traced
//! while another trace is open (a transformation inside `jit`, and later `scan`/`cond`
//! bodies) records into its own graph, and the enclosing trace's values it uses become
//! constants of that graph, bound as operands in the enclosing trace.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::array::{Array, Tracer};
use crate::error::{Error, Result};
use crate::primitive::{Graph, Primitive};
use crate::runtime::Device;
use crate::shape::Aval;
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
    /// A linearizing trace ([`trace_linear`]): it records only equations with an operand
    /// of its own; the others are known values, evaluated (or recorded by an enclosing
    /// trace) at once.
    partial: bool,
    /// A trace of known arguments ([`trace_concrete`]): the data of its values.
    concrete: Option<Concrete>,
}

/// The data of a concrete trace's values, computed when read ([`concrete_value`]): JAX's
/// `grad` and `jvp` run a function on tracers that carry their values, so a function may
/// read them (`if x.item() > 0`, `x[x > 0]`, `unique`); Olympus records the function as
/// usual and evaluates what a read needs, so a function that reads nothing pays nothing.
#[derive(Default)]
struct Concrete {
    /// The values computed (or given: arguments and captured arrays) so far.
    values: HashMap<usize, Array>,
    /// Arguments and captured values of an enclosing concrete trace (`grad` of `grad`):
    /// their data comes from that trace when needed.
    outer: HashMap<usize, Array>,
    /// The equation making each variable, for the first `indexed` equations (extended as
    /// the graph grows, so a loop that reads every step does not rescan it).
    producer: HashMap<usize, usize>,
    indexed: usize,
    /// The values that carry tangents when the graph is differentiated (from the
    /// differentiated arguments on): their equations are evaluated by `step` as the
    /// differentiation will evaluate them, so a read gives the value that is differentiated.
    active: std::collections::HashSet<usize>,
    step: Option<Step>,
}

/// How a concrete trace evaluates an equation (given by the transformation that opened it,
/// which differentiates the graph afterwards): `prim`'s outputs (of types `avals`) on
/// `inputs`, whose operands marked `active` carry tangents, and which outputs carry them.
pub(crate) type Step =
    fn(&Primitive, &[&Array], &[bool], &[Aval], &Device) -> Result<(Vec<Array>, Vec<bool>)>;

thread_local! {
    /// The traces in progress on this thread, innermost last, with their ids.
    static TRACES: RefCell<Vec<(u64, Rc<RefCell<TraceState>>)>> = const { RefCell::new(Vec::new()) };
}

static NEXT_TRACE: AtomicU64 = AtomicU64::new(1);

/// Whether a function is being traced on this thread. A linearizing trace alone does not
/// count: what it does not record runs eagerly, so values can be read and compiled code run
/// (on arrays it does not trace: see [`is_traced`]).
pub(crate) fn is_tracing() -> bool {
    TRACES.with(|t| t.borrow().iter().any(|(_, s)| !s.borrow().partial))
}

/// Whether an operation on `inputs` is recorded rather than run: a function is being traced,
/// or an input is a linearizing trace's (a tangent).
pub(crate) fn is_traced(inputs: &[&Array]) -> bool {
    is_tracing() || inputs.iter().any(|a| a.tracer().is_some())
}

/// Whether `a` is concrete or traced by a trace still in progress (not escaped).
pub(crate) fn is_live(a: &Array) -> bool {
    a.tracer().is_none_or(|t| is_active(t.trace))
}

/// The trace that records an equation on `inputs`: the innermost one, passing over
/// linearizing traces that own none of the operands (their known values are computed by
/// the trace outside them, or eagerly).
fn recording_trace(inputs: &[&Array]) -> Option<Rc<RefCell<TraceState>>> {
    TRACES.with(|t| {
        t.borrow()
            .iter()
            .rev()
            .find(|(id, s)| {
                !s.borrow().partial
                    || inputs
                        .iter()
                        .any(|a| a.tracer().is_some_and(|t| t.trace == *id))
            })
            .map(|(_, s)| s.clone())
    })
}

/// Whether trace `id` is in progress on this thread (an outer trace of the current one).
fn is_active(id: u64) -> bool {
    TRACES.with(|t| t.borrow().iter().any(|(i, _)| *i == id))
}

pub(crate) fn escaped(func: &str, t: &Tracer) -> Error {
    Error::Tracing {
        func: func.to_string(),
        traced: t.name.to_string(),
        reason: "a traced array was used outside the trace that made it (it escaped the \
                 traced function, for example through a captured variable); return it from \
                 the function instead"
            .into(),
    }
}

impl Concrete {
    /// Variable `v` stands for `a`: its data, or an enclosing trace's value.
    fn know(&mut self, v: usize, a: &Array) {
        if a.tracer().is_some() {
            self.outer.insert(v, a.clone());
        } else {
            self.values.insert(v, a.clone());
        }
    }
}

/// The data of a traced array whose trace is a concrete one in progress on this thread
/// ([`trace_concrete`]), computed by evaluating the equations it depends on (with no trace
/// recording meanwhile); `None` for arrays that are not traced, or whose values are not
/// known until a compiled function runs (`jit`, `vmap`).
pub(crate) fn concrete_value(a: &Array) -> Option<Result<Array>> {
    let t = a.tracer()?;
    if OPAQUE.get() > 0 {
        return None;
    }
    let state = TRACES.with(|tr| {
        tr.borrow()
            .iter()
            .find(|(id, _)| *id == t.trace)
            .map(|(_, s)| s.clone())
    })?;
    state.borrow().concrete.as_ref()?;
    Some(evaluate(&state, t.var))
}

/// `x`, or where it is a traced value whose data is known (inside `grad` or `jvp`), that
/// data as a constant: JAX's `core.concrete_or_error(None, x)`, which functions whose
/// result's size depends on values (`unique` without `size`, and the set operations built
/// on it) apply to their input, so their results have no derivative.
pub(crate) fn known(x: &Array) -> Result<Array> {
    concrete_value(x).unwrap_or_else(|| Ok(x.clone()))
}

/// The data of variable `var` of the concrete trace `state`.
fn evaluate(state: &Rc<RefCell<TraceState>>, var: usize) -> Result<Array> {
    // The equations `var` needs that have not run, in order, and the enclosing trace's
    // values they read.
    let (order, outer) = {
        let mut guard = state.borrow_mut();
        let st = &mut *guard;
        let c = st.concrete.as_mut().expect("a concrete trace");
        if let Some(v) = c.values.get(&var) {
            return Ok(v.clone());
        }
        for (k, e) in st.graph.eqns.iter().enumerate().skip(c.indexed) {
            for &o in &e.outs {
                c.producer.insert(o, k);
            }
        }
        c.indexed = st.graph.eqns.len();
        let c = &*c;
        let producer = &c.producer;
        let mut order: Vec<usize> = Vec::new();
        let mut ordered: std::collections::HashSet<usize> = Default::default();
        let mut outer: Vec<(usize, Array)> = Vec::new();
        let mut done: std::collections::HashSet<usize> = Default::default();
        let mut work = vec![(var, false)];
        while let Some((v, expanded)) = work.pop() {
            if c.values.contains_key(&v) {
                continue;
            }
            if let Some(a) = c.outer.get(&v) {
                if done.insert(v) {
                    outer.push((v, a.clone()));
                }
                continue;
            }
            let Some(&k) = producer.get(&v) else {
                return Err(Error::Tracing {
                    func: "reading a traced value".into(),
                    traced: st.name.to_string(),
                    reason: format!("value {} has no known data", crate::primitive::var_name(v)),
                });
            };
            if expanded {
                if ordered.insert(k) {
                    order.push(k);
                }
                continue;
            }
            if !done.insert(v) {
                continue;
            }
            work.push((v, true));
            for &i in st.graph.eqns[k].inputs.iter().rev() {
                work.push((i, false));
            }
        }
        (order, outer)
    };
    // An enclosing trace's values first (it evaluates them in its own turn).
    for (v, a) in outer {
        let data = match concrete_value(&a) {
            Some(r) => r?,
            None => {
                return Err(a
                    .check_concrete("reading a traced value")
                    .expect_err("a traced array without known data"))
            }
        };
        let mut st = state.borrow_mut();
        let c = st.concrete.as_mut().expect("a concrete trace");
        c.outer.remove(&v);
        c.values.insert(v, data);
    }
    // Evaluated with no trace open, so the evaluators' own operations run.
    let saved = TRACES.with(|t| std::mem::take(&mut *t.borrow_mut()));
    struct Restore(Option<Vec<(u64, Rc<RefCell<TraceState>>)>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(saved) = self.0.take() {
                TRACES.with(|t| *t.borrow_mut() = saved);
            }
        }
    }
    let _restore = Restore(Some(saved));
    for k in order {
        let (prim, inputs, active, outs, avals, device, step) = {
            let st = state.borrow();
            let c = st.concrete.as_ref().expect("a concrete trace");
            let e = &st.graph.eqns[k];
            let inputs: Vec<Array> = e.inputs.iter().map(|i| c.values[i].clone()).collect();
            let active: Vec<bool> = e.inputs.iter().map(|i| c.active.contains(i)).collect();
            let avals: Vec<Aval> = e.outs.iter().map(|&o| st.graph.avals[o].clone()).collect();
            let step = c.step.expect("a concrete trace's step");
            (
                e.prim.clone(),
                inputs,
                active,
                e.outs.clone(),
                avals,
                st.device.clone(),
                step,
            )
        };
        let refs: Vec<&Array> = inputs.iter().collect();
        let (results, carry) = step(&prim, &refs, &active, &avals, &device)?;
        let mut st = state.borrow_mut();
        let c = st.concrete.as_mut().expect("a concrete trace");
        for ((o, r), t) in outs.into_iter().zip(results).zip(carry) {
            if t && r.dtype().is_floating() {
                c.active.insert(o);
            }
            c.values.insert(o, r);
        }
    }
    let st = state.borrow();
    Ok(st.concrete.as_ref().expect("a concrete trace").values[&var].clone())
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
                if let Some(c) = &mut self.concrete {
                    c.know(v, a);
                }
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

/// Records `prim` applied to `inputs` (with result types `outs`) in the innermost trace of
/// this thread, giving its traced outputs; `None` when nothing is being traced. An operand
/// traced by a finished trace is an error either way.
pub(crate) fn record(
    prim: &Primitive,
    inputs: &[&Array],
    outs: &[Aval],
) -> Option<Result<Vec<Array>>> {
    let Some(trace) = recording_trace(inputs) else {
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
    let vars = st.graph.push_eqn(prim.clone(), args, outs);
    Some(Ok(vars.into_iter().map(|v| st.traced(v)).collect()))
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
    trace_with(name, device, def, avals, false, f)
}

/// Traces `f` as [`trace_fn`] does, but records only what depends on its traced leaves
/// (JAX's partial evaluation): an equation whose operands are all known values (concrete,
/// or an enclosing trace's) is evaluated at once, or recorded by the enclosing trace, and
/// its result is a constant of the graph. Linearization traces the tangent map this way:
/// the graph holds the linear part, and its constants are the residuals.
pub(crate) fn trace_linear<T: PyTree, U: PyTree>(
    name: &Arc<str>,
    device: &Device,
    def: &TreeDef,
    avals: &[Aval],
    f: impl FnOnce(T) -> Result<U>,
) -> Result<Traced> {
    trace_with(name, device, def, avals, true, f)
}

/// Traces `f` as [`trace_fn`] does at the arguments `leaves` (arranged as `def`), whose
/// data the traced values carry as JAX's `grad` and `jvp` tracers do: reading a traced
/// value inside `f` (`item`, `to_vec`, and what reads values: `unique`, boolean masks)
/// evaluates what it depends on ([`concrete_value`]) and gives its data, so `f` may branch
/// on it. The graph is the path `f` took for these arguments. Where another (non-linear)
/// trace is open (`grad` inside `jit`), the values are not known and reads are errors, as
/// in JAX. `active` marks the arguments that are differentiated (`grad`'s selection; every
/// one for `jvp`), and `step` evaluates an equation as the differentiation will.
pub(crate) fn trace_concrete<T: PyTree, U: PyTree>(
    name: &Arc<str>,
    device: &Device,
    def: &TreeDef,
    (leaves, active, step): (&[Array], &[bool], Step),
    f: impl FnOnce(T) -> Result<U>,
) -> Result<Traced> {
    let avals: Vec<Aval> = leaves.iter().map(|a| a.aval().clone()).collect();
    let known = values_known() && leaves.iter().all(concrete_value_known);
    let concrete = known.then(|| Concrete {
        step: Some(step),
        ..Concrete::default()
    });
    let known = concrete.map(|c| (c, leaves, active));
    trace_inner(name, device, def, &avals, false, known, f)
}

thread_local! {
    /// Inlined jitted functions in progress inside a concrete trace: their values are not
    /// known (JAX traces a jitted function abstractly wherever it is called).
    static OPAQUE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Whether the values of operations run now can be read: no trace without known values is
/// open (`jit`, `vmap`), and no jitted function is being inlined into a concrete trace.
pub(crate) fn values_known() -> bool {
    OPAQUE.get() == 0
        && TRACES.with(|t| {
            !t.borrow()
                .iter()
                .any(|(_, s)| !s.borrow().partial && s.borrow().concrete.is_none())
        })
}

/// Runs `f` (a jitted function inlined into the trace open) with the values it computes
/// unknown, as JAX's tracing of a jitted function makes them.
pub(crate) fn opaque<R>(f: impl FnOnce() -> R) -> R {
    struct Done;
    impl Drop for Done {
        fn drop(&mut self) {
            OPAQUE.set(OPAQUE.get() - 1);
        }
    }
    OPAQUE.set(OPAQUE.get() + 1);
    let _done = Done;
    f()
}

/// Whether `a`'s data can be known: not traced, or traced by a concrete trace in progress.
fn concrete_value_known(a: &Array) -> bool {
    a.tracer().is_none_or(|t| {
        TRACES.with(|tr| {
            tr.borrow()
                .iter()
                .any(|(id, s)| *id == t.trace && s.borrow().concrete.is_some())
        })
    })
}

fn trace_with<T: PyTree, U: PyTree>(
    name: &Arc<str>,
    device: &Device,
    def: &TreeDef,
    avals: &[Aval],
    partial: bool,
    f: impl FnOnce(T) -> Result<U>,
) -> Result<Traced> {
    trace_inner(name, device, def, avals, partial, None, f)
}

/// What a concrete trace starts from: its state, the arguments' data, and which
/// arguments are differentiated.
type Known<'a> = (Concrete, &'a [Array], &'a [bool]);

fn trace_inner<T: PyTree, U: PyTree>(
    name: &Arc<str>,
    device: &Device,
    def: &TreeDef,
    avals: &[Aval],
    partial: bool,
    known: Option<Known<'_>>,
    f: impl FnOnce(T) -> Result<U>,
) -> Result<Traced> {
    let (concrete, known) = match known {
        Some((c, leaves, active)) => (Some(c), Some((leaves, active))),
        None => (None, None),
    };
    let id = NEXT_TRACE.fetch_add(1, Ordering::Relaxed);
    let state = Rc::new(RefCell::new(TraceState {
        id,
        name: name.clone(),
        device: device.clone(),
        graph: Graph::default(),
        consts: Vec::new(),
        const_vars: HashMap::new(),
        partial,
        concrete,
    }));
    let traced_leaves: Vec<Array> = {
        let mut st = state.borrow_mut();
        avals
            .iter()
            .enumerate()
            .map(|(k, a)| {
                let v = st.graph.new_var(a.clone());
                st.graph.invars.push(v);
                if let (Some(c), Some((leaves, active))) = (&mut st.concrete, known) {
                    c.know(v, &leaves[k]);
                    if active[k] && a.dtype.is_floating() {
                        c.active.insert(v);
                    }
                }
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

impl Drop for TraceGuard {
    fn drop(&mut self) {
        TRACES.with(|t| t.borrow_mut().pop());
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::sync::Arc;

    use super::trace_fn;
    use crate::numpy as np;
    use crate::{grad, jit, Array, Result};

    /// A body traced inside `grad` inside `jit` (three traces open, as a `scan` body in a
    /// transformed function will be) gets a graph of its own: its argument is its input,
    /// the values of both enclosing traces it uses are its constants, and evaluated into
    /// the enclosing trace it is differentiated and compiled like inline code.
    #[test]
    fn a_body_traced_inside_grad_inside_jit_has_its_own_graph() {
        // Per traced body: inputs, constants, primitives, and the listing.
        type Seen = (usize, usize, Vec<&'static str>, String);
        let graphs: RefCell<Vec<Seen>> = RefCell::default();
        let f = jit(|x: Array| -> Result<Array> {
            grad(|y: Array| -> Result<Array> {
                let (_, def) = crate::tree::tree_flatten(&y);
                let device = y.device().clone();
                // body(z) = sin(z) * y * x, with y from grad's trace and x from jit's.
                let body = trace_fn(
                    &Arc::from("body"),
                    &device,
                    &def,
                    &[y.aval().clone()],
                    |z: Array| (np::sin(&z)? * &y)? * &x,
                )?;
                let g = &body.graph;
                graphs.borrow_mut().push((
                    g.invars.len(),
                    g.constvars.len(),
                    g.eqns.iter().map(|e| e.prim.name()).collect(),
                    g.to_string(),
                ));
                let env =
                    crate::lax::eval_graph(g, &body.consts, std::slice::from_ref(&y), &device)?;
                let out = env[g.outvars[0]].clone().expect("the body's output");
                np::sum(out, None, false)
            })(x.clone())
        });
        let xs = [0.5f32, 1.0, 2.0];
        let x = Array::from_slice(&xs, &[3]).unwrap();
        let got = f.call(x).unwrap().to_vec::<f32>().unwrap();
        // d/dy sum(sin(y) * y * x) at y = x: (cos(x) x + sin(x)) x.
        for (g, &v) in got.iter().zip(&xs) {
            let want = (v.cos() * v + v.sin()) * v;
            assert!(
                (g - want).abs() <= 1e-5 * want.abs().max(1.0),
                "{g} vs {want}"
            );
        }
        let graphs = graphs.borrow();
        assert_eq!(graphs.len(), 1, "traced once, under both transformations");
        let (invars, constvars, prims, text) = &graphs[0];
        assert_eq!((*invars, *constvars), (1, 2), "{text}");
        assert_eq!(prims, &["sin", "mul", "mul"], "{text}");
    }

    /// The order the issue names: a body traced inside a jitted function inside `grad`.
    /// Under `grad` the jitted function is inlined into grad's trace (as in JAX), so the
    /// body's graph nests in that trace, and grad's value it uses is its constant.
    #[test]
    fn a_body_traced_inside_jit_inside_grad_has_its_own_graph() {
        let seen: RefCell<Vec<(usize, usize, Vec<&'static str>)>> = RefCell::default();
        let inner = jit(|y: Array| -> Result<Array> {
            let (_, def) = crate::tree::tree_flatten(&y);
            let device = y.device().clone();
            // body(z) = exp(z) * y
            let body = trace_fn(
                &Arc::from("body"),
                &device,
                &def,
                &[y.aval().clone()],
                |z: Array| np::exp(&z)? * &y,
            )?;
            let g = &body.graph;
            let prims = g.eqns.iter().map(|e| e.prim.name()).collect();
            seen.borrow_mut()
                .push((g.invars.len(), g.constvars.len(), prims));
            let env = crate::lax::eval_graph(g, &body.consts, std::slice::from_ref(&y), &device)?;
            np::sum(
                env[g.outvars[0]].clone().expect("the body's output"),
                None,
                false,
            )
        });
        let xs = [0.5f32, -1.0, 2.0];
        let x = Array::from_slice(&xs, &[3]).unwrap();
        let got = grad(|y: Array| inner.call(y))(x)
            .unwrap()
            .to_vec::<f32>()
            .unwrap();
        // d/dy sum(exp(y) * y) = exp(y) (1 + y).
        for (g, &v) in got.iter().zip(&xs) {
            let want = v.exp() * (1.0 + v);
            assert!(
                (g - want).abs() <= 1e-5 * want.abs().max(1.0),
                "{g} vs {want}"
            );
        }
        let seen = seen.borrow();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0], (1, 1, vec!["exp", "mul"]));
    }
}
