//! The array-extensibility scaffold (JEP 28661, level 1): every public `olympus::numpy`
//! function, called with plain arrays, with a user type that only implements the
//! conversion protocol, and with a user type that is also a registered pytree. Results
//! must be identical in dtype, shape and bits. Functions that take several arrays also run
//! with lists mixing the three kinds. A test fails when a public function is missing from
//! the table (the table is compared with the names `src/numpy/mod.rs` exports).

use olympus::numpy::{self as np, DType};
use olympus::{arrays, Array, Result, SupportsOlympusArray};

/// A user type that implements only the protocol.
#[derive(Clone)]
struct Protocol(Array);

impl SupportsOlympusArray for Protocol {
    fn olympus_array(&self) -> Result<Array> {
        Ok(self.0.clone())
    }
}

/// A user type that is a pytree (one leaf) and implements the protocol.
#[derive(Clone)]
struct Tree {
    data: Array,
    label: String,
}
olympus::register_pytree!(Tree { data, #[static] label });

impl SupportsOlympusArray for Tree {
    fn olympus_array(&self) -> Result<Array> {
        Ok(self.data.clone())
    }
}

/// How a row receives its array arguments.
trait Wrap {
    type V: olympus::ArrayLike + Clone;
    fn w(&self, x: &Array) -> Self::V;
}

struct Plain;
impl Wrap for Plain {
    type V = Array;
    fn w(&self, x: &Array) -> Array {
        x.clone()
    }
}

struct Proto;
impl Wrap for Proto {
    type V = &'static Protocol;
    fn w(&self, x: &Array) -> &'static Protocol {
        Box::leak(Box::new(Protocol(x.clone())))
    }
}

struct Pytree;
impl Wrap for Pytree {
    type V = &'static Tree;
    fn w(&self, x: &Array) -> &'static Tree {
        Box::leak(Box::new(Tree {
            data: x.clone(),
            label: "t".into(),
        }))
    }
}

/// JAX's scaffold inputs (a pytree, so `jit` can take them).
struct In {
    f: Array,   // float32[5]
    g: Array,   // float32[5], positive
    u1: Array,  // float32[5] in (-1, 1)
    i: Array,   // int32[5]
    j: Array,   // int32[5], positive
    u: Array,   // uint32[5]
    b: Array,   // bool[5]
    m: Array,   // float32[3, 3]
    n: Array,   // float32[3, 3]
    t: Array,   // float32[2, 3, 4]
    idx: Array, // int32[3], indices into 5
}

olympus::register_pytree!(In {
    f,
    g,
    u1,
    i,
    j,
    u,
    b,
    m,
    n,
    t,
    idx
});

fn inputs() -> In {
    let a = |v: &[f32], s: &[usize]| Array::from_slice(v, s).unwrap();
    In {
        f: a(&[-1.5, 0.25, 2.0, -0.0, 3.5], &[5]),
        g: a(&[0.5, 1.25, 2.0, 3.0, 4.5], &[5]),
        u1: a(&[-0.9, -0.25, 0.0, 0.5, 0.75], &[5]),
        i: Array::from_slice(&[-3, 0, 2, 7, -8], &[5]).unwrap(),
        j: Array::from_slice(&[1, 2, 3, 4, 6], &[5]).unwrap(),
        u: Array::from_slice(&[0u32, 1, 5, 9, 30], &[5]).unwrap(),
        b: Array::from_slice(&[true, false, true, true, false], &[5]).unwrap(),
        m: a(&[2.0, 1.0, 0.5, -1.0, 3.0, 0.0, 0.25, 1.5, 4.0], &[3, 3]),
        n: a(&[1.0, 0.0, 2.0, -2.0, 1.0, 1.0, 0.5, 0.5, 0.5], &[3, 3]),
        t: np::reshape(
            np::astype(np::arange(24).unwrap(), DType::Float32).unwrap(),
            &[2, 3, 4],
        )
        .unwrap(),
        idx: Array::from_slice(&[4, 0, 2], &[3]).unwrap(),
    }
}

type Out = Result<Vec<Array>>;

/// A fresh scratch path: rows run concurrently from several tests (eager, jit, vmap), so
/// each call gets its own file.
fn scratch(name: &str) -> std::path::PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::env::temp_dir().join(format!(
        "olympus-scaffold-{}-{k}-{name}",
        std::process::id()
    ))
}

fn one(a: Result<Array>) -> Out {
    a.map(|x| vec![x])
}

macro_rules! table {
    ($($name:ident => |$w:ident, $x:ident| $body:expr;)*) => {
        /// Runs every row with the given wrapping.
        #[allow(unused_variables)]
        fn run<W: Wrap>(wrap: &W, inputs: &In) -> Vec<(&'static str, Out)> {
            vec![$((stringify!($name), (|$w: &W, $x: &In| -> Out { $body })(wrap, inputs))),*]
        }
        const NAMES: &[&str] = &[$(stringify!($name)),*];

        /// Runs row `k` alone.
        #[allow(unused_variables, unused_assignments)]
        fn run_row<W: Wrap>(wrap: &W, inputs: &In, k: usize) -> Out {
            let mut i = 0;
            $(
                if i == k {
                    return (|$w: &W, $x: &In| -> Out { $body })(wrap, inputs);
                }
                i += 1;
            )*
            Err(olympus::Error::InvalidArgument { func: "run_row".into(), reason: format!("no row {k}") })
        }
    };
}

