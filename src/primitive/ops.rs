//! The parameters of primitives: the operations of the elementwise, reduction, scatter and
//! cumulative families, the dtypes each elementwise operation accepts, and literals.

use crate::dtype::DType;
use half::{bf16, f16};

/// How an update combines with the element it lands on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScatterMode {
    /// Replace (the last of duplicate positions is unspecified, as in JAX).
    Set,
    /// Add (logical or for bool).
    Add,
    /// Multiply (logical and for bool).
    Mul,
    /// Minimum (NaN propagates).
    Min,
    /// Maximum (NaN propagates).
    Max,
}

impl ScatterMode {
    /// Every mode.
    pub const ALL: [ScatterMode; 5] = [
        ScatterMode::Set,
        ScatterMode::Add,
        ScatterMode::Mul,
        ScatterMode::Min,
        ScatterMode::Max,
    ];
}

/// Which words the Threefry primitive returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ThreefryOutput {
    /// The first output word.
    First,
    /// The second output word.
    Second,
    /// Both words xor-ed (JAX's partitionable 32-bit random bits).
    Xor,
}

/// A scalar in one dtype, as a primitive parameter (the value of `full`). Literals are
/// equal when their dtypes and bits are: `-0.0` and `0.0` differ (a program holding one
/// is not the program holding the other) and a NaN equals itself.
#[derive(Clone, Copy, Debug)]
pub enum Literal {
    /// A bool.
    Bool(bool),
    /// An int8.
    I8(i8),
    /// A uint8.
    U8(u8),
    /// An int16.
    I16(i16),
    /// A uint16.
    U16(u16),
    /// An int32.
    I32(i32),
    /// A uint32.
    U32(u32),
    /// A bfloat16.
    BF16(bf16),
    /// A float16.
    F16(f16),
    /// A float32.
    F32(f32),
    /// Test builds only: a value of the two-word test dtype (complex64's storage).
    #[cfg(test)]
    Pair([f32; 2]),
}

impl PartialEq for Literal {
    fn eq(&self, other: &Literal) -> bool {
        self.dtype() == other.dtype() && self.compute_words() == other.compute_words()
    }
}

impl Literal {
    /// The literal's dtype.
    pub fn dtype(self) -> DType {
        match self {
            Literal::Bool(_) => DType::Bool,
            Literal::I8(_) => DType::Int8,
            Literal::U8(_) => DType::UInt8,
            Literal::I16(_) => DType::Int16,
            Literal::U16(_) => DType::UInt16,
            Literal::I32(_) => DType::Int32,
            Literal::U32(_) => DType::UInt32,
            Literal::BF16(_) => DType::BFloat16,
            Literal::F16(_) => DType::Float16,
            Literal::F32(_) => DType::Float32,
            #[cfg(test)]
            Literal::Pair(_) => DType::TestPair,
        }
    }

    /// The words of the value in its compute type, of which the first `dtype().words()`
    /// count (8- and 16-bit integers compute as 32-bit ones of their signedness, bfloat16
    /// and float16 as float32; a two-word value, complex64's storage, is its two float32
    /// words); the second word of a one-word value is 0.
    pub(crate) fn compute_words(self) -> [u32; 2] {
        let one = match self {
            Literal::Bool(b) => u32::from(b),
            Literal::I8(v) => i32::from(v) as u32,
            Literal::U8(v) => u32::from(v),
            Literal::I16(v) => i32::from(v) as u32,
            Literal::U16(v) => u32::from(v),
            Literal::I32(v) => v as u32,
            Literal::U32(v) => v,
            Literal::BF16(v) => v.to_f32().to_bits(),
            Literal::F16(v) => v.to_f32().to_bits(),
            Literal::F32(v) => v.to_bits(),
            #[cfg(test)]
            Literal::Pair([re, im]) => return [re.to_bits(), im.to_bits()],
        };
        [one, 0]
    }

    /// The value as an integer, for integer and bool literals.
    fn as_int(self) -> Option<i64> {
        Some(match self {
            Literal::Bool(b) => i64::from(b),
            Literal::I8(v) => v.into(),
            Literal::U8(v) => v.into(),
            Literal::I16(v) => v.into(),
            Literal::U16(v) => v.into(),
            Literal::I32(v) => v.into(),
            Literal::U32(v) => v.into(),
            _ => return None,
        })
    }

