//! What `numpy` functions accept: [`ArrayLike`], and the array-conversion protocol
//! [`SupportsOlympusArray`] (the Rust form of `__olympus_array__`, JEP 28661).
//!
//! Conversion happens in two steps. [`ArrayLike::into_operand`] turns a value into an
//! [`Operand`]: an `Array`, host data, or a weak Rust scalar. The numpy function then
//! promotes all operands together (JAX's lattice with weak types) and only then uploads
//! host data, on the device of the array operands, so a scalar is materialised directly in
//! the result dtype (`uint32 array + 3_000_000_000` fits; `int32 array + 3_000_000_000`
//! is an overflow error, as in JAX).

use half::f16;

use crate::array::{current_device, Array};
use crate::dtype::{DType, TypeSpec};
use crate::error::{Error, Result};
use crate::runtime::Device;

/// The array-conversion protocol (`__olympus_array__`): a user type that can turn itself
/// into an [`Array`] is accepted by every `numpy` function.
///
/// ```
/// use olympus::{numpy as np, Array, Result, SupportsOlympusArray};
///
/// struct Celsius(Vec<f32>);
///
/// impl SupportsOlympusArray for Celsius {
///     fn olympus_array(&self) -> Result<Array> {
///         np::asarray(self.0.clone())
///     }
/// }
///
/// let t = Celsius(vec![20.0, 25.0]);
/// let k = np::add(&t, 273.15)?;
/// assert_eq!(k.to_vec::<f32>()?, vec![293.15, 298.15]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub trait SupportsOlympusArray {
    /// Converts the value to an array.
    fn olympus_array(&self) -> Result<Array>;

    /// The shape the value would convert to, if known without converting (used by
    /// `shape`, `ndim`, `size` and the `_like` constructors, which then never call
    /// [`olympus_array`](Self::olympus_array)).
    fn olympus_shape(&self) -> Option<Vec<usize>> {
        None
    }

    /// The dtype the value would convert to, if known without converting.
    fn olympus_dtype(&self) -> Option<DType> {
        None
    }

    /// A handler that takes over `numpy` functions for calls this value takes part in
    /// (NEP 18's `__array_function__`; usually a clone of the value): see
    /// [`numpy::overrides`](crate::numpy::overrides). `None` (the default) means the value
    /// is simply converted.
    fn overrides(&self) -> Option<std::sync::Arc<dyn crate::numpy::overrides::ArrayFunction>> {
        None
    }
}

/// The converted form of an array-like argument, before promotion.
#[derive(Clone, Debug)]
pub enum Operand {
    /// An array (on its own device).
    Array(Array),
    /// Host data of a definite dtype (a Vec, slice or nested Rust array; strongly typed).
    Host(HostData),
    /// A Rust integer scalar: weakly typed, materialised in the promoted dtype.
    WeakInt(i64),
    /// A Rust float scalar: weakly typed, materialised in the promoted dtype.
    WeakFloat(f64),
    /// A Rust bool scalar.
    Bool(bool),
    /// A `half::f16` scalar: strongly typed float16.
    F16(f16),
}

/// Host data with its shape, in one of the five dtypes.
#[derive(Clone, Debug)]
pub struct HostData {
    /// The shape.
    pub shape: Vec<usize>,
    /// The elements in C order.
    pub values: HostValues,
}

