//! The differentiation API: [`grad`], [`value_and_grad`], [`vjp`], [`jvp`], and the
//! argument selectors ([`Arg`], [`Argnums`]).

use std::marker::PhantomData;
use std::sync::Arc;

use super::ad::zeros;
use super::leaves_device;
use super::linearize::{jvp_graph, Linearized};
use crate::array::Array;
use crate::error::{Error, Result};
use crate::lax;
use crate::primitive::Literal;
use crate::runtime::Device;
use crate::shape::fmt_aval;
use crate::trace::{trace_concrete, Traced};
use crate::tree::{tree_flatten, tree_unflatten, PyTree, TreeDef};

/// Chooses which part of a function's argument is differentiated, and the type of the
/// gradient: [`Whole`] (the default: the whole argument), [`Arg<N>`] (element `N` of a
/// tuple argument, `jax.grad(f, argnums=N)`), or a tuple of selectors
/// (`(Arg<0>, Arg<2>)`, `argnums=(0, 2)`), whose gradient is the tuple of their gradients.
pub trait Argnums<T: PyTree> {
    /// The gradient's type.
    type Out: PyTree;

    /// The selected leaves (indices into `T`'s flattening) and the gradient's structure.
    fn select(def: &TreeDef) -> Result<(Vec<usize>, TreeDef)>;
}

/// Selects the whole argument: the gradient has the argument's type.
#[derive(Clone, Copy, Debug, Default)]
pub struct Whole;

/// Selects element `N` of a tuple argument (`argnums=N`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Arg<const N: usize>;

/// Element `N` of a tuple type (implemented for tuples of up to 8 elements).
pub trait TupleElement<const N: usize> {
    /// The element's type.
    type Elem: PyTree;
}

impl<T: PyTree> Argnums<T> for Whole {
    type Out = T;

    fn select(def: &TreeDef) -> Result<(Vec<usize>, TreeDef)> {
        Ok(((0..def.num_leaves()).collect(), def.clone()))
    }
}

impl<T: PyTree + TupleElement<N>, const N: usize> Argnums<T> for Arg<N> {
    type Out = T::Elem;

    fn select(def: &TreeDef) -> Result<(Vec<usize>, TreeDef)> {
        let children = def.children();
        let child = children.get(N).ok_or_else(|| {
            Error::arg(
                "grad",
                format!(
                    "argnums {N} is out of range for an argument with {} elements",
                    children.len()
                ),
            )
        })?;
        let start: usize = children[..N].iter().map(TreeDef::num_leaves).sum();
        Ok(((start..start + child.num_leaves()).collect(), child.clone()))
    }
}

macro_rules! tuple_elements {
    ($( $tuple:tt : $( $n:tt => $E:ident ),+ ; )+) => {
        $( $( tuple_element!($tuple, $n, $E); )+ )+
    };
}

macro_rules! tuple_element {
    (($($T:ident),+), $n:tt, $E:ident) => {
        impl<$($T: PyTree),+> TupleElement<$n> for ($($T,)+) {
            type Elem = $E;
        }
    };
}

tuple_elements! {
    (A): 0 => A;
    (A, B): 0 => A, 1 => B;
    (A, B, C): 0 => A, 1 => B, 2 => C;
    (A, B, C, D): 0 => A, 1 => B, 2 => C, 3 => D;
    (A, B, C, D, E): 0 => A, 1 => B, 2 => C, 3 => D, 4 => E;
    (A, B, C, D, E, F): 0 => A, 1 => B, 2 => C, 3 => D, 4 => E, 5 => F;
    (A, B, C, D, E, F, G): 0 => A, 1 => B, 2 => C, 3 => D, 4 => E, 5 => F, 6 => G;
    (A, B, C, D, E, F, G, H): 0 => A, 1 => B, 2 => C, 3 => D, 4 => E, 5 => F, 6 => G, 7 => H;
}

macro_rules! argnums_tuples {
    ($( ($($S:ident),+) ),+) => {
        $(
            impl<T: PyTree, $($S: Argnums<T>),+> Argnums<T> for ($($S,)+) {
                type Out = ($($S::Out,)+);

                fn select(def: &TreeDef) -> Result<(Vec<usize>, TreeDef)> {
                    let mut leaves = Vec::new();
                    let mut defs = Vec::new();
                    $(
                        let (l, d) = $S::select(def)?;
                        leaves.extend(l);
                        defs.push(d);
                    )+
                    Ok((leaves, TreeDef::tuple(defs)))
                }
            }
        )+
    };
}

argnums_tuples!((S0, S1), (S0, S1, S2), (S0, S1, S2, S3));

