//! What `numpy` functions accept: [`ArrayLike`], and the array-conversion protocol
//! [`SupportsOlympusArray`] (the Rust form of `__olympus_array__`, JEP 28661).
//!
//! Conversion happens in two steps. [`ArrayLike::into_operand`] turns a value into an
//! [`Operand`]: an `Array`, host data, or a weak Rust scalar. The numpy function then
//! promotes all operands together (JAX's lattice with weak types) and only then uploads
//! host data, on the device of the array operands, so a scalar is materialised directly in
//! the result dtype (`uint32 array + 3_000_000_000` fits; `int32 array + 3_000_000_000`
//! is an overflow error, as in JAX).

use std::any::{Any, TypeId};
use std::fmt;
use std::sync::Arc;

use half::{bf16, f16};

use crate::array::{current_device, Array};
use crate::dtype::{DType, TypeSpec};
use crate::error::{Error, Result};
use crate::primitive::Literal;
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
    fn overrides(&self) -> Option<Arc<dyn ArrayFunction>> {
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
    /// A `half::bf16` scalar: strongly typed bfloat16.
    BF16(bf16),
}

/// Host data with its shape, in one of the dtypes.
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
    I8(Vec<i8>),
    U8(Vec<u8>),
    I16(Vec<i16>),
    U16(Vec<u16>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    BF16(Vec<bf16>),
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
            Operand::BF16(_) => TypeSpec::strong(DType::BFloat16),
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
            Operand::BF16(v) => Array::from_slice_on(device, &[v], &[])?,
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
                    // Narrower integers take the int32 wrapped into them, as JAX 0.10.2
                    // does (`int8 + 1000` adds -24).
                    d if d.is_integer() => {
                        let w = int_in_range::<i32>(func, v, d)?;
                        literal_array(device, Literal::from_i64(w.into(), d))?
                    }
                    d => literal_array(device, Literal::from_i64(v, d))?,
                };
                return Ok(a.with_weak(target.weak));
            }
            Operand::WeakFloat(v) => {
                let a = literal_array(device, Literal::from_f64(v, target.dtype))?;
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
                crate::primitive::Primitive::ConvertElementType {
                    dtype: target.dtype,
                    weak: target.weak,
                },
                &[&arr],
                None,
            )
        }
    }
}

/// A 0-d array holding `lit`, uploaded to `device`.
pub(crate) fn literal_array(device: &Device, lit: Literal) -> Result<Array> {
    match lit {
        Literal::Bool(v) => Array::from_slice_on(device, &[v], &[]),
        Literal::I8(v) => Array::from_slice_on(device, &[v], &[]),
        Literal::U8(v) => Array::from_slice_on(device, &[v], &[]),
        Literal::I16(v) => Array::from_slice_on(device, &[v], &[]),
        Literal::U16(v) => Array::from_slice_on(device, &[v], &[]),
        Literal::I32(v) => Array::from_slice_on(device, &[v], &[]),
        Literal::U32(v) => Array::from_slice_on(device, &[v], &[]),
        Literal::BF16(v) => Array::from_slice_on(device, &[v], &[]),
        Literal::F16(v) => Array::from_slice_on(device, &[v], &[]),
        Literal::F32(v) => Array::from_slice_on(device, &[v], &[]),
        #[cfg(test)]
        Literal::Pair(v) => Array::from_slice_on(device, &[v], &[]),
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
            HostValues::I8(_) => DType::Int8,
            HostValues::U8(_) => DType::UInt8,
            HostValues::I16(_) => DType::Int16,
            HostValues::U16(_) => DType::UInt16,
            HostValues::BF16(_) => DType::BFloat16,
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
            HostValues::I8(v) => Array::from_slice_on(device, v, &self.shape),
            HostValues::U8(v) => Array::from_slice_on(device, v, &self.shape),
            HostValues::I16(v) => Array::from_slice_on(device, v, &self.shape),
            HostValues::U16(v) => Array::from_slice_on(device, v, &self.shape),
            HostValues::BF16(v) => Array::from_slice_on(device, v, &self.shape),
            HostValues::I32(v) => Array::from_slice_on(device, v, &self.shape),
            HostValues::U32(v) => Array::from_slice_on(device, v, &self.shape),
            HostValues::F16(v) => Array::from_slice_on(device, v, &self.shape),
            HostValues::F32(v) => Array::from_slice_on(device, v, &self.shape),
        }
    }
}

