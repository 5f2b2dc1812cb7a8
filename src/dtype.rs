//! Element types and JAX's type-promotion lattice with weak types.
//!
//! Olympus has five dtypes: `bool`, `int32`, `uint32`, `float16` and `float32` (JAX's
//! 32-bit mode). Promotion follows JAX's lattice
//! (`b1 → i* → {u8…u32, i8…i32} → f* → f16 → f32`), where `i*` and `f*` are the *weak*
//! integer and float types of Rust scalars: a scalar adapts to the array it meets
//! (`float16 array + 2.0 → float16`) instead of widening it as NumPy 1.x did.
//! Pairs whose join would be a 64-bit type in JAX's full lattice (`uint32 + int32`)
//! canonicalise to 32 bits, as JAX does with x64 disabled.

use std::fmt;

use half::f16;

/// The element type of an [`Array`](crate::Array).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// Booleans; stored as one 32-bit word per element on the device, read back as `bool`.
    Bool,
    /// 32-bit signed integers; overflow wraps.
    Int32,
    /// 32-bit unsigned integers; overflow wraps.
    UInt32,
    /// IEEE half precision; computed in `float32` and rounded once per operation.
    Float16,
    /// IEEE single precision.
    Float32,
}

impl DType {
    /// Every dtype, in lattice order.
    pub const ALL: [DType; 5] = [
        DType::Bool,
        DType::Int32,
        DType::UInt32,
        DType::Float16,
        DType::Float32,
    ];

    /// NumPy's name for the dtype (`"float32"`).
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::Int32 => "int32",
            DType::UInt32 => "uint32",
            DType::Float16 => "float16",
            DType::Float32 => "float32",
        }
    }

    /// Bytes one element occupies in a device buffer (`bool` is a 32-bit word).
    pub fn storage_bytes(self) -> usize {
        match self {
            DType::Float16 => 2,
            _ => 4,
        }
    }

    /// Bytes one element occupies in NumPy's layout (`itemsize`).
    pub fn itemsize(self) -> usize {
        match self {
            DType::Bool => 1,
            DType::Float16 => 2,
            _ => 4,
        }
    }

    /// True for `float16` and `float32`.
    pub fn is_floating(self) -> bool {
        matches!(self, DType::Float16 | DType::Float32)
    }

    /// True for `int32` and `uint32`.
    pub fn is_integer(self) -> bool {
        matches!(self, DType::Int32 | DType::UInt32)
    }

    /// True for `bool`.
    pub fn is_bool(self) -> bool {
        self == DType::Bool
    }

    /// True for dtypes that can hold negative values.
    pub fn is_signed(self) -> bool {
        matches!(self, DType::Int32 | DType::Float16 | DType::Float32)
    }

    /// Parses NumPy's names (`"float32"`, `"f4"`, `"int32"`, `"i4"`, `"uint32"`, `"u4"`,
    /// `"float16"`, `"f2"`, `"bool"`).
    pub fn from_name(name: &str) -> Option<DType> {
        Some(match name {
            "bool" | "b1" | "?" => DType::Bool,
            "int32" | "i4" => DType::Int32,
            "uint32" | "u4" => DType::UInt32,
            "float16" | "f2" | "half" => DType::Float16,
            "float32" | "f4" | "single" => DType::Float32,
            _ => return None,
        })
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A dtype together with JAX's weak-type flag: the type of a value for promotion.
///
/// A weak type comes from a Rust scalar (`2`, `1.5`): it takes the type of the array it
/// meets. `From<DType>` gives a strong type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TypeSpec {
    /// The dtype.
    pub dtype: DType,
    /// Whether the type is weak.
    pub weak: bool,
}

impl TypeSpec {
    /// A strong type.
    pub fn strong(dtype: DType) -> TypeSpec {
        TypeSpec { dtype, weak: false }
    }

    /// A weak type (as a Rust scalar has).
    pub fn weak(dtype: DType) -> TypeSpec {
        TypeSpec { dtype, weak: true }
    }
}

impl From<DType> for TypeSpec {
    fn from(dtype: DType) -> TypeSpec {
        TypeSpec::strong(dtype)
    }
}

/// Nodes of JAX's promotion lattice restricted to what 32-bit Olympus can reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Node {
    B,
    /// weak int
    IW,
    I32,
    U32,
    /// weak float
    FW,
    F16,
    F32,
}

fn node(t: TypeSpec) -> Node {
    match (t.dtype, t.weak) {
        (DType::Bool, _) => Node::B,
        (DType::Int32 | DType::UInt32, true) => Node::IW,
        (DType::Float16 | DType::Float32, true) => Node::FW,
        (DType::Int32, false) => Node::I32,
        (DType::UInt32, false) => Node::U32,
        (DType::Float16, false) => Node::F16,
        (DType::Float32, false) => Node::F32,
    }
}

/// Least upper bound in JAX's lattice, with 64-bit results canonicalised to 32 bits.
fn join(a: Node, b: Node) -> Node {
    use Node::*;
    if a == b {
        return a;
    }
    match (a, b) {
        (B, x) | (x, B) => x,
        (IW, x) | (x, IW) => x,
        // i32 ∨ u32 = i64 in JAX's full lattice; canonical int32 in 32-bit mode.
        (I32, U32) | (U32, I32) => I32,
        (FW, I32 | U32) | (I32 | U32, FW) => FW,
        (F16 | F32, I32 | U32 | FW) => a,
        (I32 | U32 | FW, F16 | F32) => b,
        (F16, F32) | (F32, F16) => F32,
        _ => unreachable!("join covers every pair of lattice nodes"),
    }
}

