//! Every [`numpy`](crate::numpy) function whose first argument is an array, as a method
//! on [`Array`]: `x.sin()` is `np::sin(&x)`, `x.sum(axes, keepdims)` is
//! `np::sum(&x, axes, keepdims)`, `x.matmul(&y)` is `np::matmul(&x, &y)`. Each method
//! calls the function with `self` as its first argument and the other arguments
//! unchanged. Functions whose name is already an inherent method (`shape`, `ndim`,
//! `size`, `astype`) keep that method; `tests/methods.rs` checks that none is missing.

use crate::array::Array;
use crate::convert::ArrayLike;
use crate::dtype::DType;
use crate::error::Result;
use crate::numpy as np;
use crate::numpy::{
    Bins, ConvMode, PadMode, Piece, QuantileMethod, ReduceOptions, Repeats, Sections, Side, Unique,
    UniqueAll, UniqueOptions,
};

/// Generates methods that call the numpy function of the same name with the array as its
/// first argument, from a table: after the block's docs and `;`, one line per method,
/// `name(first, arg: Type, ...) -> Output;` (`first` is the function's name for the array).
macro_rules! array_methods {
    ($(#[$block:meta])* ; $( $name:ident ( $first:ident $(, $arg:ident : $ty:ty)* ) -> $ret:ty; )*) => {
        $(#[$block])*
        impl Array {
            $(
                #[doc = concat!(
                    "[`numpy::", stringify!($name), "`](crate::numpy::", stringify!($name),
                    ") with this array as `", stringify!($first), "`."
                )]
                pub fn $name(&self $(, $arg: $ty)*) -> Result<$ret> {
                    np::$name(self $(, $arg)*)
                }
            )*
        }
    };
}

array_methods! {
    /// Elementwise functions ([`numpy`](crate::numpy) ufuncs) as methods: `x.sin()`, `x.add(&y)`.
    ;
    abs(x) -> Array;
    absolute(x) -> Array;
    add(x, y: impl ArrayLike) -> Array;
    allclose(a, b: impl ArrayLike, rtol: f64, atol: f64, equal_nan: bool) -> Array;
    arccos(x) -> Array;
    arccosh(x) -> Array;
    arcsin(x) -> Array;
    arcsinh(x) -> Array;
    arctan(x) -> Array;
    arctan2(x, y: impl ArrayLike) -> Array;
    arctanh(x) -> Array;
    array_equal(a, b: impl ArrayLike, equal_nan: bool) -> Array;
    bitwise_and(x, y: impl ArrayLike) -> Array;
    bitwise_count(x) -> Array;
    bitwise_not(x) -> Array;
    bitwise_or(x, y: impl ArrayLike) -> Array;
    bitwise_xor(x, y: impl ArrayLike) -> Array;
    cbrt(x) -> Array;
    ceil(x) -> Array;
    clip(x, a_min: impl ArrayLike, a_max: impl ArrayLike) -> Array;
    copysign(x, y: impl ArrayLike) -> Array;
    cos(x) -> Array;
    cosh(x) -> Array;
    deg2rad(x) -> Array;
    divide(x, y: impl ArrayLike) -> Array;
    equal(x, y: impl ArrayLike) -> Array;
    exp(x) -> Array;
    exp2(x) -> Array;
    expm1(x) -> Array;
    floor(x) -> Array;
    floor_divide(x, y: impl ArrayLike) -> Array;
    fmax(x, y: impl ArrayLike) -> Array;
    fmin(x, y: impl ArrayLike) -> Array;
    fmod(x, y: impl ArrayLike) -> Array;
    gcd(x, y: impl ArrayLike) -> Array;
    greater(x, y: impl ArrayLike) -> Array;
    greater_equal(x, y: impl ArrayLike) -> Array;
    hypot(x, y: impl ArrayLike) -> Array;
    invert(x) -> Array;
    isclose(a, b: impl ArrayLike, rtol: f64, atol: f64, equal_nan: bool) -> Array;
    isfinite(x) -> Array;
    isinf(x) -> Array;
    isnan(x) -> Array;
    lcm(x, y: impl ArrayLike) -> Array;
    left_shift(x, y: impl ArrayLike) -> Array;
    less(x, y: impl ArrayLike) -> Array;
    less_equal(x, y: impl ArrayLike) -> Array;
    log(x) -> Array;
    log10(x) -> Array;
    log1p(x) -> Array;
    log2(x) -> Array;
    logaddexp(x, y: impl ArrayLike) -> Array;
    logaddexp2(x, y: impl ArrayLike) -> Array;
    logical_and(x, y: impl ArrayLike) -> Array;
    logical_not(x) -> Array;
    logical_or(x, y: impl ArrayLike) -> Array;
    logical_xor(x, y: impl ArrayLike) -> Array;
    maximum(x, y: impl ArrayLike) -> Array;
    minimum(x, y: impl ArrayLike) -> Array;
    multiply(x, y: impl ArrayLike) -> Array;
    nan_to_num(x, nan: f64, posinf: Option<f64>, neginf: Option<f64>) -> Array;
    negative(x) -> Array;
    not_equal(x, y: impl ArrayLike) -> Array;
    positive(x) -> Array;
    power(x, y: impl ArrayLike) -> Array;
    r#mod(x, y: impl ArrayLike) -> Array;
    r#where(condition, x: impl ArrayLike, y: impl ArrayLike) -> Array;
    rad2deg(x) -> Array;
    reciprocal(x) -> Array;
    remainder(x, y: impl ArrayLike) -> Array;
    right_shift(x, y: impl ArrayLike) -> Array;
    rint(x) -> Array;
    round(x, decimals: i32) -> Array;
    sign(x) -> Array;
    signbit(x) -> Array;
    sinh(x) -> Array;
    sqrt(x) -> Array;
    square(x) -> Array;
    subtract(x, y: impl ArrayLike) -> Array;
    tan(x) -> Array;
    tanh(x) -> Array;
    true_divide(x, y: impl ArrayLike) -> Array;
    trunc(x) -> Array;
}

