//! The elementwise lowering: the [`Lowering`] trait each primitive implements in its
//! family's file under `prims/` (operand expressions in, one expression out), and the WGSL
//! the rules share (compute types, narrowing, conversions, each unary, binary and
//! comparison operation).
//!
//! Expressions are in the *compute type* of their dtype: `bool`, `i32` for the signed
//! integers, `u32` for the unsigned ones and `f32` for every float; a value of a narrow
//! dtype is brought back into its range after each operation ([`narrow`]).

use super::maps::InputMap;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::primitive::{with_params, BinaryOp, CompareOp, Primitive, UnaryOp};
use crate::shape::Layout;
use std::fmt::Write;

/// How the caller of `codegen::values` walks the values, where that saves an operand's index a
/// division: on lavapipe `i % k` is a division per SIMD lane, and a matrix-vector
/// product's row reduction would read its vector (a row broadcast over the matrix's
/// rows) at `i % k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Walk {
    /// Any index at any time (elementwise kernels, epilogues).
    Flat,
    /// A row reduction over rows of `k` elements: each thread reads one row, and sets the
    /// private `walk_pos` to the index of its first element first. An operand repeating a
    /// run of `k` elements (a row broadcast over the rows) reads at `i - walk_pos`.
    Rows(u64),
    /// A column reduction over rows of `cols` kept elements: before each row `r` it
    /// sets `walk_pos` to `r`. An operand spreading each element over `cols` (a column
    /// broadcast across the kept elements) reads element `walk_pos`.
    Columns(u64),
    /// An elementwise kernel whose threads each compute `n` consecutive vectors from
    /// `t0`, calling `walk_start(t0)` first: an operand repeating a run (a row broadcast)
    /// takes its position in the run at `t0` there, with one remainder per thread, and
    /// reads the later vectors from it with a compare (runs of at least `n` vectors, or
    /// `4n` elements); an operand spreading its elements (a column broadcast) likewise
    /// takes its quotient and remainder once.
    Vectors(u64),
}

/// Collects scalar parameters for the metadata while rules are emitted, and the private
/// variables of the kernel's walk ([`Walk`]).
pub(crate) struct Ctx {
    /// Metadata words before the parameters (the kernel's own sizes).
    pub(super) header: usize,
    pub(super) params: Vec<u32>,
    /// How the kernel walks its values, and the prefix of the names it declares.
    pub(super) walk: Walk,
    pub(super) prefix: String,
    /// Whether the values read `walk_pos`; the private variables a `Walk::Vectors`
    /// thread sets from `t0` in `walk_start`, and those statements.
    pub(super) walks: bool,
    pub(super) walk_decls: String,
    pub(super) walk_starts: String,
}

impl Ctx {
    pub(super) fn new(header: usize, walk: Walk, prefix: &str) -> Ctx {
        Ctx {
            header,
            params: Vec::new(),
            walk,
            prefix: prefix.to_string(),
            walks: false,
            walk_decls: String::new(),
            walk_starts: String::new(),
        }
    }

    /// Stores a parameter word; returns the WGSL expression reading it.
    pub(crate) fn param(&mut self, v: u32) -> String {
        let index = self.header + self.params.len();
        self.params.push(v);
        format!("md[{index}u]")
    }

    /// The private `walk_pos` the caller of the values sets (see [`Walk`]).
    pub(super) fn walk_pos(&mut self) -> String {
        self.walks = true;
        format!("{}walk_pos", self.prefix)
    }

    /// A private variable that `walk_start` sets to `value` (an expression in `t0`).
    pub(super) fn walk_var(&mut self, value: &str) -> String {
        let name = format!("{}walk_v{}", self.prefix, self.walk_decls.lines().count());
        let _ = writeln!(self.walk_decls, "var<private> {name}: u32;");
        let _ = writeln!(self.walk_starts, "    {name} = {value};");
        name
    }