/// Elements of host data.
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub enum HostValues {
    Bool(Vec<bool>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    F16(Vec<f16>),
    F32(Vec<f32>),
}

impl Operand {
    /// The operand's type for promotion.
    pub fn type_spec(&self) -> TypeSpec {
        match self {
            Operand::Array(a) => TypeSpec {
                dtype: a.dtype(),
                weak: a.weak_type(),
            },
            Operand::Host(h) => TypeSpec::strong(h.values.dtype()),
            Operand::WeakInt(_) => TypeSpec::weak(DType::Int32),
            Operand::WeakFloat(_) => TypeSpec::weak(DType::Float32),
            Operand::Bool(_) => TypeSpec::strong(DType::Bool),
            Operand::F16(_) => TypeSpec::strong(DType::Float16),
        }
    }

    /// The operand's shape.
    pub fn shape(&self) -> Vec<usize> {
        match self {
            Operand::Array(a) => a.shape().to_vec(),
            Operand::Host(h) => h.shape.clone(),
            _ => vec![],
        }
    }

    /// Materialises the operand on `device` as `target` (the promoted type). Weak scalars
    /// are converted on the host from their exact value, with JAX's overflow check.
    pub(crate) fn materialize(
        self,
        func: &str,
        device: &Device,
        target: TypeSpec,
    ) -> Result<Array> {
        let arr = match self {
            Operand::Array(a) => a,
            Operand::Host(h) => h.upload(func, device)?,
            Operand::Bool(b) => Array::from_slice_on(device, &[b], &[])?,
            Operand::F16(v) => Array::from_slice_on(device, &[v], &[])?,
            Operand::WeakInt(v) => {
                let a = match target.dtype {
                    DType::Int32 => Array::from_slice_on(
                        device,
                        &[int_in_range::<i32>(func, v, target.dtype)?],
                        &[],
                    )?,
                    // JAX parses a Python int as int32 and wraps negative ones into
                    // uint32 (`u - 1` is `u + 4294967295`). Values past i32::MAX that
                    // fit uint32 are accepted too (JAX raises OverflowError), since a
                    // Rust `u32` scalar is a deliberate uint32 value.
                    DType::UInt32 => {
                        let w = match i32::try_from(v) {
                            Ok(n) if n < 0 => n as u32,
                            _ => int_in_range::<u32>(func, v, target.dtype)?,
                        };
                        Array::from_slice_on(device, &[w], &[])?
                    }
                    DType::Float16 => {
                        Array::from_slice_on(device, &[f16::from_f64(v as f64)], &[])?
                    }
                    DType::Float32 => Array::from_slice_on(device, &[v as f32], &[])?,
                    DType::Bool => Array::from_slice_on(device, &[v != 0], &[])?,
                };
                return Ok(a.with_weak(target.weak));
            }
            Operand::WeakFloat(v) => {
                let a = match target.dtype {
                    DType::Float16 => Array::from_slice_on(device, &[f16::from_f64(v)], &[])?,
                    _ => Array::from_slice_on(device, &[v as f32], &[])?,
                };
                if !target.dtype.is_floating() {
                    return Err(Error::dtype(
                        func,
                        &[target.dtype],
                        "a float scalar cannot take an integer or bool type",
                    ));
                }
                return Ok(a.with_weak(target.weak));
            }
        };
        if arr.device() != device {
            return Err(Error::DeviceMismatch {
                func: func.to_string(),
                devices: vec![format!("{device:?}"), format!("{:?}", arr.device())],
            });
        }
        if arr.dtype() == target.dtype && arr.weak_type() == target.weak {
            Ok(arr)
        } else {
            crate::lax::bind(
                crate::lax::Primitive::ConvertElementType {
                    dtype: target.dtype,
                    weak: target.weak,
                },
                &[&arr],
                None,
            )
        }
    }
}

fn int_in_range<T: TryFrom<i64>>(func: &str, v: i64, d: DType) -> Result<T> {
    T::try_from(v).map_err(|_| {
        Error::arg(
            func,
            format!(
                "the integer scalar {v} is out of range for {d} (JAX raises OverflowError here)"
            ),
        )
    })
}

impl HostValues {
    /// The dtype of the values.
    pub fn dtype(&self) -> DType {
        match self {
            HostValues::Bool(_) => DType::Bool,
            HostValues::I32(_) => DType::Int32,
            HostValues::U32(_) => DType::UInt32,
            HostValues::F16(_) => DType::Float16,
            HostValues::F32(_) => DType::Float32,
        }
    }
}

impl HostData {
    fn upload(&self, func: &str, device: &Device) -> Result<Array> {
        let _ = func;
        match &self.values {
            HostValues::Bool(v) => Array::from_slice_on(device, v, &self.shape),
            HostValues::I32(v) => Array::from_slice_on(device, v, &self.shape),
            HostValues::U32(v) => Array::from_slice_on(device, v, &self.shape),
            HostValues::F16(v) => Array::from_slice_on(device, v, &self.shape),
            HostValues::F32(v) => Array::from_slice_on(device, v, &self.shape),
        }
    }
}

/// Anything a `numpy` function accepts as an array argument: [`Array`], `&Array`, Rust
/// scalars (weakly typed), `half::f16`, slices, Vecs and nested Rust arrays of `bool`,
/// integers and floats, and any type implementing [`SupportsOlympusArray`].
///
/// Host sequences take NumPy's dtypes canonicalised to 32 bits, as JAX does: `f64` data
/// becomes float32, `i64` int32 (values must fit), `u64`/`usize` uint32.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not array-like",
    label = "olympus::numpy functions take arrays, Rust scalars, slices, Vecs and nested arrays",
    note = "implement `olympus::SupportsOlympusArray` for `{Self}`, or convert it with `olympus::numpy::asarray` first"
)]
pub trait ArrayLike {
    /// Converts the value to an operand; errors are reported by the caller with the
    /// function name and argument position.
    fn into_operand(self) -> Result<Operand>;