/// Elementwise functions ([`numpy`](crate::numpy) ufuncs) as methods: `x.sin()`, `x.add(&y)`.
impl Array {
    /// [`numpy::packbits`](crate::numpy::packbits) of this array.
    pub fn packbits(&self, axis: Option<isize>, bitorder: np::BitOrder) -> Result<Array> {
        np::packbits(self, axis, bitorder)
    }

    /// [`numpy::unpackbits`](crate::numpy::unpackbits) of this array.
    pub fn unpackbits(
        &self,
        axis: Option<isize>,
        count: Option<isize>,
        bitorder: np::BitOrder,
    ) -> Result<Array> {
        np::unpackbits(self, axis, count, bitorder)
    }

    /// [`numpy::sin`](crate::numpy::sin) of this array.
    ///
    /// Every [`numpy`](crate::numpy) function whose first argument is an array is also a
    /// method, so computations chain left to right:
    ///
    /// ```
    /// use olympus::numpy as np;
    /// let x = np::array([[0.0f32, 1.0], [2.0, 3.0]])?;
    /// let total = x.sin()?.multiply(2.0)?.sum(None, false)?;
    /// let same = np::sum(np::multiply(np::sin(&x)?, 2.0)?, None, false)?;
    /// assert_eq!(total.to_vec::<f32>()?, same.to_vec::<f32>()?);
    /// let rows = x.reshape(&[4, 1])?.matmul(&x.reshape(&[1, 4])?)?.max(Some(&[1]), false)?;
    /// assert_eq!(rows.shape(), &[4]);
    /// # Ok::<(), olympus::Error>(())
    /// ```
    pub fn sin(&self) -> Result<Array> {
        np::sin(self)
    }
}