    /// The value as f64 (exact for every dtype; the first word of a two-word test value).
    pub fn to_f64(self) -> f64 {
        match self.as_int() {
            Some(i) => i as f64,
            None => match self {
                Literal::BF16(v) => v.to_f64(),
                Literal::F16(v) => v.to_f64(),
                Literal::F32(v) => f64::from(v),
                // The first word, as the test dtype's host type reads.
                #[cfg(test)]
                Literal::Pair([re, _]) => f64::from(re),
                _ => unreachable!("integer literals answer as_int"),
            },
        }
    }

    /// `v` converted to `dtype` (integers truncate and saturate, NaN gives 0, bool is
    /// `v != 0`): how a Rust number becomes a fill value of an array's dtype.
    pub fn from_f64(v: f64, dtype: DType) -> Literal {
        // `as` truncates toward zero, saturates and maps NaN to 0.
        match dtype {
            DType::Bool => Literal::Bool(v != 0.0),
            DType::Int8 => Literal::I8(v as i8),
            DType::UInt8 => Literal::U8(v as u8),
            DType::Int16 => Literal::I16(v as i16),
            DType::UInt16 => Literal::U16(v as u16),
            DType::Int32 => Literal::I32(v as i32),
            DType::UInt32 => Literal::U32(v as u32),
            DType::BFloat16 => Literal::BF16(bf16::from_f64(v)),
            DType::Float16 => Literal::F16(f16::from_f64(v)),
            DType::Float32 => Literal::F32(v as f32),
            #[cfg(test)]
            DType::TestPair => Literal::Pair([v as f32, 0.0]),
        }
    }

    /// The integer `v` in `dtype`: wrapped into integer dtypes (two's complement, as
    /// NumPy's `astype` and JAX's weak integers do), rounded into floats, `v != 0` for bool.
    pub fn from_i64(v: i64, dtype: DType) -> Literal {
        match dtype {
            DType::Bool => Literal::Bool(v != 0),
            DType::Int8 => Literal::I8(v as i8),
            DType::UInt8 => Literal::U8(v as u8),
            DType::Int16 => Literal::I16(v as i16),
            DType::UInt16 => Literal::U16(v as u16),
            DType::Int32 => Literal::I32(v as i32),
            DType::UInt32 => Literal::U32(v as u32),
            DType::Float32 => Literal::F32(v as f32),
            d => Literal::from_f64(v as f64, d),
        }
    }

    /// The value converted to `dtype` with XLA's conversion rules (as `astype`): integers
    /// wrap into narrower integers, floats truncate toward zero and saturate into integers
    /// (NaN gives 0), integers past float32's precision round to float32 first (as XLA
    /// converts them to bfloat16 and float16).
    pub fn cast(self, dtype: DType) -> Literal {
        if self.dtype() == dtype {
            return self;
        }
        let f = self.to_f64();
        if let (Some(i), true) = (self.as_int(), dtype.is_integer()) {
            // Two's-complement wrap.
            return match dtype {
                DType::Int8 => Literal::I8(i as i8),
                DType::UInt8 => Literal::U8(i as u8),
                DType::Int16 => Literal::I16(i as i16),
                DType::UInt16 => Literal::U16(i as u16),
                DType::Int32 => Literal::I32(i as i32),
                _ => Literal::U32(i as u32),
            };
        }
        match dtype {
            DType::Bool => Literal::Bool(f != 0.0 || f.is_nan()),
            DType::BFloat16 => Literal::BF16(bf16::from_f32(f as f32)),
            DType::Float16 => Literal::F16(f16::from_f32(f as f32)),
            DType::Float32 => Literal::F32(f as f32),
            d => Literal::from_f64(f, d),
        }
    }
}

/// Elementwise operations of one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum UnaryOp {
    Neg,
    Sign,
    Abs,
    Square,
    Reciprocal,
    Floor,
    Ceil,
    /// Round half to even.
    Round,
    Trunc,
    Exp,
    Exp2,
    Expm1,
    Log,
    Log2,
    Log10,
    Log1p,
    Sqrt,
    Cbrt,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    /// Inverse error function (XLA's single-precision algorithm).
    ErfInv,
    /// Logical not on bool, bitwise not on integers.
    Not,
    IsNan,
    IsInf,
    IsFinite,
    SignBit,
    /// The number of set bits (`lax.population_count`) of an integer, within its width.
    PopulationCount,
    /// The identity, through which no derivative flows (`lax.stop_gradient`).
    StopGradient,
}