    /// The shape the value declares without being converted (arrays; user types whose
    /// protocol implementation declares it); `None` otherwise.
    fn declared_shape(&self) -> Option<Vec<usize>> {
        None
    }

    /// The type the value declares without being converted; `None` otherwise.
    fn declared_type(&self) -> Option<TypeSpec> {
        None
    }

    /// The value's override handler, for user types that take over numpy functions
    /// ([`SupportsOlympusArray::overrides`]); `None` otherwise.
    fn overrides(&self) -> Option<std::sync::Arc<dyn crate::numpy::overrides::ArrayFunction>> {
        None
    }

    /// The Rust type of the argument, for error messages.
    fn arg_type_name(&self) -> &'static str {
        std::any::type_name::<Self>()
    }
}

impl ArrayLike for Array {
    fn into_operand(self) -> Result<Operand> {
        Ok(Operand::Array(self))
    }

    fn declared_shape(&self) -> Option<Vec<usize>> {
        Some(self.shape().to_vec())
    }

    fn declared_type(&self) -> Option<TypeSpec> {
        Some(TypeSpec {
            dtype: self.dtype(),
            weak: self.weak_type(),
        })
    }
}

impl ArrayLike for &Array {
    fn into_operand(self) -> Result<Operand> {
        Ok(Operand::Array(self.clone()))
    }

    fn declared_shape(&self) -> Option<Vec<usize>> {
        Some(self.shape().to_vec())
    }

    fn declared_type(&self) -> Option<TypeSpec> {
        Some(TypeSpec {
            dtype: self.dtype(),
            weak: self.weak_type(),
        })
    }
}

/// A conversion that already ran (or failed): its error surfaces in the function it is
/// passed to. This is what makes lists of different array-like types possible (see
/// [`arrays!`](crate::arrays)).
impl<T: ArrayLike> ArrayLike for Result<T> {
    fn into_operand(self) -> Result<Operand> {
        self?.into_operand()
    }

    fn declared_shape(&self) -> Option<Vec<usize>> {
        self.as_ref().ok().and_then(ArrayLike::declared_shape)
    }

    fn declared_type(&self) -> Option<TypeSpec> {
        self.as_ref().ok().and_then(ArrayLike::declared_type)
    }

    fn overrides(&self) -> Option<std::sync::Arc<dyn crate::numpy::overrides::ArrayFunction>> {
        self.as_ref().ok().and_then(ArrayLike::overrides)
    }

    fn arg_type_name(&self) -> &'static str {
        std::any::type_name::<T>()
    }
}

impl ArrayLike for Operand {
    fn into_operand(self) -> Result<Operand> {
        Ok(self)
    }
}

impl<T: SupportsOlympusArray> ArrayLike for &T {
    fn into_operand(self) -> Result<Operand> {
        self.olympus_array().map(Operand::Array)
    }

    fn declared_shape(&self) -> Option<Vec<usize>> {
        (**self).olympus_shape()
    }

    fn declared_type(&self) -> Option<TypeSpec> {
        (**self).olympus_dtype().map(TypeSpec::strong)
    }

    fn overrides(&self) -> Option<std::sync::Arc<dyn crate::numpy::overrides::ArrayFunction>> {
        (**self).overrides()
    }
}

/// Converts one array-like value to an [`Operand`] now (the element type of mixed lists;
/// see [`arrays!`](crate::arrays)).
pub fn to_operand(x: impl ArrayLike) -> Result<Operand> {
    x.into_operand()
}