table! {
    // creation
    arange => |w, x| one(np::arange(5)); // no array arguments
    arange_with => |w, x| one(np::arange_with((0.5, 3.0, 0.5), DType::Int32));
    array => |w, x| one(np::array(w.w(&x.f)));
    asarray => |w, x| one(np::asarray(w.w(&x.i)));
    duckarray => |w, x| one(np::duckarray(np::asarray(w.w(&x.f))?)); // protocol types go through asarray
    duck_as => |w, x| one(np::duck_as::<Array, _>(np::asarray(w.w(&x.g))?));
    astype => |w, x| one(np::astype(w.w(&x.f), DType::Int32));
    empty => |w, x| one(np::empty(&[2], DType::Float32));
    empty_like => |w, x| one(np::empty_like(w.w(&x.m)));
    empty_like_with => |w, x| one(np::empty_like_with(w.w(&x.m), Some(DType::Int8), None));
    eye => |w, x| one(np::eye(3, None, 1, DType::Float32));
    full => |w, x| one(np::full(&[2, 2], w.w(&x.f.slice(olympus::s![2]).unwrap()), None));
    full_like => |w, x| one(np::full_like(w.w(&x.i), 7));
    full_like_with => |w, x| one(np::full_like_with(w.w(&x.i), 2.5, Some(DType::Float16), Some(&[2, 2])));
    identity => |w, x| one(np::identity(2, DType::Int32));
    linspace => |w, x| one(np::linspace(0.0, 1.0, 5, true));
    linspace_with => |w, x| one(np::linspace_with(2.0, -3.0, 6, true, DType::Int32));
    ndim => |w, x| one(np::asarray(np::ndim(w.w(&x.t))? as i32));
    ones => |w, x| one(np::ones(&[3], DType::Bool));
    ones_like => |w, x| one(np::ones_like(w.w(&x.u)));
    ones_like_with => |w, x| one(np::ones_like_with(w.w(&x.u), None, Some(&[4])));
    shape => |w, x| one(np::asarray(np::shape(w.w(&x.t))?.iter().map(|&d| d as i32).collect::<Vec<_>>()));
    size => |w, x| one(np::asarray(np::size(w.w(&x.t))? as i32));
    zeros => |w, x| one(np::zeros(&[2], DType::Int32));
    zeros_like => |w, x| one(np::zeros_like(w.w(&x.b)));
    zeros_like_with => |w, x| one(np::zeros_like_with(w.w(&x.b), Some(DType::Float32), Some(&[])));
    // indexing
    argwhere => |w, x| one(np::argwhere(w.w(&x.b), Some(4), None));
    compress => |w, x| one(np::compress(w.w(&x.b), w.w(&x.f), None));
    extract => |w, x| one(np::extract(w.w(&x.b), w.w(&x.f)));
    extract_with => |w, x| one(np::extract_with(w.w(&x.b), w.w(&x.f), Some(4), Some(-1.0)));
    compress_with => |w, x| one(np::compress_with(w.w(&x.b), w.w(&x.m), Some(1), Some(2), None));
    nonzero => |w, x| np::nonzero(w.w(&x.i), Some(4), Some(-1.0));
    take => |w, x| one(np::take(w.w(&x.f), w.w(&x.idx), None));
    take_along_axis => |w, x| one(np::take_along_axis(w.w(&x.m), w.w(&np::argsort(&x.m, Some(1))?), 1));
    take_along_axis_with => |w, x| one(np::take_along_axis_with(w.w(&x.m), w.w(&np::argsort(&x.m, Some(1))?), 1, np::IndexMode::Clip, None));
    take_with => |w, x| one(np::take_with(w.w(&x.f), w.w(&x.idx), None, np::IndexMode::Wrap, None));
    // joins
    array_split => |w, x| np::array_split(w.w(&x.f), 2, 0);
    concatenate => |w, x| one(np::concatenate(vec![w.w(&x.f), w.w(&x.g)], 0));
    concatenate_with => |w, x| one(np::concatenate_with(vec![w.w(&x.f), w.w(&x.g)], 0, Some(DType::Int16)));
    dstack => |w, x| one(np::dstack(vec![w.w(&x.f), w.w(&x.g)]));
    dstack_with => |w, x| one(np::dstack_with(vec![w.w(&x.f), w.w(&x.g)], Some(DType::BFloat16)));
    hstack => |w, x| one(np::hstack(vec![w.w(&x.f), w.w(&x.g)]));
    hstack_with => |w, x| one(np::hstack_with(vec![w.w(&x.f), w.w(&x.g)], Some(DType::UInt8)));
    pad => |w, x| one(np::pad(w.w(&x.m), &[(1, 0)], np::PadMode::Edge));
    repeat => |w, x| one(np::repeat(w.w(&x.f), 2, None));
    roll => |w, x| one(np::roll(w.w(&x.f), &[2], None));
    split => |w, x| np::split(w.w(&x.m), 3, 1);
    stack => |w, x| one(np::stack(vec![w.w(&x.f), w.w(&x.g)], 1));
    stack_with => |w, x| one(np::stack_with(vec![w.w(&x.f), w.w(&x.g)], 0, Some(DType::Int32)));
    tile => |w, x| one(np::tile(w.w(&x.i), &[2, 1]));
    tril => |w, x| one(np::tril(w.w(&x.m), 0));
    triu => |w, x| one(np::triu(w.w(&x.m), 1));
    vstack => |w, x| one(np::vstack(vec![w.w(&x.f), w.w(&x.g)]));
    vstack_with => |w, x| one(np::vstack_with(vec![w.w(&x.f), w.w(&x.g)], None));
    // linear algebra
    diagonal => |w, x| one(np::diagonal(w.w(&x.m), 0, 0, 1));
    dot => |w, x| one(np::dot(w.w(&x.m), w.w(&x.n)));
    dot_with => |w, x| one(np::dot_with(w.w(&x.m), w.w(&x.n), np::Precision::High));
    einsum => |w, x| one(np::einsum("ij,jk->ki", vec![w.w(&x.m), w.w(&x.n)]));
    einsum_with => |w, x| one(np::einsum_with("ij,jk,kl->li", vec![w.w(&x.m), w.w(&x.n), w.w(&x.m)], np::EinsumOptimize::Greedy));
    einsum_path => |w, x| one(np::asarray(np::einsum_path("ij,jk,kl", vec![w.w(&x.m), w.w(&x.n), w.w(&x.m)], np::EinsumOptimize::Auto)?.path.concat().iter().map(|&p| p as i32).collect::<Vec<_>>()));
    inner => |w, x| one(np::inner(w.w(&x.f), w.w(&x.g)));
    inner_with => |w, x| one(np::inner_with(w.w(&x.f), w.w(&x.g), np::DotOptions::new().preferred_element_type(DType::Float16)));
    matmul => |w, x| one(np::matmul(w.w(&x.m), w.w(&x.n)));
    matmul_with => |w, x| one(np::matmul_with(w.w(&x.m), w.w(&x.n), np::Precision::Highest));
    outer => |w, x| one(np::outer(w.w(&x.f), w.w(&x.g)));
    tensordot => |w, x| one(np::tensordot(w.w(&x.t), w.w(&x.m), &[1], &[0]));
    tensordot_with => |w, x| one(np::tensordot_with(w.w(&x.t), w.w(&x.m), &[1], &[0], np::DotOptions::new().preferred_element_type(DType::BFloat16)));
    trace => |w, x| one(np::trace(w.w(&x.m), 0, 0, 1));
    trace_with => |w, x| one(np::trace_with(w.w(&x.m), 1, 0, 1, Some(DType::Int32)));
    vdot => |w, x| one(np::vdot(w.w(&x.f), w.w(&x.g)));
    vdot_with => |w, x| one(np::vdot_with(w.w(&x.f), w.w(&x.g), np::DotOptions::new().preferred_element_type(DType::Int32)));
    // reductions
    all => |w, x| one(np::all(w.w(&x.b), None, false));
    any => |w, x| one(np::any(w.w(&x.b), None, false));
    argmax => |w, x| one(np::argmax(w.w(&x.f), None, false));
    argmin => |w, x| one(np::argmin(w.w(&x.m), Some(1), false));
    argsort => |w, x| one(np::argsort(w.w(&x.f), Some(0)));
    argsort_with => |w, x| one(np::argsort_with(w.w(&x.m), Some(-1), true, true));
    count_nonzero => |w, x| one(np::count_nonzero(w.w(&x.i), None, false));
    cumprod => |w, x| one(np::cumprod(w.w(&x.g), None));
    cumsum => |w, x| one(np::cumsum(w.w(&x.i), None));
    cumsum_with => |w, x| one(np::cumsum_with(w.w(&x.i), None, Some(DType::Int8)));
    cumprod_with => |w, x| one(np::cumprod_with(w.w(&x.f), None, Some(DType::Float32)));
    logsumexp => |w, x| one(np::logsumexp(w.w(&x.f), None, false));
    max => |w, x| one(np::max(w.w(&x.m), Some(&[0]), false));
    mean => |w, x| one(np::mean(w.w(&x.m), None, true));
    median => |w, x| one(np::median(w.w(&x.f), None, false));
    min => |w, x| one(np::min(w.w(&x.i), None, false));
    nanmax => |w, x| one(np::nanmax(w.w(&x.f), None, false));
    nanmean => |w, x| one(np::nanmean(w.w(&x.f), None, false));
    nanmin => |w, x| one(np::nanmin(w.w(&x.f), None, false));
    nansum => |w, x| one(np::nansum(w.w(&x.f), None, false));
    prod => |w, x| one(np::prod(w.w(&x.g), None, false));
    sort => |w, x| one(np::sort(w.w(&x.m), Some(-1)));
    sort_with => |w, x| one(np::sort_with(w.w(&x.m), Some(0), true, true));
    std => |w, x| one(np::std(w.w(&x.f), None, 1, false));
    sum => |w, x| one(np::sum(w.w(&x.t), Some(&[0, 2]), false));
    sum_with => |w, x| one(np::sum_with(w.w(&x.t), Some(&[0, 2]), false, Some(DType::Int32)));
    prod_with => |w, x| one(np::prod_with(w.w(&x.f), None, true, Some(DType::Float16)));
    max_with => |w, x| one(np::max_with(w.w(&x.m), Some(&[0]), false, np::ReduceOptions::new().initial(1.0)));
    min_with => |w, x| one(np::min_with(w.w(&x.f), None, false, np::ReduceOptions::new().initial(-1.0).where_(&x.b)));
    amax_with => |w, x| one(np::amax_with(w.w(&x.f), None, true, np::ReduceOptions::new().initial(0.5).where_(&x.b)));
    amin_with => |w, x| one(np::amin_with(w.w(&x.m), Some(&[1]), false, np::ReduceOptions::new().initial(0.5)));
    nanmax_with => |w, x| one(np::nanmax_with(w.w(&np::log(&x.f)?), None, false, np::ReduceOptions::new().initial(-3.0).where_(&x.b)));
    nanmin_with => |w, x| one(np::nanmin_with(w.w(&np::log(&x.m)?), Some(&[1]), false, np::ReduceOptions::new().initial(9.0)));
    all_with => |w, x| one(np::all_with(w.w(&x.f), None, false, np::ReduceOptions::new().where_(&x.b)));
    any_with => |w, x| one(np::any_with(w.w(&x.f), None, false, np::ReduceOptions::new().where_(&x.b)));
    mean_with => |w, x| one(np::mean_with(w.w(&x.i), None, false, Some(DType::Int32)));
    nansum_with => |w, x| one(np::nansum_with(w.w(&x.f), None, false, Some(DType::Int32)));
    nanprod_with => |w, x| one(np::nanprod_with(w.w(&x.f), None, false, Some(DType::Float32)));
    nanmean_with => |w, x| one(np::nanmean_with(w.w(&x.f), None, false, Some(DType::Float16)));
    var => |w, x| one(np::var(w.w(&x.f), None, 0, false));
    // shapes
    atleast_1d => |w, x| one(np::atleast_1d(w.w(&x.f)));
    atleast_2d => |w, x| one(np::atleast_2d(w.w(&x.f)));
    atleast_3d => |w, x| one(np::atleast_3d(w.w(&x.f)));
    broadcast_arrays => |w, x| np::broadcast_arrays(vec![w.w(&x.f), w.w(&x.m.slice(olympus::s![.., 0..1]).unwrap())]);
    broadcast_to => |w, x| one(np::broadcast_to(w.w(&x.f), &[2, 5]));
    expand_dims => |w, x| one(np::expand_dims(w.w(&x.f), &[0]));
    flip => |w, x| one(np::flip(w.w(&x.m), None));
    moveaxis => |w, x| one(np::moveaxis(w.w(&x.t), &[0], &[-1]));
    ravel => |w, x| one(np::ravel(w.w(&x.m)));
    reshape => |w, x| one(np::reshape(w.w(&x.t), &[4, -1]));
    squeeze => |w, x| one(np::squeeze(w.w(&np::expand_dims(&x.f, &[0])?), None));
    swapaxes => |w, x| one(np::swapaxes(w.w(&x.t), 0, 2));
    transpose => |w, x| one(np::transpose(w.w(&x.t), None));
    // elementwise
    abs => |w, x| one(np::abs(w.w(&x.i)));
    absolute => |w, x| one(np::absolute(w.w(&x.f)));
    add => |w, x| one(np::add(w.w(&x.f), w.w(&x.g)));
    allclose => |w, x| one(np::allclose(w.w(&x.f), w.w(&x.g), 1e-5, 1e-8, false));
    arccos => |w, x| one(np::arccos(w.w(&x.u1)));
    arccosh => |w, x| one(np::arccosh(w.w(&x.j)));
    arcsin => |w, x| one(np::arcsin(w.w(&x.u1)));
    arcsinh => |w, x| one(np::arcsinh(w.w(&x.f)));
    arctan => |w, x| one(np::arctan(w.w(&x.f)));
    arctan2 => |w, x| one(np::arctan2(w.w(&x.f), w.w(&x.g)));
    arctanh => |w, x| one(np::arctanh(w.w(&x.u1)));
    array_equal => |w, x| one(np::array_equal(w.w(&x.f), w.w(&x.f), false));
    bitwise_and => |w, x| one(np::bitwise_and(w.w(&x.i), w.w(&x.j)));
    bitwise_not => |w, x| one(np::bitwise_not(w.w(&x.u)));
    bitwise_or => |w, x| one(np::bitwise_or(w.w(&x.b), w.w(&x.b)));
    bitwise_xor => |w, x| one(np::bitwise_xor(w.w(&x.i), w.w(&x.j)));
    cbrt => |w, x| one(np::cbrt(w.w(&x.f)));
    ceil => |w, x| one(np::ceil(w.w(&x.f)));
    clip => |w, x| one(np::clip(w.w(&x.f), w.w(&x.u1), 2.0));
    copysign => |w, x| one(np::copysign(w.w(&x.g), w.w(&x.f)));
    cos => |w, x| one(np::cos(w.w(&x.f)));
    cosh => |w, x| one(np::cosh(w.w(&x.f)));
    deg2rad => |w, x| one(np::deg2rad(w.w(&x.f)));
    divide => |w, x| one(np::divide(w.w(&x.i), w.w(&x.j)));
    equal => |w, x| one(np::equal(w.w(&x.i), w.w(&x.j)));
    exp => |w, x| one(np::exp(w.w(&x.f)));
    exp2 => |w, x| one(np::exp2(w.w(&x.f)));
    expm1 => |w, x| one(np::expm1(w.w(&x.f)));
    floor => |w, x| one(np::floor(w.w(&x.f)));
    floor_divide => |w, x| one(np::floor_divide(w.w(&x.i), w.w(&x.j)));
    fmax => |w, x| one(np::fmax(w.w(&x.f), w.w(&x.g)));
    fmin => |w, x| one(np::fmin(w.w(&x.f), w.w(&x.g)));
    fmod => |w, x| one(np::fmod(w.w(&x.i), w.w(&x.j)));
    gcd => |w, x| one(np::gcd(w.w(&x.i), w.w(&x.j)));
    greater => |w, x| one(np::greater(w.w(&x.f), w.w(&x.g)));
    greater_equal => |w, x| one(np::greater_equal(w.w(&x.f), w.w(&x.g)));
    hypot => |w, x| one(np::hypot(w.w(&x.f), w.w(&x.g)));
    invert => |w, x| one(np::invert(w.w(&x.b)));
    isclose => |w, x| one(np::isclose(w.w(&x.f), w.w(&x.g), 1e-5, 1e-8, false));
    isfinite => |w, x| one(np::isfinite(w.w(&x.f)));
    isinf => |w, x| one(np::isinf(w.w(&x.f)));
    isnan => |w, x| one(np::isnan(w.w(&x.f)));
    lcm => |w, x| one(np::lcm(w.w(&x.i), w.w(&x.j)));
    left_shift => |w, x| one(np::left_shift(w.w(&x.u), w.w(&x.j)));
    less => |w, x| one(np::less(w.w(&x.f), w.w(&x.g)));
    less_equal => |w, x| one(np::less_equal(w.w(&x.i), w.w(&x.j)));
    log => |w, x| one(np::log(w.w(&x.g)));
    log10 => |w, x| one(np::log10(w.w(&x.g)));
    log1p => |w, x| one(np::log1p(w.w(&x.g)));
    log2 => |w, x| one(np::log2(w.w(&x.g)));
    logaddexp => |w, x| one(np::logaddexp(w.w(&x.f), w.w(&x.g)));
    logaddexp2 => |w, x| one(np::logaddexp2(w.w(&x.f), w.w(&x.g)));
    logical_and => |w, x| one(np::logical_and(w.w(&x.b), w.w(&x.i)));
    logical_not => |w, x| one(np::logical_not(w.w(&x.b)));
    logical_or => |w, x| one(np::logical_or(w.w(&x.b), w.w(&x.f)));
    logical_xor => |w, x| one(np::logical_xor(w.w(&x.b), w.w(&x.b)));
    maximum => |w, x| one(np::maximum(w.w(&x.f), w.w(&x.g)));
    minimum => |w, x| one(np::minimum(w.w(&x.i), w.w(&x.j)));
    multiply => |w, x| one(np::multiply(w.w(&x.f), w.w(&x.i)));
    nan_to_num => |w, x| one(np::nan_to_num(w.w(&np::divide(&x.f, 0.0)?), 0.0, None, None));
    negative => |w, x| one(np::negative(w.w(&x.u)));
    not_equal => |w, x| one(np::not_equal(w.w(&x.f), w.w(&x.g)));
    positive => |w, x| one(np::positive(w.w(&x.f)));
    power => |w, x| one(np::power(w.w(&x.g), w.w(&x.f)));
    r#mod => |w, x| one(np::r#mod(w.w(&x.i), w.w(&x.j)));
    r#where => |w, x| one(np::r#where(w.w(&x.b), w.w(&x.f), w.w(&x.g)));
    rad2deg => |w, x| one(np::rad2deg(w.w(&x.f)));
    reciprocal => |w, x| one(np::reciprocal(w.w(&x.g)));
    remainder => |w, x| one(np::remainder(w.w(&x.f), w.w(&x.g)));
    right_shift => |w, x| one(np::right_shift(w.w(&x.i), w.w(&x.j)));
    rint => |w, x| one(np::rint(w.w(&x.f)));
    round => |w, x| one(np::round(w.w(&x.f), 1));
    acos => |w, x| one(np::acos(w.w(&x.u1)));
    acosh => |w, x| one(np::acosh(w.w(&x.g)));
    asin => |w, x| one(np::asin(w.w(&x.u1)));
    asinh => |w, x| one(np::asinh(w.w(&x.f)));
    atan => |w, x| one(np::atan(w.w(&x.f)));
    atanh => |w, x| one(np::atanh(w.w(&x.u1)));
    atan2 => |w, x| one(np::atan2(w.w(&x.f), w.w(&x.g)));
    bitwise_invert => |w, x| one(np::bitwise_invert(w.w(&x.i)));
    bitwise_count => |w, x| one(np::bitwise_count(w.w(&x.i)));
    packbits => |w, x| one(np::packbits(w.w(&x.i), None, np::BitOrder::Big));
    unpackbits => |w, x| one(np::unpackbits(
        w.w(&x.i.astype(DType::UInt8).unwrap()),
        Some(0),
        Some(-3),
        np::BitOrder::Little,
    ));
    bitwise_left_shift => |w, x| one(np::bitwise_left_shift(w.w(&x.u), w.w(&x.j)));
    bitwise_right_shift => |w, x| one(np::bitwise_right_shift(w.w(&x.i), w.w(&x.j)));
    pow => |w, x| one(np::pow(w.w(&x.g), w.w(&x.f)));
    degrees => |w, x| one(np::degrees(w.w(&x.f)));
    radians => |w, x| one(np::radians(w.w(&x.f)));
    fabs => |w, x| one(np::fabs(w.w(&x.i)));
    isneginf => |w, x| one(np::isneginf(w.w(&x.f)));
    isposinf => |w, x| one(np::isposinf(w.w(&x.f)));
    amax => |w, x| one(np::amax(w.w(&x.m), Some(&[1]), true));
    amin => |w, x| one(np::amin(w.w(&x.m), None, false));
    ptp => |w, x| one(np::ptp(w.w(&x.m), Some(&[0]), false));
    cumulative_sum => |w, x| one(np::cumulative_sum(w.w(&x.m), Some(1), None, true));
    cumulative_prod => |w, x| one(np::cumulative_prod(w.w(&x.g), None, Some(DType::Float32), false));
    permute_dims => |w, x| one(np::permute_dims(w.w(&x.t), &[2, 0, 1]));
    matrix_transpose => |w, x| one(np::matrix_transpose(w.w(&x.t)));
    fliplr => |w, x| one(np::fliplr(w.w(&x.m)));
    flipud => |w, x| one(np::flipud(w.w(&x.m)));
    concat => |w, x| one(np::concat(vec![w.w(&x.m), w.w(&x.n)], None));
    copy => |w, x| one(np::copy(w.w(&x.t)));
    heaviside => |w, x| one(np::heaviside(w.w(&x.f), w.w(&x.g)));
    sinc => |w, x| one(np::sinc(w.w(&x.f)));
    rot90 => |w, x| one(np::rot90(w.w(&x.t), 1, (0, 2)));
    hsplit => |w, x| np::hsplit(w.w(&x.m), 3);
    vsplit => |w, x| np::vsplit(w.w(&x.m), 3);
    dsplit => |w, x| np::dsplit(w.w(&x.t), 2);
    column_stack => |w, x| one(np::column_stack(vec![w.w(&x.f), w.w(&x.g)]));
    logspace => |w, x| one(np::logspace(0.0, 2.0, 5, true, 10.0));
    logspace_with => |w, x| one(np::logspace_with(0.0, 2.0, 5, true, 10.0, DType::Int32));
    tri => |w, x| one(np::tri(3, Some(4), 1, None));
    sign => |w, x| one(np::sign(w.w(&x.i)));
    signbit => |w, x| one(np::signbit(w.w(&x.f)));
    sin => |w, x| one(np::sin(w.w(&x.f)));
    sinh => |w, x| one(np::sinh(w.w(&x.f)));
    sqrt => |w, x| one(np::sqrt(w.w(&x.g)));
    square => |w, x| one(np::square(w.w(&x.i)));
    subtract => |w, x| one(np::subtract(w.w(&x.u), w.w(&x.u)));
    tan => |w, x| one(np::tan(w.w(&x.f)));
    tanh => |w, x| one(np::tanh(w.w(&x.f)));
    true_divide => |w, x| one(np::true_divide(w.w(&x.f), w.w(&x.g)));
    trunc => |w, x| one(np::trunc(w.w(&x.f)));
    // statistics, searches and sets
    diff => |w, x| one(np::diff(w.w(&x.t), 2, 1, None, Some(&x.t.slice(olympus::s![.., ..1, ..])?)));
    ediff1d => |w, x| one(np::ediff1d(w.w(&x.i), Some(&x.j), None));
    trapezoid => |w, x| one(np::trapezoid(w.w(&x.m), Some(&x.n), 1.0, 0));
    average => |w, x| one(np::average(w.w(&x.m), Some(&[1]), Some(&x.n), false));
    cov => |w, x| one(np::cov(w.w(&x.m), Some(&x.n), false, false, None));
    average_returned => |w, x| { let (a, s) = np::average_returned(w.w(&x.m), Some(&[1]), Some(&x.n), false)?; Ok(vec![a, s]) };
    cov_with => |w, x| one(np::cov_with(w.w(&x.m), None, true, false, None, None, Some(&np::array([0.5f32, 1.0, 2.0])?)));
    corrcoef => |w, x| one(np::corrcoef(w.w(&x.t.slice(olympus::s![0])?), None, true));
    quantile => |w, x| one(np::quantile(w.w(&x.t), w.w(&np::array([0.1f32, 0.5, 0.8])?), Some(&[0, 2]), np::QuantileMethod::Linear, true));
    percentile => |w, x| one(np::percentile(w.w(&x.m), 30.0, Some(&[0]), np::QuantileMethod::Nearest, false));
    nanquantile => |w, x| one(np::nanquantile(w.w(&np::log(&x.f)?), 0.4, None, np::QuantileMethod::Linear, false));
    nanpercentile => |w, x| one(np::nanpercentile(w.w(&np::log(&x.m)?), 70.0, Some(&[1]), np::QuantileMethod::Midpoint, false));
    nanmedian => |w, x| one(np::nanmedian(w.w(&np::log(&x.m)?), Some(&[0]), true));
    nanprod => |w, x| one(np::nanprod(w.w(&np::log(&x.f)?), None, false));
    nanvar => |w, x| one(np::nanvar(w.w(&np::log(&x.m)?), Some(&[1]), 1, false));
    nanstd => |w, x| one(np::nanstd(w.w(&np::log(&x.m)?), None, 0, true));
    nanvar_with => |w, x| one(np::nanvar_with(w.w(&np::log(&x.m)?), Some(&[1]), 1, false, np::ReduceOptions::new().where_(&np::greater(&x.m, 0.3)?)));
    nanstd_with => |w, x| one(np::nanstd_with(w.w(&np::log(&x.m)?), None, 0, true, DType::Float16));
    var_with => |w, x| one(np::var_with(w.w(&x.f), None, 0, false, np::ReduceOptions::new().where_(&x.b)));
    std_with => |w, x| one(np::std_with(w.w(&x.m), Some(&[0]), 1, true, np::ReduceOptions::new().mean(&np::ones(&[1, 3], DType::Float32)?)));
    nanargmax => |w, x| one(np::nanargmax(w.w(&np::log(&x.m)?), Some(1), false));
    nanargmin => |w, x| one(np::nanargmin(w.w(&np::log(&x.f)?), None, false));
    nancumsum => |w, x| one(np::nancumsum(w.w(&np::log(&x.m)?), Some(0)));
    nancumprod => |w, x| one(np::nancumprod(w.w(&np::log(&x.f)?), None));
    nancumsum_with => |w, x| one(np::nancumsum_with(w.w(&np::log(&x.m)?), Some(0), Some(DType::Float16)));
    nancumprod_with => |w, x| one(np::nancumprod_with(w.w(&np::log(&x.f)?), None, Some(DType::Int32)));
    searchsorted => |w, x| one(np::searchsorted(w.w(&np::sort(&x.f, None)?), w.w(&x.m), np::Side::Right, None));
    digitize => |w, x| one(np::digitize(w.w(&x.m), w.w(&np::sort(&x.g, None)?), false));
    bincount => |w, x| one(np::bincount(w.w(&x.j), Some(&x.f), 0, Some(5)));
    histogram => |w, x| { let (h, e) = np::histogram(w.w(&x.t), 4, None, None, true)?; Ok(vec![h, e]) };
    histogram_bin_edges => |w, x| one(np::histogram_bin_edges(w.w(&x.f), 3, Some((-1.0, 2.0))));
    interp => |w, x| one(np::interp(w.w(&x.m), w.w(&np::sort(&x.f, None)?), w.w(&x.g), None, Some(9.0), None));
    unique => |w, x| one(np::unique(w.w(&x.i), None, None));
    unique_values => |w, x| one(np::unique_values(w.w(&x.m), Some(12), Some(-1.0)));
    unique_counts => |w, x| { let (v, c) = np::unique_counts(w.w(&x.b), Some(3), None)?; Ok(vec![v, c]) };
    unique_inverse => |w, x| { let (v, i) = np::unique_inverse(w.w(&x.j), Some(5), None)?; Ok(vec![v, i]) };
    unique_with => |w, x| { let o = np::UniqueOptions { return_index: true, return_inverse: true, return_counts: true, size: Some(6), ..Default::default() }; let u = np::unique_with(w.w(&x.f), o)?; Ok(vec![u.values, u.indices.unwrap(), u.inverse.unwrap(), u.counts.unwrap()]) };
    unique_all => |w, x| { let u = np::unique_all(w.w(&x.f), Some(6), Some(0.5))?; Ok(vec![u.values, u.indices, u.inverse_indices, u.counts]) };
    isin => |w, x| one(np::isin(w.w(&x.j), w.w(&x.i), false));
    intersect1d => |w, x| one(np::intersect1d(w.w(&x.i), w.w(&x.j), false, Some(4), None));
    intersect1d_indices => |w, x| { let (v, i, j) = np::intersect1d_indices(w.w(&x.i), w.w(&x.j), false, Some(4), None)?; Ok(vec![v, i, j]) };
    union1d => |w, x| one(np::union1d(w.w(&x.i), w.w(&x.j), Some(11), None));
    setdiff1d => |w, x| one(np::setdiff1d(w.w(&x.j), w.w(&x.i), false, Some(5), None));
    setxor1d => |w, x| one(np::setxor1d(w.w(&x.j), w.w(&x.i), false, None, None));
    // grids, diagonals, polynomials and small arithmetic
    meshgrid => |w, x| np::meshgrid(vec![w.w(&x.f), w.w(&x.idx)], false, np::Indexing::Xy);
    indices => |w, x| one(np::indices(&[2, 3], None));
    ix_ => |w, x| np::ix_(vec![w.w(&x.idx), w.w(&x.j)]);
    diag => |w, x| one(np::diag(w.w(&x.f), -1));
    diagflat => |w, x| one(np::diagflat(w.w(&x.m), 1));
    diag_indices => |w, x| np::diag_indices(3, 2);
    diag_indices_from => |w, x| np::diag_indices_from(w.w(&x.m));
    tril_indices => |w, x| { let (r, c) = np::tril_indices(3, 0, Some(4))?; Ok(vec![r, c]) };
    triu_indices => |w, x| { let (r, c) = np::triu_indices(3, 1, None)?; Ok(vec![r, c]) };
    tril_indices_from => |w, x| { let (r, c) = np::tril_indices_from(w.w(&x.m), -1)?; Ok(vec![r, c]) };
    triu_indices_from => |w, x| { let (r, c) = np::triu_indices_from(w.w(&x.m), 0)?; Ok(vec![r, c]) };
    unravel_index => |w, x| np::unravel_index(w.w(&x.i), &[2, 3]);
    vander => |w, x| one(np::vander(w.w(&x.f), Some(4), false));
    kron => |w, x| one(np::kron(w.w(&x.m), w.w(&x.n)));
    append => |w, x| one(np::append(w.w(&x.m), w.w(&x.n), Some(0)));
    resize => |w, x| one(np::resize(w.w(&x.f), &[3, 4]));
    rollaxis => |w, x| one(np::rollaxis(w.w(&x.t), 2, 0));
    unstack => |w, x| np::unstack(w.w(&x.t), 1);
    array_equiv => |w, x| one(np::array_equiv(w.w(&x.m), w.w(&x.m.slice(olympus::s![..1])?)));
    fill_diagonal => |w, x| one(np::fill_diagonal(w.w(&x.m), w.w(&x.idx), false));
    flatnonzero => |w, x| one(np::flatnonzero(w.w(&x.i), Some(5), None));
    geomspace => |w, x| one(np::geomspace(1.0, 1000.0, 4, true, None));
    hamming => |w, x| one(np::hamming(5));
    hanning => |w, x| one(np::hanning(6));
    bartlett => |w, x| one(np::bartlett(5));
    blackman => |w, x| one(np::blackman(7));
    broadcast_shapes => |w, x| one(np::asarray(np::broadcast_shapes(&[&[2, 1], &[3]])?.iter().map(|&d| d as i32).collect::<Vec<_>>()));
    polyval => |w, x| one(np::polyval(w.w(&x.g), w.w(&x.m)));
    polyadd => |w, x| one(np::polyadd(w.w(&x.f), w.w(&x.idx)));
    polysub => |w, x| one(np::polysub(w.w(&x.idx), w.w(&x.g)));
    polyder => |w, x| one(np::polyder(w.w(&x.f), 2));
    polyint => |w, x| one(np::polyint(w.w(&x.g), 2, Some(&[1.0, -2.0])));
    cross => |w, x| one(np::cross(w.w(&x.m), w.w(&x.n), -1));
    cross_with => |w, x| one(np::cross_with(w.w(&x.m), w.w(&x.n), 0, -1, 0));
    matvec => |w, x| one(np::matvec(w.w(&x.t.slice(olympus::s![.., .., ..3])?), w.w(&x.g.slice(olympus::s![..3])?)));
    vecmat => |w, x| one(np::vecmat(w.w(&x.g.slice(olympus::s![..3])?), w.w(&x.t)));
    vecdot => |w, x| one(np::vecdot(w.w(&x.m), w.w(&x.n), 0));
    vecdot_with => |w, x| one(np::vecdot_with(w.w(&x.m), w.w(&x.n), 0, np::Precision::High));
    around => |w, x| one(np::around(w.w(&x.f), 1));
    divmod => |w, x| { let (q, r) = np::divmod(w.w(&x.i), w.w(&x.j))?; Ok(vec![q, r]) };
    modf => |w, x| { let (f, i) = np::modf(w.w(&x.f))?; Ok(vec![f, i]) };
    frexp => |w, x| { let (m, e) = np::frexp(w.w(&x.f))?; Ok(vec![m, e]) };
    ldexp => |w, x| one(np::ldexp(w.w(&x.f), w.w(&x.i)));
    float_power => |w, x| one(np::float_power(w.w(&x.g), w.w(&x.i)));
    // choosing, updates, partitions, float neighbours, convolutions, histograms, dtype questions
    select => |w, x| one(np::select(vec![w.w(&np::less(&x.f, 0.0)?), w.w(&x.b)], vec![w.w(&x.g), w.w(&x.f)], 7.0));
    choose => |w, x| one(np::choose(w.w(&x.i), vec![w.w(&x.f), w.w(&x.g)], np::IndexMode::Wrap));
    piecewise => |w, x| one(np::piecewise(w.w(&x.f), vec![w.w(&x.b)], vec![np::Piece::func(|v| np::exp(v)), np::Piece::Value(-1.0)]));
    place => |w, x| one(np::place(w.w(&x.f), w.w(&x.b), w.w(&x.g.slice(olympus::s![..2])?)));
    put => |w, x| one(np::put(w.w(&x.m), w.w(&x.idx), w.w(&x.f), np::IndexMode::Wrap));
    put_along_axis => |w, x| one(np::put_along_axis(w.w(&x.m), w.w(&np::argsort(&x.n, Some(1))?), w.w(&x.n), Some(1), np::IndexMode::Fill));
    delete => |w, x| one(np::delete(w.w(&x.t), &[0, -1], Some(2)));
    insert => |w, x| one(np::insert(w.w(&x.m), &[0, 3], w.w(&x.g.slice(olympus::s![..2])?), Some(1)));
    trim_zeros => |w, x| one(np::trim_zeros(w.w(&x.u), "fb"));
    ravel_multi_index => |w, x| one(np::ravel_multi_index(vec![w.w(&x.idx), w.w(&x.j.slice(olympus::s![..3])?)], &[3, 5], np::IndexMode::Clip));
    ravel_multi_index_with => |w, x| one(np::ravel_multi_index_with(vec![w.w(&x.idx), w.w(&x.j.slice(olympus::s![..3])?)], &[3, 5], np::IndexMode::Wrap, np::Order::F, None));
    lexsort => |w, x| one(np::lexsort(vec![w.w(&x.f), w.w(&x.b)], -1));
    partition => |w, x| one(np::partition(w.w(&x.t), 1, 1));
    argpartition => |w, x| one(np::argpartition(w.w(&x.f), -2, 0));
    block => |w, x| one(np::block(vec![vec![x.m.clone(), x.n.clone()]]));
    nextafter => |w, x| one(np::nextafter(w.w(&x.f), w.w(&x.g)));
    spacing => |w, x| one(np::spacing(w.w(&x.m)));
    gradient => |w, x| np::gradient(w.w(&x.t), &[0.5], Some(&[0, 2]));
    gradient_with => |w, x| np::gradient_with(w.w(&x.t), &[np::Spacing::Step(0.5), x.g.slice(olympus::s![..4])?.into()], Some(&[0, 2]));
    unwrap => |w, x| one(np::unwrap(w.w(&np::multiply(&x.m, 3.0)?), None, 0, std::f64::consts::TAU));
    convolve => |w, x| one(np::convolve(w.w(&x.f), w.w(&x.idx), np::ConvMode::Same));
    correlate => |w, x| one(np::correlate(w.w(&x.g), w.w(&x.f), np::ConvMode::Full));
    polymul => |w, x| one(np::polymul(w.w(&x.f), w.w(&x.j)));
    polymul_with => |w, x| one(np::polymul_with(w.w(&x.f), w.w(&x.j), true));
    polydiv => |w, x| { let (q, r) = np::polydiv(w.w(&x.g), w.w(&x.u1.slice(olympus::s![3..])?))?; Ok(vec![q, r]) };
    poly => |w, x| one(np::poly(w.w(&x.u1)));
    mask_indices => |w, x| { let (r, c) = np::mask_indices(3, |a, k| np::triu(a, k), 1, Some(4))?; Ok(vec![r, c]) };
    apply_along_axis => |w, x| one(np::apply_along_axis(|r| np::cumsum(r, None), 1, w.w(&x.t)));
    apply_over_axes => |w, x| one(np::apply_over_axes(|a, ax| np::sum(a, Some(&[ax]), false), w.w(&x.t), &[0, 2]));
    vectorize => |w, x| one(np::vectorize(|v: &[Array]| np::maximum(&v[0], &v[1]))(&[np::asarray(w.w(&x.m))?, np::asarray(w.w(&x.g.slice(olympus::s![..3])?))?]));
    fromfunction => |w, x| one(np::fromfunction(|ix| np::add(&ix[0], np::multiply(&ix[1], 10.0)?), &[2, 3], None));
    fromiter => |w, x| one(np::fromiter((0..5).map(|v| v as f32 * 0.5), Some(4)));
    frombuffer => |w, x| one(np::frombuffer(&[0, 0, 128, 63, 0, 0, 0, 64], DType::Float32, None, 0));
    fromfile => |w, x| {
        let p = scratch("raw.bin");
        std::fs::write(&p, [1u8, 0, 0, 0, 2, 0, 0, 0]).map_err(|e| olympus::Error::InvalidArgument { func: "fromfile".into(), reason: e.to_string() })?;
        one(np::fromfile(&p, DType::Int32, None, 4))
    };
    histogramdd => |w, x| { let (h, e) = np::histogramdd(w.w(&x.m), &[np::Bins::Count(2)], None, None, false)?; Ok([vec![h], e].concat()) };
    histogram2d => |w, x| { let (h, a, b) = np::histogram2d(w.w(&x.f), w.w(&x.g), &[np::Bins::Count(3)], None, None, true)?; Ok(vec![h, a, b]) };
    can_cast => |w, x| one(np::asarray(np::can_cast(DType::UInt32, DType::Int32, np::Casting::SameKind)));
    isdtype => |w, x| one(np::asarray(np::isdtype(DType::UInt32, np::Kind::Integral)));
    issubdtype => |w, x| one(np::asarray(np::issubdtype(DType::Float16, np::DTypeClass::Inexact)));
    isscalar => |w, x| one(np::asarray(np::isscalar(w.w(&x.m))?));
    get_printoptions => |w, x| one(np::asarray(np::get_printoptions().precision as i32));
    set_printoptions => |w, x| { np::set_printoptions(np::get_printoptions()); one(np::asarray(1)) };
    printoptions => |w, x| one(np::asarray(np::printoptions(np::get_printoptions(), || np::get_printoptions().linewidth as i32)));
    i0 => |w, x| one(np::i0(w.w(&x.t)));
    kaiser => |w, x| one(np::kaiser(7, 5.0));
    // NumPy files
    save => |w, x| {
        let p = scratch("save.npy");
        np::save(&p, w.w(&x.m))?;
        one(np::load(&p))
    };
    load => |w, x| {
        let p = scratch("load.npy");
        np::save(&p, w.w(&x.i))?;
        one(np::load(&p))
    };
    savez => |w, x| {
        let p = scratch("savez.npz");
        np::savez(&p, vec![("f", w.w(&x.f)), ("b", w.w(&x.b))])?;
        Ok(np::load_npz(&p)?.into_values().collect())
    };
    load_npz => |w, x| {
        let p = scratch("load.npz");
        np::savez(&p, vec![("u", w.w(&x.u))])?;
        Ok(np::load_npz(&p)?.into_values().collect())
    };
    // dtype functions (no array arguments)
    promote_types => |w, x| one(np::asarray(np::promote_types(DType::Int32, DType::Float16) == DType::Float16));
    result_type => |w, x| one(np::asarray(np::result_type(&[olympus::TypeSpec::strong(DType::UInt32), olympus::TypeSpec::strong(DType::Int32)]).dtype == DType::Int32));
}

