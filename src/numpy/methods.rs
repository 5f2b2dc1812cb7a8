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
    Bins, ConvMode, PadMode, Piece, QuantileMethod, Repeats, Sections, Side, UniqueAll,
};

/// Elementwise functions ([`numpy`](crate::numpy) ufuncs) as methods: `x.sin()`, `x.add(&y)`.
impl Array {
    /// [`numpy::abs`](crate::numpy::abs) of this array.
    pub fn abs(&self) -> Result<Array> {
        np::abs(self)
    }

    /// [`numpy::absolute`](crate::numpy::absolute) of this array.
    pub fn absolute(&self) -> Result<Array> {
        np::absolute(self)
    }

    /// [`numpy::add`](crate::numpy::add) with this array as `x`.
    pub fn add(&self, y: impl ArrayLike) -> Result<Array> {
        np::add(self, y)
    }

    /// [`numpy::allclose`](crate::numpy::allclose) with this array as `a`.
    pub fn allclose(
        &self,
        b: impl ArrayLike,
        rtol: f64,
        atol: f64,
        equal_nan: bool,
    ) -> Result<Array> {
        np::allclose(self, b, rtol, atol, equal_nan)
    }

    /// [`numpy::arccos`](crate::numpy::arccos) of this array.
    pub fn arccos(&self) -> Result<Array> {
        np::arccos(self)
    }

    /// [`numpy::arccosh`](crate::numpy::arccosh) of this array.
    pub fn arccosh(&self) -> Result<Array> {
        np::arccosh(self)
    }

    /// [`numpy::arcsin`](crate::numpy::arcsin) of this array.
    pub fn arcsin(&self) -> Result<Array> {
        np::arcsin(self)
    }

    /// [`numpy::arcsinh`](crate::numpy::arcsinh) of this array.
    pub fn arcsinh(&self) -> Result<Array> {
        np::arcsinh(self)
    }

    /// [`numpy::arctan`](crate::numpy::arctan) of this array.
    pub fn arctan(&self) -> Result<Array> {
        np::arctan(self)
    }

    /// [`numpy::arctan2`](crate::numpy::arctan2) with this array as `x`.
    pub fn arctan2(&self, y: impl ArrayLike) -> Result<Array> {
        np::arctan2(self, y)
    }

    /// [`numpy::arctanh`](crate::numpy::arctanh) of this array.
    pub fn arctanh(&self) -> Result<Array> {
        np::arctanh(self)
    }

    /// [`numpy::array_equal`](crate::numpy::array_equal) with this array as `a`.
    pub fn array_equal(&self, b: impl ArrayLike, equal_nan: bool) -> Result<Array> {
        np::array_equal(self, b, equal_nan)
    }

    /// [`numpy::bitwise_and`](crate::numpy::bitwise_and) with this array as `x`.
    pub fn bitwise_and(&self, y: impl ArrayLike) -> Result<Array> {
        np::bitwise_and(self, y)
    }

    /// [`numpy::bitwise_count`](crate::numpy::bitwise_count) of this array.
    pub fn bitwise_count(&self) -> Result<Array> {
        np::bitwise_count(self)
    }

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

    /// [`numpy::bitwise_not`](crate::numpy::bitwise_not) of this array.
    pub fn bitwise_not(&self) -> Result<Array> {
        np::bitwise_not(self)
    }

    /// [`numpy::bitwise_or`](crate::numpy::bitwise_or) with this array as `x`.
    pub fn bitwise_or(&self, y: impl ArrayLike) -> Result<Array> {
        np::bitwise_or(self, y)
    }

    /// [`numpy::bitwise_xor`](crate::numpy::bitwise_xor) with this array as `x`.
    pub fn bitwise_xor(&self, y: impl ArrayLike) -> Result<Array> {
        np::bitwise_xor(self, y)
    }

    /// [`numpy::cbrt`](crate::numpy::cbrt) of this array.
    pub fn cbrt(&self) -> Result<Array> {
        np::cbrt(self)
    }

    /// [`numpy::ceil`](crate::numpy::ceil) of this array.
    pub fn ceil(&self) -> Result<Array> {
        np::ceil(self)
    }

    /// [`numpy::clip`](crate::numpy::clip) with this array as `x`.
    pub fn clip(&self, a_min: impl ArrayLike, a_max: impl ArrayLike) -> Result<Array> {
        np::clip(self, a_min, a_max)
    }

    /// [`numpy::copysign`](crate::numpy::copysign) with this array as `x`.
    pub fn copysign(&self, y: impl ArrayLike) -> Result<Array> {
        np::copysign(self, y)
    }

    /// [`numpy::cos`](crate::numpy::cos) of this array.
    pub fn cos(&self) -> Result<Array> {
        np::cos(self)
    }

    /// [`numpy::cosh`](crate::numpy::cosh) of this array.
    pub fn cosh(&self) -> Result<Array> {
        np::cosh(self)
    }

    /// [`numpy::deg2rad`](crate::numpy::deg2rad) of this array.
    pub fn deg2rad(&self) -> Result<Array> {
        np::deg2rad(self)
    }

    /// [`numpy::divide`](crate::numpy::divide) with this array as `x`.
    pub fn divide(&self, y: impl ArrayLike) -> Result<Array> {
        np::divide(self, y)
    }

    /// [`numpy::equal`](crate::numpy::equal) with this array as `x`.
    pub fn equal(&self, y: impl ArrayLike) -> Result<Array> {
        np::equal(self, y)
    }

    /// [`numpy::exp`](crate::numpy::exp) of this array.
    pub fn exp(&self) -> Result<Array> {
        np::exp(self)
    }

    /// [`numpy::exp2`](crate::numpy::exp2) of this array.
    pub fn exp2(&self) -> Result<Array> {
        np::exp2(self)
    }

    /// [`numpy::expm1`](crate::numpy::expm1) of this array.
    pub fn expm1(&self) -> Result<Array> {
        np::expm1(self)
    }

    /// [`numpy::floor`](crate::numpy::floor) of this array.
    pub fn floor(&self) -> Result<Array> {
        np::floor(self)
    }

    /// [`numpy::floor_divide`](crate::numpy::floor_divide) with this array as `x`.
    pub fn floor_divide(&self, y: impl ArrayLike) -> Result<Array> {
        np::floor_divide(self, y)
    }

    /// [`numpy::fmax`](crate::numpy::fmax) with this array as `x`.
    pub fn fmax(&self, y: impl ArrayLike) -> Result<Array> {
        np::fmax(self, y)
    }

    /// [`numpy::fmin`](crate::numpy::fmin) with this array as `x`.
    pub fn fmin(&self, y: impl ArrayLike) -> Result<Array> {
        np::fmin(self, y)
    }

    /// [`numpy::fmod`](crate::numpy::fmod) with this array as `x`.
    pub fn fmod(&self, y: impl ArrayLike) -> Result<Array> {
        np::fmod(self, y)
    }

    /// [`numpy::gcd`](crate::numpy::gcd) with this array as `x`.
    pub fn gcd(&self, y: impl ArrayLike) -> Result<Array> {
        np::gcd(self, y)
    }