    /// `at / d` and `at % d` where `at` counts units (`per` to a vector: 4 for elements, 1
    /// for vectors) and the kernel's threads each walk `n` consecutive vectors from `t0`
    /// (`Walk::Vectors(n)`): the quotient and remainder at the thread's first unit are
    /// taken once, and `at`, at most `n * per - 1` units further, steps from them with a
    /// compare. `None` for other walks and for divisors shorter than a thread's units
    /// (which could wrap twice). On lavapipe a `/` or `%` by a metadata word is a
    /// division per SIMD lane.
    pub(crate) fn stepped_division(
        &mut self,
        d: u32,
        at: &str,
        per: u32,
    ) -> Option<(String, String)> {
        let (q0, r, dp) = self.stepped(d, at, per)?;
        let carry = format!("{r} >= {dp}");
        Some((
            format!("({q0} + select(0u, 1u, {carry}))"),
            format!("select({r}, {r} - {dp}, {carry})"),
        ))
    }

    /// `(at / s) % d` with the quotient stepped as in [`Ctx::stepped_division`] (it moves
    /// by at most one), and its remainder by `d` at the thread's first unit taken once.
    pub(crate) fn stepped_digit(&mut self, s: u32, d: u32, at: &str, per: u32) -> Option<String> {
        let (q0, r, sp) = self.stepped(s, at, per)?;
        let dp = self.param(d);
        let m0 = self.walk_var(&format!("{q0} % {dp}"));
        let m = format!("({m0} + select(0u, 1u, {r} >= {sp}))");
        Some(format!("select({m}, 0u, {m} >= {dp})"))
    }

    /// The parts of [`Ctx::stepped_division`]: the quotient at the thread's first unit,
    /// the remainder there plus `at`'s distance from it (below `2d`), and the divisor.
    fn stepped(&mut self, d: u32, at: &str, per: u32) -> Option<(String, String, String)> {
        let Walk::Vectors(n) = self.walk else {
            return None;
        };
        if u64::from(d) < n * u64::from(per) {
            return None;
        }
        let pos = self.walk_pos();
        let dp = self.param(d);
        let q0 = self.walk_var(&format!("(t0 * {per}u) / {dp}"));
        let r0 = self.walk_var(&format!("(t0 * {per}u) - {q0} * {dp}"));
        Some((q0, format!("({r0} + ({at} - {pos} * {per}u))"), dp))
    }
}

/// The WGSL type values of a dtype are computed in: a scalar, or a `vec2` for a two-word
/// element (complex64's storage: its two float32 words, which `+` adds lane by lane).
pub(crate) fn compute_type(d: DType) -> &'static str {
    match d.compute_dtype() {
        DType::Bool => "bool",
        DType::Int32 => "i32",
        DType::UInt32 => "u32",
        d if d.words() == 2 => "vec2<f32>",
        _ => "f32",
    }
}

/// The WGSL type of four consecutive values of `d` in its compute type: a `vec4` of
/// scalars, or an array of four vector values (WGSL has no vector of vectors).
pub(crate) fn quad_type(d: DType) -> String {
    let ct = compute_type(d);
    if d.words() > 1 {
        format!("array<{ct}, 4>")
    } else {
        format!("vec4<{ct}>")
    }
}

/// `x`, a value of `d`'s compute type, brought into `d`'s range as XLA computes `d`:
/// narrow integers wrap, bfloat16 and float16 round to nearest even. 32-bit dtypes pass.
pub(crate) fn narrow(d: DType, x: &str) -> String {
    match d {
        DType::Int8 => format!("wrap_i8({x})"),
        DType::Int16 => format!("wrap_i16({x})"),
        DType::UInt8 => format!("({x} & 0xffu)"),
        DType::UInt16 => format!("({x} & 0xffffu)"),
        DType::BFloat16 => format!("round_bf16({x})"),
        DType::Float16 => format!("round_f16({x})"),
        _ => x.to_string(),
    }
}