fn fn_name<F>() -> Arc<str> {
    Arc::from(std::any::type_name::<F>())
}

/// Everything a reverse-mode call needs: the flattened argument, its trace, and the
/// forward pass.
struct Forward {
    leaves: Vec<Array>,
    def: TreeDef,
    device: Device,
    lin: Linearized,
    out_def: TreeDef,
}

/// Traces `f` at `args` and runs it forward, keeping what the backward pass needs.
fn forward<T: PyTree, U: PyTree>(
    name: &Arc<str>,
    func: &str,
    f: impl FnOnce(T) -> Result<U>,
    args: T,
    active: impl Fn(usize) -> bool,
) -> Result<Forward> {
    let (leaves, def) = tree_flatten(&args);
    drop(args);
    let device = leaves_device(func, &leaves)?;
    let Traced {
        graph,
        consts,
        out_def,
    } = {
        let mask: Vec<bool> = (0..leaves.len()).map(&active).collect();
        let read = super::linearize::read_linearized;
        trace_concrete(name, &device, &def, (&leaves, &mask, read), f)?
    };
    let mask: Vec<bool> = (0..leaves.len()).map(active).collect();
    let lin = Linearized::new(name, graph, &consts, &leaves, &mask, &device)?;
    Ok(Forward {
        leaves,
        def,
        device,
        lin,
        out_def,
    })
}