array_methods! {
    /// Reductions, scans and sorts as methods: `x.sum(None, false)`, `x.argmax(Some(0), false)`.
    ;
    all(x, axis: Option<&[isize]>, keepdims: bool) -> Array;
    any(x, axis: Option<&[isize]>, keepdims: bool) -> Array;
    argmax(x, axis: Option<isize>, keepdims: bool) -> Array;
    argmin(x, axis: Option<isize>, keepdims: bool) -> Array;
    argsort(x, axis: Option<isize>) -> Array;
    argsort_with(x, axis: Option<isize>, descending: bool, stable: bool) -> Array;
    count_nonzero(x, axis: Option<&[isize]>, keepdims: bool) -> Array;
    cumprod(x, axis: Option<isize>) -> Array;
    cumsum(x, axis: Option<isize>) -> Array;
    cumsum_with(x, axis: Option<isize>, dtype: Option<DType>) -> Array;
    cumprod_with(x, axis: Option<isize>, dtype: Option<DType>) -> Array;
    logsumexp(x, axis: Option<&[isize]>, keepdims: bool) -> Array;
    max(x, axis: Option<&[isize]>, keepdims: bool) -> Array;
    mean(x, axis: Option<&[isize]>, keepdims: bool) -> Array;
    median(x, axis: Option<&[isize]>, keepdims: bool) -> Array;
    min(x, axis: Option<&[isize]>, keepdims: bool) -> Array;
    nanmax(x, axis: Option<&[isize]>, keepdims: bool) -> Array;
    nanmean(x, axis: Option<&[isize]>, keepdims: bool) -> Array;
    nanmin(x, axis: Option<&[isize]>, keepdims: bool) -> Array;
    nansum(x, axis: Option<&[isize]>, keepdims: bool) -> Array;
    prod(x, axis: Option<&[isize]>, keepdims: bool) -> Array;
    sort(x, axis: Option<isize>) -> Array;
    sort_with(x, axis: Option<isize>, descending: bool, stable: bool) -> Array;
    std(x, axis: Option<&[isize]>, ddof: usize, keepdims: bool) -> Array;
    std_with(x, axis: Option<&[isize]>, ddof: usize, keepdims: bool, options: impl Into<ReduceOptions>) -> Array;
    sum(x, axis: Option<&[isize]>, keepdims: bool) -> Array;
    sum_with(x, axis: Option<&[isize]>, keepdims: bool, options: impl Into<ReduceOptions>) -> Array;
    prod_with(x, axis: Option<&[isize]>, keepdims: bool, options: impl Into<ReduceOptions>) -> Array;
    mean_with(x, axis: Option<&[isize]>, keepdims: bool, options: impl Into<ReduceOptions>) -> Array;
    nansum_with(x, axis: Option<&[isize]>, keepdims: bool, options: impl Into<ReduceOptions>) -> Array;
    nanprod_with(x, axis: Option<&[isize]>, keepdims: bool, options: impl Into<ReduceOptions>) -> Array;
    nanmean_with(x, axis: Option<&[isize]>, keepdims: bool, options: impl Into<ReduceOptions>) -> Array;
    max_with(x, axis: Option<&[isize]>, keepdims: bool, options: impl Into<ReduceOptions>) -> Array;
    min_with(x, axis: Option<&[isize]>, keepdims: bool, options: impl Into<ReduceOptions>) -> Array;
    amax_with(x, axis: Option<&[isize]>, keepdims: bool, options: impl Into<ReduceOptions>) -> Array;
    amin_with(x, axis: Option<&[isize]>, keepdims: bool, options: impl Into<ReduceOptions>) -> Array;
    nanmax_with(x, axis: Option<&[isize]>, keepdims: bool, options: impl Into<ReduceOptions>) -> Array;
    nanmin_with(x, axis: Option<&[isize]>, keepdims: bool, options: impl Into<ReduceOptions>) -> Array;
    all_with(x, axis: Option<&[isize]>, keepdims: bool, options: impl Into<ReduceOptions>) -> Array;
    any_with(x, axis: Option<&[isize]>, keepdims: bool, options: impl Into<ReduceOptions>) -> Array;
    var(x, axis: Option<&[isize]>, ddof: usize, keepdims: bool) -> Array;
    var_with(x, axis: Option<&[isize]>, ddof: usize, keepdims: bool, options: impl Into<ReduceOptions>) -> Array;
}

array_methods! {
    /// Shape manipulation as methods: `x.reshape(&[2, -1])`, `x.transpose(None)`.
    ;
    atleast_1d(x) -> Array;
    atleast_2d(x) -> Array;
    atleast_3d(x) -> Array;
    broadcast_to(x, shape: &[usize]) -> Array;
    expand_dims(x, axis: &[isize]) -> Array;
    flip(x, axis: Option<&[isize]>) -> Array;
    moveaxis(x, source: &[isize], destination: &[isize]) -> Array;
    ravel(x) -> Array;
    reshape(x, shape: impl np::ShapeArg) -> Array;
    squeeze(x, axis: Option<&[isize]>) -> Array;
    swapaxes(x, axis1: isize, axis2: isize) -> Array;
    transpose(x, axes: Option<&[isize]>) -> Array;
}