/// Anything a `numpy` function accepts as an array argument: [`Array`], `&Array`, Rust
/// scalars (weakly typed), `half::f16`, `half::bf16`, slices, Vecs and nested Rust arrays of `bool`,
/// integers and floats, and any type implementing [`SupportsOlympusArray`].
///
/// Host sequences keep their element type's dtype (`u8` data is uint8), 64-bit types
/// canonicalised to 32 bits as JAX does: `f64` data
/// becomes float32, `i64` int32 (values must fit), `u64`/`usize` uint32.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not array-like",
    label = "olympus::numpy functions take arrays, Rust scalars, slices, Vecs and nested arrays",
    note = "implement `olympus::SupportsOlympusArray` for `{Self}`, or build an array from its data first with `olympus::Array::from_slice(&data, &shape)`"
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
    fn overrides(&self) -> Option<Arc<dyn ArrayFunction>> {
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

    fn overrides(&self) -> Option<Arc<dyn ArrayFunction>> {
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

    fn overrides(&self) -> Option<Arc<dyn ArrayFunction>> {
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
impl ArrayLike for bf16 {
    fn into_operand(self) -> Result<Operand> {
        Ok(Operand::BF16(self))
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
host_same!(bf16, BF16);
host_same!(i8, I8);
host_same!(u8, U8);
host_same!(i16, I16);
host_same!(u16, U16);
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
host_cast!(i64, I32, i32);
host_cast!(isize, I32, i32);
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
nested_leaf!(bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, bf16, f16, f32, f64);

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

/// `op` as an array of its own type (`asarray`'s conversion), on the device it names or
/// the current one; `func` names the caller in errors.
pub(crate) fn to_array(func: &str, op: Operand) -> Result<Array> {
    let t = crate::dtype::result_type(&[op.type_spec()]);
    let device = operand_device(func, std::slice::from_ref(&op))?;
    op.materialize(func, &device, t)
}

// The handler side of function overrides (NEP 18): what `ArrayLike::overrides` returns and
// what a handler is offered. Documented with the dispatch in `numpy::overrides`.

/// A type's handler for the numpy calls it takes part in. See the [module docs](crate::numpy::overrides).
pub trait ArrayFunction: Any + Send + Sync {
    /// Computes `call`, or declines with `None` (NEP 18's `NotImplemented`).
    fn array_function(&self, call: &Call<'_>) -> Option<Result<Value>>;
}

/// A handler's result: the value the numpy function returns (an [`Array`] for most).
pub struct Value(Box<dyn Any + Send>);

impl Value {
    /// Wraps the function's result (`Vec<Array>` for `split`, `bool` for `allclose`, ...).
    pub fn new<T: Any + Send>(v: T) -> Value {
        Value(Box::new(v))
    }

    /// The result as the function's return type.
    pub(crate) fn downcast<R: Any>(self, func: &str) -> Result<R> {
        self.0.downcast::<R>().map(|b| *b).map_err(|_| {
            Error::arg(
                func,
                format!(
                    "an override returned a value that is not a `{}`",
                    std::any::type_name::<R>()
                ),
            )
        })
    }
}

impl From<Array> for Value {
    fn from(a: Array) -> Value {
        Value::new(a)
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Value(..)")
    }
}

/// A non-array parameter of a call, by value (NEP 18's keyword arguments).
#[derive(Clone, Debug, PartialEq)]
pub enum Param {
    /// Absent (`None`).
    None,
    /// A bool.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// Integers (axes, a shape).
    Ints(Vec<i64>),
    /// A dtype.
    DType(DType),
    /// Text (subscripts, a mode).
    Str(String),
    /// Anything else, in its `Debug` form.
    Other(String),
}

/// Conversion of a numpy function's non-array parameter into a [`Param`].
pub trait IntoParam {
    /// The parameter's value.
    fn to_param(&self) -> Param;
}

macro_rules! int_param {
    ($($t:ty),*) => {$(
        impl IntoParam for $t {
            fn to_param(&self) -> Param {
                Param::Int(*self as i64)
            }
        }
    )*};
}
int_param!(i32, i64, isize, u32, u64, usize);

impl IntoParam for bool {
    fn to_param(&self) -> Param {
        Param::Bool(*self)
    }
}

impl IntoParam for f64 {
    fn to_param(&self) -> Param {
        Param::Float(*self)
    }
}

impl IntoParam for f32 {
    fn to_param(&self) -> Param {
        Param::Float(f64::from(*self))
    }
}

impl IntoParam for DType {
    fn to_param(&self) -> Param {
        Param::DType(*self)
    }
}

impl IntoParam for &str {
    fn to_param(&self) -> Param {
        Param::Str((*self).to_string())
    }
}

impl<T: IntoParam> IntoParam for Option<T> {
    fn to_param(&self) -> Param {
        self.as_ref().map_or(Param::None, IntoParam::to_param)
    }
}

macro_rules! ints_param {
    ($($t:ty),*) => {$(
        impl IntoParam for &[$t] {
            fn to_param(&self) -> Param {
                Param::Ints(self.iter().map(|&v| v as i64).collect())
            }
        }

        impl IntoParam for Vec<$t> {
            fn to_param(&self) -> Param {
                self.as_slice().to_param()
            }
        }
    )*};
}
ints_param!(i32, i64, isize, u32, usize);

/// One array argument of a call: its value if it overrides (downcast it with
/// [`Arg::downcast_ref`]), and its conversion to an array.
pub struct Arg {
    pub(crate) handler: Option<Arc<dyn ArrayFunction>>,
    pub(crate) type_name: &'static str,
    pub(crate) operand: std::result::Result<Operand, Error>,
}

impl Arg {
    /// The argument as `T` when it is an overriding value of type `T`.
    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        let h: &dyn Any = self.handler.as_deref()?;
        h.downcast_ref::<T>()
    }

    /// Whether the argument is an overriding value.
    pub fn is_overriding(&self) -> bool {
        self.handler.is_some()
    }

    /// The Rust type of the argument as passed.
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }

    /// The argument as an array (overriding values through the conversion protocol).
    pub fn to_array(&self) -> Result<Array> {
        match &self.operand {
            Ok(Operand::Array(a)) => Ok(a.clone()),
            Ok(op) => to_array("asarray", op.clone()),
            Err(e) => Err(e.clone()),
        }
    }
}

impl Arg {
    /// Converts an array-like value, keeping its override handler: the element type of
    /// lists of different array-like types ([`arrays!`](crate::arrays)).
    pub fn new(x: impl ArrayLike) -> Arg {
        let handler = x.overrides();
        let type_name = x.arg_type_name();
        Arg {
            handler,
            type_name,
            operand: x.into_operand(),
        }
    }
}

impl ArrayLike for Arg {
    fn into_operand(self) -> Result<Operand> {
        self.operand
    }

    fn declared_shape(&self) -> Option<Vec<usize>> {
        self.operand.as_ref().ok().map(Operand::shape)
    }

    fn declared_type(&self) -> Option<TypeSpec> {
        self.operand.as_ref().ok().map(Operand::type_spec)
    }

    fn overrides(&self) -> Option<Arc<dyn ArrayFunction>> {
        self.handler.clone()
    }

    fn arg_type_name(&self) -> &'static str {
        self.type_name
    }
}

impl fmt::Debug for Arg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Arg({})", self.type_name)
    }
}

/// An argument position: one array, or a list of them (`concatenate`'s arrays).
#[derive(Debug)]
pub enum Slot {
    /// One array argument.
    One(Arg),
    /// A list argument.
    List(Vec<Arg>),
}

impl Slot {
    fn args(&self) -> &[Arg] {
        match self {
            Slot::One(a) => std::slice::from_ref(a),
            Slot::List(v) => v,
        }
    }
}

/// A numpy call offered to a handler.
pub struct Call<'a> {
    func: &'static str,
    types: Vec<&'static str>,
    slots: &'a [Slot],
    params: &'a [(&'static str, Param)],
}