    /// [`numpy::greater`](crate::numpy::greater) with this array as `x`.
    pub fn greater(&self, y: impl ArrayLike) -> Result<Array> {
        np::greater(self, y)
    }

    /// [`numpy::greater_equal`](crate::numpy::greater_equal) with this array as `x`.
    pub fn greater_equal(&self, y: impl ArrayLike) -> Result<Array> {
        np::greater_equal(self, y)
    }

    /// [`numpy::hypot`](crate::numpy::hypot) with this array as `x`.
    pub fn hypot(&self, y: impl ArrayLike) -> Result<Array> {
        np::hypot(self, y)
    }

    /// [`numpy::invert`](crate::numpy::invert) of this array.
    pub fn invert(&self) -> Result<Array> {
        np::invert(self)
    }

    /// [`numpy::isclose`](crate::numpy::isclose) with this array as `a`.
    pub fn isclose(
        &self,
        b: impl ArrayLike,
        rtol: f64,
        atol: f64,
        equal_nan: bool,
    ) -> Result<Array> {
        np::isclose(self, b, rtol, atol, equal_nan)
    }

    /// [`numpy::isfinite`](crate::numpy::isfinite) of this array.
    pub fn isfinite(&self) -> Result<Array> {
        np::isfinite(self)
    }

    /// [`numpy::isinf`](crate::numpy::isinf) of this array.
    pub fn isinf(&self) -> Result<Array> {
        np::isinf(self)
    }

    /// [`numpy::isnan`](crate::numpy::isnan) of this array.
    pub fn isnan(&self) -> Result<Array> {
        np::isnan(self)
    }

    /// [`numpy::lcm`](crate::numpy::lcm) with this array as `x`.
    pub fn lcm(&self, y: impl ArrayLike) -> Result<Array> {
        np::lcm(self, y)
    }

    /// [`numpy::left_shift`](crate::numpy::left_shift) with this array as `x`.
    pub fn left_shift(&self, y: impl ArrayLike) -> Result<Array> {
        np::left_shift(self, y)
    }

    /// [`numpy::less`](crate::numpy::less) with this array as `x`.
    pub fn less(&self, y: impl ArrayLike) -> Result<Array> {
        np::less(self, y)
    }

    /// [`numpy::less_equal`](crate::numpy::less_equal) with this array as `x`.
    pub fn less_equal(&self, y: impl ArrayLike) -> Result<Array> {
        np::less_equal(self, y)
    }

    /// [`numpy::log`](crate::numpy::log) of this array.
    pub fn log(&self) -> Result<Array> {
        np::log(self)
    }

    /// [`numpy::log10`](crate::numpy::log10) of this array.
    pub fn log10(&self) -> Result<Array> {
        np::log10(self)
    }

    /// [`numpy::log1p`](crate::numpy::log1p) of this array.
    pub fn log1p(&self) -> Result<Array> {
        np::log1p(self)
    }

    /// [`numpy::log2`](crate::numpy::log2) of this array.
    pub fn log2(&self) -> Result<Array> {
        np::log2(self)
    }

    /// [`numpy::logaddexp`](crate::numpy::logaddexp) with this array as `x`.
    pub fn logaddexp(&self, y: impl ArrayLike) -> Result<Array> {
        np::logaddexp(self, y)
    }

    /// [`numpy::logaddexp2`](crate::numpy::logaddexp2) with this array as `x`.
    pub fn logaddexp2(&self, y: impl ArrayLike) -> Result<Array> {
        np::logaddexp2(self, y)
    }

    /// [`numpy::logical_and`](crate::numpy::logical_and) with this array as `x`.
    pub fn logical_and(&self, y: impl ArrayLike) -> Result<Array> {
        np::logical_and(self, y)
    }

    /// [`numpy::logical_not`](crate::numpy::logical_not) of this array.
    pub fn logical_not(&self) -> Result<Array> {
        np::logical_not(self)
    }

    /// [`numpy::logical_or`](crate::numpy::logical_or) with this array as `x`.
    pub fn logical_or(&self, y: impl ArrayLike) -> Result<Array> {
        np::logical_or(self, y)
    }

    /// [`numpy::logical_xor`](crate::numpy::logical_xor) with this array as `x`.
    pub fn logical_xor(&self, y: impl ArrayLike) -> Result<Array> {
        np::logical_xor(self, y)
    }

    /// [`numpy::maximum`](crate::numpy::maximum) with this array as `x`.
    pub fn maximum(&self, y: impl ArrayLike) -> Result<Array> {
        np::maximum(self, y)
    }

    /// [`numpy::minimum`](crate::numpy::minimum) with this array as `x`.
    pub fn minimum(&self, y: impl ArrayLike) -> Result<Array> {
        np::minimum(self, y)
    }

    /// [`numpy::multiply`](crate::numpy::multiply) with this array as `x`.
    pub fn multiply(&self, y: impl ArrayLike) -> Result<Array> {
        np::multiply(self, y)
    }

    /// [`numpy::nan_to_num`](crate::numpy::nan_to_num) with this array as `x`.
    pub fn nan_to_num(&self, nan: f64, posinf: Option<f64>, neginf: Option<f64>) -> Result<Array> {
        np::nan_to_num(self, nan, posinf, neginf)
    }

    /// [`numpy::negative`](crate::numpy::negative) of this array.
    pub fn negative(&self) -> Result<Array> {
        np::negative(self)
    }

    /// [`numpy::not_equal`](crate::numpy::not_equal) with this array as `x`.
    pub fn not_equal(&self, y: impl ArrayLike) -> Result<Array> {
        np::not_equal(self, y)
    }

    /// [`numpy::positive`](crate::numpy::positive) of this array.
    pub fn positive(&self) -> Result<Array> {
        np::positive(self)
    }

    /// [`numpy::power`](crate::numpy::power) with this array as `x`.
    pub fn power(&self, y: impl ArrayLike) -> Result<Array> {
        np::power(self, y)
    }

