//! `olympus::numpy`: the NumPy-style API.
//!
//! Every function takes its array arguments as `impl ArrayLike` (arrays, Rust scalars,
//! slices, Vecs, nested arrays, user types implementing
//! [`SupportsOlympusArray`](crate::SupportsOlympusArray)), promotes them with JAX's
//! lattice and weak types, broadcasts them with NumPy's rules, and calls the `lax`
//! primitives. Results are [`Array`]s; errors are [`Error`](crate::Error)s naming the function.

mod arith;
mod bits;
mod covariance;
mod creation;
mod duck;
mod einsum;
mod einsum_paths;
mod floats;
mod functional;
mod grids;
mod indexing;
mod joins;
mod kinds;
mod linalg;
mod methods;
pub mod overrides;
mod polynomials;
mod reduce_options;
mod reductions;
mod select;
mod sets;
mod shapes;
mod stats;
mod ufuncs;
mod windows;

pub use crate::lax::PrintOptions;
pub use arith::{
    append, around, array_equiv, cross, cross_with, divmod, float_power, geomspace, gradient,
    gradient_with, kron, matvec, modf, resize, rollaxis, unstack, unwrap, vecdot, vecdot_with,
    vecmat, Spacing,
};
pub use bits::{packbits, unpackbits, BitOrder};
pub use covariance::{average, average_returned, corrcoef, cov, cov_with};
pub use creation::{
    arange, arange_with, array, asarray, astype, copy, empty, empty_like, empty_like_with, eye,
    full, full_like, full_like_with, identity, linspace, linspace_with, ndim, ones, ones_like,
    ones_like_with, shape, size, zeros, zeros_like, zeros_like_with, ArangeSpec,
};
pub use duck::{duck_as, duckarray, DuckArray, IntoDuckArray};
pub use einsum::{einsum, einsum_path, einsum_with, EinsumPath, EinsumStep};
pub use einsum_paths::EinsumOptimize;
pub use floats::{frexp, ldexp, nextafter, spacing};
pub use functional::{
    apply_along_axis, apply_over_axes, frombuffer, fromfile, fromfunction, fromiter, vectorize,
};
pub use grids::{
    diag, diag_indices, diag_indices_from, diagflat, fill_diagonal, flatnonzero, indices, ix_,
    mask_indices, meshgrid, tril_indices, tril_indices_from, triu_indices, triu_indices_from,
    unravel_index, Indexing,
};
pub use indexing::{
    compress, compress_with, extract, extract_with, take, take_along_axis, take_along_axis_with,
    take_with, At, AtIndex, Ellipsis, IndexMode, NewAxis, Order, SliceElem, SliceSpec,
};
pub use joins::{
    array_split, column_stack, concat, concatenate, concatenate_with, dsplit, dstack, dstack_with,
    hsplit, hstack, hstack_with, pad, repeat, roll, rot90, split, stack, stack_with, tile, tri,
    tril, triu, vsplit, vstack, vstack_with, PadMode, Repeats, Sections,
};
pub use kinds::{
    can_cast, get_printoptions, isdtype, isscalar, issubdtype, printoptions, set_printoptions,
    Casting, DTypeClass, Kind,
};
pub use linalg::{
    diagonal, dot, dot_with, inner, inner_with, matmul, matmul_with, outer, tensordot,
    tensordot_with, trace, trace_with, vdot, vdot_with, DotOptions, Precision,
};
pub use polynomials::{
    convolve, correlate, poly, polyadd, polyder, polydiv, polyint, polymul, polymul_with, polysub,
    polyval, vander, ConvMode,
};
pub use reduce_options::ReduceOptions;
pub use reductions::{
    all, all_with, allclose, amax, amax_with, amin, amin_with, any, any_with, argmax, argmin,
    argsort, argsort_with, array_equal, count_nonzero, cumprod, cumprod_with, cumsum, cumsum_with,
    cumulative_prod, cumulative_sum, logsumexp, max, max_with, mean, mean_with, median, min,
    min_with, nanmax, nanmax_with, nanmean, nanmean_with, nanmin, nanmin_with, nanprod,
    nanprod_with, nansum, nansum_with, prod, prod_with, ptp, sort, sort_with, std, std_with, sum,
    sum_with, var, var_with,
};
pub use select::{
    argpartition, block, choose, delete, insert, lexsort, partition, piecewise, place, put,
    put_along_axis, ravel_multi_index, ravel_multi_index_with, select, trim_zeros, Block, Piece,
    PieceFn,
};
pub use sets::{
    argwhere, intersect1d, intersect1d_indices, isin, nonzero, setdiff1d, setxor1d, union1d,
    unique, unique_all, unique_counts, unique_inverse, unique_values, unique_with, Unique,
    UniqueAll, UniqueOptions,
};
pub use shapes::{
    atleast_1d, atleast_2d, atleast_3d, broadcast_arrays, broadcast_to, expand_dims, flip, fliplr,
    flipud, matrix_transpose, moveaxis, permute_dims, ravel, reshape, squeeze, swapaxes, transpose,
    ShapeArg,
};
pub use stats::{
    bincount, diff, digitize, ediff1d, histogram, histogram2d, histogram_bin_edges, histogramdd,
    interp, nanargmax, nanargmin, nancumprod, nancumprod_with, nancumsum, nancumsum_with,
    nanmedian, nanpercentile, nanquantile, nanstd, nanstd_with, nanvar, nanvar_with, percentile,
    quantile, searchsorted, trapezoid, Bins, QuantileMethod, Side,
};
pub use ufuncs::{
    abs, absolute, acos, acosh, add, arccos, arccosh, arcsin, arcsinh, arctan, arctan2, arctanh,
    asin, asinh, atan, atan2, atanh, bitwise_and, bitwise_count, bitwise_invert,
    bitwise_left_shift, bitwise_not, bitwise_or, bitwise_right_shift, bitwise_xor, cbrt, ceil,
    clip, copysign, cos, cosh, deg2rad, degrees, divide, equal, exp, exp2, expm1, fabs, floor,
    floor_divide, fmax, fmin, fmod, gcd, greater, greater_equal, heaviside, hypot, invert, isclose,
    isfinite, isinf, isnan, isneginf, isposinf, lcm, left_shift, less, less_equal, log, log10,
    log1p, log2, logaddexp, logaddexp2, logical_and, logical_not, logical_or, logical_xor,
    logspace, logspace_with, maximum, minimum, multiply, nan_to_num, negative, not_equal, positive,
    pow, power, r#mod, r#where, rad2deg, radians, reciprocal, remainder, right_shift, rint, round,
    sign, signbit, sin, sinc, sinh, sqrt, square, subtract, tan, tanh, true_divide, trunc,
};
pub use windows::{bartlett, blackman, hamming, hanning, i0, kaiser};