/// A list of array-like values of different types, for the `numpy` functions that take
/// several arrays (`concatenate`, `stack`, `einsum`, ...): each value is converted to an
/// [`Operand`] (keeping an override handler, see
/// [`numpy::overrides`](crate::numpy::overrides)); a failed conversion surfaces as the
/// function's error.
///
/// ```
/// use olympus::{arrays, numpy as np};
/// let a = np::array([1.0f32, 2.0])?;
/// let joined = np::concatenate(arrays![&a, vec![3.0f32], [4.0f32, 5.0]], 0)?;
/// assert_eq!(joined.to_vec::<f32>()?, vec![1.0, 2.0, 3.0, 4.0, 5.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
#[macro_export]
macro_rules! arrays {
    ($($x:expr),* $(,)?) => {
        vec![$($crate::numpy::overrides::Arg::new($x)),*]
    };
}

macro_rules! weak_int {
    ($($t:ty),*) => {$(
        impl ArrayLike for $t {
            fn into_operand(self) -> Result<Operand> {
                i64::try_from(self)
                    .map(Operand::WeakInt)
                    .map_err(|_| Error::arg("asarray", format!("the integer {self} does not fit 64 bits")))
            }
        }
    )*};
}
weak_int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl ArrayLike for f32 {
    fn into_operand(self) -> Result<Operand> {
        Ok(Operand::WeakFloat(f64::from(self)))
    }
}
impl ArrayLike for f64 {
    fn into_operand(self) -> Result<Operand> {
        Ok(Operand::WeakFloat(self))
    }
}
impl ArrayLike for bool {
    fn into_operand(self) -> Result<Operand> {
        Ok(Operand::Bool(self))
    }
}
impl ArrayLike for f16 {
    fn into_operand(self) -> Result<Operand> {
        Ok(Operand::F16(self))
    }
}

/// An element type host sequences may hold, and the dtype it becomes.
pub trait HostElement: Copy + 'static {
    #[doc(hidden)]
    fn collect(values: Vec<Self>) -> Result<HostValues>;
}

macro_rules! host_same {
    ($t:ty, $v:ident) => {
        impl HostElement for $t {
            fn collect(values: Vec<Self>) -> Result<HostValues> {
                Ok(HostValues::$v(values))
            }
        }
    };
}
host_same!(bool, Bool);
host_same!(i32, I32);
host_same!(u32, U32);
host_same!(f16, F16);
host_same!(f32, F32);

macro_rules! host_cast {
    ($t:ty, $v:ident, $to:ty) => {
        impl HostElement for $t {
            fn collect(values: Vec<Self>) -> Result<HostValues> {
                values
                    .into_iter()
                    .map(|x| {
                        <$to>::try_from(x).map_err(|_| {
                            Error::arg(
                                "asarray",
                                format!(
                                    "{x} does not fit {} (64-bit data is canonicalised to 32 bits)",
                                    stringify!($to)
                                ),
                            )
                        })
                    })
                    .collect::<Result<Vec<$to>>>()
                    .map(HostValues::$v)
            }
        }
    };
}
host_cast!(i8, I32, i32);
host_cast!(i16, I32, i32);
host_cast!(i64, I32, i32);
host_cast!(isize, I32, i32);
host_cast!(u8, U32, u32);
host_cast!(u16, U32, u32);
host_cast!(u64, U32, u32);
host_cast!(usize, U32, u32);

impl HostElement for f64 {
    fn collect(values: Vec<Self>) -> Result<HostValues> {
        Ok(HostValues::F32(
            values.into_iter().map(|x| x as f32).collect(),
        ))
    }
}

/// Nested host data: scalars, `[T; N]`, `Vec<T>` and slices of them.
pub trait NestedData {
    /// The scalar at the leaves.
    type Elem: HostElement;
    #[doc(hidden)]
    fn shape_of(&self) -> Vec<usize>;
    #[doc(hidden)]
    fn flatten(
        &self,
        shape: &[usize],
        out: &mut Vec<Self::Elem>,
    ) -> std::result::Result<(), String>;
}

