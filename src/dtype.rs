//! Element types and JAX's type-promotion lattice with weak types.
//!
//! Olympus has JAX's dtypes with x64 off: `bool`, `int8`, `uint8`, `int16`, `uint16`,
//! `int32`, `uint32`, `bfloat16`, `float16` and `float32`. Promotion follows JAX's lattice
//! (`b1 → i* → u8 → u16 → u32`, `i* → i8 → i16 → i32`, `u8 → i16`, `u16 → i32`, then
//! `f* → {bf16, f16} → f32`), where `i*` and `f*` are the *weak* integer and float types
//! of Rust scalars: a scalar adapts to the array it meets (`float16 array + 2.0 →
//! float16`) instead of widening it as NumPy 1.x did. Joins that would be a 64-bit type in
//! JAX's full lattice (`uint32 + int32`) canonicalise to 32 bits, as JAX does with x64
//! disabled.
//!
//! The 8- and 16-bit dtypes are stored packed (four or two per 32-bit word) and computed
//! in 32 bits: integers wrap to their width after every operation, `float16` and
//! `bfloat16` round to nearest even once per operation, as XLA does.

use std::fmt;

use half::{bf16, f16};

/// The element type of an [`Array`](crate::Array).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// Booleans; stored as one 32-bit word per element on the device, read back as `bool`.
    Bool,
    /// 8-bit signed integers, stored four to a word; overflow wraps.
    Int8,
    /// 8-bit unsigned integers, stored four to a word; overflow wraps.
    UInt8,
    /// 16-bit signed integers, stored two to a word; overflow wraps.
    Int16,
    /// 16-bit unsigned integers, stored two to a word; overflow wraps.
    UInt16,
    /// 32-bit signed integers; overflow wraps.
    Int32,
    /// 32-bit unsigned integers; overflow wraps.
    UInt32,
    /// Brain floating point (8 exponent bits, 7 mantissa bits), stored two to a word;
    /// computed in `float32` and rounded to nearest even once per operation.
    BFloat16,
    /// IEEE half precision; computed in `float32` and rounded once per operation.
    Float16,
    /// IEEE single precision.
    Float32,
    /// Test builds only: two float32 words per element (`[f32; 2]` on the host), computed
    /// as `vec2<f32>` and added lane by lane. It is complex64's storage, so the tests can
    /// show a multi-word element flowing through storage, kernels and readback before a
    /// complex dtype exists. It has no promotion and no name NumPy knows.
    #[cfg(test)]
    TestPair,
}

impl DType {
    /// Every dtype, in lattice order.
    pub const ALL: [DType; 10] = [
        DType::Bool,
        DType::Int8,
        DType::UInt8,
        DType::Int16,
        DType::UInt16,
        DType::Int32,
        DType::UInt32,
        DType::BFloat16,
        DType::Float16,
        DType::Float32,
    ];