/// The value of `d` (in its compute type) whose packed bits are `bits` (a `u32` holding
/// only the element's bits, in its low bits).
pub(crate) fn decode(d: DType, bits: &str) -> String {
    match d {
        DType::Int8 => format!("(bitcast<i32>({bits} << 24u) >> 24u)"),
        DType::Int16 => format!("(bitcast<i32>({bits} << 16u) >> 16u)"),
        DType::BFloat16 => format!("bitcast<f32>({bits} << 16u)"),
        DType::Float16 => format!("f16_to_f32({bits})"),
        _ => bits.to_string(),
    }
}

/// The packed bits of `x`, a value of `d` in its compute type (rounded or wrapped into
/// `d` on the way), in the low bits of a `u32`.
pub(crate) fn encode(d: DType, x: &str) -> String {
    match d {
        DType::Int8 => format!("(bitcast<u32>({x}) & 0xffu)"),
        DType::Int16 => format!("(bitcast<u32>({x}) & 0xffffu)"),
        DType::UInt8 => format!("({x} & 0xffu)"),
        DType::UInt16 => format!("({x} & 0xffffu)"),
        DType::BFloat16 => format!("f32_to_bf16({x})"),
        DType::Float16 => format!("f32_to_f16({x})"),
        _ => x.to_string(),
    }
}

/// The bits of `x`, a float16 or bfloat16 value in its float32 compute type, exactly as
/// stored (NaN payloads and signalling NaNs kept, as a bitcast must; [`encode`] rounds a
/// computed value and quiets its NaNs).
pub(crate) fn float16_bits(d: DType, x: &str) -> String {
    match d {
        DType::BFloat16 => format!("(bitcast<u32>({x}) >> 16u)"),
        _ => format!("f16_bits({x})"),
    }
}

/// Whether an expression already lies in `d`'s range because it is `narrow`'s own form.
pub(crate) fn is_narrowed(d: DType, x: &str) -> bool {
    let n = narrow(d, "");
    n.is_empty() || x.starts_with(n.trim_end_matches(')'))
}

/// Converts an expression of compute type `from` to the compute type of `to`, with XLA's
/// conversion semantics: integers wrap into narrower integers, floats truncate toward
/// zero and saturate into integers (NaN to 0), floats round to nearest even into
/// narrower floats, integers past float32's precision round to float32 first.
pub(crate) fn convert(x: &str, from: DType, to: DType) -> String {
    use DType::*;
    if from == to {
        return x.to_string();
    }
    let (cf, ct) = (from.compute_dtype(), to.compute_dtype());
    // Narrowing is needed where `to` cannot hold every value of `from`.
    let wider = from.bits() > to.bits()
        || from.is_signed() != to.is_signed() && !from.is_bool()
        || from.is_floating() != to.is_floating();
    match (cf, ct) {
        (_, Bool) => match cf {
            Int32 => format!("({x} != 0)"),
            UInt32 => format!("({x} != 0u)"),
            // A bit test: NaN is true, as in NumPy (an ordered `!=` would say false).
            _ => format!("((bitcast<u32>({x}) & 0x7fffffffu) != 0u)"),
        },
        (Bool, Int32) => format!("select(0, 1, {x})"),
        (Bool, UInt32) => format!("select(0u, 1u, {x})"),
        (Bool, _) => format!("select(0.0, 1.0, {x})"),
        (Float32, Int32) => match to.integer_range() {
            Some((lo, hi)) if to != Int32 => format!("clamp(f32_to_i32({x}), {lo}, {hi})"),
            _ => format!("f32_to_i32({x})"),
        },
        (Float32, UInt32) => match to.integer_range() {
            Some((_, hi)) if to != UInt32 => format!("min(f32_to_u32({x}), {hi}u)"),
            _ => format!("f32_to_u32({x})"),
        },
        (Float32, Float32) if to.bits() < from.bits() || to.bits() == 16 => narrow(to, x),
        (Float32, Float32) => x.to_string(),
        (Int32 | UInt32, Float32) => narrow(to, &format!("f32({x})")),
        (UInt32, Int32) if wider => narrow(to, &format!("bitcast<i32>({x})")),
        (Int32, UInt32) if wider => narrow(to, &format!("bitcast<u32>({x})")),
        (UInt32, Int32) => format!("bitcast<i32>({x})"),
        (Int32, UInt32) => format!("bitcast<u32>({x})"),
        (Int32, Int32) | (UInt32, UInt32) if wider => narrow(to, x),
        _ => x.to_string(),
    }
}