/// The test helpers of `tests/core` (this file uses `words`).
#[path = "core/common.rs"]
#[allow(dead_code)]
mod common;

/// dtype, shape and raw bits of an array.
fn fingerprint(a: &Array) -> (DType, Vec<usize>, Vec<u32>) {
    (a.dtype(), a.shape().to_vec(), common::words(a))
}

fn fingerprints(name: &str, out: &Out) -> Vec<(DType, Vec<usize>, Vec<u32>)> {
    match out {
        Ok(v) => v.iter().map(fingerprint).collect(),
        Err(e) => panic!("{name} failed: {e}"),
    }
}

#[test]
fn every_function_agrees_for_arrays_protocol_types_and_pytrees() {
    let x = inputs();
    let plain = run(&Plain, &x);
    let proto = run(&Proto, &x);
    let tree = run(&Pytree, &x);
    for ((p, q), t) in plain.iter().zip(&proto).zip(&tree) {
        let want = fingerprints(p.0, &p.1);
        assert!(!want.is_empty(), "{}: no result", p.0);
        assert_eq!(
            fingerprints(q.0, &q.1),
            want,
            "{}: the protocol type differs",
            p.0
        );
        assert_eq!(
            fingerprints(t.0, &t.1),
            want,
            "{}: the pytree type differs",
            p.0
        );
    }
}