array_methods! {
    /// Splitting, tiling and padding as methods: `x.split(2, 0)`, `x.tile(&[2, 1])`.
    ;
    array_split(x, sections: impl Into<Sections>, axis: isize) -> Vec<Array>;
    pad(x, pad_width: &[(usize, usize)], mode: PadMode) -> Array;
    repeat(x, repeats: impl Into<Repeats>, axis: Option<isize>) -> Array;
    roll(x, shift: &[isize], axis: Option<&[isize]>) -> Array;
    split(x, sections: impl Into<Sections>, axis: isize) -> Vec<Array>;
    tile(x, reps: &[usize]) -> Array;
    tril(x, k: isize) -> Array;
    triu(x, k: isize) -> Array;
}

array_methods! {
    /// Linear algebra as methods: `a.matmul(&b)`, `x.trace(0, 0, 1)`.
    ;
    diagonal(x, offset: isize, axis1: isize, axis2: isize) -> Array;
    dot(a, b: impl ArrayLike) -> Array;
    dot_with(a, b: impl ArrayLike, options: impl Into<np::DotOptions>) -> Array;
    inner(a, b: impl ArrayLike) -> Array;
    inner_with(a, b: impl ArrayLike, options: impl Into<np::DotOptions>) -> Array;
    matmul(a, b: impl ArrayLike) -> Array;
    matmul_with(a, b: impl ArrayLike, options: impl Into<np::DotOptions>) -> Array;
    outer(a, b: impl ArrayLike) -> Array;
    tensordot(a, b: impl ArrayLike, axes_a: &[isize], axes_b: &[isize]) -> Array;
    tensordot_with(a, b: impl ArrayLike, axes_a: &[isize], axes_b: &[isize], options: impl Into<np::DotOptions>) -> Array;
    trace(x, offset: isize, axis1: isize, axis2: isize) -> Array;
    trace_with(x, offset: isize, axis1: isize, axis2: isize, dtype: Option<DType>) -> Array;
    vdot(a, b: impl ArrayLike) -> Array;
    vdot_with(a, b: impl ArrayLike, options: impl Into<np::DotOptions>) -> Array;
}

array_methods! {
    /// Index functions as methods: `x.take(&idx, None)`, `x.nonzero(None, None)`.
    ;
    extract(condition, arr: impl ArrayLike) -> Array;
    extract_with(condition, arr: impl ArrayLike, size: Option<usize>, fill_value: Option<f64>) -> Array;
    take(x, indices: impl ArrayLike, axis: Option<isize>) -> Array;
    take_along_axis(x, indices: impl ArrayLike, axis: isize) -> Array;
}

/// Index functions as methods: `x.take(&idx, None)`, `x.nonzero(None, None)`.
impl Array {
    /// [`numpy::argwhere`](crate::numpy::argwhere) of this array.
    pub fn argwhere(&self, size: Option<usize>, fill_value: Option<f64>) -> Result<Array> {
        np::argwhere(self, size, fill_value)
    }

    /// [`numpy::compress`](crate::numpy::compress) of this array: the slices where
    /// `condition` is true (NumPy's `a.compress(condition)`, with the data first).
    pub fn compress(&self, condition: impl ArrayLike, axis: Option<isize>) -> Result<Array> {
        np::compress(condition, self, axis)
    }

    /// [`numpy::compress_with`](crate::numpy::compress_with) of this array (the data
    /// first, as [`compress`](Array::compress)).
    pub fn compress_with(
        &self,
        condition: impl ArrayLike,
        axis: Option<isize>,
        size: Option<usize>,
        fill_value: Option<f64>,
    ) -> Result<Array> {
        np::compress_with(condition, self, axis, size, fill_value)
    }

    /// [`numpy::nonzero`](crate::numpy::nonzero) of this array.
    pub fn nonzero(&self, size: Option<usize>, fill_value: Option<f64>) -> Result<Vec<Array>> {
        np::nonzero(self, size, fill_value)
    }

    /// [`numpy::take_with`](crate::numpy::take_with) of this array.
    pub fn take_with(
        &self,
        indices: impl ArrayLike,
        axis: Option<isize>,
        mode: np::IndexMode,
        fill_value: Option<f64>,
    ) -> Result<Array> {
        np::take_with(self, indices, axis, mode, fill_value)
    }