/// The gradient of a scalar function: the shared body of `grad` and `value_and_grad`.
fn value_and_grad_impl<T: PyTree, S: Argnums<T>>(
    name: &Arc<str>,
    func: &str,
    f: impl FnOnce(T) -> Result<Array>,
    args: T,
) -> Result<(Array, S::Out)> {
    let def = crate::tree::tree_structure(&args);
    let (selected, out_def) = S::select(&def)?;
    let paths = def.key_paths();
    {
        let (leaves, _) = tree_flatten(&args);
        for &i in &selected {
            if !leaves[i].dtype().is_floating() {
                return Err(Error::dtype(
                    func,
                    &[leaves[i].dtype()],
                    format!(
                        "differentiates floating inputs only, but the input at key path `{}` is {} (take the gradient with respect to other arguments with `argnums`, or convert it with `astype`)",
                        paths[i],
                        leaves[i].dtype()
                    ),
                ));
            }
        }
    }
    let mut mask = vec![false; def.num_leaves()];
    for &i in &selected {
        mask[i] = true;
    }
    let fw = forward(name, func, f, args, |i| mask[i])?;
    let outs = fw.lin.outputs()?;
    let value = match outs.as_slice() {
        [v] if v.ndim() == 0 && v.dtype().is_floating() => v.clone(),
        _ => {
            let avals = fw.lin.out_avals();
            let shapes: Vec<&[usize]> = avals.iter().map(|a| a.shape.as_slice()).collect();
            return Err(Error::shape(
                func,
                &shapes,
                format!(
                    "needs a function returning one floating scalar (a 0-d array), but `{name}` returned {} ({}); use `vjp` or `jacobian`-style vmap for non-scalar outputs",
                    fw.out_def,
                    avals.iter().map(fmt_aval).collect::<Vec<_>>().join(", ")
                ),
            ));
        }
    };
    let seed = lax::full(&[], Literal::from_f64(1.0, value.dtype()), Some(&fw.device))?;
    let cts = fw.lin.backward(&[Some(seed)])?;
    let grads = selected
        .iter()
        .map(|&i| match &cts[i] {
            Some(c) => Ok(c.clone()),
            None => zeros(fw.leaves[i].aval(), &fw.device),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((value, tree_unflatten(&out_def, grads)?))
}

/// The gradient of a function returning a floating scalar (`jax.grad`), with respect to its
/// whole argument: `grad(f)(x)` has `x`'s type (a registered pytree's gradient is a value of
/// the same type). Use [`grad_argnums`] to differentiate with respect to chosen elements of a
/// tuple argument.
///
/// The function is traced on each call and the recorded graph is differentiated; the result
/// is a plain function, so transformations compose: `jit(grad(f))` compiles the backward
/// pass, `grad(grad(f))` gives second derivatives, `vmap(grad(f))` per-example gradients.
/// Outside `jit` and `vmap` the traced values carry their data, as JAX's do: `f` may read
/// them and branch on them (below); `unique` and the set operations without `size` then give
/// constants, as in JAX.
///
/// ```
/// use olympus::{grad, numpy as np, Array, Result};
///
/// // d/dx sum(sin(x) * x) = cos(x) * x + sin(x)
/// let df = grad(|x: Array| -> Result<Array> { np::sum(np::multiply(np::sin(&x)?, &x)?, None, false) });
/// let x = np::array(&[0.0f32, 1.0, 2.0])?;
/// let g = df(x.clone())?.to_vec::<f32>()?;
/// for (gi, xi) in g.iter().zip([0.0f32, 1.0, 2.0]) {
///     assert!((gi - (xi.cos() * xi + xi.sin())).abs() < 1e-5);
/// }
///
/// // Second derivative of x³ is 6x.
/// let d2 = grad(grad(|x: Array| np::power(&x, 3.0)));
/// assert_eq!(d2(Array::scalar(2.0f32)?)?.item::<f32>()?, 12.0);
///
/// // Python-style control flow on the values, as `jax.grad` allows it.
/// let f = |x: Array| -> Result<Array> {
///     if x.item::<f32>()? < 3.0 { np::multiply(np::square(&x)?, 3.0) } else { np::multiply(&x, -4.0) }
/// };
/// assert_eq!(grad(f)(Array::scalar(2.0f32)?)?.item::<f32>()?, 12.0);
/// assert_eq!(grad(f)(Array::scalar(4.0f32)?)?.item::<f32>()?, -4.0);
/// # Ok::<(), olympus::Error>(())
/// ```
///
/// Errors: a non-scalar or non-floating output, or an integer input, is an error naming the
/// function and the offending shape, dtype or key path (as in JAX).
///
/// Arguments are pytrees: a type that only implements the array-conversion protocol is not
/// differentiated through it (register it as a pytree, or call `asarray` first). This does
/// not compile:
///
/// ```compile_fail
/// use olympus::{grad, numpy as np, Array, Result, SupportsOlympusArray};
/// struct Celsius(Vec<f32>);
/// impl SupportsOlympusArray for Celsius {
///     fn olympus_array(&self) -> Result<Array> { np::asarray(self.0.clone()) }
/// }
/// // error: `Celsius` is not a pytree (register it, or call `asarray` first)
/// let g = grad(|t: Celsius| np::sum(&t, None, false))(Celsius(vec![1.0]));
/// ```
pub fn grad<T, F>(f: F) -> impl Fn(T) -> Result<T>
where
    T: PyTree,
    F: Fn(T) -> Result<Array>,
{
    let name = fn_name::<F>();
    move |args: T| Ok(value_and_grad_impl::<T, Whole>(&name, "grad", &f, args)?.1)
}

/// [`grad`] with respect to the elements of a tuple argument chosen by `S` (`jax.grad`'s
/// `argnums`): [`Arg<N>`] gives the gradient of element `N`, `(Arg<0>, Arg<2>)` a tuple of
/// two gradients.
///
/// ```
/// use olympus::{grad_argnums, numpy as np, Arg, Array, Result};
///
/// // loss(w, x) = sum((w * x)²); only w is differentiated, x is data.
/// let loss = |(w, x): (Array, Array)| -> Result<Array> {
///     np::sum(np::square(np::multiply(&w, &x)?)?, None, false)
/// };
/// let dw = grad_argnums(loss, Arg::<0>);
/// let (w, x) = (np::array(&[1.0f32, 2.0])?, np::array(&[3.0f32, 4.0])?);
/// assert_eq!(dw((w, x))?.to_vec::<f32>()?, [18.0, 64.0]); // 2 w x²
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn grad_argnums<T, S, F>(f: F, _argnums: S) -> impl Fn(T) -> Result<S::Out>
where
    T: PyTree,
    S: Argnums<T>,
    F: Fn(T) -> Result<Array>,
{
    let name = fn_name::<F>();
    move |args: T| Ok(value_and_grad_impl::<T, S>(&name, "grad", &f, args)?.1)
}

/// The value and the gradient of a scalar function in one pass (`jax.value_and_grad`), with
/// respect to the whole argument. See [`grad`].
///
/// ```
/// use olympus::{value_and_grad, numpy as np, Array, Result};
///
/// let f = value_and_grad(|x: Array| np::sum(np::square(&x)?, None, false));
/// let (v, g) = f(np::array(&[1.0f32, -2.0])?)?;
/// assert_eq!(v.item::<f32>()?, 5.0);
/// assert_eq!(g.to_vec::<f32>()?, [2.0, -4.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn value_and_grad<T, F>(f: F) -> impl Fn(T) -> Result<(Array, T)>
where
    T: PyTree,
    F: Fn(T) -> Result<Array>,
{
    let name = fn_name::<F>();
    move |args: T| value_and_grad_impl::<T, Whole>(&name, "value_and_grad", &f, args)
}

/// [`value_and_grad`] with respect to the tuple elements chosen by `S` (see
/// [`grad_argnums`]).
pub fn value_and_grad_argnums<T, S, F>(f: F, _argnums: S) -> impl Fn(T) -> Result<(Array, S::Out)>
where
    T: PyTree,
    S: Argnums<T>,
    F: Fn(T) -> Result<Array>,
{
    let name = fn_name::<F>();
    move |args: T| value_and_grad_impl::<T, S>(&name, "value_and_grad", &f, args)
}

/// The pullback [`vjp`] returns: maps a cotangent of the output to the cotangent of the
/// input. It keeps the linearized function (its residuals), so it can be called many times
/// without evaluating the function again.
pub struct Vjp<T, U> {
    fw: Forward,
    name: Arc<str>,
    _types: PhantomData<fn(U) -> T>,
}

impl<T: PyTree, U: PyTree> Vjp<T, U> {
    /// The cotangent of the input (with the input's structure and types) for the output
    /// cotangent `ct`, which must have the output's structure, shapes and dtypes.
    /// Integer and bool inputs get zero cotangents.
    pub fn call(&self, ct: U) -> Result<T> {
        let (cts, def) = tree_flatten(&ct);
        if def != self.fw.out_def {
            return Err(Error::arg(
                "vjp",
                format!(
                    "the cotangent's structure {def} differs from the output's {} of `{}`",
                    self.fw.out_def, self.name
                ),
            ));
        }
        let avals = self.fw.lin.out_avals();
        for (c, a) in cts.iter().zip(&avals) {
            if c.shape() != a.shape.as_slice() || c.dtype() != a.dtype {
                return Err(Error::shape(
                    "vjp",
                    &[c.shape(), &a.shape],
                    format!(
                        "a cotangent of {} {} was given for an output of {}",
                        crate::error::fmt_shape(c.shape()),
                        c.dtype(),
                        fmt_aval(a)
                    ),
                ));
            }
        }
        let cts: Vec<Option<Array>> = cts.into_iter().map(Some).collect();
        let back = self.fw.lin.backward(&cts)?;
        let grads = back
            .into_iter()
            .zip(&self.fw.leaves)
            .map(|(c, x)| match c {
                Some(c) => Ok(c),
                None => zeros(x.aval(), &self.fw.device),
            })
            .collect::<Result<Vec<_>>>()?;
        tree_unflatten(&self.fw.def, grads)
    }
}

/// Reverse mode (`jax.vjp`): `f(primals)` and a pullback that maps a cotangent of the output
/// to one of the input.
///
/// ```
/// use olympus::{vjp, numpy as np, Array, Result};
///
/// let (y, pullback) = vjp(|x: Array| np::multiply(&x, &x), np::array(&[1.0f32, 3.0])?)?;
/// assert_eq!(y.to_vec::<f32>()?, [1.0, 9.0]);
/// let ct = pullback.call(np::array(&[1.0f32, 10.0])?)?;
/// assert_eq!(ct.to_vec::<f32>()?, [2.0, 60.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn vjp<T, U, F>(f: F, primals: T) -> Result<(U, Vjp<T, U>)>
where
    T: PyTree,
    U: PyTree,
    F: FnOnce(T) -> Result<U>,
{
    let name = fn_name::<F>();
    let fw = forward(&name, "vjp", f, primals, |_| true)?;
    let out: U = tree_unflatten(&fw.out_def, fw.lin.outputs()?)?;
    Ok((
        out,
        Vjp {
            fw,
            name,
            _types: PhantomData,
        },
    ))
}

/// The linear map [`linearize`] returns: the JVP of the function at the point it was
/// linearized, for any number of tangents, without evaluating the function again.
pub struct Linearize<T, U> {
    fw: Forward,
    _types: PhantomData<fn(T) -> U>,
}

impl<T: PyTree, U: PyTree> Linearize<T, U> {
    /// The output's tangent for the input tangent `t` (the input's structure, shapes and
    /// dtypes); tangents of integer and bool inputs are ignored, and integer and bool
    /// outputs get zero tangents.
    pub fn call(&self, t: T) -> Result<U> {
        let (tleaves, def) = tree_flatten(&t);
        drop(t);
        check_tangents("linearize", &self.fw.def, &def, &self.fw.leaves, &tleaves)?;
        let touts = self.fw.lin.forward(&tleaves)?;
        let outs = self.fw.lin.out_avals();
        let touts = touts
            .into_iter()
            .zip(&outs)
            .map(|(t, o)| match t {
                Some(t) => Ok(t),
                None => zeros(o, &self.fw.device),
            })
            .collect::<Result<Vec<_>>>()?;
        tree_unflatten(&self.fw.out_def, touts)
    }
}

/// `f(primals)` and its JVP at `primals` as a linear function (`jax.linearize`): the
/// function is evaluated once, the tangent map is traced into a linear graph whose constants
/// are the residuals, and each call of the returned map evaluates only that graph. Reverse
/// mode ([`vjp`], [`grad`]) transposes the same graph.
///
/// ```
/// use olympus::{linearize, numpy as np, Array, Result};
///
/// let (y, f_jvp) = linearize(|x: Array| np::sin(&x), np::array(&[0.0f32, 1.0])?)?;
/// let dy = f_jvp.call(np::array(&[2.0f32, 1.0])?)?.to_vec::<f32>()?; // cos(x) t
/// assert!((dy[0] - 2.0).abs() < 1e-6 && (dy[1] - 1.0f32.cos()).abs() < 1e-6);
/// assert!((y.to_vec::<f32>()?[1] - 1.0f32.sin()).abs() < 1e-6);
/// # Ok::<(), olympus::Error>(())
/// ```
///
/// A `custom_vjp` function has no forward mode: evaluating the map through one is an error,
/// as in JAX.
pub fn linearize<T, U, F>(f: F, primals: T) -> Result<(U, Linearize<T, U>)>
where
    T: PyTree,
    U: PyTree,
    F: FnOnce(T) -> Result<U>,
{
    let name = fn_name::<F>();
    let fw = forward(&name, "linearize", f, primals, |_| true)?;
    let out: U = tree_unflatten(&fw.out_def, fw.lin.outputs()?)?;
    Ok((
        out,
        Linearize {
            fw,
            _types: PhantomData,
        },
    ))
}

/// Checks that tangents match their primals in structure, shapes and dtypes.
fn check_tangents(
    func: &str,
    def: &TreeDef,
    tdef: &TreeDef,
    leaves: &[Array],
    tleaves: &[Array],
) -> Result<()> {
    if def != tdef {
        return Err(Error::arg(
            func,
            format!("the tangents' structure {tdef} differs from the primals' {def}"),
        ));
    }
    for (p, t) in leaves.iter().zip(tleaves) {
        if p.shape() != t.shape() || p.dtype() != t.dtype() {
            return Err(Error::shape(
                func,
                &[p.shape(), t.shape()],
                format!(
                    "a tangent of {} {} was given for a primal of {} {}",
                    crate::error::fmt_shape(t.shape()),
                    t.dtype(),
                    crate::error::fmt_shape(p.shape()),
                    p.dtype()
                ),
            ));
        }
    }
    Ok(())
}

/// Forward mode (`jax.jvp`): `f(primals)` and its directional derivative along `tangents`
/// (same structure, shapes and dtypes as `primals`). Tangents of integer and bool inputs
/// are ignored; integer and bool outputs get zero tangents.
///
/// ```
/// use olympus::{jvp, numpy as np, Array, Result};
///
/// let (y, dy) = jvp(|x: Array| np::exp(&x), np::array(&[0.0f32])?, np::array(&[2.0f32])?)?;
/// assert_eq!((y.to_vec::<f32>()?, dy.to_vec::<f32>()?), (vec![1.0], vec![2.0]));
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn jvp<T, U, F>(f: F, primals: T, tangents: T) -> Result<(U, U)>
where
    T: PyTree,
    U: PyTree,
    F: FnOnce(T) -> Result<U>,
{
    let name = fn_name::<F>();
    let (leaves, def) = tree_flatten(&primals);
    let (tleaves, tdef) = tree_flatten(&tangents);
    drop((primals, tangents));
    check_tangents("jvp", &def, &tdef, &leaves, &tleaves)?;
    let device = leaves_device("jvp", &leaves)?;
    let every = vec![true; leaves.len()];
    let read = super::linearize::read_forward;
    let t = trace_concrete(&name, &device, &def, (&leaves, &every, read), f)?;
    let tangents: Vec<Option<Array>> = tleaves.into_iter().map(Some).collect();
    let (outs, touts) = jvp_graph(&t.graph, &t.consts, &leaves, &tangents, &device)?;
    let touts = touts
        .into_iter()
        .zip(&outs)
        .map(|(t, o)| match t {
            Some(t) => Ok(t),
            None => zeros(o.aval(), &device),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((
        tree_unflatten(&t.out_def, outs)?,
        tree_unflatten(&t.out_def, touts)?,
    ))
}