    /// [`numpy::r#mod`](crate::numpy::mod) with this array as `x`.
    pub fn r#mod(&self, y: impl ArrayLike) -> Result<Array> {
        np::r#mod(self, y)
    }

    /// [`numpy::r#where`](crate::numpy::where) with this array as `condition`.
    pub fn r#where(&self, x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
        np::r#where(self, x, y)
    }

    /// [`numpy::rad2deg`](crate::numpy::rad2deg) of this array.
    pub fn rad2deg(&self) -> Result<Array> {
        np::rad2deg(self)
    }

    /// [`numpy::reciprocal`](crate::numpy::reciprocal) of this array.
    pub fn reciprocal(&self) -> Result<Array> {
        np::reciprocal(self)
    }

    /// [`numpy::remainder`](crate::numpy::remainder) with this array as `x`.
    pub fn remainder(&self, y: impl ArrayLike) -> Result<Array> {
        np::remainder(self, y)
    }

    /// [`numpy::right_shift`](crate::numpy::right_shift) with this array as `x`.
    pub fn right_shift(&self, y: impl ArrayLike) -> Result<Array> {
        np::right_shift(self, y)
    }

    /// [`numpy::rint`](crate::numpy::rint) of this array.
    pub fn rint(&self) -> Result<Array> {
        np::rint(self)
    }

    /// [`numpy::round`](crate::numpy::round) with this array as `x`.
    pub fn round(&self, decimals: i32) -> Result<Array> {
        np::round(self, decimals)
    }

    /// [`numpy::sign`](crate::numpy::sign) of this array.
    pub fn sign(&self) -> Result<Array> {
        np::sign(self)
    }

    /// [`numpy::signbit`](crate::numpy::signbit) of this array.
    pub fn signbit(&self) -> Result<Array> {
        np::signbit(self)
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

    /// [`numpy::sinh`](crate::numpy::sinh) of this array.
    pub fn sinh(&self) -> Result<Array> {
        np::sinh(self)
    }

    /// [`numpy::sqrt`](crate::numpy::sqrt) of this array.
    pub fn sqrt(&self) -> Result<Array> {
        np::sqrt(self)
    }

    /// [`numpy::square`](crate::numpy::square) of this array.
    pub fn square(&self) -> Result<Array> {
        np::square(self)
    }

    /// [`numpy::subtract`](crate::numpy::subtract) with this array as `x`.
    pub fn subtract(&self, y: impl ArrayLike) -> Result<Array> {
        np::subtract(self, y)
    }

    /// [`numpy::tan`](crate::numpy::tan) of this array.
    pub fn tan(&self) -> Result<Array> {
        np::tan(self)
    }

    /// [`numpy::tanh`](crate::numpy::tanh) of this array.
    pub fn tanh(&self) -> Result<Array> {
        np::tanh(self)
    }

    /// [`numpy::true_divide`](crate::numpy::true_divide) with this array as `x`.
    pub fn true_divide(&self, y: impl ArrayLike) -> Result<Array> {
        np::true_divide(self, y)
    }

    /// [`numpy::trunc`](crate::numpy::trunc) of this array.
    pub fn trunc(&self) -> Result<Array> {
        np::trunc(self)
    }
}

/// Reductions, scans and sorts as methods: `x.sum(None, false)`, `x.argmax(Some(0), false)`.
impl Array {
    /// [`numpy::all`](crate::numpy::all) with this array as `x`.
    pub fn all(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        np::all(self, axis, keepdims)
    }

    /// [`numpy::any`](crate::numpy::any) with this array as `x`.
    pub fn any(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        np::any(self, axis, keepdims)
    }

    /// [`numpy::argmax`](crate::numpy::argmax) with this array as `x`.
    pub fn argmax(&self, axis: Option<isize>, keepdims: bool) -> Result<Array> {
        np::argmax(self, axis, keepdims)
    }

    /// [`numpy::argmin`](crate::numpy::argmin) with this array as `x`.
    pub fn argmin(&self, axis: Option<isize>, keepdims: bool) -> Result<Array> {
        np::argmin(self, axis, keepdims)
    }

    /// [`numpy::argsort`](crate::numpy::argsort) with this array as `x`.
    pub fn argsort(&self, axis: Option<isize>) -> Result<Array> {
        np::argsort(self, axis)
    }

    /// [`numpy::argsort_with`](crate::numpy::argsort_with) with this array as `x`.
    pub fn argsort_with(
        &self,
        axis: Option<isize>,
        descending: bool,
        stable: bool,
    ) -> Result<Array> {
        np::argsort_with(self, axis, descending, stable)
    }

    /// [`numpy::count_nonzero`](crate::numpy::count_nonzero) with this array as `x`.
    pub fn count_nonzero(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        np::count_nonzero(self, axis, keepdims)
    }

    /// [`numpy::cumprod`](crate::numpy::cumprod) with this array as `x`.
    pub fn cumprod(&self, axis: Option<isize>) -> Result<Array> {
        np::cumprod(self, axis)
    }

    /// [`numpy::cumsum`](crate::numpy::cumsum) with this array as `x`.
    pub fn cumsum(&self, axis: Option<isize>) -> Result<Array> {
        np::cumsum(self, axis)
    }

    /// [`numpy::logsumexp`](crate::numpy::logsumexp) with this array as `x`.
    pub fn logsumexp(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        np::logsumexp(self, axis, keepdims)
    }

    /// [`numpy::max`](crate::numpy::max) with this array as `x`.
    pub fn max(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        np::max(self, axis, keepdims)
    }

    /// [`numpy::mean`](crate::numpy::mean) with this array as `x`.
    pub fn mean(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        np::mean(self, axis, keepdims)
    }

    /// [`numpy::median`](crate::numpy::median) with this array as `x`.
    pub fn median(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        np::median(self, axis, keepdims)
    }

    /// [`numpy::min`](crate::numpy::min) with this array as `x`.
    pub fn min(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        np::min(self, axis, keepdims)
    }

    /// [`numpy::nanmax`](crate::numpy::nanmax) with this array as `x`.
    pub fn nanmax(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        np::nanmax(self, axis, keepdims)
    }

    /// [`numpy::nanmean`](crate::numpy::nanmean) with this array as `x`.
    pub fn nanmean(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        np::nanmean(self, axis, keepdims)
    }

    /// [`numpy::nanmin`](crate::numpy::nanmin) with this array as `x`.
    pub fn nanmin(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        np::nanmin(self, axis, keepdims)
    }

    /// [`numpy::nansum`](crate::numpy::nansum) with this array as `x`.
    pub fn nansum(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        np::nansum(self, axis, keepdims)
    }

    /// [`numpy::prod`](crate::numpy::prod) with this array as `x`.
    pub fn prod(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        np::prod(self, axis, keepdims)
    }

    /// [`numpy::sort`](crate::numpy::sort) with this array as `x`.
    pub fn sort(&self, axis: Option<isize>) -> Result<Array> {
        np::sort(self, axis)
    }

    /// [`numpy::sort_with`](crate::numpy::sort_with) with this array as `x`.
    pub fn sort_with(&self, axis: Option<isize>, descending: bool, stable: bool) -> Result<Array> {
        np::sort_with(self, axis, descending, stable)
    }

    /// [`numpy::std`](crate::numpy::std) with this array as `x`.
    pub fn std(&self, axis: Option<&[isize]>, ddof: usize, keepdims: bool) -> Result<Array> {
        np::std(self, axis, ddof, keepdims)
    }

    /// [`numpy::sum`](crate::numpy::sum) with this array as `x`.
    pub fn sum(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        np::sum(self, axis, keepdims)
    }

    /// [`numpy::var`](crate::numpy::var) with this array as `x`.
    pub fn var(&self, axis: Option<&[isize]>, ddof: usize, keepdims: bool) -> Result<Array> {
        np::var(self, axis, ddof, keepdims)
    }
}

/// Shape manipulation as methods: `x.reshape(&[2, -1])`, `x.transpose(None)`.
impl Array {
    /// [`numpy::atleast_1d`](crate::numpy::atleast_1d) of this array.
    pub fn atleast_1d(&self) -> Result<Array> {
        np::atleast_1d(self)
    }

    /// [`numpy::atleast_2d`](crate::numpy::atleast_2d) of this array.
    pub fn atleast_2d(&self) -> Result<Array> {
        np::atleast_2d(self)
    }

