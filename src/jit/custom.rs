//! Functions with derivative rules of their own: [`custom_jvp`] and [`custom_vjp`]
//! (`jax.custom_jvp`, `jax.custom_vjp`).
//!
//! Called under a transformation, such a function is traced into a closed graph and bound
//! as one primitive that carries the graph and its rules (`custom_jvp_call`,
//! `custom_vjp_call`). Evaluation runs the graph; `jvp` and `grad` use the rules (the
//! interpreters in `linearize.rs`, `transpose.rs`); `vmap` makes a new call whose graph and
//! rules are the batched ones (`batching.rs`). Called outside every transformation (or on
//! the tangents a rule gets in reverse mode, which are traced for transposition) it is the
//! function itself.
//!
//! The rules are kept here in flat form: they take and give the call's operands as a list
//! (the captured arrays first, then the argument's leaves) so the interpreters need not
//! know the pytree types.

use std::marker::PhantomData;
use std::sync::Arc;

use super::leaves_device;
use crate::array::Array;
use crate::error::{Error, Result};
use crate::lax;
use crate::primitive::{CustomCall, Graph, Primitive};
use crate::shape::{fmt_aval, Aval};
use crate::trace::{is_tracing, trace_fn, Traced};
use crate::tree::{tree_flatten, tree_unflatten, PyTree, TreeDef};

/// A JVP rule on the call's operands: `(primals, tangents) -> (outputs, output tangents)`.
pub(crate) type JvpFn =
    dyn Fn(&[Array], &[Array]) -> Result<(Vec<Array>, Vec<Array>)> + Send + Sync;

/// A forward rule on the call's operands: the outputs and the residuals.
pub(crate) type FwdFn = dyn Fn(&[Array]) -> Result<(Vec<Array>, Residuals)> + Send + Sync;

/// A backward rule: the residuals and the outputs' cotangents to a cotangent per operand
/// (`None` for the captured arrays, which get none).
pub(crate) type BwdFn = dyn Fn(&Residuals, &[Array]) -> Result<Vec<Option<Array>>> + Send + Sync;

/// What a forward rule saves for its backward rule: the leaves of a pytree and its shape.
#[derive(Clone)]
pub(crate) struct Residuals {
    pub(crate) leaves: Vec<Array>,
    pub(crate) def: TreeDef,
}

/// The rules a [`CustomCall`] carries.
pub(crate) enum Rules {
    /// `custom_jvp`'s rule.
    Jvp(Arc<JvpFn>),
    /// `custom_vjp`'s forward and backward rules.
    Vjp { fwd: Arc<FwdFn>, bwd: Arc<BwdFn> },
    /// A linearized `custom_vjp` call's (`custom_lin`): the backward rule and the residuals
    /// its forward rule saved.
    Lin {
        bwd: Arc<BwdFn>,
        residuals: Residuals,
    },
}

/// The rules of `call` (an internal error for a call made elsewhere).
pub(crate) fn rules_of(call: &CustomCall) -> Result<&Rules> {
    call.rules
        .downcast_ref::<Rules>()
        .ok_or_else(|| Error::arg(&call.name, "carries no derivative rules"))
}

/// `traced`'s graph with its constants as its first inputs, and those constants.
pub(crate) fn closed(traced: Traced) -> (Graph, Vec<Array>, TreeDef) {
    let Traced {
        mut graph,
        consts,
        out_def,
    } = traced;
    let mut invars = std::mem::take(&mut graph.constvars);
    invars.append(&mut graph.invars);
    graph.invars = invars;
    (graph, consts, out_def)
}

/// A custom function traced for its argument: the argument's leaves and structure, the
/// closed graph, the arrays it captured (the graph's first inputs) and the output structure.
struct Function {
    leaves: Vec<Array>,
    def: TreeDef,
    fun: Graph,
    consts: Vec<Array>,
    out_def: TreeDef,
}

/// Traces `f` at `args` into a closed graph (the shared start of both calls).
fn trace_function<T: PyTree, U: PyTree>(
    name: &Arc<str>,
    f: &impl Fn(T) -> Result<U>,
    args: T,
) -> Result<Function> {
    let (leaves, def) = tree_flatten(&args);
    drop(args);
    let device = leaves_device(name, &leaves)?;
    let avals: Vec<Aval> = leaves.iter().map(|a| a.aval().clone()).collect();
    let traced = trace_fn(name, &device, &def, &avals, f)?;
    let (fun, consts, out_def) = closed(traced);
    Ok(Function {
        leaves,
        def,
        fun,
        consts,
        out_def,
    })
}

/// Binds a call of `fun` (closed) with `rules` to `operands`, the first `captured` of
/// them arrays the function captured.
pub(crate) fn bind_call(
    name: &Arc<str>,
    fun: Graph,
    (rules, captured): (Rules, usize),
    jvp: bool,
    operands: &[&Array],
) -> Result<Vec<Array>> {
    let call = CustomCall {
        name: name.clone(),
        fun: Arc::new(fun),
        captured,
        rules: Arc::new(rules),
    };
    let prim = if jvp {
        Primitive::CustomJvpCall { call }
    } else {
        Primitive::CustomVjpCall { call }
    };
    lax::bind_all(prim, operands, None)
}