#[test]
fn lists_mixing_arrays_protocol_types_and_host_data() {
    let x = inputs();
    let (p, t) = (Proto.w(&x.g), Pytree.w(&x.f));
    let fp = |a: Result<Array>| fingerprint(&a.unwrap());
    let host: Vec<f32> = x.f.to_vec().unwrap();
    assert_eq!(
        fp(np::concatenate(arrays![&x.f, p, t, host.clone()], 0)),
        fp(np::concatenate([&x.f, &x.g, &x.f, &x.f], 0))
    );
    assert_eq!(
        fp(np::stack(arrays![p, &x.f, host.clone()], 0)),
        fp(np::stack([&x.g, &x.f, &x.f], 0))
    );
    assert_eq!(fp(np::vstack(arrays![t, p])), fp(np::vstack([&x.f, &x.g])));
    assert_eq!(
        fp(np::hstack(arrays![t, 1.0f32])),
        fp(np::hstack([&x.f, &np::asarray(1.0f32).unwrap()]))
    );
    assert_eq!(fp(np::dstack(arrays![p, p])), fp(np::dstack([&x.g, &x.g])));
    assert_eq!(
        fp(np::einsum("i,i", arrays![t, host.clone()])),
        fp(np::einsum("i,i", [&x.f, &x.f]))
    );
    let b = np::broadcast_arrays(arrays![p, 2.0f32]).unwrap();
    assert_eq!(fingerprint(&b[1]), fp(np::full(&[5], 2.0f32, None)));
}