    /// [`numpy::take_along_axis_with`](crate::numpy::take_along_axis_with) of this array.
    pub fn take_along_axis_with(
        &self,
        indices: impl ArrayLike,
        axis: isize,
        mode: np::IndexMode,
        fill_value: Option<f64>,
    ) -> Result<Array> {
        np::take_along_axis_with(self, indices, axis, mode, fill_value)
    }
}

array_methods! {
    /// Conversions and `_like` constructors as methods: `x.zeros_like()`, `x.full_like(1.0)`.
    ;
    array(x) -> Array;
    asarray(x) -> Array;
    empty_like(x) -> Array;
    empty_like_with(x, dtype: Option<DType>, shape: Option<&[usize]>) -> Array;
    full_like(x, fill_value: impl ArrayLike) -> Array;
    full_like_with(x, fill_value: impl ArrayLike, dtype: Option<DType>, shape: Option<&[usize]>) -> Array;
    ones_like(x) -> Array;
    ones_like_with(x, dtype: Option<DType>, shape: Option<&[usize]>) -> Array;
    zeros_like(x) -> Array;
    zeros_like_with(x, dtype: Option<DType>, shape: Option<&[usize]>) -> Array;
    acos(x) -> Array;
    acosh(x) -> Array;
    asin(x) -> Array;
    asinh(x) -> Array;
    atan(x) -> Array;
    atanh(x) -> Array;
    bitwise_invert(x) -> Array;
    degrees(x) -> Array;
    fabs(x) -> Array;
    isneginf(x) -> Array;
    isposinf(x) -> Array;
    radians(x) -> Array;
    matrix_transpose(x) -> Array;
    fliplr(x) -> Array;
    flipud(x) -> Array;
    copy(x) -> Array;
    atan2(x, y: impl ArrayLike) -> Array;
    bitwise_left_shift(x, y: impl ArrayLike) -> Array;
    bitwise_right_shift(x, y: impl ArrayLike) -> Array;
    pow(x, y: impl ArrayLike) -> Array;
    amax(x, axis: Option<&[isize]>, keepdims: bool) -> Array;
    amin(x, axis: Option<&[isize]>, keepdims: bool) -> Array;
    ptp(x, axis: Option<&[isize]>, keepdims: bool) -> Array;
    cumulative_sum(x, axis: Option<isize>, dtype: Option<DType>, include_initial: bool) -> Array;
    cumulative_prod(x, axis: Option<isize>, dtype: Option<DType>, include_initial: bool) -> Array;
    permute_dims(x, axes: &[isize]) -> Array;
    heaviside(x1, x2: impl ArrayLike) -> Array;
    sinc(x) -> Array;
    diff(a, n: usize, axis: isize, prepend: Option<&Array>, append: Option<&Array>) -> Array;
    ediff1d(ary, to_end: Option<&Array>, to_begin: Option<&Array>) -> Array;
    trapezoid(y, x: Option<&Array>, dx: f64, axis: isize) -> Array;
    average(a, axis: Option<&[isize]>, weights: Option<&Array>, keepdims: bool) -> Array;
    average_returned(a, axis: Option<&[isize]>, weights: Option<&Array>, keepdims: bool) -> (Array, Array);
    cov(m, y: Option<&Array>, rowvar: bool, bias: bool, ddof: Option<usize>) -> Array;
    cov_with(m, y: Option<&Array>, rowvar: bool, bias: bool, ddof: Option<usize>, fweights: Option<&Array>, aweights: Option<&Array>) -> Array;
    corrcoef(x, y: Option<&Array>, rowvar: bool) -> Array;
    quantile(a, q: impl ArrayLike, axis: Option<&[isize]>, method: QuantileMethod, keepdims: bool) -> Array;
    percentile(a, q: impl ArrayLike, axis: Option<&[isize]>, method: QuantileMethod, keepdims: bool) -> Array;
    nanquantile(a, q: impl ArrayLike, axis: Option<&[isize]>, method: QuantileMethod, keepdims: bool) -> Array;
    nanpercentile(a, q: impl ArrayLike, axis: Option<&[isize]>, method: QuantileMethod, keepdims: bool) -> Array;
    nanmedian(a, axis: Option<&[isize]>, keepdims: bool) -> Array;
    nanprod(x, axis: Option<&[isize]>, keepdims: bool) -> Array;
    nanvar(x, axis: Option<&[isize]>, ddof: usize, keepdims: bool) -> Array;
    nanstd(x, axis: Option<&[isize]>, ddof: usize, keepdims: bool) -> Array;
    nanvar_with(x, axis: Option<&[isize]>, ddof: usize, keepdims: bool, options: impl Into<ReduceOptions>) -> Array;
    nanstd_with(x, axis: Option<&[isize]>, ddof: usize, keepdims: bool, options: impl Into<ReduceOptions>) -> Array;
    nanargmax(x, axis: Option<isize>, keepdims: bool) -> Array;
    nanargmin(x, axis: Option<isize>, keepdims: bool) -> Array;
    nancumsum(x, axis: Option<isize>) -> Array;
    nancumprod(x, axis: Option<isize>) -> Array;
    nancumsum_with(x, axis: Option<isize>, dtype: Option<DType>) -> Array;
    nancumprod_with(x, axis: Option<isize>, dtype: Option<DType>) -> Array;
    searchsorted(a, v: impl ArrayLike, side: Side, sorter: Option<&Array>) -> Array;
    digitize(x, bins: impl ArrayLike, right: bool) -> Array;
    bincount(x, weights: Option<&Array>, minlength: usize, length: Option<usize>) -> Array;
    histogram_bin_edges(a, bins: impl Into<Bins>, range: Option<(f64, f64)>) -> Array;
    histogram(a, bins: impl Into<Bins>, range: Option<(f64, f64)>, weights: Option<&Array>, density: bool) -> (Array, Array);
    interp(x, xp: impl ArrayLike, fp: impl ArrayLike, left: Option<f64>, right: Option<f64>, period: Option<f64>) -> Array;
    unique(ar, size: Option<usize>, fill_value: Option<f64>) -> Array;
    unique_values(x, size: Option<usize>, fill_value: Option<f64>) -> Array;
    unique_counts(x, size: Option<usize>, fill_value: Option<f64>) -> (Array, Array);
    unique_inverse(x, size: Option<usize>, fill_value: Option<f64>) -> (Array, Array);
    unique_all(x, size: Option<usize>, fill_value: Option<f64>) -> UniqueAll;
    unique_with(x, options: UniqueOptions) -> Unique;
    isin(element, test_elements: impl ArrayLike, invert: bool) -> Array;
    intersect1d(ar1, ar2: impl ArrayLike, assume_unique: bool, size: Option<usize>, fill_value: Option<f64>) -> Array;
    intersect1d_indices(ar1, ar2: impl ArrayLike, assume_unique: bool, size: Option<usize>, fill_value: Option<f64>) -> (Array, Array, Array);
    union1d(ar1, ar2: impl ArrayLike, size: Option<usize>, fill_value: Option<f64>) -> Array;
    setdiff1d(ar1, ar2: impl ArrayLike, assume_unique: bool, size: Option<usize>, fill_value: Option<f64>) -> Array;
    setxor1d(ar1, ar2: impl ArrayLike, assume_unique: bool, size: Option<usize>, fill_value: Option<f64>) -> Array;
    diag(v, k: isize) -> Array;
    diagflat(v, k: isize) -> Array;
    diag_indices_from(arr) -> Vec<Array>;
    tril_indices_from(arr, k: isize) -> (Array, Array);
    triu_indices_from(arr, k: isize) -> (Array, Array);
    unravel_index(indices, shape: &[usize]) -> Vec<Array>;
    vander(x, n: Option<usize>, increasing: bool) -> Array;
    kron(a, b: impl ArrayLike) -> Array;
    append(arr, values: impl ArrayLike, axis: Option<isize>) -> Array;
    resize(a, new_shape: &[usize]) -> Array;
    rollaxis(a, axis: isize, start: isize) -> Array;
    unstack(x, axis: isize) -> Vec<Array>;
    array_equiv(a1, a2: impl ArrayLike) -> Array;
    fill_diagonal(a, val: impl ArrayLike, wrap: bool) -> Array;
    flatnonzero(a, size: Option<usize>, fill_value: Option<f64>) -> Array;
    polyval(p, x: impl ArrayLike) -> Array;
    polyadd(a1, a2: impl ArrayLike) -> Array;
    polysub(a1, a2: impl ArrayLike) -> Array;
    polyder(p, m: usize) -> Array;
    polyint(p, m: usize, k: Option<&[f64]>) -> Array;
    cross(a, b: impl ArrayLike, axis: isize) -> Array;
    cross_with(a, b: impl ArrayLike, axisa: isize, axisb: isize, axisc: isize) -> Array;
    matvec(x1, x2: impl ArrayLike) -> Array;
    vecmat(x1, x2: impl ArrayLike) -> Array;
    vecdot(x1, x2: impl ArrayLike, axis: isize) -> Array;
    vecdot_with(x1, x2: impl ArrayLike, axis: isize, options: impl Into<np::DotOptions>) -> Array;
    around(a, decimals: i32) -> Array;
    divmod(x1, x2: impl ArrayLike) -> (Array, Array);
    modf(x) -> (Array, Array);
    frexp(x) -> (Array, Array);
    ldexp(x1, x2: impl ArrayLike) -> Array;
    float_power(x1, x2: impl ArrayLike) -> Array;
    choose(a, choices: impl IntoIterator<Item = impl ArrayLike>, mode: super::IndexMode) -> Array;
    piecewise(x, condlist: impl IntoIterator<Item = impl ArrayLike>, funclist: Vec<Piece>) -> Array;
    place(arr, mask: impl ArrayLike, vals: impl ArrayLike) -> Array;
    put(a, ind: impl ArrayLike, v: impl ArrayLike, mode: super::IndexMode) -> Array;
    put_along_axis(arr, indices: impl ArrayLike, values: impl ArrayLike, axis: Option<isize>, mode: super::IndexMode) -> Array;
    delete(arr, obj: &[isize], axis: Option<isize>) -> Array;
    insert(arr, obj: &[isize], values: impl ArrayLike, axis: Option<isize>) -> Array;
    trim_zeros(filt, trim: &str) -> Array;
    partition(a, kth: isize, axis: isize) -> Array;
    argpartition(a, kth: isize, axis: isize) -> Array;
    nextafter(x, y: impl ArrayLike) -> Array;
    spacing(x) -> Array;
    gradient(f, spacing: &[f64], axis: Option<&[isize]>) -> Vec<Array>;
    gradient_with(f, spacing: &[np::Spacing], axis: Option<&[isize]>) -> Vec<Array>;
    unwrap(p, discont: Option<f64>, axis: isize, period: impl ArrayLike) -> Array;
    convolve(a, v: impl ArrayLike, mode: ConvMode) -> Array;
    correlate(a, v: impl ArrayLike, mode: ConvMode) -> Array;
    polymul(a1, a2: impl ArrayLike) -> Array;
    polymul_with(a1, a2: impl ArrayLike, trim_leading_zeros: bool) -> Array;
    polydiv(u, v: impl ArrayLike) -> (Array, Array);
    poly(seq_of_zeros) -> Array;
    histogramdd(sample, bins: &[Bins], range: Option<&[(f64, f64)]>, weights: Option<&Array>, density: bool) -> (Array, Vec<Array>);
    histogram2d(x, y: impl ArrayLike, bins: &[Bins], range: Option<&[(f64, f64)]>, weights: Option<&Array>, density: bool) -> (Array, Array, Array);
    isscalar(element) -> bool;
    i0(x) -> Array;
}

/// Conversions and `_like` constructors as methods: `x.zeros_like()`, `x.full_like(1.0)`.
impl Array {
    /// [`numpy::rot90`](crate::numpy::rot90) of this array.
    pub fn rot90(&self, k: i64, axes: (isize, isize)) -> Result<Array> {
        np::rot90(self, k, axes)
    }

    /// [`numpy::hsplit`](crate::numpy::hsplit) of this array.
    pub fn hsplit(&self, sections: impl Into<Sections>) -> Result<Vec<Array>> {
        np::hsplit(self, sections)
    }

    /// [`numpy::vsplit`](crate::numpy::vsplit) of this array.
    pub fn vsplit(&self, sections: impl Into<Sections>) -> Result<Vec<Array>> {
        np::vsplit(self, sections)
    }

    /// [`numpy::dsplit`](crate::numpy::dsplit) of this array.
    pub fn dsplit(&self, sections: impl Into<Sections>) -> Result<Vec<Array>> {
        np::dsplit(self, sections)
    }
}