/// How a primitive's values are computed in the generator's elementwise kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Elementwise {
    /// Each output element from the operands' elements at its own position (constants
    /// included), so any part of the output comes from the same part of the operands:
    /// fused into chains by `jit` and split into blocks freely.
    Pointwise,
    /// Each output element from its position alone (`iota`): fused, but blocks of the
    /// output need their own offsets.
    Positional,
    /// Each output element from operand elements at other positions, which the kernel
    /// reads through input maps (`concatenate`, `pad`, `gather`, `search_sorted`): one
    /// such primitive per kernel, not fused.
    Indexed,
}

/// The elementwise lowering of one primitive, implemented by its view
/// (`primitive::params`) in its family's file under `prims/`.
pub(crate) trait Lowering {
    /// How the primitive runs in elementwise kernels; `None` for a primitive with kernels
    /// of its own (views, reductions, sorts, matmul, scans, scatter) or none at all.
    fn elementwise(&self) -> Option<Elementwise>;

    /// Whether the expression only moves or converts values, so a narrow result needs no
    /// rounding or wrapping after it.
    fn moves_values(&self) -> bool;

    /// How the kernel reads each operand (`layouts`) for an output of shape `out_shape`:
    /// `maps::plain` for every primitive but an `Indexed` one, which maps the output's
    /// coordinates onto its operands'.
    fn input_maps(&self, layouts: &[&Layout], out_shape: &[usize]) -> Vec<(Layout, InputMap)>;

    /// The expression computing the primitive on `args` (compute-type expressions of
    /// `arg_dtypes`), giving a value of dtype `out`; an error for a primitive that is not
    /// elementwise.
    fn emit(
        &self,
        args: &[String],
        arg_dtypes: &[DType],
        out: DType,
        ctx: &mut Ctx,
    ) -> Result<String>;
}

/// [`Lowering::emit`] of `prim`.
pub(crate) fn emit(
    prim: &Primitive,
    args: &[String],
    arg_dtypes: &[DType],
    out: DType,
    ctx: &mut Ctx,
) -> Result<String> {
    with_params!(prim, p => p.emit(args, arg_dtypes, out, ctx))
}

/// [`Lowering::input_maps`] of `prim`.
pub(crate) fn input_maps(
    prim: &Primitive,
    layouts: &[&Layout],
    out_shape: &[usize],
) -> Vec<(Layout, InputMap)> {
    let maps = with_params!(prim, p => p.input_maps(layouts, out_shape));
    debug_assert!(
        elementwise(prim) != Some(Elementwise::Indexed)
            || maps.iter().any(|(_, m)| *m != InputMap::Plain),
        "{} is indexed but reads every operand plainly",
        prim.name()
    );
    maps
}

/// [`Lowering::elementwise`] of `prim`.
pub(crate) fn elementwise(prim: &Primitive) -> Option<Elementwise> {
    with_params!(prim, p => p.elementwise())
}

/// [`Lowering::moves_values`] of `prim`.
pub(crate) fn moves_values(prim: &Primitive) -> bool {
    with_params!(prim, p => p.moves_values())
}

/// The error of [`Lowering::emit`] for a primitive that is not elementwise.
pub(crate) fn not_elementwise(name: &str) -> Error {
    Error::arg(name, "is not elementwise (a view, a reduction or a matmul)")
}

pub(crate) fn float_bits(x: &str) -> String {
    format!("bitcast<u32>({x})")
}