/// A type whose conversion always fails, but which declares its shape and dtype.
struct Declared;
impl SupportsOlympusArray for Declared {
    fn olympus_array(&self) -> Result<Array> {
        Err(olympus::Error::InvalidArgument {
            func: "Declared".into(),
            reason: "this type never converts".into(),
        })
    }
    fn olympus_shape(&self) -> Option<Vec<usize>> {
        Some(vec![2, 3])
    }
    fn olympus_dtype(&self) -> Option<DType> {
        Some(DType::Float16)
    }
}

#[test]
fn declared_shape_and_dtype_are_used_without_converting() {
    let d = Declared;
    let z = np::zeros_like(&d).unwrap();
    assert_eq!((z.shape(), z.dtype()), (&[2usize, 3][..], DType::Float16));
    assert_eq!(np::ones_like(&d).unwrap().dtype(), DType::Float16);
    assert_eq!(np::empty_like(&d).unwrap().shape(), &[2, 3]);
    assert_eq!(
        np::full_like(&d, 2.5)
            .unwrap()
            .to_vec::<half::f16>()
            .unwrap()[5]
            .to_f32(),
        2.5
    );
    assert_eq!(np::shape(&d).unwrap(), vec![2, 3]);
    assert_eq!(np::ndim(&d).unwrap(), 2);
    assert_eq!(np::size(&d).unwrap(), 6);
    // Anything that needs the data converts, and the failure names the function, the
    // argument position and the Rust type.
    let e = np::add(1.0, &d).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, olympus::Error::Conversion { .. }), "{msg}");
    assert!(
        msg.contains("add") && msg.contains("Declared") && msg.contains("never converts"),
        "{msg}"
    );
    assert!(msg.contains('1'), "position: {msg}");
    let e = np::concatenate(arrays![np::zeros(&[1], DType::Float16).unwrap(), &d], 0).unwrap_err();
    assert!(e.to_string().contains("never converts"), "{e}");
}

#[test]
fn asarray_prefers_the_protocol() {
    // A type that is also a slice-like container: the protocol wins.
    struct Both(Vec<f32>);
    impl SupportsOlympusArray for Both {
        fn olympus_array(&self) -> Result<Array> {
            np::multiply(np::asarray(self.0.clone())?, 10.0)
        }
    }
    impl std::ops::Deref for Both {
        type Target = [f32];
        fn deref(&self) -> &[f32] {
            &self.0
        }
    }
    let b = Both(vec![1.0, 2.0]);
    assert_eq!(
        np::asarray(&b).unwrap().to_vec::<f32>().unwrap(),
        vec![10.0, 20.0]
    );
    assert_eq!(
        np::array(&b).unwrap().to_vec::<f32>().unwrap(),
        vec![10.0, 20.0]
    );
}

olympus::impl_array_ops!(Protocol);

#[test]
fn operators_for_user_types() {
    let x = inputs();
    let p = Protocol(x.g.clone());
    let fp = |a: Result<Array>| fingerprint(&a.unwrap());
    assert_eq!(fp(&x.f + &p), fp(np::add(&x.f, &x.g)));
    assert_eq!(fp(&p * &x.f), fp(np::multiply(&x.g, &x.f)));
    assert_eq!(fp(2.0 - &p), fp(np::subtract(2.0, &x.g)));
    assert_eq!(fp(&p / 4.0), fp(np::divide(&x.g, 4.0)));
    assert_eq!(fp(&p % &p), fp(np::remainder(&x.g, &x.g)));
    assert_eq!(fp(-&p), fp(np::negative(&x.g)));
    assert_eq!(fp(x.f.clone() + &p), fp(np::add(&x.f, &x.g)));
}