    /// NumPy's name for the dtype (`"float32"`).
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::Int8 => "int8",
            DType::UInt8 => "uint8",
            DType::Int16 => "int16",
            DType::UInt16 => "uint16",
            DType::Int32 => "int32",
            DType::UInt32 => "uint32",
            DType::BFloat16 => "bfloat16",
            DType::Float16 => "float16",
            DType::Float32 => "float32",
            #[cfg(test)]
            DType::TestPair => "test_pair",
        }
    }

    /// Bytes one element occupies in a device buffer (`bool` is a 32-bit word; 8- and
    /// 16-bit dtypes are packed into words).
    pub fn storage_bytes(self) -> usize {
        match self {
            DType::Int8 | DType::UInt8 => 1,
            DType::Int16 | DType::UInt16 | DType::BFloat16 | DType::Float16 => 2,
            DType::Bool | DType::Int32 | DType::UInt32 | DType::Float32 => 4,
            #[cfg(test)]
            DType::TestPair => 8,
        }
    }

    /// Elements per 32-bit word where the dtype is stored packed (four 8-bit or two
    /// 16-bit values), 1 otherwise.
    pub(crate) fn per_word(self) -> u32 {
        (4 / self.storage_bytes() as u32).max(1)
    }

    /// 32-bit words one element takes (1 for every dtype but a multi-word one, which
    /// kernels read and write as one `vec2` unit and never as packed `vec4`s).
    pub(crate) fn words(self) -> u32 {
        (self.storage_bytes() as u32 / 4).max(1)
    }

    /// Bytes one element occupies in NumPy's layout (`itemsize`).
    pub fn itemsize(self) -> usize {
        match self {
            DType::Bool => 1,
            d => d.storage_bytes(),
        }
    }

    /// Bits of the value (`bool`: 8, as NumPy's `itemsize`).
    pub fn bits(self) -> u32 {
        self.itemsize() as u32 * 8
    }

    /// True for `bfloat16`, `float16` and `float32`.
    pub fn is_floating(self) -> bool {
        matches!(self, DType::BFloat16 | DType::Float16 | DType::Float32)
    }

    /// The largest finite value of a floating dtype (`finfo(dtype).max`); `None` for
    /// others.
    pub(crate) fn max_finite(self) -> Option<f64> {
        match self {
            DType::Float16 => Some(half::f16::MAX.to_f64()),
            DType::BFloat16 => Some(half::bf16::MAX.to_f64()),
            DType::Float32 => Some(f64::from(f32::MAX)),
            _ => None,
        }
    }

    /// True for the signed and unsigned integer dtypes.
    pub fn is_integer(self) -> bool {
        self.is_signed_integer() || self.is_unsigned_integer()
    }

    /// True for `int8`, `int16` and `int32`.
    pub fn is_signed_integer(self) -> bool {
        matches!(self, DType::Int8 | DType::Int16 | DType::Int32)
    }

    /// True for `uint8`, `uint16` and `uint32`.
    pub fn is_unsigned_integer(self) -> bool {
        matches!(self, DType::UInt8 | DType::UInt16 | DType::UInt32)
    }

    /// True for `bool`.
    pub fn is_bool(self) -> bool {
        self == DType::Bool
    }

    /// True for dtypes that can hold negative values.
    pub fn is_signed(self) -> bool {
        self.is_signed_integer() || self.is_floating()
    }

    /// The 32-bit dtype values of this dtype are computed in: `int32` for the signed
    /// integers, `uint32` for the unsigned ones, `float32` for the floats, `bool` itself.
    pub fn compute_dtype(self) -> DType {
        match self {
            DType::Int8 | DType::Int16 | DType::Int32 => DType::Int32,
            DType::UInt8 | DType::UInt16 | DType::UInt32 => DType::UInt32,
            DType::BFloat16 | DType::Float16 | DType::Float32 => DType::Float32,
            DType::Bool => DType::Bool,
            #[cfg(test)]
            DType::TestPair => DType::TestPair,
        }
    }

    /// The smallest and largest values of an integer dtype (`None` for others).
    pub fn integer_range(self) -> Option<(i64, i64)> {
        Some(match self {
            DType::Int8 => (i8::MIN.into(), i8::MAX.into()),
            DType::UInt8 => (0, u8::MAX.into()),
            DType::Int16 => (i16::MIN.into(), i16::MAX.into()),
            DType::UInt16 => (0, u16::MAX.into()),
            DType::Int32 => (i32::MIN.into(), i32::MAX.into()),
            DType::UInt32 => (0, u32::MAX.into()),
            _ => return None,
        })
    }

    /// Parses NumPy's names (`"float32"`, `"f4"`, `"int8"`, `"i1"`, `"uint8"`, `"u1"`,
    /// `"int16"`, `"i2"`, `"uint16"`, `"u2"`, `"int32"`, `"i4"`, `"uint32"`, `"u4"`,
    /// `"bfloat16"`, `"float16"`, `"f2"`, `"bool"`).
    pub fn from_name(name: &str) -> Option<DType> {
        Some(match name {
            "bool" | "b1" | "?" => DType::Bool,
            "int8" | "i1" => DType::Int8,
            "uint8" | "u1" => DType::UInt8,
            "int16" | "i2" => DType::Int16,
            "uint16" | "u2" => DType::UInt16,
            "int32" | "i4" => DType::Int32,
            "uint32" | "u4" => DType::UInt32,
            "bfloat16" => DType::BFloat16,
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

/// Nodes of JAX's promotion lattice (x64 off adds the 64-bit nodes only as joins that
/// canonicalise to 32 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Node {
    B,
    /// weak int
    IW,
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    /// weak float
    FW,
    BF16,
    F16,
    F32,
}

impl Node {
    /// The nodes directly above this one in JAX's lattice.
    fn above(self) -> &'static [Node] {
        use Node::*;
        match self {
            B => &[IW],
            IW => &[U8, I8],
            U8 => &[U16, I16],
            U16 => &[U32, I32],
            U32 => &[U64, I64],
            U64 => &[FW],
            I8 => &[I16],
            I16 => &[I32],
            I32 => &[I64],
            I64 => &[FW],
            FW => &[BF16, F16],
            BF16 | F16 => &[F32],
            F32 => &[],
        }
    }

    /// Bit set of this node and every node above it.
    fn upper(self) -> u32 {
        self.above()
            .iter()
            .fold(1 << self as u32, |acc, n| acc | n.upper())
    }
}

const NODES: [Node; 14] = [
    Node::B,
    Node::IW,
    Node::U8,
    Node::U16,
    Node::U32,
    Node::U64,
    Node::I8,
    Node::I16,
    Node::I32,
    Node::I64,
    Node::FW,
    Node::BF16,
    Node::F16,
    Node::F32,
];

fn node(t: TypeSpec) -> Node {
    match (t.dtype, t.weak) {
        (DType::Bool, _) => Node::B,
        (d, true) if d.is_integer() => Node::IW,
        (_, true) => Node::FW,
        (DType::Int8, false) => Node::I8,
        (DType::UInt8, false) => Node::U8,
        (DType::Int16, false) => Node::I16,
        (DType::UInt16, false) => Node::U16,
        (DType::Int32, false) => Node::I32,
        (DType::UInt32, false) => Node::U32,
        (DType::BFloat16, false) => Node::BF16,
        (DType::Float16, false) => Node::F16,
        (DType::Float32, false) => Node::F32,
        #[cfg(test)]
        (DType::TestPair, _) => unreachable!("the test dtype is never promoted"),
    }
}

/// Least upper bound in JAX's lattice: the one common upper node that is below every other
/// common upper node.
fn join(a: Node, b: Node) -> Node {
    let common = a.upper() & b.upper();
    NODES
        .into_iter()
        .find(|n| common & (1 << *n as u32) != 0 && n.upper() == common)
        .expect("JAX's lattice has a least upper bound for every pair")
}

fn spec(n: Node) -> TypeSpec {
    match n {
        Node::B => TypeSpec::strong(DType::Bool),
        Node::IW => TypeSpec::weak(DType::Int32),
        Node::U8 => TypeSpec::strong(DType::UInt8),
        Node::U16 => TypeSpec::strong(DType::UInt16),
        // The 64-bit integers canonicalise to 32 bits with x64 off.
        Node::U32 | Node::U64 => TypeSpec::strong(DType::UInt32),
        Node::I8 => TypeSpec::strong(DType::Int8),
        Node::I16 => TypeSpec::strong(DType::Int16),
        Node::I32 | Node::I64 => TypeSpec::strong(DType::Int32),
        Node::FW => TypeSpec::weak(DType::Float32),
        Node::BF16 => TypeSpec::strong(DType::BFloat16),
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

/// A Rust type that is the host form of one dtype: `bool`, `i8`, `u8`, `i16`, `u16`, `i32`,
/// `u32`, `half::bf16`, `half::f16`, `f32`.
///
/// `to_vec::<T>()` and `item::<T>()` read arrays of `T::DTYPE` back into these types.
pub trait Element: Copy + Send + Sync + fmt::Debug + PartialEq + 'static + sealed::Sealed {
    /// The dtype this type stands for.
    const DTYPE: DType;
    /// Appends the device storage form of `values` to `out`.
    fn encode(values: &[Self], out: &mut Vec<u8>);
    /// Reads `n` values from their device storage form.
    fn decode(bytes: &[u8], n: usize) -> Vec<Self> {
        let mut out = Vec::with_capacity(n);
        Self::decode_into(bytes, n, &mut out);
        out
    }
    /// [`decode`](Element::decode) appending to `out` (a readback reserves `out` first, so
    /// a host out of memory is an error rather than an abort).
    fn decode_into(bytes: &[u8], n: usize, out: &mut Vec<Self>);
    /// The values' bytes when the host form is already the device storage form (every
    /// type but `bool`), so uploads need no intermediate copy.
    fn as_storage_bytes(values: &[Self]) -> Option<&[u8]>;
    /// The value as f64 (exact for every dtype).
    fn to_f64(self) -> f64;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for bool {}
    impl Sealed for i8 {}
    impl Sealed for u8 {}
    impl Sealed for i16 {}
    impl Sealed for u16 {}
    impl Sealed for half::bf16 {}
    impl Sealed for i32 {}
    impl Sealed for u32 {}
    impl Sealed for half::f16 {}
    impl Sealed for f32 {}
    #[cfg(test)]
    impl Sealed for [f32; 2] {}
}

macro_rules! pod_element {
    ($t:ty, $d:expr) => {
        impl Element for $t {
            const DTYPE: DType = $d;
            fn encode(values: &[Self], out: &mut Vec<u8>) {
                out.extend_from_slice(bytemuck::cast_slice(values));
            }
            fn decode_into(bytes: &[u8], n: usize, out: &mut Vec<Self>) {
                let size = std::mem::size_of::<$t>();
                let bytes = &bytes[..n * size];
                // Mapped buffers are aligned, so this is one straight copy; the unaligned
                // path only serves byte slices from elsewhere.
                match bytemuck::try_cast_slice::<u8, $t>(bytes) {
                    Ok(values) => out.extend_from_slice(values),
                    Err(_) => out.extend(
                        bytes
                            .chunks_exact(size)
                            .map(|c| bytemuck::pod_read_unaligned::<$t>(c)),
                    ),
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

pod_element!(i8, DType::Int8);
pod_element!(u8, DType::UInt8);
pod_element!(i16, DType::Int16);
pod_element!(u16, DType::UInt16);
pod_element!(i32, DType::Int32);
pod_element!(u32, DType::UInt32);
pod_element!(f32, DType::Float32);
pod_element!(f16, DType::Float16);
pod_element!(bf16, DType::BFloat16);

/// The host form of the two-word test dtype: its two float32 words, as complex64's
/// `(re, im)` will be.
#[cfg(test)]
impl Element for [f32; 2] {
    const DTYPE: DType = DType::TestPair;
    fn encode(values: &[Self], out: &mut Vec<u8>) {
        out.extend_from_slice(bytemuck::cast_slice(values));
    }
    fn decode_into(bytes: &[u8], n: usize, out: &mut Vec<Self>) {
        out.extend(
            bytes[..n * 8]
                .chunks_exact(8)
                .map(bytemuck::pod_read_unaligned::<[f32; 2]>),
        );
    }
    fn as_storage_bytes(values: &[Self]) -> Option<&[u8]> {
        Some(bytemuck::cast_slice(values))
    }
    /// The first word (a test dtype has no single real value).
    fn to_f64(self) -> f64 {
        f64::from(self[0])
    }
}

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn encode(values: &[Self], out: &mut Vec<u8>) {
        for &v in values {
            out.extend_from_slice(&u32::from(v).to_le_bytes());
        }
    }
    fn decode_into(bytes: &[u8], n: usize, out: &mut Vec<Self>) {
        out.extend(bytes[..n * 4].chunks_exact(4).map(|c| c != [0, 0, 0, 0]));
    }
    fn as_storage_bytes(_: &[Self]) -> Option<&[u8]> {
        None
    }
    fn to_f64(self) -> f64 {
        f64::from(u8::from(self))
    }
}