pub(crate) fn unary(op: UnaryOp, x: &str, d: DType) -> String {
    use UnaryOp::*;
    let int = d.is_signed_integer();
    let uint = d.is_unsigned_integer();
    match op {
        StopGradient => x.to_string(),
        Neg if uint => format!("(0u - {x})"),
        Neg => format!("(-{x})"),
        Sign if int => format!("select(select(0, -1, {x} < 0), 1, {x} > 0)"),
        Sign if uint => format!("select(0u, 1u, {x} > 0u)"),
        Sign => format!("select(select({x}, -1.0, {x} < 0.0), 1.0, {x} > 0.0)"),
        Abs if uint => x.to_string(),
        Abs => format!("abs({x})"),
        Square => format!("({x} * {x})"),
        Reciprocal => format!("div_rn(1.0, {x})"),
        Floor => format!("floor({x})"),
        Ceil => format!("ceil({x})"),
        Round => format!("rint_f32({x})"),
        Trunc => format!("trunc({x})"),
        Exp => format!("exp_f32({x})"),
        Exp2 => format!("exp2_f32({x})"),
        Expm1 => format!("expm1_f32({x})"),
        Log => format!("log_f32({x})"),
        Log2 => format!("log2_f32({x})"),
        Log10 => format!("log10_f32({x})"),
        Log1p => format!("log1p_f32({x})"),
        Sqrt => format!("sqrt_rn({x})"),
        Cbrt => format!("cbrt_f32({x})"),
        Sin => format!("sin_f32({x})"),
        Cos => format!("cos_f32({x})"),
        Tan => format!("tan_f32({x})"),
        Asin => format!("asin_f32({x})"),
        Acos => format!("acos_f32({x})"),
        Atan => format!("atan_f32({x})"),
        Sinh => format!("sinh_f32({x})"),
        Cosh => format!("cosh_f32({x})"),
        Tanh => format!("tanh_f32({x})"),
        Asinh => format!("asinh_f32({x})"),
        Acosh => format!("acosh_f32({x})"),
        Atanh => format!("atanh_f32({x})"),
        ErfInv => format!("erf_inv_f32({x})"),
        Not if d == DType::Bool => format!("(!{x})"),
        Not => format!("(~{x})"),
        IsNan => format!("is_nan_f32({x})"),
        IsInf => format!("(({} & 0x7fffffffu) == 0x7f800000u)", float_bits(x)),
        IsFinite => format!("(({} & 0x7f800000u) != 0x7f800000u)", float_bits(x)),
        SignBit => format!("(({} >> 31u) != 0u)", float_bits(x)),
        // The bits of the value within its width (a narrow value is held sign-extended).
        PopulationCount => {
            let mask = if d.bits() < 32 {
                format!(" & {:#x}u", (1u64 << d.bits()) - 1)
            } else {
                String::new()
            };
            let bits = if int {
                format!("bitcast<u32>({x})")
            } else {
                x.to_string()
            };
            let n = format!("countOneBits({bits}{mask})");
            if int {
                format!("bitcast<i32>({n})")
            } else {
                n
            }
        }
    }
}