/// Elementwise operations of two operands of one dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum BinaryOp {
    /// Logical or on bool.
    Add,
    Sub,
    /// Logical and on bool.
    Mul,
    /// True division (floats).
    Div,
    /// NumPy's `floor_divide`.
    FloorDiv,
    /// NumPy's `remainder` (sign of the divisor).
    Rem,
    /// C's `fmod` (sign of the dividend).
    Fmod,
    Pow,
    /// NaN-propagating maximum.
    Max,
    /// NaN-propagating minimum.
    Min,
    /// NaN-ignoring maximum.
    Fmax,
    /// NaN-ignoring minimum.
    Fmin,
    Atan2,
    Hypot,
    Copysign,
    LogAddExp,
    LogAddExp2,
    /// Bitwise (logical on bool).
    And,
    Or,
    Xor,
    ShiftLeft,
    /// Arithmetic for int32, logical for uint32.
    ShiftRight,
    Gcd,
    Lcm,
}

/// Elementwise comparisons (result bool).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum CompareOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Reductions over axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum ReduceOp {
    Sum,
    Prod,
    /// NaN-propagating.
    Max,
    /// NaN-propagating.
    Min,
    /// All true (bool).
    And,
    /// Any true (bool).
    Or,
}

impl ReduceOp {
    /// Every reduction.
    pub const ALL: [ReduceOp; 6] = [
        ReduceOp::Sum,
        ReduceOp::Prod,
        ReduceOp::Max,
        ReduceOp::Min,
        ReduceOp::And,
        ReduceOp::Or,
    ];

    /// The lax name.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "reduce_sum",
            ReduceOp::Prod => "reduce_prod",
            ReduceOp::Max => "reduce_max",
            ReduceOp::Min => "reduce_min",
            ReduceOp::And => "reduce_and",
            ReduceOp::Or => "reduce_or",
        }
    }
}

/// The operations a cumulative primitive combines with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CumulativeOp {
    /// Running sums (`cumsum`).
    Sum,
    /// Running products (`cumprod`).
    Prod,
}

impl CumulativeOp {
    /// Both operations.
    pub const ALL: [CumulativeOp; 2] = [CumulativeOp::Sum, CumulativeOp::Prod];

    /// The lax name.
    pub fn name(self) -> &'static str {
        match self {
            CumulativeOp::Sum => "cumsum",
            CumulativeOp::Prod => "cumprod",
        }
    }
}

/// Which dtypes an elementwise operation accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Accepts {
    Any,
    /// Integers and floats.
    Numeric,
    Floats,
    Integers,
    /// Integers and bool.
    IntegersBool,
}

impl Accepts {
    pub(crate) fn ok(self, d: DType) -> bool {
        match self {
            Accepts::Any => true,
            Accepts::Numeric => !d.is_bool(),
            Accepts::Floats => d.is_floating(),
            Accepts::Integers => d.is_integer(),
            Accepts::IntegersBool => !d.is_floating(),
        }
    }

    pub(crate) fn describe(self) -> &'static str {
        match self {
            Accepts::Any => "any dtype",
            Accepts::Numeric => "integer or floating dtypes",
            Accepts::Floats => "floating dtypes",
            Accepts::Integers => "integer dtypes",
            Accepts::IntegersBool => "integer or bool dtypes",
        }
    }
}

impl UnaryOp {
    /// Every unary op.
    pub const ALL: [UnaryOp; 38] = {
        use UnaryOp::*;
        [
            Neg,
            Sign,
            Abs,
            Square,
            Reciprocal,
            Floor,
            Ceil,
            Round,
            Trunc,
            Exp,
            Exp2,
            Expm1,
            Log,
            Log2,
            Log10,
            Log1p,
            Sqrt,
            Cbrt,
            Sin,
            Cos,
            Tan,
            Asin,
            Acos,
            Atan,
            Sinh,
            Cosh,
            Tanh,
            Asinh,
            Acosh,
            Atanh,
            ErfInv,
            Not,
            IsNan,
            IsInf,
            IsFinite,
            SignBit,
            PopulationCount,
            StopGradient,
        ]
    };