/// Checks that a rule's arrays have the types `want` (the function's outputs or inputs).
pub(crate) fn check_types(name: &str, what: &str, got: &[Array], want: &[Aval]) -> Result<()> {
    let same = got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(g, w)| g.shape() == w.shape.as_slice() && g.dtype() == w.dtype);
    if same {
        return Ok(());
    }
    let show =
        |avals: Vec<Aval>| -> String { avals.iter().map(fmt_aval).collect::<Vec<_>>().join(" ") };
    Err(Error::arg(
        name,
        format!(
            "the {what} are {} but the function's are {}",
            show(got.iter().map(|a| a.aval().clone()).collect()),
            show(want.to_vec())
        ),
    ))
}

/// A function with a custom JVP rule, made by [`custom_jvp`]: call it with
/// [`CustomJvp::call`].
pub struct CustomJvp<T, U, F, J> {
    f: F,
    jvp: Arc<J>,
    name: Arc<str>,
    _types: PhantomData<fn(T) -> U>,
}

/// `f` with the JVP rule `jvp` (`jax.custom_jvp` with `defjvp`): `jvp(primals, tangents)`
/// gives `(f(primals), tangent of the output)`, the tangent linear in `tangents`. `jvp`
/// and `grad` differentiate `f` by the rule (reverse mode transposes it), where the
/// function's own operations would give a wrong or unstable derivative; everything else
/// (evaluation, `jit`, `vmap`) uses `f`. Tangents of integer arguments are zeros.
/// Arrays `f` captures from its environment are constants; differentiating with respect
/// to one (a value computed from what `grad` or `jvp` differentiates) is an error, as
/// JAX's `UnexpectedTracerError`: pass it as an argument.
///
/// ```
/// use olympus::{custom_jvp, grad, numpy as np, Array, Result};
///
/// // log(1 + e^x): the rule's derivative, e^x / (1 + e^x) written as a sigmoid, stays
/// // finite where e^x overflows float32.
/// let softplus = custom_jvp(
///     |x: Array| np::logaddexp(&x, 0.0),
///     |x: Array, t: Array| -> Result<(Array, Array)> {
///         let sigmoid = np::divide(1.0, np::add(np::exp(np::negative(&x)?)?, 1.0)?)?;
///         Ok((np::logaddexp(&x, 0.0)?, np::multiply(&t, &sigmoid)?))
///     },
/// );
/// let g = grad(|x: Array| np::sum(softplus.call(x)?, None, false))(np::array([0.0f32, 100.0])?)?;
/// assert_eq!(g.to_vec::<f32>()?, [0.5, 1.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn custom_jvp<T, U, F, J>(f: F, jvp: J) -> CustomJvp<T, U, F, J>
where
    T: PyTree + 'static,
    U: PyTree + 'static,
    F: Fn(T) -> Result<U>,
    J: Fn(T, T) -> Result<(U, U)> + Send + Sync + 'static,
{
    CustomJvp {
        f,
        jvp: Arc::new(jvp),
        name: Arc::from(std::any::type_name::<F>()),
        _types: PhantomData,
    }
}

impl<T, U, F, J> CustomJvp<T, U, F, J>
where
    T: PyTree + 'static,
    U: PyTree + 'static,
    F: Fn(T) -> Result<U>,
    J: Fn(T, T) -> Result<(U, U)> + Send + Sync + 'static,
{
    /// The same function under another name (in listings and error messages).
    pub fn named(mut self, name: &str) -> Self {
        self.name = Arc::from(name);
        self
    }

    /// Calls the function: `f(args)`, recorded as one `custom_jvp_call` under a
    /// transformation.
    pub fn call(&self, args: T) -> Result<U> {
        if !is_tracing() {
            return (self.f)(args);
        }
        let Function {
            leaves,
            def,
            fun,
            consts,
            out_def,
        } = trace_function(&self.name, &self.f, args)?;
        let nc = consts.len();
        let (jvp, in_def, outs_def) = (self.jvp.clone(), def.clone(), out_def.clone());
        let rule: Arc<JvpFn> = Arc::new(move |ops: &[Array], ts: &[Array]| {
            let x: T = tree_unflatten(&in_def, ops[nc..].to_vec())?;
            let t: T = tree_unflatten(&in_def, ts[nc..].to_vec())?;
            let (y, ty) = jvp(x, t)?;
            let (ys, ydef) = tree_flatten(&y);
            let (tys, tdef) = tree_flatten(&ty);
            if ydef != outs_def || tdef != outs_def {
                return Err(Error::arg(
                    "custom_jvp",
                    "the rule's outputs and tangents must have the function's output structure",
                ));
            }
            Ok((ys, tys))
        });
        let operands: Vec<&Array> = consts.iter().chain(&leaves).collect();
        let outs = bind_call(&self.name, fun, (Rules::Jvp(rule), nc), true, &operands)?;
        tree_unflatten(&out_def, outs)
    }
}