/// Every public function of `olympus::numpy` has a row (names parsed from the module's
/// `pub use` lists; types and constants start with a capital letter).
#[test]
fn the_table_covers_every_public_numpy_function() {
    let src = include_str!("../src/numpy/mod.rs");
    let mut exported = Vec::new();
    let mut rest = src;
    while let Some(start) = rest.find("pub use ") {
        let after = &rest[start + 8..];
        let end = after.find(';').unwrap();
        let item = &after[..end];
        let names = match (item.find('{'), item.find('}')) {
            (Some(a), Some(b)) => item[a + 1..b].to_string(),
            _ => item.rsplit("::").next().unwrap().to_string(),
        };
        for n in names.split(',') {
            let n = n.trim();
            if !n.is_empty() && n.chars().next().unwrap().is_lowercase() {
                exported.push(n.to_string());
            }
        }
        rest = &after[end..];
    }
    assert!(exported.len() > 150, "parsed {} names", exported.len());
    let missing: Vec<&String> = exported
        .iter()
        .filter(|n| !NAMES.contains(&n.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "public numpy functions missing from the scaffold table: {missing:?}"
    );
    let stale: Vec<&&str> = NAMES
        .iter()
        .filter(|n| !exported.iter().any(|e| e == *n))
        .collect();
    assert!(
        stale.is_empty(),
        "rows for functions that are not exported: {stale:?}"
    );
}

/// Rows whose functions need values while tracing, as in JAX: data-dependent output shapes
/// (`unique` without a size, boolean masks) and host I/O. Under `jit` they must fail with
/// a clear `Error::Tracing`.
const NEEDS_VALUES: &[&str] = &[
    "extract",
    "compress",
    "save",
    "load",
    "savez",
    "load_npz",
    "unique",
    "setxor1d",
    "trim_zeros",
    "polymul_with",
];

/// Distance in units in the last place between two words of `dtype` (0 for equal bits).
fn ulp_distance(d: DType, a: u32, b: u32) -> u64 {
    let key = |w: u32| -> i64 {
        match d {
            DType::Float32 => {
                let w = w as i32;
                i64::from(if w < 0 { i32::MIN.wrapping_sub(w) } else { w })
            }
            DType::Float16 => {
                let w = w as u16 as i16;
                i64::from(if w < 0 { i16::MIN.wrapping_sub(w) } else { w })
            }
            _ => i64::from(w),
        }
    };
    // Two NaNs agree whatever their signs (which the operations that make them choose:
    // `0 * inf` and `0 / 0` differ between instruction sequences).
    let nan = |w: u32| match d {
        DType::Float32 => f32::from_bits(w).is_nan(),
        DType::Float16 => half::f16::from_bits(w as u16).is_nan(),
        DType::BFloat16 => half::bf16::from_bits(w as u16).is_nan(),
        _ => false,
    };
    if a == b || nan(a) && nan(b) {
        0
    } else {
        key(a).abs_diff(key(b))
    }
}

#[test]
fn jit_of_every_row_equals_the_row() {
    let x = inputs();
    let eager = run(&Plain, &x);
    let mut report = Vec::new();
    for (k, name) in NAMES.iter().enumerate() {
        let f = olympus::jit(move |ins: In| run_row(&Plain, &ins, k)).named(name);
        let args = inputs();
        let got = f.call(args);
        if NEEDS_VALUES.contains(name) {
            match got {
                Err(olympus::Error::Tracing { .. }) => continue,
                other => panic!(
                    "{name}: expected a tracing error, got {:?}",
                    other.map(|v| v.len())
                ),
            }
        }
        let got = match got {
            Ok(v) => v,
            Err(e) => panic!("{name} under jit failed: {e}"),
        };
        let want = fingerprints(name, &eager[k].1);
        let have: Vec<_> = got.iter().map(fingerprint).collect();
        assert_eq!(have.len(), want.len(), "{name}: number of outputs");
        for ((hd, hs, hw), (wd, ws, ww)) in have.iter().zip(&want) {
            assert_eq!((hd, hs), (wd, ws), "{name}: dtype and shape under jit");
            let worst = hw
                .iter()
                .zip(ww)
                .map(|(&a, &b)| ulp_distance(*wd, a, b))
                .max()
                .unwrap_or(0);
            let exact = matches!(wd, DType::Bool | DType::Int32 | DType::UInt32);
            if worst > 0 {
                report.push(format!("{name}: {worst} ulp"));
            }
            assert!(
                if exact { worst == 0 } else { worst <= 1 },
                "{name}: jit differs from eager by {worst} (exact dtypes must be bit-identical, floats within 1 ulp)"
            );
        }
        assert_eq!(f.trace_count(), 1);
    }
    // Floats within one ulp are allowed for transcendentals; say which differed.
    if !report.is_empty() {
        eprintln!("rows within 1 ulp but not bit-identical under jit: {report:?}");
    }
}

/// Example `e` of the batch `vmap_of_every_row_equals_the_stacked_rows` maps over: example
/// 0 is [`inputs`], the others differ in every leaf and keep each leaf's contract (`g` and
/// `j` positive, `u1` in (-1, 1), `idx` valid indices into 5, negative ones included). `f`
/// holds a NaN in example 1 and an infinity in example 2, and `b` is all false in example 1
/// and all true in example 2, so the `nan*`, `is*`, `all` and `any` rows differ between
/// examples too.
fn example_inputs(e: usize) -> In {
    if e == 0 {
        return inputs();
    }
    let a = |v: &[f32], s: &[usize]| Array::from_slice(v, s).unwrap();
    let t = np::astype(np::arange(24).unwrap(), DType::Float32).unwrap();
    if e == 1 {
        In {
            f: a(&[2.5, -0.75, f32::NAN, 4.0, -3.0], &[5]),
            g: a(&[1.5, 0.75, 3.5, 2.0, 0.25], &[5]),
            u1: a(&[0.3, -0.6, 0.8, -0.1, 0.0], &[5]),
            i: Array::from_slice(&[5, -2, 0, 9, 3], &[5]).unwrap(),
            j: Array::from_slice(&[2, 5, 1, 3, 7], &[5]).unwrap(),
            u: Array::from_slice(&[3u32, 7, 0, 12, 100], &[5]).unwrap(),
            b: Array::from_slice(&[false; 5], &[5]).unwrap(),
            m: a(&[-1.0, 0.5, 2.5, 3.0, -2.0, 1.0, 0.0, 4.5, -0.5], &[3, 3]),
            n: a(&[0.5, -1.0, 1.5, 2.0, 0.25, -3.0, 1.0, 2.0, 0.75], &[3, 3]),
            t: np::reshape(
                np::subtract(np::multiply(&t, 0.5).unwrap(), 3.0).unwrap(),
                &[2, 3, 4],
            )
            .unwrap(),
            idx: Array::from_slice(&[-1, 3, 0], &[3]).unwrap(),
        }
    } else {
        In {
            f: a(&[1.75, -2.25, -1.0, f32::NEG_INFINITY, 0.5], &[5]),
            g: a(&[2.5, 4.0, 0.5, 1.0, 5.5], &[5]),
            u1: a(&[-0.5, 0.9, 0.25, -0.75, 0.1], &[5]),
            i: Array::from_slice(&[-7, 4, 1, -1, 6], &[5]).unwrap(),
            j: Array::from_slice(&[3, 1, 4, 2, 5], &[5]).unwrap(),
            u: Array::from_slice(&[1u32, 2, 4, 8, 16], &[5]).unwrap(),
            b: Array::from_slice(&[true; 5], &[5]).unwrap(),
            m: a(
                &[0.75, -3.0, 1.25, 2.0, 0.5, -1.5, 3.5, -0.25, 1.0],
                &[3, 3],
            ),
            n: a(&[-0.5, 2.0, 1.0, 0.0, -1.5, 2.5, 3.0, -2.0, 0.25], &[3, 3]),
            t: np::reshape(
                np::subtract(8.0, np::multiply(&t, 0.75).unwrap()).unwrap(),
                &[2, 3, 4],
            )
            .unwrap(),
            idx: Array::from_slice(&[2, -4, 4], &[3]).unwrap(),
        }
    }
}

/// Rows that cannot be batched under JAX's semantics beyond [`NEEDS_VALUES`] (whose rows
/// must fail under `vmap` with `Error::Tracing`, as under `jit`): none. Each entry would be
/// `(row, one-line reason)`.
const VMAP_UNBATCHABLE: &[(&str, &str)] = &[];

/// Rows skipped because the library's `vmap` is wrong for them (to be fixed in `src/` and
/// removed from this list): `(row, what goes wrong)`. A listed row that passes fails the
/// test, so the list cannot go stale.
const VMAP_KNOWN_BUGS: &[(&str, &str)] = &[];

/// `vmap` over a batch of 3 examples (every leaf of `In` stacked along axis 0) equals
/// stacking the row's outputs for each example, for every row of the table. Rows without
/// array inputs give an output that does not depend on the mapped inputs, broadcast along
/// the batch axis: the row's output repeated. dtype and shape must match exactly; exact
/// dtypes are bit-identical; floats may differ by at most 2 ulp, as the batched kernels of
/// reductions and matrix products may combine terms in another order than the per-example
/// ones (elementwise rows run the same kernels and agree bit for bit).
#[test]
fn vmap_of_every_row_equals_the_stacked_rows() {
    use olympus::tree::{tree_flatten, tree_unflatten};
    const B: usize = 3;
    let examples: Vec<In> = (0..B).map(example_inputs).collect();
    let flat: Vec<Vec<Array>> = examples.iter().map(|e| tree_flatten(e).0).collect();
    let def = tree_flatten(&examples[0]).1;
    // The examples differ in every leaf, so a rule that mixes examples up shows.
    let paths = def.key_paths();
    for (l, path) in paths.iter().enumerate() {
        for e in 1..B {
            for d in 0..e {
                assert_ne!(
                    fingerprint(&flat[e][l]),
                    fingerprint(&flat[d][l]),
                    "examples {d} and {e} agree on {path}"
                );
            }
        }
    }
    let batched = || -> In {
        let leaves: Vec<Array> = (0..flat[0].len())
            .map(|l| np::stack(flat.iter().map(|v| &v[l]), 0).unwrap())
            .collect();
        tree_unflatten(&def, leaves).unwrap()
    };
    let per_example: Vec<Vec<(&'static str, Out)>> =
        examples.iter().map(|e| run(&Plain, e)).collect();
    let mut failures = Vec::new();
    let mut report = Vec::new();
    for (k, name) in NAMES.iter().enumerate() {
        if VMAP_UNBATCHABLE.iter().any(|(n, _)| n == name) {
            continue;
        }
        let f = olympus::vmap(move |ins: In| run_row(&Plain, &ins, k), 0, 0);
        let args = batched();
        let got = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(args))) {
            Ok(r) => r,
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("{name}: vmap panicked: {msg}"));
                continue;
            }
        };
        if NEEDS_VALUES.contains(name) {
            if !matches!(got, Err(olympus::Error::Tracing { .. })) {
                failures.push(format!(
                    "{name}: expected a tracing error under vmap, got {:?}",
                    got.map(|v| v.len())
                ));
            }
            continue;
        }
        let check = || -> std::result::Result<(), String> {
            let got = got.map_err(|e| format!("vmap failed: {e}"))?;
            let outs: Vec<&Vec<Array>> = per_example
                .iter()
                .map(|rows| match &rows[k].1 {
                    Ok(v) => v,
                    Err(e) => panic!("{name} failed eagerly: {e}"),
                })
                .collect();
            if got.len() != outs[0].len() {
                return Err(format!("{} outputs, want {}", got.len(), outs[0].len()));
            }
            for (o, g) in got.iter().enumerate() {
                let want = np::stack(outs.iter().map(|v| &v[o]), 0).unwrap();
                let ((hd, hs, hw), (wd, ws, ww)) = (fingerprint(g), fingerprint(&want));
                if (hd, &hs) != (wd, &ws) {
                    return Err(format!(
                        "output {o}: got {hd} {hs:?}, want {wd} {ws:?} (per-example {:?})",
                        outs[0][o].shape()
                    ));
                }
                let (worst, at) = hw
                    .iter()
                    .zip(&ww)
                    .enumerate()
                    .map(|(p, (&a, &b))| (ulp_distance(wd, a, b), p))
                    .max()
                    .unwrap_or((0, 0));
                let exact = matches!(wd, DType::Bool | DType::Int32 | DType::UInt32);
                if worst > 0 {
                    report.push(format!("{name}: {worst} ulp"));
                }
                if worst > if exact { 0 } else { 2 } {
                    return Err(format!(
                        "output {o} differs by {worst} at flat position {at}: got {:?}, want {:?}",
                        g.to_f64_vec().unwrap(),
                        want.to_f64_vec().unwrap()
                    ));
                }
            }
            Ok(())
        };
        let result = check();
        match (VMAP_KNOWN_BUGS.iter().find(|(n, _)| n == name), result) {
            (None, Ok(())) => {}
            (None, Err(e)) => failures.push(format!("{name}: {e}")),
            (Some(_), Err(_)) => {}
            (Some((_, why)), Ok(())) => failures.push(format!(
                "{name} passes now: remove it from VMAP_KNOWN_BUGS ({why})"
            )),
        }
    }
    if !report.is_empty() {
        eprintln!("rows within 2 ulp but not bit-identical under vmap: {report:?}");
    }
    assert!(
        failures.is_empty(),
        "rows whose vmap differs from the stacked rows:\n{}",
        failures.join("\n")
    );
}

// ----- duck arrays (NEP 30) -----

mod duck {
    use std::collections::BTreeMap;

    use olympus::numpy::{self as np, duck_as, duckarray, DuckArray};
    use olympus::{Array, DType, Error, Result};

    /// A unit: base unit name to exponent (`m/s` is `{m: 1, s: -1}`).
    type Unit = BTreeMap<&'static str, i32>;