    /// The lax name.
    pub fn name(self) -> &'static str {
        use UnaryOp::*;
        match self {
            Neg => "neg",
            Sign => "sign",
            Abs => "abs",
            Square => "square",
            Reciprocal => "reciprocal",
            Floor => "floor",
            Ceil => "ceil",
            Round => "round",
            Trunc => "trunc",
            Exp => "exp",
            Exp2 => "exp2",
            Expm1 => "expm1",
            Log => "log",
            Log2 => "log2",
            Log10 => "log10",
            Log1p => "log1p",
            Sqrt => "sqrt",
            Cbrt => "cbrt",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Asin => "asin",
            Acos => "acos",
            Atan => "atan",
            Sinh => "sinh",
            Cosh => "cosh",
            Tanh => "tanh",
            Asinh => "asinh",
            Acosh => "acosh",
            Atanh => "atanh",
            ErfInv => "erf_inv",
            Not => "not",
            IsNan => "is_nan",
            IsInf => "is_inf",
            IsFinite => "is_finite",
            SignBit => "signbit",
            PopulationCount => "population_count",
            StopGradient => "stop_gradient",
        }
    }

    pub(crate) fn accepts(self) -> Accepts {
        use UnaryOp::*;
        match self {
            Neg | Sign | Abs | Square => Accepts::Numeric,
            StopGradient => Accepts::Any,
            Not => Accepts::IntegersBool,
            PopulationCount => Accepts::Integers,
            _ => Accepts::Floats,
        }
    }

    /// True for ops whose result is bool.
    pub fn is_predicate(self) -> bool {
        matches!(
            self,
            UnaryOp::IsNan | UnaryOp::IsInf | UnaryOp::IsFinite | UnaryOp::SignBit
        )
    }
}

impl BinaryOp {
    /// Every binary op.
    pub const ALL: [BinaryOp; 24] = {
        use BinaryOp::*;
        [
            Add, Sub, Mul, Div, FloorDiv, Rem, Fmod, Pow, Max, Min, Fmax, Fmin, Atan2, Hypot,
            Copysign, LogAddExp, LogAddExp2, And, Or, Xor, ShiftLeft, ShiftRight, Gcd, Lcm,
        ]
    };

    /// The lax name.
    pub fn name(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "add",
            Sub => "sub",
            Mul => "mul",
            Div => "div",
            FloorDiv => "floor_divide",
            Rem => "remainder",
            Fmod => "fmod",
            Pow => "pow",
            Max => "max",
            Min => "min",
            Fmax => "fmax",
            Fmin => "fmin",
            Atan2 => "atan2",
            Hypot => "hypot",
            Copysign => "copysign",
            LogAddExp => "logaddexp",
            LogAddExp2 => "logaddexp2",
            And => "and",
            Or => "or",
            Xor => "xor",
            ShiftLeft => "shift_left",
            ShiftRight => "shift_right",
            Gcd => "gcd",
            Lcm => "lcm",
        }
    }

    pub(crate) fn accepts(self) -> Accepts {
        use BinaryOp::*;
        match self {
            Add | Mul | Max | Min => Accepts::Any,
            Sub | FloorDiv | Rem | Fmod | Pow => Accepts::Numeric,
            Div | Fmax | Fmin | Atan2 | Hypot | Copysign | LogAddExp | LogAddExp2 => {
                Accepts::Floats
            }
            And | Or | Xor => Accepts::IntegersBool,
            ShiftLeft | ShiftRight | Gcd | Lcm => Accepts::Integers,
        }
    }
}

impl CompareOp {
    /// Every comparison.
    pub const ALL: [CompareOp; 6] = [
        CompareOp::Eq,
        CompareOp::Ne,
        CompareOp::Lt,
        CompareOp::Le,
        CompareOp::Gt,
        CompareOp::Ge,
    ];

    /// The lax name.
    pub fn name(self) -> &'static str {
        match self {
            CompareOp::Eq => "eq",
            CompareOp::Ne => "ne",
            CompareOp::Lt => "lt",
            CompareOp::Le => "le",
            CompareOp::Gt => "gt",
            CompareOp::Ge => "ge",
        }
    }
}