impl<'a> Call<'a> {
    /// The function's name (`"add"`, `"concatenate"`).
    pub fn func(&self) -> &'static str {
        self.func
    }

    /// The overriding types taking part, in argument order (NEP 18's `types`).
    pub fn types(&self) -> &[&'static str] {
        &self.types
    }

    /// The array arguments, list elements in place, in order.
    pub fn args(&self) -> Vec<&'a Arg> {
        self.slots.iter().flat_map(Slot::args).collect()
    }

    /// The argument positions as the function takes them (lists kept together).
    pub fn slots(&self) -> &'a [Slot] {
        self.slots
    }

    /// A non-array parameter by name (`"axis"`, `"keepdims"`).
    pub fn param(&self, name: &str) -> Option<&'a Param> {
        self.params.iter().find(|(n, _)| *n == name).map(|(_, p)| p)
    }
}

impl fmt::Debug for Call<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call")
            .field("func", &self.func)
            .field("types", &self.types)
            .field("slots", &self.slots)
            .field("params", &self.params)
            .finish()
    }
}

/// Offers a call to the handlers of its overriding arguments (NEP 18's rules; see the
/// [module docs](crate::numpy::overrides)): `Some(result)` when one of them handled it, `None` when all
/// declined and every overriding argument converts, so the default runs; an error when
/// all declined and some overriding argument cannot be converted.
#[doc(hidden)]
pub fn offer(
    func: &'static str,
    slots: &[Slot],
    params: &[(&'static str, Param)],
) -> Option<Result<Value>> {
    let mut seen: Vec<TypeId> = Vec::new();
    let mut handlers: Vec<&Arc<dyn ArrayFunction>> = Vec::new();
    let mut types: Vec<&'static str> = Vec::new();
    for arg in slots.iter().flat_map(Slot::args) {
        if let Some(h) = &arg.handler {
            let id = (**h).type_id();
            if !seen.contains(&id) {
                seen.push(id);
                handlers.push(h);
                types.push(arg.type_name);
            }
        }
    }
    let call = Call {
        func,
        types: types.clone(),
        slots,
        params,
    };
    for h in handlers {
        if let Some(r) = h.array_function(&call) {
            return Some(r);
        }
    }
    // Everyone declined: the default needs every overriding argument converted.
    for arg in slots.iter().flat_map(Slot::args) {
        if let (Some(_), Err(e)) = (&arg.handler, &arg.operand) {
            return Some(Err(Error::arg(
                func,
                format!(
                    "no implementation for the argument types {types:?}: every override declined and `{}` does not convert to an array ({e})",
                    arg.type_name
                ),
            )));
        }
    }
    None
}