/// A function with a custom VJP, made by [`custom_vjp`]: call it with
/// [`CustomVjp::call`].
pub struct CustomVjp<T, U, R, F, Fw, B> {
    f: F,
    fwd: Arc<Fw>,
    bwd: Arc<B>,
    name: Arc<str>,
    _types: PhantomData<fn(T, R) -> U>,
}

/// `f` with a custom reverse-mode rule (`jax.custom_vjp` with `defvjp`): under `grad`
/// and `vjp`, `fwd(x)` gives `(f(x), residuals)` and `bwd(residuals, cotangent of the
/// output)` gives the cotangent of `x` (a value of `x`'s structure). Everything else
/// (evaluation, `jit`, `vmap`) uses `f`. Forward mode (`jvp`) of such a function is an
/// error, as in JAX. Arrays `f` captures are constants and get no cotangent;
/// differentiating with respect to one is an error, as in JAX.
///
/// ```
/// use olympus::{custom_vjp, grad, numpy as np, Array, Result};
///
/// // Gradient clipping: the identity forward, the cotangent clipped to [-1, 1] backward.
/// let clip_gradient = custom_vjp(
///     |x: Array| Ok(x),
///     |x: Array| -> Result<(Array, ())> { Ok((x, ())) },
///     |_: (), g: Array| np::clip(&g, -1.0, 1.0),
/// );
/// let loss = |x: Array| np::sum(np::multiply(clip_gradient.call(x)?, 5.0)?, None, false);
/// assert_eq!(grad(loss)(np::array([1.0f32, 2.0])?)?.to_vec::<f32>()?, [1.0, 1.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn custom_vjp<T, U, R, F, Fw, B>(f: F, fwd: Fw, bwd: B) -> CustomVjp<T, U, R, F, Fw, B>
where
    T: PyTree + 'static,
    U: PyTree + 'static,
    R: PyTree + 'static,
    F: Fn(T) -> Result<U>,
    Fw: Fn(T) -> Result<(U, R)> + Send + Sync + 'static,
    B: Fn(R, U) -> Result<T> + Send + Sync + 'static,
{
    CustomVjp {
        f,
        fwd: Arc::new(fwd),
        bwd: Arc::new(bwd),
        name: Arc::from(std::any::type_name::<F>()),
        _types: PhantomData,
    }
}

impl<T, U, R, F, Fw, B> CustomVjp<T, U, R, F, Fw, B>
where
    T: PyTree + 'static,
    U: PyTree + 'static,
    R: PyTree + 'static,
    F: Fn(T) -> Result<U>,
    Fw: Fn(T) -> Result<(U, R)> + Send + Sync + 'static,
    B: Fn(R, U) -> Result<T> + Send + Sync + 'static,
{
    /// The same function under another name (in listings and error messages).
    pub fn named(mut self, name: &str) -> Self {
        self.name = Arc::from(name);
        self
    }

    /// Calls the function: `f(args)`, recorded as one `custom_vjp_call` under a
    /// transformation.
    pub fn call(&self, args: T) -> Result<U> {
        if !is_tracing() {
            return (self.f)(args);
        }
        let Function {
            leaves,
            def,
            fun,
            consts,
            out_def,
        } = trace_function(&self.name, &self.f, args)?;
        let nc = consts.len();
        let (fwd, in_def, outs_def) = (self.fwd.clone(), def.clone(), out_def.clone());
        let fwd_flat: Arc<FwdFn> = Arc::new(move |ops: &[Array]| {
            let x: T = tree_unflatten(&in_def, ops[nc..].to_vec())?;
            let (y, r) = fwd(x)?;
            let (ys, ydef) = tree_flatten(&y);
            if ydef != outs_def {
                return Err(Error::arg(
                    "custom_vjp",
                    "the forward rule's output must have the function's output structure",
                ));
            }
            let (leaves, def) = tree_flatten(&r);
            Ok((ys, Residuals { leaves, def }))
        });
        let (bwd, in_def, outs_def) = (self.bwd.clone(), def.clone(), out_def.clone());
        let bwd_flat: Arc<BwdFn> = Arc::new(move |res: &Residuals, cts: &[Array]| {
            let r: R = tree_unflatten(&res.def, res.leaves.clone())?;
            let g: U = tree_unflatten(&outs_def, cts.to_vec())?;
            let (leaves, cdef) = tree_flatten(&bwd(r, g)?);
            if cdef != in_def {
                return Err(Error::arg(
                    "custom_vjp",
                    "the backward rule must give a cotangent of the argument's structure",
                ));
            }
            let mut all: Vec<Option<Array>> = vec![None; nc];
            all.extend(leaves.into_iter().map(Some));
            Ok(all)
        });
        let rules = Rules::Vjp {
            fwd: fwd_flat,
            bwd: bwd_flat,
        };
        let operands: Vec<&Array> = consts.iter().chain(&leaves).collect();
        let outs = bind_call(&self.name, fun, (rules, nc), false, &operands)?;
        tree_unflatten(&out_def, outs)
    }
}