    /// [`numpy::atleast_3d`](crate::numpy::atleast_3d) of this array.
    pub fn atleast_3d(&self) -> Result<Array> {
        np::atleast_3d(self)
    }

    /// [`numpy::broadcast_to`](crate::numpy::broadcast_to) with this array as `x`.
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Array> {
        np::broadcast_to(self, shape)
    }

    /// [`numpy::expand_dims`](crate::numpy::expand_dims) with this array as `x`.
    pub fn expand_dims(&self, axis: &[isize]) -> Result<Array> {
        np::expand_dims(self, axis)
    }

    /// [`numpy::flip`](crate::numpy::flip) with this array as `x`.
    pub fn flip(&self, axis: Option<&[isize]>) -> Result<Array> {
        np::flip(self, axis)
    }

    /// [`numpy::moveaxis`](crate::numpy::moveaxis) with this array as `x`.
    pub fn moveaxis(&self, source: &[isize], destination: &[isize]) -> Result<Array> {
        np::moveaxis(self, source, destination)
    }

    /// [`numpy::ravel`](crate::numpy::ravel) of this array.
    pub fn ravel(&self) -> Result<Array> {
        np::ravel(self)
    }

    /// [`numpy::reshape`](crate::numpy::reshape) with this array as `x`.
    pub fn reshape(&self, shape: impl np::ShapeArg) -> Result<Array> {
        np::reshape(self, shape)
    }

    /// [`numpy::squeeze`](crate::numpy::squeeze) with this array as `x`.
    pub fn squeeze(&self, axis: Option<&[isize]>) -> Result<Array> {
        np::squeeze(self, axis)
    }

    /// [`numpy::swapaxes`](crate::numpy::swapaxes) with this array as `x`.
    pub fn swapaxes(&self, axis1: isize, axis2: isize) -> Result<Array> {
        np::swapaxes(self, axis1, axis2)
    }

    /// [`numpy::transpose`](crate::numpy::transpose) with this array as `x`.
    pub fn transpose(&self, axes: Option<&[isize]>) -> Result<Array> {
        np::transpose(self, axes)
    }
}

/// Splitting, tiling and padding as methods: `x.split(2, 0)`, `x.tile(&[2, 1])`.
impl Array {
    /// [`numpy::array_split`](crate::numpy::array_split) with this array as `x`.
    pub fn array_split(&self, sections: impl Into<Sections>, axis: isize) -> Result<Vec<Array>> {
        np::array_split(self, sections, axis)
    }

    /// [`numpy::pad`](crate::numpy::pad) with this array as `x`.
    pub fn pad(&self, pad_width: &[(usize, usize)], mode: PadMode) -> Result<Array> {
        np::pad(self, pad_width, mode)
    }

    /// [`numpy::repeat`](crate::numpy::repeat) with this array as `x`.
    pub fn repeat(&self, repeats: impl Into<Repeats>, axis: Option<isize>) -> Result<Array> {
        np::repeat(self, repeats, axis)
    }

    /// [`numpy::roll`](crate::numpy::roll) with this array as `x`.
    pub fn roll(&self, shift: &[isize], axis: Option<&[isize]>) -> Result<Array> {
        np::roll(self, shift, axis)
    }

    /// [`numpy::split`](crate::numpy::split) with this array as `x`.
    pub fn split(&self, sections: impl Into<Sections>, axis: isize) -> Result<Vec<Array>> {
        np::split(self, sections, axis)
    }

    /// [`numpy::tile`](crate::numpy::tile) with this array as `x`.
    pub fn tile(&self, reps: &[usize]) -> Result<Array> {
        np::tile(self, reps)
    }

    /// [`numpy::tril`](crate::numpy::tril) with this array as `x`.
    pub fn tril(&self, k: isize) -> Result<Array> {
        np::tril(self, k)
    }

    /// [`numpy::triu`](crate::numpy::triu) with this array as `x`.
    pub fn triu(&self, k: isize) -> Result<Array> {
        np::triu(self, k)
    }
}

/// Linear algebra as methods: `a.matmul(&b)`, `x.trace(0, 0, 1)`.
impl Array {
    /// [`numpy::diagonal`](crate::numpy::diagonal) with this array as `x`.
    pub fn diagonal(&self, offset: isize, axis1: isize, axis2: isize) -> Result<Array> {
        np::diagonal(self, offset, axis1, axis2)
    }

    /// [`numpy::dot`](crate::numpy::dot) with this array as `a`.
    pub fn dot(&self, b: impl ArrayLike) -> Result<Array> {
        np::dot(self, b)
    }

    /// [`numpy::inner`](crate::numpy::inner) with this array as `a`.
    pub fn inner(&self, b: impl ArrayLike) -> Result<Array> {
        np::inner(self, b)
    }

    /// [`numpy::matmul`](crate::numpy::matmul) with this array as `a`.
    pub fn matmul(&self, b: impl ArrayLike) -> Result<Array> {
        np::matmul(self, b)
    }

    /// [`numpy::outer`](crate::numpy::outer) with this array as `a`.
    pub fn outer(&self, b: impl ArrayLike) -> Result<Array> {
        np::outer(self, b)
    }

    /// [`numpy::tensordot`](crate::numpy::tensordot) with this array as `a`.
    pub fn tensordot(
        &self,
        b: impl ArrayLike,
        axes_a: &[isize],
        axes_b: &[isize],
    ) -> Result<Array> {
        np::tensordot(self, b, axes_a, axes_b)
    }

    /// [`numpy::trace`](crate::numpy::trace) with this array as `x`.
    pub fn trace(&self, offset: isize, axis1: isize, axis2: isize) -> Result<Array> {
        np::trace(self, offset, axis1, axis2)
    }

    /// [`numpy::vdot`](crate::numpy::vdot) with this array as `a`.
    pub fn vdot(&self, b: impl ArrayLike) -> Result<Array> {
        np::vdot(self, b)
    }
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

    /// [`numpy::extract`](crate::numpy::extract) with this array as `condition`.
    pub fn extract(&self, arr: impl ArrayLike) -> Result<Array> {
        np::extract(self, arr)
    }

    /// [`numpy::nonzero`](crate::numpy::nonzero) of this array.
    pub fn nonzero(&self, size: Option<usize>, fill_value: Option<f64>) -> Result<Vec<Array>> {
        np::nonzero(self, size, fill_value)
    }

    /// [`numpy::take`](crate::numpy::take) with this array as `x`.
    pub fn take(&self, indices: impl ArrayLike, axis: Option<isize>) -> Result<Array> {
        np::take(self, indices, axis)
    }