pub(crate) fn binary(op: BinaryOp, a: &str, b: &str, d: DType) -> String {
    use BinaryOp::*;
    let (int, uint, boolean) = (
        d.is_signed_integer(),
        d.is_unsigned_integer(),
        d == DType::Bool,
    );
    match op {
        Add if boolean => format!("({a} || {b})"),
        Add => format!("({a} + {b})"),
        Sub => format!("({a} - {b})"),
        Mul if boolean => format!("({a} && {b})"),
        Mul if d == DType::Float32 => format!("mul_rn({a}, {b})"),
        Mul => format!("({a} * {b})"),
        Div if int || uint => format!("({a} / {b})"),
        Div => format!("div_rn({a}, {b})"),
        FloorDiv if int => format!("floordiv_i32({a}, {b})"),
        FloorDiv if uint => format!("select({a} / {b}, 0xffffffffu, {b} == 0u)"),
        FloorDiv => format!("floordiv_f32({a}, {b})"),
        Rem if int => format!("rem_i32({a}, {b})"),
        Rem if uint => format!("select({a} % {b}, 0u, {b} == 0u)"),
        Rem => format!("rem_f32({a}, {b})"),
        Fmod if int => format!("fmod_i32({a}, {b})"),
        Fmod if uint => format!("select({a} % {b}, 0u, {b} == 0u)"),
        Fmod => format!("fmod_f32({a}, {b})"),
        Pow if int => format!("pow_i32({a}, {b})"),
        Pow if uint => format!("pow_u32({a}, {b})"),
        Pow => format!("pow_f32({a}, {b})"),
        Max if boolean => format!("({a} || {b})"),
        Min if boolean => format!("({a} && {b})"),
        Max if int || uint => format!("max({a}, {b})"),
        Min if int || uint => format!("min({a}, {b})"),
        Max => format!("nan_max_f32({a}, {b})"),
        Min => format!("nan_min_f32({a}, {b})"),
        // JAX's `where((a > b) | isnan(b), a, b)`: ties (signed zeros too) give `b`, and a
        // NaN `b` gives `a`, NaN or not.
        // (NaN tested on the bits, as everywhere: compilers may assume no NaN compares.)
        Fmax => format!("select({b}, {a}, is_nan_f32({b}) || (!is_nan_f32({a}) && {a} > {b}))"),
        Fmin => format!("select({b}, {a}, is_nan_f32({b}) || (!is_nan_f32({a}) && {a} < {b}))"),
        Atan2 => format!("atan2_f32({a}, {b})"),
        Hypot => format!("hypot_f32({a}, {b})"),
        Copysign => format!("copysign_f32({a}, {b})"),
        LogAddExp => format!("logaddexp_f32({a}, {b})"),
        LogAddExp2 => format!("logaddexp2_f32({a}, {b})"),
        And if boolean => format!("({a} && {b})"),
        Or if boolean => format!("({a} || {b})"),
        Xor if boolean => format!("({a} != {b})"),
        And => format!("({a} & {b})"),
        Or => format!("({a} | {b})"),
        Xor => format!("({a} ^ {b})"),
        // Shifts past the width give 0 (sign fill for arithmetic right shifts), as in JAX;
        // a negative count counts as past the width.
        ShiftLeft if int => {
            format!("select({a} << bitcast<u32>({b}), 0, bitcast<u32>({b}) >= 32u)")
        }
        ShiftLeft => format!("select({a} << {b}, 0u, {b} >= 32u)"),
        ShiftRight if int => format!(
            "select({a} >> bitcast<u32>({b}), select(0, -1, {a} < 0), bitcast<u32>({b}) >= 32u)"
        ),
        ShiftRight => format!("select({a} >> {b}, 0u, {b} >= 32u)"),
        Gcd if int => format!("gcd_i32({a}, {b})"),
        Gcd => format!("gcd_u32({a}, {b})"),
        Lcm if int => format!("lcm_i32({a}, {b})"),
        Lcm => format!("lcm_u32({a}, {b})"),
    }
}

pub(crate) fn compare(op: CompareOp, a: &str, b: &str, d: DType) -> String {
    // bool has no ordering in WGSL: compare as 0/1.
    let (a, b) = if d == DType::Bool {
        (
            format!("select(0u, 1u, {a})"),
            format!("select(0u, 1u, {b})"),
        )
    } else {
        (a.to_string(), b.to_string())
    };
    match op {
        CompareOp::Eq => format!("({a} == {b})"),
        // Negated equality, so NaN != NaN is true (an ordered `!=` would say false).
        CompareOp::Ne if d.is_floating() => format!("(!({a} == {b}))"),
        CompareOp::Ne => format!("({a} != {b})"),
        CompareOp::Lt => format!("({a} < {b})"),
        CompareOp::Le => format!("({a} <= {b})"),
        CompareOp::Gt => format!("({a} > {b})"),
        CompareOp::Ge => format!("({a} >= {b})"),
    }
}