    fn unit(parts: &[(&'static str, i32)]) -> Unit {
        parts.iter().copied().filter(|&(_, e)| e != 0).collect()
    }

    /// A unit-carrying quantity: a duck array whose arithmetic checks and combines units.
    #[derive(Clone, Debug)]
    struct Quantity {
        value: Array,
        unit: Unit,
    }

    fn same_unit(func: &str, a: &Unit, b: &Unit) -> Result<()> {
        if a == b {
            Ok(())
        } else {
            Err(Error::InvalidArgument {
                func: func.into(),
                reason: format!("incompatible units {a:?} and {b:?}"),
            })
        }
    }

    impl DuckArray for Quantity {
        fn duck_shape(&self) -> Vec<usize> {
            self.value.shape().to_vec()
        }
        fn duck_dtype(&self) -> DType {
            self.value.dtype()
        }
        fn expand_dims(&self, axis: isize) -> Result<Self> {
            Ok(Quantity {
                value: np::expand_dims(&self.value, &[axis])?,
                unit: self.unit.clone(),
            })
        }
        fn concatenate(arrays: &[Self], axis: isize) -> Result<Self> {
            for q in arrays {
                same_unit("concatenate", &arrays[0].unit, &q.unit)?;
            }
            let values: Vec<&Array> = arrays.iter().map(|q| &q.value).collect();
            Ok(Quantity {
                value: np::concatenate(values, axis)?,
                unit: arrays[0].unit.clone(),
            })
        }
        fn reshape(&self, shape: &[isize]) -> Result<Self> {
            Ok(Quantity {
                value: np::reshape(&self.value, shape)?,
                unit: self.unit.clone(),
            })
        }
        fn transpose(&self, axes: Option<&[isize]>) -> Result<Self> {
            Ok(Quantity {
                value: np::transpose(&self.value, axes)?,
                unit: self.unit.clone(),
            })
        }
        fn add(&self, other: &Self) -> Result<Self> {
            same_unit("add", &self.unit, &other.unit)?;
            Ok(Quantity {
                value: np::add(&self.value, &other.value)?,
                unit: self.unit.clone(),
            })
        }
        fn subtract(&self, other: &Self) -> Result<Self> {
            same_unit("subtract", &self.unit, &other.unit)?;
            Ok(Quantity {
                value: np::subtract(&self.value, &other.value)?,
                unit: self.unit.clone(),
            })
        }
        fn multiply(&self, other: &Self) -> Result<Self> {
            let mut u = self.unit.clone();
            for (k, e) in &other.unit {
                *u.entry(k).or_insert(0) += e;
            }
            u.retain(|_, e| *e != 0);
            Ok(Quantity {
                value: np::multiply(&self.value, &other.value)?,
                unit: u,
            })
        }
        fn sum(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Self> {
            Ok(Quantity {
                value: np::sum(&self.value, axis, keepdims)?,
                unit: self.unit.clone(),
            })
        }
        fn from_array(a: Array) -> Result<Self> {
            Ok(Quantity {
                value: a,
                unit: Unit::new(),
            })
        }
        fn to_array(&self) -> Result<Array> {
            if self.unit.is_empty() {
                Ok(self.value.clone())
            } else {
                Err(Error::InvalidArgument {
                    func: "to_array".into(),
                    reason: format!("would drop the unit {:?}", self.unit),
                })
            }
        }
    }

    /// A masked array: masked elements are left out of reductions.
    #[derive(Clone, Debug)]
    struct Masked {
        data: Array,
        mask: Array,
    }

    impl DuckArray for Masked {
        fn duck_shape(&self) -> Vec<usize> {
            self.data.shape().to_vec()
        }
        fn duck_dtype(&self) -> DType {
            self.data.dtype()
        }
        fn expand_dims(&self, axis: isize) -> Result<Self> {
            Ok(Masked {
                data: np::expand_dims(&self.data, &[axis])?,
                mask: np::expand_dims(&self.mask, &[axis])?,
            })
        }
        fn concatenate(arrays: &[Self], axis: isize) -> Result<Self> {
            Ok(Masked {
                data: np::concatenate(arrays.iter().map(|m| &m.data).collect::<Vec<_>>(), axis)?,
                mask: np::concatenate(arrays.iter().map(|m| &m.mask).collect::<Vec<_>>(), axis)?,
            })
        }
        fn reshape(&self, shape: &[isize]) -> Result<Self> {
            Ok(Masked {
                data: np::reshape(&self.data, shape)?,
                mask: np::reshape(&self.mask, shape)?,
            })
        }
        fn transpose(&self, axes: Option<&[isize]>) -> Result<Self> {
            Ok(Masked {
                data: np::transpose(&self.data, axes)?,
                mask: np::transpose(&self.mask, axes)?,
            })
        }
        fn add(&self, other: &Self) -> Result<Self> {
            Ok(Masked {
                data: np::add(&self.data, &other.data)?,
                mask: np::logical_or(&self.mask, &other.mask)?,
            })
        }
        fn subtract(&self, other: &Self) -> Result<Self> {
            Ok(Masked {
                data: np::subtract(&self.data, &other.data)?,
                mask: np::logical_or(&self.mask, &other.mask)?,
            })
        }
        fn multiply(&self, other: &Self) -> Result<Self> {
            Ok(Masked {
                data: np::multiply(&self.data, &other.data)?,
                mask: np::logical_or(&self.mask, &other.mask)?,
            })
        }
        fn sum(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Self> {
            let kept = np::r#where(&self.mask, 0, &self.data)?;
            Ok(Masked {
                data: np::sum(kept, axis, keepdims)?,
                mask: np::all(&self.mask, axis, keepdims)?,
            })
        }
        fn from_array(a: Array) -> Result<Self> {
            let mask = np::zeros(a.shape(), DType::Bool)?;
            Ok(Masked { data: a, mask })
        }
        fn to_array(&self) -> Result<Array> {
            np::r#where(&self.mask, f32::NAN, &self.data)
        }
    }

    /// NEP 30's example, written once for every duck array.
    fn stack<D: DuckArray>(arrays: &[D], axis: isize) -> Result<D> {
        let expanded = arrays
            .iter()
            .map(|a| a.expand_dims(axis))
            .collect::<Result<Vec<D>>>()?;
        D::concatenate(&expanded, axis)
    }

    fn f32s(a: &Array) -> Vec<f32> {
        a.to_vec::<f32>().unwrap()
    }

    fn metres(v: &[f32]) -> Quantity {
        Quantity {
            value: np::array(v).unwrap(),
            unit: unit(&[("m", 1)]),
        }
    }

    #[test]
    fn generic_stack_keeps_each_input_type() {
        let (a, b) = (
            np::array([1.0f32, 2.0]).unwrap(),
            np::array([3.0f32, 4.0]).unwrap(),
        );
        let want = np::stack(vec![&a, &b], 1).unwrap();

        let plain: Array =
            stack(&[duckarray(a.clone()).unwrap(), duckarray(&b).unwrap()], 1).unwrap();
        assert_eq!((plain.shape(), f32s(&plain)), (want.shape(), f32s(&want)));

        let q = stack(&[metres(&[1.0, 2.0]), metres(&[3.0, 4.0])], 1).unwrap();
        assert_eq!(q.unit, unit(&[("m", 1)]), "the quantity keeps its unit");
        assert_eq!(
            (q.value.shape(), f32s(&q.value)),
            (want.shape(), f32s(&want))
        );

        let m1 = Masked {
            data: a.clone(),
            mask: np::array([false, true]).unwrap(),
        };
        let m2 = Masked {
            data: b.clone(),
            mask: np::array([false, false]).unwrap(),
        };
        let m = stack(&[m1, m2], 0).unwrap();
        assert_eq!(m.data.shape(), &[2, 2]);
        assert_eq!(
            m.mask.to_vec::<bool>().unwrap(),
            [false, true, false, false]
        );
        let total = m.sum(None, false).unwrap();
        assert_eq!(
            total.data.item::<f32>().unwrap(),
            1.0 + 3.0 + 4.0,
            "masked elements left out"
        );
    }

    #[test]
    fn duckarray_returns_duck_types_as_themselves_and_converts_the_rest() {
        let q = metres(&[5.0]);
        let same: Quantity = duckarray(q.clone()).unwrap();
        assert_eq!(same.unit, q.unit);
        // Host data and protocol types (through asarray) become arrays.
        let a: Array = duckarray(vec![1i32, 2, 3]).unwrap();
        assert_eq!((a.dtype(), a.shape()), (DType::Int32, &[3usize][..]));
        let s: Array = duckarray(2.5f32).unwrap();
        assert_eq!(s.ndim(), 0);
        // NEP 30's `__array__` may refuse: a quantity with a unit does not become an array.
        assert!(q
            .to_array()
            .unwrap_err()
            .to_string()
            .contains("would drop the unit"));
    }

    #[test]
    fn a_mix_is_expressed_in_the_duck_type() {
        // Plain arrays join a quantity as dimensionless values.
        let plain = np::array([7.0f32, 8.0]).unwrap();
        let joined: Quantity = duck_as(plain.clone()).unwrap();
        assert!(joined.unit.is_empty());
        let err = stack(&[metres(&[1.0, 2.0]), joined.clone()], 0).unwrap_err();
        assert!(err.to_string().contains("incompatible units"), "{err}");
        let dimensionless = Quantity {
            value: np::array([1.0f32, 2.0]).unwrap(),
            unit: Unit::new(),
        };
        let ok = stack(&[dimensionless, joined], 0).unwrap();
        assert_eq!(f32s(&ok.value), [1.0, 2.0, 7.0, 8.0]);
        // A quantity passes through duck_as unchanged; arithmetic combines units.
        let q: Quantity = duck_as(metres(&[2.0])).unwrap();
        let area = q.multiply(&metres(&[3.0])).unwrap();
        assert_eq!(
            (area.unit.clone(), f32s(&area.value)),
            (unit(&[("m", 2)]), vec![6.0])
        );
        let per_second = Quantity {
            value: np::array([2.0f32]).unwrap(),
            unit: unit(&[("s", -1)]),
        };
        let speed = q.multiply(&per_second).unwrap();
        assert_eq!(speed.unit, unit(&[("m", 1), ("s", -1)]));
        let e = q.add(&per_second).unwrap_err().to_string();
        assert!(e.starts_with("add:"), "{e}");
        // And a masked array lifts a plain one with nothing masked.
        let m: Masked = duck_as(plain).unwrap();
        assert_eq!(m.mask.to_vec::<bool>().unwrap(), [false, false]);
    }
}

// ----- function overrides (NEP 18) -----

mod overrides {
    use std::cell::RefCell;
    use std::sync::{Arc, LazyLock};

    use olympus::numpy::overrides::{ArrayFunction, Call, Param, Registry, Value};
    use olympus::numpy::{self as np, DType};
    use olympus::{arrays, Array, Error, Result, SupportsOlympusArray};

    thread_local! {
        static LOG: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    }

    fn log(s: String) {
        LOG.with(|l| l.borrow_mut().push(s));
    }

    fn take_log() -> Vec<String> {
        LOG.with(|l| std::mem::take(&mut *l.borrow_mut()))
    }

    /// A type whose handler logs each call and handles the functions listed in `handles`
    /// by returning `value` (everything else declines).
    #[derive(Clone)]
    struct Logger {
        name: &'static str,
        data: Array,
        handles: &'static [&'static str],
        value: f32,
    }

    impl ArrayFunction for Logger {
        fn array_function(&self, call: &Call<'_>) -> Option<Result<Value>> {
            log(format!(
                "{}:{}:{:?}",
                self.name,
                call.func(),
                call.types().len()
            ));
            if !self.handles.contains(&call.func()) {
                return None;
            }
            if call.func() == "fail" {
                return Some(Err(Error::InvalidArgument {
                    func: "handler".into(),
                    reason: "boom".into(),
                }));
            }
            Some(Array::scalar(self.value).map(Value::from))
        }
    }

    impl SupportsOlympusArray for Logger {
        fn olympus_array(&self) -> Result<Array> {
            Ok(self.data.clone())
        }
        fn overrides(&self) -> Option<Arc<dyn ArrayFunction>> {
            Some(Arc::new(self.clone()))
        }
    }

    /// A second overriding type (NEP 18 asks one handler per distinct type).
    #[derive(Clone)]
    struct Other(Logger);

    impl ArrayFunction for Other {
        fn array_function(&self, call: &Call<'_>) -> Option<Result<Value>> {
            self.0.array_function(call)
        }
    }

    impl SupportsOlympusArray for Other {
        fn olympus_array(&self) -> Result<Array> {
            Ok(self.0.data.clone())
        }
        fn overrides(&self) -> Option<Arc<dyn ArrayFunction>> {
            Some(Arc::new(self.clone()))
        }
    }

    fn logger(name: &'static str, handles: &'static [&'static str], value: f32) -> Logger {
        Logger {
            name,
            data: np::array([1.0f32, 2.0]).unwrap(),
            handles,
            value,
        }
    }

    #[test]
    fn handlers_are_asked_once_per_type_left_to_right_until_one_handles() {
        let (a1, a2) = (logger("A", &[], 0.0), logger("A", &[], 0.0));
        let b = Other(logger("B", &["add"], 7.0));
        // A declines, B handles: one call per distinct type, in argument order.
        let r = np::add(&a1, np::add(&a2, &b).unwrap()).unwrap();
        // The inner call: A (first argument) then B.
        // The outer call: only A takes part (the inner result is a plain array).
        assert_eq!(take_log(), ["A:add:2", "B:add:2", "A:add:1"]);
        // The outer call was declined by A, so the default ran: [1, 2] + 7.
        assert_eq!(r.to_vec::<f32>().unwrap(), [8.0, 9.0]);
        // B first when it comes first; it handles, so A is never asked.
        let r = np::add(&b, &a1).unwrap();
        assert_eq!(take_log(), ["B:add:2"]);
        assert_eq!(r.item::<f32>().unwrap(), 7.0);
        // Two arguments of one type: one call.
        np::multiply(&a1, &a2).unwrap();
        assert_eq!(take_log(), ["A:multiply:1"]);
    }

    #[test]
    fn arrays_defer_and_handlers_are_found_inside_lists() {
        let a = logger("A", &["concatenate", "subtract"], 3.0);
        let x = np::array([5.0f32]).unwrap();
        // A plain array first still defers to the overriding type.
        assert_eq!(np::subtract(&x, &a).unwrap().item::<f32>().unwrap(), 3.0);
        assert_eq!(take_log(), ["A:subtract:1"]);
        // A list element overrides the list function.
        let r = np::concatenate(arrays![&x, &a, vec![1.0f32]], 0).unwrap();
        assert_eq!(r.item::<f32>().unwrap(), 3.0);
        assert_eq!(take_log(), ["A:concatenate:1"]);
        // A declining handler inside a list: the default joins the converted values.
        let d = logger("D", &[], 0.0);
        let r = np::stack(vec![&d, &d], 0).unwrap();
        assert_eq!(take_log(), ["D:stack:1"]);
        assert_eq!(r.shape(), &[2, 2]);
    }

    /// A type that cannot be converted: without a handler for the call, nothing can run it.
    #[derive(Clone)]
    struct Opaque;

    impl ArrayFunction for Opaque {
        fn array_function(&self, call: &Call<'_>) -> Option<Result<Value>> {
            (call.func() == "sum").then(|| Array::scalar(42i32).map(Value::from))
        }
    }

    impl SupportsOlympusArray for Opaque {
        fn olympus_array(&self) -> Result<Array> {
            Err(Error::InvalidArgument {
                func: "olympus_array".into(),
                reason: "Opaque has no array form".into(),
            })
        }
        fn overrides(&self) -> Option<Arc<dyn ArrayFunction>> {
            Some(Arc::new(Opaque))
        }
    }

    #[test]
    fn declining_everywhere_without_a_default_is_an_error_naming_function_and_types() {
        assert_eq!(
            np::sum(&Opaque, None, false)
                .unwrap()
                .item::<i32>()
                .unwrap(),
            42
        );
        let err = np::sqrt(&Opaque).unwrap_err().to_string();
        assert!(
            err.contains("sqrt") && err.contains("Opaque") && err.contains("declined"),
            "{err}"
        );
        let b = Other(logger("B", &[], 0.0));
        let err = np::add(&b, &Opaque).unwrap_err().to_string();
        assert!(
            err.contains("add") && err.contains("Other") && err.contains("Opaque"),
            "{err}"
        );
        take_log();
    }

    #[test]
    fn an_error_from_a_handler_reaches_the_caller_unchanged() {
        static FAILING: LazyLock<Registry> = LazyLock::new(|| {
            Registry::new().implements("maximum", |_call: &Call<'_>| {
                Err(Error::InvalidArgument {
                    func: "handler".into(),
                    reason: "boom".into(),
                })
            })
        });
        #[derive(Clone)]
        struct Failing;
        impl ArrayFunction for Failing {
            fn array_function(&self, call: &Call<'_>) -> Option<Result<Value>> {
                FAILING.dispatch(call)
            }
        }
        impl SupportsOlympusArray for Failing {
            fn olympus_array(&self) -> Result<Array> {
                np::zeros(&[1], DType::Float32)
            }
            fn overrides(&self) -> Option<Arc<dyn ArrayFunction>> {
                Some(Arc::new(Failing))
            }
        }
        let err = np::maximum(&Failing, 1.0).unwrap_err();
        assert_eq!(
            err,
            Error::InvalidArgument {
                func: "handler".into(),
                reason: "boom".into()
            }
        );
        // Not handled: the default runs on the converted value.
        assert_eq!(
            np::minimum(&Failing, 1.0).unwrap().to_vec::<f32>().unwrap(),
            [0.0]
        );
    }

    /// NEP 18's worked example: a quantity with a unit. `add` and `subtract` check units,
    /// `multiply` multiplies them (and reports the unit through the call log here, since a
    /// numpy function returns an `Array`), `sum` keeps them; the rest decline and run on the
    /// magnitude.
    #[derive(Clone)]
    struct Quantity {
        value: Array,
        unit: &'static str,
    }

    /// The unit of argument `k` ("" for plain arrays and numbers).
    fn unit_of(call: &Call<'_>, k: usize) -> &'static str {
        call.args()
            .get(k)
            .and_then(|a| a.downcast_ref::<Quantity>())
            .map_or("", |q| q.unit)
    }

    static QUANTITY: LazyLock<Registry> = LazyLock::new(|| {
        let same_units = |call: &Call<'_>| -> Result<Value> {
            let (u, v) = (unit_of(call, 0), unit_of(call, 1));
            if u != v {
                return Err(Error::InvalidArgument {
                    func: call.func().into(),
                    reason: format!("cannot combine {u:?} and {v:?}"),
                });
            }
            let (x, y) = (call.args()[0].to_array()?, call.args()[1].to_array()?);
            let r = if call.func() == "add" {
                np::add(x, y)?
            } else {
                np::subtract(x, y)?
            };
            Ok(Value::from(r))
        };
        Registry::new()
            .implements("add", same_units)
            .implements("subtract", same_units)
            .implements("multiply", |call: &Call<'_>| {
                let units = [unit_of(call, 0), unit_of(call, 1)];
                log(format!(
                    "unit {}",
                    units
                        .iter()
                        .filter(|u| !u.is_empty())
                        .cloned()
                        .collect::<Vec<_>>()
                        .join("*")
                ));
                Ok(Value::from(np::multiply(
                    call.args()[0].to_array()?,
                    call.args()[1].to_array()?,
                )?))
            })
            .implements("sum", |call: &Call<'_>| {
                let axis = match call.param("axis") {
                    Some(Param::Ints(v)) => Some(v.iter().map(|&a| a as isize).collect::<Vec<_>>()),
                    _ => None,
                };
                let keepdims = call.param("keepdims") == Some(&Param::Bool(true));
                Ok(Value::from(np::sum(
                    call.args()[0].to_array()?,
                    axis.as_deref(),
                    keepdims,
                )?))
            })
    });

    impl ArrayFunction for Quantity {
        fn array_function(&self, call: &Call<'_>) -> Option<Result<Value>> {
            QUANTITY.dispatch(call)
        }
    }

    impl SupportsOlympusArray for Quantity {
        fn olympus_array(&self) -> Result<Array> {
            Ok(self.value.clone())
        }
        fn overrides(&self) -> Option<Arc<dyn ArrayFunction>> {
            Some(Arc::new(self.clone()))
        }
    }

    #[test]
    fn a_quantity_checks_units_on_add_and_multiplies_them_on_multiply() {
        let m = |v: f32| Quantity {
            value: np::array([v]).unwrap(),
            unit: "m",
        };
        let s = Quantity {
            value: np::array([2.0f32]).unwrap(),
            unit: "s",
        };
        assert_eq!(
            np::add(&m(1.0), &m(2.0)).unwrap().item::<f32>().unwrap(),
            3.0
        );
        let err = np::subtract(&m(1.0), &s).unwrap_err().to_string();
        assert!(err.contains("cannot combine \"m\" and \"s\""), "{err}");
        assert_eq!(
            np::multiply(&m(3.0), &s).unwrap().item::<f32>().unwrap(),
            6.0
        );
        assert_eq!(take_log(), ["unit m*s"]);
        // Parameters arrive by name.
        let q = Quantity {
            value: np::array([[1.0f32, 2.0], [3.0, 4.0]]).unwrap(),
            unit: "m",
        };
        assert_eq!(
            np::sum(&q, Some(&[1]), true)
                .unwrap()
                .to_vec::<f32>()
                .unwrap(),
            [3.0, 7.0]
        );
        // Not handled: the default runs on the magnitude.
        assert_eq!(np::sqrt(&m(9.0)).unwrap().item::<f32>().unwrap(), 3.0);
    }

    /// A masked array: reductions leave masked elements out; everything else declines and
    /// sees masked elements as NaN.
    #[derive(Clone)]
    struct Masked {
        data: Array,
        mask: Array,
    }

    impl ArrayFunction for Masked {
        fn array_function(&self, call: &Call<'_>) -> Option<Result<Value>> {
            let m = call.args()[0].downcast_ref::<Masked>()?;
            let kept = |fill: f32| np::r#where(&m.mask, fill, &m.data);
            Some(match call.func() {
                "sum" => kept(0.0)
                    .and_then(|k| np::sum(k, None, false))
                    .map(Value::from),
                "max" => kept(f32::NEG_INFINITY)
                    .and_then(|k| np::max(k, None, false))
                    .map(Value::from),
                "mean" => (|| {
                    let n = np::sum(np::logical_not(&m.mask)?, None, false)?;
                    np::divide(np::sum(kept(0.0)?, None, false)?, n)
                })()
                .map(Value::from),
                _ => return None,
            })
        }
    }

    impl SupportsOlympusArray for Masked {
        fn olympus_array(&self) -> Result<Array> {
            np::r#where(&self.mask, f32::NAN, &self.data)
        }
        fn overrides(&self) -> Option<Arc<dyn ArrayFunction>> {
            Some(Arc::new(self.clone()))
        }
    }

    #[test]
    fn a_masked_array_overrides_reductions() {
        let m = Masked {
            data: np::array([1.0f32, 100.0, 3.0]).unwrap(),
            mask: np::array([false, true, false]).unwrap(),
        };
        assert_eq!(
            np::sum(&m, None, false).unwrap().item::<f32>().unwrap(),
            4.0
        );
        assert_eq!(
            np::max(&m, None, false).unwrap().item::<f32>().unwrap(),
            3.0
        );
        assert_eq!(
            np::mean(&m, None, false).unwrap().item::<f32>().unwrap(),
            2.0
        );
        // Declined: the protocol conversion (masked elements are NaN) runs.
        let doubled = np::multiply(&m, 2.0).unwrap().to_vec::<f32>().unwrap();
        assert!(doubled[0] == 2.0 && doubled[1].is_nan() && doubled[2] == 6.0);
        // Methods on Array call the functions, so they dispatch too.
        let x = np::array([1.0f32, 1.0, 1.0]).unwrap();
        let q = Quantity {
            value: x.clone(),
            unit: "m",
        };
        assert_eq!(x.multiply(&q).unwrap().to_vec::<f32>().unwrap(), [1.0; 3]);
        assert_eq!(take_log(), ["unit m"]);
        // A plain array and metres do not add.
        let e = x.add(&q).unwrap_err().to_string();
        assert!(e.starts_with("add:"), "{e}");
        take_log();
    }
}