    /// [`numpy::take_along_axis`](crate::numpy::take_along_axis) with this array as `x`.
    pub fn take_along_axis(&self, indices: impl ArrayLike, axis: isize) -> Result<Array> {
        np::take_along_axis(self, indices, axis)
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

/// Conversions and `_like` constructors as methods: `x.zeros_like()`, `x.full_like(1.0)`.
impl Array {
    /// [`numpy::array`](crate::numpy::array) of this array.
    pub fn array(&self) -> Result<Array> {
        np::array(self)
    }

    /// [`numpy::asarray`](crate::numpy::asarray) of this array.
    pub fn asarray(&self) -> Result<Array> {
        np::asarray(self)
    }

    /// [`numpy::empty_like`](crate::numpy::empty_like) of this array.
    pub fn empty_like(&self) -> Result<Array> {
        np::empty_like(self)
    }

    /// [`numpy::full_like`](crate::numpy::full_like) with this array as `x`.
    pub fn full_like(&self, fill_value: impl ArrayLike) -> Result<Array> {
        np::full_like(self, fill_value)
    }

    /// [`numpy::ones_like`](crate::numpy::ones_like) of this array.
    pub fn ones_like(&self) -> Result<Array> {
        np::ones_like(self)
    }

    /// [`numpy::zeros_like`](crate::numpy::zeros_like) of this array.
    pub fn zeros_like(&self) -> Result<Array> {
        np::zeros_like(self)
    }

    /// [`numpy::acos`](crate::numpy::acos) of this array.
    pub fn acos(&self) -> Result<Array> {
        np::acos(self)
    }

    /// [`numpy::acosh`](crate::numpy::acosh) of this array.
    pub fn acosh(&self) -> Result<Array> {
        np::acosh(self)
    }

    /// [`numpy::asin`](crate::numpy::asin) of this array.
    pub fn asin(&self) -> Result<Array> {
        np::asin(self)
    }

    /// [`numpy::asinh`](crate::numpy::asinh) of this array.
    pub fn asinh(&self) -> Result<Array> {
        np::asinh(self)
    }

    /// [`numpy::atan`](crate::numpy::atan) of this array.
    pub fn atan(&self) -> Result<Array> {
        np::atan(self)
    }

    /// [`numpy::atanh`](crate::numpy::atanh) of this array.
    pub fn atanh(&self) -> Result<Array> {
        np::atanh(self)
    }

    /// [`numpy::bitwise_invert`](crate::numpy::bitwise_invert) of this array.
    pub fn bitwise_invert(&self) -> Result<Array> {
        np::bitwise_invert(self)
    }

    /// [`numpy::degrees`](crate::numpy::degrees) of this array.
    pub fn degrees(&self) -> Result<Array> {
        np::degrees(self)
    }

    /// [`numpy::fabs`](crate::numpy::fabs) of this array.
    pub fn fabs(&self) -> Result<Array> {
        np::fabs(self)
    }

    /// [`numpy::isneginf`](crate::numpy::isneginf) of this array.
    pub fn isneginf(&self) -> Result<Array> {
        np::isneginf(self)
    }

    /// [`numpy::isposinf`](crate::numpy::isposinf) of this array.
    pub fn isposinf(&self) -> Result<Array> {
        np::isposinf(self)
    }

    /// [`numpy::radians`](crate::numpy::radians) of this array.
    pub fn radians(&self) -> Result<Array> {
        np::radians(self)
    }

    /// [`numpy::matrix_transpose`](crate::numpy::matrix_transpose) of this array.
    pub fn matrix_transpose(&self) -> Result<Array> {
        np::matrix_transpose(self)
    }

    /// [`numpy::fliplr`](crate::numpy::fliplr) of this array.
    pub fn fliplr(&self) -> Result<Array> {
        np::fliplr(self)
    }

    /// [`numpy::flipud`](crate::numpy::flipud) of this array.
    pub fn flipud(&self) -> Result<Array> {
        np::flipud(self)
    }

    /// [`numpy::copy`](crate::numpy::copy) of this array.
    pub fn copy(&self) -> Result<Array> {
        np::copy(self)
    }

    /// [`numpy::atan2`](crate::numpy::atan2) with this array as `x`.
    pub fn atan2(&self, y: impl ArrayLike) -> Result<Array> {
        np::atan2(self, y)
    }

    /// [`numpy::bitwise_left_shift`](crate::numpy::bitwise_left_shift) with this array as `x`.
    pub fn bitwise_left_shift(&self, y: impl ArrayLike) -> Result<Array> {
        np::bitwise_left_shift(self, y)
    }

    /// [`numpy::bitwise_right_shift`](crate::numpy::bitwise_right_shift) with this array as `x`.
    pub fn bitwise_right_shift(&self, y: impl ArrayLike) -> Result<Array> {
        np::bitwise_right_shift(self, y)
    }

    /// [`numpy::pow`](crate::numpy::pow) with this array as `x`.
    pub fn pow(&self, y: impl ArrayLike) -> Result<Array> {
        np::pow(self, y)
    }

    /// [`numpy::amax`](crate::numpy::amax) with this array as `x`.
    pub fn amax(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        np::amax(self, axis, keepdims)
    }

    /// [`numpy::amin`](crate::numpy::amin) with this array as `x`.
    pub fn amin(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        np::amin(self, axis, keepdims)
    }

    /// [`numpy::ptp`](crate::numpy::ptp) with this array as `x`.
    pub fn ptp(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        np::ptp(self, axis, keepdims)
    }

    /// [`numpy::cumulative_sum`](crate::numpy::cumulative_sum) with this array as `x`.
    pub fn cumulative_sum(
        &self,
        axis: Option<isize>,
        dtype: Option<DType>,
        include_initial: bool,
    ) -> Result<Array> {
        np::cumulative_sum(self, axis, dtype, include_initial)
    }

    /// [`numpy::cumulative_prod`](crate::numpy::cumulative_prod) with this array as `x`.
    pub fn cumulative_prod(
        &self,
        axis: Option<isize>,
        dtype: Option<DType>,
        include_initial: bool,
    ) -> Result<Array> {
        np::cumulative_prod(self, axis, dtype, include_initial)
    }

    /// [`numpy::permute_dims`](crate::numpy::permute_dims) with this array as `x`.
    pub fn permute_dims(&self, axes: &[isize]) -> Result<Array> {
        np::permute_dims(self, axes)
    }

    /// [`numpy::heaviside`](crate::numpy::heaviside) with this array as `x1`.
    pub fn heaviside(&self, x2: impl ArrayLike) -> Result<Array> {
        np::heaviside(self, x2)
    }

    /// [`numpy::sinc`](crate::numpy::sinc) of this array.
    pub fn sinc(&self) -> Result<Array> {
        np::sinc(self)
    }

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

    /// [`numpy::diff`](crate::numpy::diff) with this array as `a`.
    pub fn diff(
        &self,
        n: usize,
        axis: isize,
        prepend: Option<&Array>,
        append: Option<&Array>,
    ) -> Result<Array> {
        np::diff(self, n, axis, prepend, append)
    }

    /// [`numpy::ediff1d`](crate::numpy::ediff1d) with this array as `ary`.
    pub fn ediff1d(&self, to_end: Option<&Array>, to_begin: Option<&Array>) -> Result<Array> {
        np::ediff1d(self, to_end, to_begin)
    }

    /// [`numpy::trapezoid`](crate::numpy::trapezoid) with this array as `y`.
    pub fn trapezoid(&self, x: Option<&Array>, dx: f64, axis: isize) -> Result<Array> {
        np::trapezoid(self, x, dx, axis)
    }

    /// [`numpy::average`](crate::numpy::average) with this array as `a`.
    pub fn average(
        &self,
        axis: Option<&[isize]>,
        weights: Option<&Array>,
        keepdims: bool,
    ) -> Result<Array> {
        np::average(self, axis, weights, keepdims)
    }

    /// [`numpy::cov`](crate::numpy::cov) with this array as `m`.
    pub fn cov(
        &self,
        y: Option<&Array>,
        rowvar: bool,
        bias: bool,
        ddof: Option<usize>,
    ) -> Result<Array> {
        np::cov(self, y, rowvar, bias, ddof)
    }

    /// [`numpy::corrcoef`](crate::numpy::corrcoef) with this array as `x`.
    pub fn corrcoef(&self, y: Option<&Array>, rowvar: bool) -> Result<Array> {
        np::corrcoef(self, y, rowvar)
    }

    /// [`numpy::quantile`](crate::numpy::quantile) with this array as `a`.
    pub fn quantile(
        &self,
        q: impl ArrayLike,
        axis: Option<&[isize]>,
        method: QuantileMethod,
        keepdims: bool,
    ) -> Result<Array> {
        np::quantile(self, q, axis, method, keepdims)
    }

    /// [`numpy::percentile`](crate::numpy::percentile) with this array as `a`.
    pub fn percentile(
        &self,
        q: impl ArrayLike,
        axis: Option<&[isize]>,
        method: QuantileMethod,
        keepdims: bool,
    ) -> Result<Array> {
        np::percentile(self, q, axis, method, keepdims)
    }

    /// [`numpy::nanquantile`](crate::numpy::nanquantile) with this array as `a`.
    pub fn nanquantile(
        &self,
        q: impl ArrayLike,
        axis: Option<&[isize]>,
        method: QuantileMethod,
        keepdims: bool,
    ) -> Result<Array> {
        np::nanquantile(self, q, axis, method, keepdims)
    }

    /// [`numpy::nanpercentile`](crate::numpy::nanpercentile) with this array as `a`.
    pub fn nanpercentile(
        &self,
        q: impl ArrayLike,
        axis: Option<&[isize]>,
        method: QuantileMethod,
        keepdims: bool,
    ) -> Result<Array> {
        np::nanpercentile(self, q, axis, method, keepdims)
    }

    /// [`numpy::nanmedian`](crate::numpy::nanmedian) with this array as `a`.
    pub fn nanmedian(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        np::nanmedian(self, axis, keepdims)
    }

    /// [`numpy::nanprod`](crate::numpy::nanprod) with this array as `x`.
    pub fn nanprod(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        np::nanprod(self, axis, keepdims)
    }

    /// [`numpy::nanvar`](crate::numpy::nanvar) with this array as `x`.
    pub fn nanvar(&self, axis: Option<&[isize]>, ddof: usize, keepdims: bool) -> Result<Array> {
        np::nanvar(self, axis, ddof, keepdims)
    }

    /// [`numpy::nanstd`](crate::numpy::nanstd) with this array as `x`.
    pub fn nanstd(&self, axis: Option<&[isize]>, ddof: usize, keepdims: bool) -> Result<Array> {
        np::nanstd(self, axis, ddof, keepdims)
    }

    /// [`numpy::nanargmax`](crate::numpy::nanargmax) with this array as `x`.
    pub fn nanargmax(&self, axis: Option<isize>, keepdims: bool) -> Result<Array> {
        np::nanargmax(self, axis, keepdims)
    }

    /// [`numpy::nanargmin`](crate::numpy::nanargmin) with this array as `x`.
    pub fn nanargmin(&self, axis: Option<isize>, keepdims: bool) -> Result<Array> {
        np::nanargmin(self, axis, keepdims)
    }

    /// [`numpy::nancumsum`](crate::numpy::nancumsum) with this array as `x`.
    pub fn nancumsum(&self, axis: Option<isize>) -> Result<Array> {
        np::nancumsum(self, axis)
    }

    /// [`numpy::nancumprod`](crate::numpy::nancumprod) with this array as `x`.
    pub fn nancumprod(&self, axis: Option<isize>) -> Result<Array> {
        np::nancumprod(self, axis)
    }

    /// [`numpy::searchsorted`](crate::numpy::searchsorted) with this array as `a`.
    pub fn searchsorted(
        &self,
        v: impl ArrayLike,
        side: Side,
        sorter: Option<&Array>,
    ) -> Result<Array> {
        np::searchsorted(self, v, side, sorter)
    }

    /// [`numpy::digitize`](crate::numpy::digitize) with this array as `x`.
    pub fn digitize(&self, bins: impl ArrayLike, right: bool) -> Result<Array> {
        np::digitize(self, bins, right)
    }

    /// [`numpy::bincount`](crate::numpy::bincount) with this array as `x`.
    pub fn bincount(
        &self,
        weights: Option<&Array>,
        minlength: usize,
        length: Option<usize>,
    ) -> Result<Array> {
        np::bincount(self, weights, minlength, length)
    }

    /// [`numpy::histogram_bin_edges`](crate::numpy::histogram_bin_edges) with this array as `a`.
    pub fn histogram_bin_edges(
        &self,
        bins: impl Into<Bins>,
        range: Option<(f64, f64)>,
    ) -> Result<Array> {
        np::histogram_bin_edges(self, bins, range)
    }

    /// [`numpy::histogram`](crate::numpy::histogram) with this array as `a`.
    pub fn histogram(
        &self,
        bins: impl Into<Bins>,
        range: Option<(f64, f64)>,
        weights: Option<&Array>,
        density: bool,
    ) -> Result<(Array, Array)> {
        np::histogram(self, bins, range, weights, density)
    }

    /// [`numpy::interp`](crate::numpy::interp) with this array as `x`.
    pub fn interp(
        &self,
        xp: impl ArrayLike,
        fp: impl ArrayLike,
        left: Option<f64>,
        right: Option<f64>,
        period: Option<f64>,
    ) -> Result<Array> {
        np::interp(self, xp, fp, left, right, period)
    }

    /// [`numpy::unique`](crate::numpy::unique) with this array as `ar`.
    pub fn unique(&self, size: Option<usize>, fill_value: Option<f64>) -> Result<Array> {
        np::unique(self, size, fill_value)
    }

    /// [`numpy::unique_values`](crate::numpy::unique_values) with this array as `x`.
    pub fn unique_values(&self, size: Option<usize>, fill_value: Option<f64>) -> Result<Array> {
        np::unique_values(self, size, fill_value)
    }

    /// [`numpy::unique_counts`](crate::numpy::unique_counts) with this array as `x`.
    pub fn unique_counts(
        &self,
        size: Option<usize>,
        fill_value: Option<f64>,
    ) -> Result<(Array, Array)> {
        np::unique_counts(self, size, fill_value)
    }

    /// [`numpy::unique_inverse`](crate::numpy::unique_inverse) with this array as `x`.
    pub fn unique_inverse(
        &self,
        size: Option<usize>,
        fill_value: Option<f64>,
    ) -> Result<(Array, Array)> {
        np::unique_inverse(self, size, fill_value)
    }

    /// [`numpy::unique_all`](crate::numpy::unique_all) with this array as `x`.
    pub fn unique_all(&self, size: Option<usize>, fill_value: Option<f64>) -> Result<UniqueAll> {
        np::unique_all(self, size, fill_value)
    }

    /// [`numpy::isin`](crate::numpy::isin) with this array as `element`.
    pub fn isin(&self, test_elements: impl ArrayLike, invert: bool) -> Result<Array> {
        np::isin(self, test_elements, invert)
    }

    /// [`numpy::intersect1d`](crate::numpy::intersect1d) with this array as `ar1`.
    pub fn intersect1d(
        &self,
        ar2: impl ArrayLike,
        assume_unique: bool,
        size: Option<usize>,
        fill_value: Option<f64>,
    ) -> Result<Array> {
        np::intersect1d(self, ar2, assume_unique, size, fill_value)
    }

    /// [`numpy::union1d`](crate::numpy::union1d) with this array as `ar1`.
    pub fn union1d(
        &self,
        ar2: impl ArrayLike,
        size: Option<usize>,
        fill_value: Option<f64>,
    ) -> Result<Array> {
        np::union1d(self, ar2, size, fill_value)
    }

    /// [`numpy::setdiff1d`](crate::numpy::setdiff1d) with this array as `ar1`.
    pub fn setdiff1d(
        &self,
        ar2: impl ArrayLike,
        assume_unique: bool,
        size: Option<usize>,
        fill_value: Option<f64>,
    ) -> Result<Array> {
        np::setdiff1d(self, ar2, assume_unique, size, fill_value)
    }

    /// [`numpy::setxor1d`](crate::numpy::setxor1d) with this array as `ar1`.
    pub fn setxor1d(
        &self,
        ar2: impl ArrayLike,
        assume_unique: bool,
        size: Option<usize>,
        fill_value: Option<f64>,
    ) -> Result<Array> {
        np::setxor1d(self, ar2, assume_unique, size, fill_value)
    }

    /// [`numpy::diag`](crate::numpy::diag) with this array as `v`.
    pub fn diag(&self, k: isize) -> Result<Array> {
        np::diag(self, k)
    }

    /// [`numpy::diagflat`](crate::numpy::diagflat) with this array as `v`.
    pub fn diagflat(&self, k: isize) -> Result<Array> {
        np::diagflat(self, k)
    }

    /// [`numpy::diag_indices_from`](crate::numpy::diag_indices_from) with this array as `arr`.
    pub fn diag_indices_from(&self) -> Result<Vec<Array>> {
        np::diag_indices_from(self)
    }

    /// [`numpy::tril_indices_from`](crate::numpy::tril_indices_from) with this array as `arr`.
    pub fn tril_indices_from(&self, k: isize) -> Result<(Array, Array)> {
        np::tril_indices_from(self, k)
    }

    /// [`numpy::triu_indices_from`](crate::numpy::triu_indices_from) with this array as `arr`.
    pub fn triu_indices_from(&self, k: isize) -> Result<(Array, Array)> {
        np::triu_indices_from(self, k)
    }

    /// [`numpy::unravel_index`](crate::numpy::unravel_index) with this array as `indices`.
    pub fn unravel_index(&self, shape: &[usize]) -> Result<Vec<Array>> {
        np::unravel_index(self, shape)
    }

    /// [`numpy::vander`](crate::numpy::vander) with this array as `x`.
    pub fn vander(&self, n: Option<usize>, increasing: bool) -> Result<Array> {
        np::vander(self, n, increasing)
    }

    /// [`numpy::kron`](crate::numpy::kron) with this array as `a`.
    pub fn kron(&self, b: impl ArrayLike) -> Result<Array> {
        np::kron(self, b)
    }

    /// [`numpy::append`](crate::numpy::append) with this array as `arr`.
    pub fn append(&self, values: impl ArrayLike, axis: Option<isize>) -> Result<Array> {
        np::append(self, values, axis)
    }

    /// [`numpy::resize`](crate::numpy::resize) with this array as `a`.
    pub fn resize(&self, new_shape: &[usize]) -> Result<Array> {
        np::resize(self, new_shape)
    }

    /// [`numpy::rollaxis`](crate::numpy::rollaxis) with this array as `a`.
    pub fn rollaxis(&self, axis: isize, start: isize) -> Result<Array> {
        np::rollaxis(self, axis, start)
    }

    /// [`numpy::unstack`](crate::numpy::unstack) with this array as `x`.
    pub fn unstack(&self, axis: isize) -> Result<Vec<Array>> {
        np::unstack(self, axis)
    }

    /// [`numpy::array_equiv`](crate::numpy::array_equiv) with this array as `a1`.
    pub fn array_equiv(&self, a2: impl ArrayLike) -> Result<Array> {
        np::array_equiv(self, a2)
    }

    /// [`numpy::fill_diagonal`](crate::numpy::fill_diagonal) with this array as `a`.
    pub fn fill_diagonal(&self, val: impl ArrayLike, wrap: bool) -> Result<Array> {
        np::fill_diagonal(self, val, wrap)
    }

    /// [`numpy::flatnonzero`](crate::numpy::flatnonzero) with this array as `a`.
    pub fn flatnonzero(&self, size: Option<usize>, fill_value: Option<f64>) -> Result<Array> {
        np::flatnonzero(self, size, fill_value)
    }

    /// [`numpy::polyval`](crate::numpy::polyval) with this array as `p`.
    pub fn polyval(&self, x: impl ArrayLike) -> Result<Array> {
        np::polyval(self, x)
    }

    /// [`numpy::polyadd`](crate::numpy::polyadd) with this array as `a1`.
    pub fn polyadd(&self, a2: impl ArrayLike) -> Result<Array> {
        np::polyadd(self, a2)
    }

    /// [`numpy::polysub`](crate::numpy::polysub) with this array as `a1`.
    pub fn polysub(&self, a2: impl ArrayLike) -> Result<Array> {
        np::polysub(self, a2)
    }

    /// [`numpy::polyder`](crate::numpy::polyder) with this array as `p`.
    pub fn polyder(&self, m: usize) -> Result<Array> {
        np::polyder(self, m)
    }

    /// [`numpy::polyint`](crate::numpy::polyint) with this array as `p`.
    pub fn polyint(&self, m: usize, k: Option<&[f64]>) -> Result<Array> {
        np::polyint(self, m, k)
    }

    /// [`numpy::cross`](crate::numpy::cross) with this array as `a`.
    pub fn cross(&self, b: impl ArrayLike, axis: isize) -> Result<Array> {
        np::cross(self, b, axis)
    }

    /// [`numpy::matvec`](crate::numpy::matvec) with this array as `x1`.
    pub fn matvec(&self, x2: impl ArrayLike) -> Result<Array> {
        np::matvec(self, x2)
    }

    /// [`numpy::vecmat`](crate::numpy::vecmat) with this array as `x1`.
    pub fn vecmat(&self, x2: impl ArrayLike) -> Result<Array> {
        np::vecmat(self, x2)
    }

    /// [`numpy::vecdot`](crate::numpy::vecdot) with this array as `x1`.
    pub fn vecdot(&self, x2: impl ArrayLike, axis: isize) -> Result<Array> {
        np::vecdot(self, x2, axis)
    }

    /// [`numpy::around`](crate::numpy::around) with this array as `a`.
    pub fn around(&self, decimals: i32) -> Result<Array> {
        np::around(self, decimals)
    }

    /// [`numpy::divmod`](crate::numpy::divmod) with this array as `x1`.
    pub fn divmod(&self, x2: impl ArrayLike) -> Result<(Array, Array)> {
        np::divmod(self, x2)
    }

    /// [`numpy::modf`](crate::numpy::modf) with this array as `x`.
    pub fn modf(&self) -> Result<(Array, Array)> {
        np::modf(self)
    }

    /// [`numpy::frexp`](crate::numpy::frexp) with this array as `x`.
    pub fn frexp(&self) -> Result<(Array, Array)> {
        np::frexp(self)
    }

    /// [`numpy::ldexp`](crate::numpy::ldexp) with this array as `x1`.
    pub fn ldexp(&self, x2: impl ArrayLike) -> Result<Array> {
        np::ldexp(self, x2)
    }

    /// [`numpy::float_power`](crate::numpy::float_power) with this array as `x1`.
    pub fn float_power(&self, x2: impl ArrayLike) -> Result<Array> {
        np::float_power(self, x2)
    }

    /// [`numpy::choose`](crate::numpy::choose) with this array as `a`.
    pub fn choose(
        &self,
        choices: impl IntoIterator<Item = impl ArrayLike>,
        mode: super::IndexMode,
    ) -> Result<Array> {
        np::choose(self, choices, mode)
    }

    /// [`numpy::piecewise`](crate::numpy::piecewise) with this array as `x`.
    pub fn piecewise(
        &self,
        condlist: impl IntoIterator<Item = impl ArrayLike>,
        funclist: Vec<Piece>,
    ) -> Result<Array> {
        np::piecewise(self, condlist, funclist)
    }

    /// [`numpy::place`](crate::numpy::place) with this array as `arr`.
    pub fn place(&self, mask: impl ArrayLike, vals: impl ArrayLike) -> Result<Array> {
        np::place(self, mask, vals)
    }

    /// [`numpy::put`](crate::numpy::put) with this array as `a`.
    pub fn put(
        &self,
        ind: impl ArrayLike,
        v: impl ArrayLike,
        mode: super::IndexMode,
    ) -> Result<Array> {
        np::put(self, ind, v, mode)
    }

    /// [`numpy::put_along_axis`](crate::numpy::put_along_axis) with this array as `arr`.
    pub fn put_along_axis(
        &self,
        indices: impl ArrayLike,
        values: impl ArrayLike,
        axis: Option<isize>,
        mode: super::IndexMode,
    ) -> Result<Array> {
        np::put_along_axis(self, indices, values, axis, mode)
    }

    /// [`numpy::delete`](crate::numpy::delete) with this array as `arr`.
    pub fn delete(&self, obj: &[isize], axis: Option<isize>) -> Result<Array> {
        np::delete(self, obj, axis)
    }

    /// [`numpy::insert`](crate::numpy::insert) with this array as `arr`.
    pub fn insert(
        &self,
        obj: &[isize],
        values: impl ArrayLike,
        axis: Option<isize>,
    ) -> Result<Array> {
        np::insert(self, obj, values, axis)
    }

    /// [`numpy::trim_zeros`](crate::numpy::trim_zeros) with this array as `filt`.
    pub fn trim_zeros(&self, trim: &str) -> Result<Array> {
        np::trim_zeros(self, trim)
    }

    /// [`numpy::partition`](crate::numpy::partition) with this array as `a`.
    pub fn partition(&self, kth: isize, axis: isize) -> Result<Array> {
        np::partition(self, kth, axis)
    }

    /// [`numpy::argpartition`](crate::numpy::argpartition) with this array as `a`.
    pub fn argpartition(&self, kth: isize, axis: isize) -> Result<Array> {
        np::argpartition(self, kth, axis)
    }

    /// [`numpy::nextafter`](crate::numpy::nextafter) with this array as `x`.
    pub fn nextafter(&self, y: impl ArrayLike) -> Result<Array> {
        np::nextafter(self, y)
    }

    /// [`numpy::spacing`](crate::numpy::spacing) with this array as `x`.
    pub fn spacing(&self) -> Result<Array> {
        np::spacing(self)
    }

    /// [`numpy::gradient`](crate::numpy::gradient) with this array as `f`.
    pub fn gradient(&self, spacing: &[f64], axis: Option<&[isize]>) -> Result<Vec<Array>> {
        np::gradient(self, spacing, axis)
    }

    /// [`numpy::unwrap`](crate::numpy::unwrap) with this array as `p`.
    pub fn unwrap(&self, discont: Option<f64>, axis: isize, period: f64) -> Result<Array> {
        np::unwrap(self, discont, axis, period)
    }

    /// [`numpy::convolve`](crate::numpy::convolve) with this array as `a`.
    pub fn convolve(&self, v: impl ArrayLike, mode: ConvMode) -> Result<Array> {
        np::convolve(self, v, mode)
    }

    /// [`numpy::correlate`](crate::numpy::correlate) with this array as `a`.
    pub fn correlate(&self, v: impl ArrayLike, mode: ConvMode) -> Result<Array> {
        np::correlate(self, v, mode)
    }

    /// [`numpy::polymul`](crate::numpy::polymul) with this array as `a1`.
    pub fn polymul(&self, a2: impl ArrayLike) -> Result<Array> {
        np::polymul(self, a2)
    }

    /// [`numpy::polydiv`](crate::numpy::polydiv) with this array as `u`.
    pub fn polydiv(&self, v: impl ArrayLike) -> Result<(Array, Array)> {
        np::polydiv(self, v)
    }

    /// [`numpy::poly`](crate::numpy::poly) with this array as `seq_of_zeros`.
    pub fn poly(&self) -> Result<Array> {
        np::poly(self)
    }

    /// [`numpy::histogramdd`](crate::numpy::histogramdd) with this array as `sample`.
    pub fn histogramdd(
        &self,
        bins: &[Bins],
        range: Option<&[(f64, f64)]>,
        weights: Option<&Array>,
        density: bool,
    ) -> Result<(Array, Vec<Array>)> {
        np::histogramdd(self, bins, range, weights, density)
    }

    /// [`numpy::histogram2d`](crate::numpy::histogram2d) with this array as `x`.
    pub fn histogram2d(
        &self,
        y: impl ArrayLike,
        bins: &[Bins],
        range: Option<&[(f64, f64)]>,
        weights: Option<&Array>,
        density: bool,
    ) -> Result<(Array, Array, Array)> {
        np::histogram2d(self, y, bins, range, weights, density)
    }

    /// [`numpy::isscalar`](crate::numpy::isscalar) with this array as `element`.
    pub fn isscalar(&self) -> Result<bool> {
        np::isscalar(self)
    }

    /// [`numpy::i0`](crate::numpy::i0) of this array.
    pub fn i0(&self) -> Result<Array> {
        np::i0(self)
    }
}