macro_rules! nested_leaf {
    ($($t:ty),*) => {$(
        impl NestedData for $t {
            type Elem = $t;
            fn shape_of(&self) -> Vec<usize> { vec![] }
            fn flatten(&self, shape: &[usize], out: &mut Vec<$t>) -> std::result::Result<(), String> {
                if !shape.is_empty() {
                    return Err("the nested data is ragged".into());
                }
                out.push(*self);
                Ok(())
            }
        }
    )*};
}
nested_leaf!(bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f16, f32, f64);

fn flatten_seq<T: NestedData>(
    items: &[T],
    shape: &[usize],
    out: &mut Vec<T::Elem>,
) -> std::result::Result<(), String> {
    match shape.split_first() {
        Some((&n, rest)) if n == items.len() => {
            items.iter().try_for_each(|it| it.flatten(rest, out))
        }
        _ => Err(format!(
            "the nested data is ragged: expected shape {:?} but found a sequence of length {}",
            shape,
            items.len()
        )),
    }
}

fn seq_shape<T: NestedData>(items: &[T]) -> Vec<usize> {
    let mut s = vec![items.len()];
    if let Some(first) = items.first() {
        s.extend(first.shape_of());
    }
    s
}

impl<T: NestedData, const N: usize> NestedData for [T; N] {
    type Elem = T::Elem;
    fn shape_of(&self) -> Vec<usize> {
        seq_shape(self)
    }
    fn flatten(&self, shape: &[usize], out: &mut Vec<T::Elem>) -> std::result::Result<(), String> {
        flatten_seq(self, shape, out)
    }
}

impl<T: NestedData> NestedData for Vec<T> {
    type Elem = T::Elem;
    fn shape_of(&self) -> Vec<usize> {
        seq_shape(self)
    }
    fn flatten(&self, shape: &[usize], out: &mut Vec<T::Elem>) -> std::result::Result<(), String> {
        flatten_seq(self, shape, out)
    }
}

fn host_operand<T: NestedData>(items: &[T]) -> Result<Operand> {
    let shape = seq_shape(items);
    let mut out = Vec::with_capacity(crate::shape::size_of(&shape));
    flatten_seq(items, &shape, &mut out).map_err(|r| Error::arg("asarray", r))?;
    Ok(Operand::Host(HostData {
        shape,
        values: T::Elem::collect(out)?,
    }))
}

impl<T: NestedData, const N: usize> ArrayLike for [T; N] {
    fn into_operand(self) -> Result<Operand> {
        host_operand(&self)
    }
}
impl<T: NestedData, const N: usize> ArrayLike for &[T; N] {
    fn into_operand(self) -> Result<Operand> {
        host_operand(self)
    }
}
impl<T: NestedData> ArrayLike for Vec<T> {
    fn into_operand(self) -> Result<Operand> {
        host_operand(&self)
    }
}
impl<T: NestedData> ArrayLike for &Vec<T> {
    fn into_operand(self) -> Result<Operand> {
        host_operand(self)
    }
}
impl<T: NestedData> ArrayLike for &[T] {
    fn into_operand(self) -> Result<Operand> {
        host_operand(self)
    }
}

/// Converts one argument of `func`, wrapping failures in [`Error::Conversion`] with the
/// argument position and the Rust type.
pub(crate) fn operand<T: ArrayLike>(func: &str, position: usize, x: T) -> Result<Operand> {
    let type_name = x.arg_type_name();
    x.into_operand().map_err(|e| match e {
        e @ Error::Conversion { .. } => e,
        e => Error::Conversion {
            func: func.to_string(),
            position,
            type_name: type_name.to_string(),
            reason: e.to_string(),
        },
    })
}

/// The device of the array operands (all must agree), else the current device.
pub(crate) fn operand_device(func: &str, ops: &[Operand]) -> Result<Device> {
    let mut dev: Option<&Device> = None;
    for op in ops {
        if let Operand::Array(a) = op {
            match dev {
                None => dev = Some(a.device()),
                Some(d) if d != a.device() => {
                    return Err(Error::DeviceMismatch {
                        func: func.to_string(),
                        devices: vec![format!("{d:?}"), format!("{:?}", a.device())],
                    })
                }
                _ => {}
            }
        }
    }
    match dev {
        Some(d) => Ok(d.clone()),
        None => current_device(),
    }
}