fn spec(n: Node) -> TypeSpec {
    match n {
        Node::B => TypeSpec::strong(DType::Bool),
        Node::IW => TypeSpec::weak(DType::Int32),
        Node::I32 => TypeSpec::strong(DType::Int32),
        Node::U32 => TypeSpec::strong(DType::UInt32),
        Node::FW => TypeSpec::weak(DType::Float32),
        Node::F16 => TypeSpec::strong(DType::Float16),
        Node::F32 => TypeSpec::strong(DType::Float32),
    }
}

/// The dtype two strong dtypes promote to (`jnp.promote_types`).
///
/// ```
/// use olympus::{promote_types, DType};
/// assert_eq!(promote_types(DType::UInt32, DType::Int32), DType::Int32);
/// assert_eq!(promote_types(DType::Int32, DType::Float16), DType::Float16);
/// assert_eq!(promote_types(DType::Bool, DType::UInt32), DType::UInt32);
/// ```
pub fn promote_types(a: DType, b: DType) -> DType {
    spec(join(node(a.into()), node(b.into()))).dtype
}

/// The type a set of operands promotes to (`jnp.result_type`), weak flags included.
///
/// The result is weak only when every operand is weak (or `bool`) and the join is a weak
/// type. An empty list gives weak `float32`, as `jnp.result_type()` gives the default float.
///
/// ```
/// use olympus::{result_type, DType, TypeSpec};
/// // float16 array + 2.0 → float16
/// let t = result_type(&[DType::Float16.into(), TypeSpec::weak(DType::Float32)]);
/// assert_eq!(t, TypeSpec::strong(DType::Float16));
/// // int32 array + 1.5 → float32 (weak, as in JAX)
/// let t = result_type(&[DType::Int32.into(), TypeSpec::weak(DType::Float32)]);
/// assert_eq!(t, TypeSpec::weak(DType::Float32));
/// ```
pub fn result_type(types: &[TypeSpec]) -> TypeSpec {
    let mut it = types.iter();
    let Some(first) = it.next() else {
        return TypeSpec::weak(DType::Float32);
    };
    spec(it.fold(node(*first), |acc, t| join(acc, node(*t))))
}

/// The floating type a value promotes to for functions that need one (`exp`, `sqrt`):
/// integers and bool go to `float32` (keeping weakness), floats stay.
pub(crate) fn to_inexact(t: TypeSpec) -> TypeSpec {
    if t.dtype.is_floating() {
        t
    } else {
        TypeSpec {
            dtype: DType::Float32,
            weak: t.weak && t.dtype != DType::Bool,
        }
    }
}

/// A Rust type that is the host form of one dtype: `bool`, `i32`, `u32`, `half::f16`, `f32`.
///
/// `to_vec::<T>()` and `item::<T>()` read arrays of `T::DTYPE` back into these types.
pub trait Element: Copy + Send + Sync + fmt::Debug + PartialEq + 'static + sealed::Sealed {
    /// The dtype this type stands for.
    const DTYPE: DType;
    /// Appends the device storage form of `values` to `out`.
    fn encode(values: &[Self], out: &mut Vec<u8>);
    /// Reads `n` values from their device storage form.
    fn decode(bytes: &[u8], n: usize) -> Vec<Self>;
    /// The values' bytes when the host form is already the device storage form (every
    /// type but `bool`), so uploads need no intermediate copy.
    fn as_storage_bytes(values: &[Self]) -> Option<&[u8]>;
    /// The value as f64 (exact for every dtype).
    fn to_f64(self) -> f64;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for bool {}
    impl Sealed for i32 {}
    impl Sealed for u32 {}
    impl Sealed for half::f16 {}
    impl Sealed for f32 {}
}

macro_rules! pod_element {
    ($t:ty, $d:expr) => {
        impl Element for $t {
            const DTYPE: DType = $d;
            fn encode(values: &[Self], out: &mut Vec<u8>) {
                out.extend_from_slice(bytemuck::cast_slice(values));
            }
            fn decode(bytes: &[u8], n: usize) -> Vec<Self> {
                let size = std::mem::size_of::<$t>();
                let bytes = &bytes[..n * size];
                // Mapped buffers are aligned, so this is one straight copy; the unaligned
                // path only serves byte slices from elsewhere.
                match bytemuck::try_cast_slice::<u8, $t>(bytes) {
                    Ok(values) => values.to_vec(),
                    Err(_) => bytes
                        .chunks_exact(size)
                        .map(|c| bytemuck::pod_read_unaligned(c))
                        .collect(),
                }
            }
            fn as_storage_bytes(values: &[Self]) -> Option<&[u8]> {
                Some(bytemuck::cast_slice(values))
            }
            fn to_f64(self) -> f64 {
                f64::from(self)
            }
        }
    };
}

pod_element!(i32, DType::Int32);
pod_element!(u32, DType::UInt32);
pod_element!(f32, DType::Float32);
pod_element!(f16, DType::Float16);

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn encode(values: &[Self], out: &mut Vec<u8>) {
        for &v in values {
            out.extend_from_slice(&u32::from(v).to_le_bytes());
        }
    }
    fn decode(bytes: &[u8], n: usize) -> Vec<Self> {
        bytes[..n * 4]
            .chunks_exact(4)
            .map(|c| c != [0, 0, 0, 0])
            .collect()
    }
    fn as_storage_bytes(_: &[Self]) -> Option<&[u8]> {
        None
    }
    fn to_f64(self) -> f64 {
        f64::from(u8::from(self))
    }
}