pub use crate::dtype::{promote_types, result_type, DType};
pub use crate::interop::npy::{load, load_npz, save, savez};
pub use crate::shape::broadcast_shapes;

use crate::array::Array;
use crate::convert::{operand_device, Operand};
use crate::dtype::{to_inexact, TypeSpec};
use crate::error::Result;

/// Promotes operands together (JAX's lattice; `inexact` lifts integers to float32 for
/// functions such as `exp`) and materialises host data on the operands' device.
pub(crate) fn promote(func: &str, ops: Vec<Operand>, inexact: bool) -> Result<Vec<Array>> {
    let types: Vec<TypeSpec> = ops.iter().map(|o| o.type_spec()).collect();
    let mut t = result_type(&types);
    if inexact {
        t = to_inexact(t);
    }
    let device = operand_device(func, &ops)?;
    ops.into_iter()
        .map(|o| o.materialize(func, &device, t))
        .collect()
}

/// Two array-likes promoted together ([`promote`]), as a pair.
pub(crate) fn promote_pair(
    func: &str,
    a: impl crate::convert::ArrayLike,
    b: impl crate::convert::ArrayLike,
    inexact: bool,
) -> Result<(Array, Array)> {
    let ops = vec![
        crate::convert::operand(func, 0, a)?,
        crate::convert::operand(func, 1, b)?,
    ];
    let mut v = promote(func, ops, inexact)?.into_iter();
    match (v.next(), v.next()) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => unreachable!("promote returns one array per operand"),
    }
}

/// [`promote`], then broadcasts everything to the common shape (views, no copies).
pub(crate) fn promote_broadcast(
    func: &str,
    ops: Vec<Operand>,
    inexact: bool,
) -> Result<Vec<Array>> {
    let shapes: Vec<Vec<usize>> = ops.iter().map(|o| o.shape()).collect();
    let refs: Vec<&[usize]> = shapes.iter().map(|s| s.as_slice()).collect();
    let shape = crate::shape::broadcast_shapes_for(func, &refs)?;
    promote(func, ops, inexact)?
        .into_iter()
        .map(|a| spread_to(&a, &shape))
        .collect()
}

/// `a` broadcast to `shape` (trailing axes aligned, as NumPy's broadcasting); `a` itself
/// where it has that shape.
pub(crate) fn spread_to(a: &Array, shape: &[usize]) -> Result<Array> {
    if a.shape() == shape {
        return Ok(a.clone());
    }
    let dims: Vec<usize> = (shape.len() - a.ndim()..shape.len()).collect();
    crate::lax::broadcast_in_dim(a, shape, &dims)
}
