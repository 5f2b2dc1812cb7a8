//! The primitive table: every primitive, its parameters and its name, in one macro table
//! that generates the `Primitive` enum, the name of each variant, and the index and count
//! of the variants that the generic tests use to check every variant is covered. A new
//! primitive is one entry here (with its `[pattern => name]`), then its rules.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use super::graph;
use super::ops::{
    BinaryOp, CompareOp, CumulativeOp, Literal, ReduceOp, ScatterMode, ThreefryOutput, UnaryOp,
};
use crate::dtype::DType;
use crate::error::Result;
use crate::shape::Aval;

/// A traced function as a graph of primitives (JAX's jaxpr): see [`graph::Graph`]'s
/// methods. Its `Display` is the jaxpr-style listing.
pub type Graph = graph::Graph<Primitive>;

/// One equation of a [`Graph`]: `outs... = prim(inputs...)`.
pub(crate) type Eqn = graph::Eqn<Primitive>;

/// A closed sub-graph that a primitive carries (a function with its own derivative rules,
/// and later loop bodies and branches), with the rules the transformation that made it
/// attached. The graph has no constants: what its function captured are its first inputs,
/// bound as the equation's first operands. The rules are opaque here: the layer that made
/// them reads them back.
#[derive(Clone)]
pub struct CustomCall {
    /// The function's name (for listings and errors).
    pub(crate) name: Arc<str>,
    /// The function's graph, closed.
    pub(crate) fun: Arc<Graph>,
    /// How many of the first operands are arrays the function captured (no argument of
    /// the rules: differentiating with respect to one is an error, as in JAX).
    pub(crate) captured: usize,
    /// The rules, for the transformations to read.
    pub(crate) rules: Arc<dyn Any + Send + Sync>,
}

impl PartialEq for CustomCall {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.fun, &other.fun) && Arc::ptr_eq(&self.rules, &other.rules)
    }
}

impl fmt::Debug for CustomCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "name: {}, call_jaxpr: {}", self.name, self.fun)
    }
}

/// The view of one variant that [`primitive_table!`] generates in [`params`]: its
/// parameters borrowed from the variant (a tuple variant's one field named as the table
/// names it), and the way back to the variant.
macro_rules! view {
    ($(#[$meta:meta])* $variant:ident ( $f:ident : $t:ty )) => {
        $(#[$meta])*
        pub(crate) struct $variant<'a> {
            /// The variant's one parameter.
            pub(crate) $f: &'a $t,
        }
        impl $variant<'_> {
            /// The variant these parameters belong to (a copy).
            pub(crate) fn primitive(&self) -> Primitive {
                Primitive::$variant(self.$f.clone())
            }
        }
    };
    ($(#[$meta:meta])* $variant:ident { $( $(#[$fmeta:meta])* $f:ident : $t:ty ),* }) => {
        $(#[$meta])*
        pub(crate) struct $variant<'a> {
            $( $(#[$fmeta])* pub(crate) $f: &'a $t ),*
        }
        impl $variant<'_> {
            /// The variant these parameters belong to (a copy).
            pub(crate) fn primitive(&self) -> Primitive {
                Primitive::$variant { $( $f: self.$f.clone() ),* }
            }
        }
    };
    ($(#[$meta:meta])* $variant:ident) => {
        $(#[$meta])*
        pub(crate) struct $variant;
        impl $variant {
            /// The variant.
            pub(crate) fn primitive(&self) -> Primitive {
                Primitive::$variant
            }
        }
    };
}

/// Generates [`Primitive`] from the table below: each entry is a variant as it would be
/// declared (docs, a named tuple field or named fields), then `[pattern => name, ...]`
/// giving its name. It also generates, per variant, the view in [`params`] that the
/// variant's rules are implemented for, and `with_params!`, which matches a primitive and
/// runs an expression with its view: a rule trait called through it must be implemented by
/// every view, so the compiler lists each rule a new primitive still needs. The leading
/// `($)` passes a `$` to the generated macro.
macro_rules! primitive_table {
    (($d:tt) $(
        $(#[$meta:meta])*
        $variant:ident
        $( ( $tname:ident : $tty:ty ) )?
        $( { $( $(#[$fmeta:meta])* $field:ident : $fty:ty ),* $(,)? } )?
        [ $( $pat:pat => $name:expr ),+ $(,)? ]
    ),* $(,)?) => {
        /// Every operation Olympus performs. Parameters live in the variants.
        #[derive(Clone, Debug, PartialEq)]
        #[non_exhaustive]
        pub enum Primitive {
            $(
                $(#[$meta])*
                $variant
                $( ( $tty ) )?
                $( { $( $(#[$fmeta])* $field : $fty ),* } )?
            ),*
        }

        /// Each primitive's parameters, borrowed from its variant: the types the rules are
        /// implemented for (one per variant, named as the variant; see `prims/`).
        // A view holds every parameter and a way back to its variant, whether or not the
        // rules read each.
        #[allow(dead_code)]
        pub(crate) mod params {
            use super::*;
            $(
                view!($(#[$meta])* $variant $( ( $tname : $tty ) )? $( { $( $(#[$fmeta])* $field : $fty ),* } )?);
            )*
        }

        /// `with_params!(prim, p => body)`: `body` with `p` bound to the view of the
        /// `&Primitive` `prim` (its type in [`params`] differs per variant, so `body` is
        /// compiled once per variant).
        macro_rules! with_params {
            ($d prim:expr, $d p:ident => $d body:expr) => {{
                let prim: &$crate::primitive::Primitive = $d prim;
                match prim {
                    $(
                        $crate::primitive::Primitive::$variant
                            $( ($tname) )?
                            $( { $($field),* } )? => {
                            let $d p = &$crate::primitive::params::$variant
                                $( { $tname } )?
                                $( { $($field),* } )?;
                            $d body
                        }
                    )*
                }
            }};
        }
        pub(crate) use with_params;

        /// The variants without their parameters, in table order.
        #[cfg(test)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub(crate) enum Kind {
            $( $variant ),*
        }

        impl Primitive {
            /// The primitive's name, as JAX spells it.
            pub fn name(&self) -> &'static str {
                #[allow(unused_imports)]
                use Primitive::*;
                match self {
                    $( $( $pat => $name ),+ ),*
                }
            }

            /// The variant, without its parameters.
            #[cfg(test)]
            pub(crate) fn kind(&self) -> Kind {
                match self {
                    $( Primitive::$variant { .. } => Kind::$variant ),*
                }
            }

            /// Number of variants in the table.
            #[cfg(test)]
            pub(crate) const COUNT: usize = [$( Kind::$variant ),*].len();

            /// Position of the variant in the table.
            #[cfg(test)]
            pub(crate) fn variant_index(&self) -> usize {
                self.kind() as usize
            }

            /// One instance of every variant with every parameter value that changes the
            /// generated code (for rule-coverage and kernel-validation tests), from each
            /// view's [`ShapeRule::examples`].
            #[cfg(test)]
            pub(crate) fn examples() -> Vec<Primitive> {
                let mut all = Vec::new();
                $( all.extend(<params::$variant as ShapeRule>::examples()); )*
                all
            }
        }
    };
}

/// The shape and dtype rule of one primitive (JAX's abstract evaluation), implemented by
/// the primitive's view in [`params`] in its family's file under `prims/`, beside its other
/// rules. No method has a default: the compiler asks a new primitive for each.
pub(crate) trait ShapeRule {
    /// Number of operands (`usize::MAX` for a variadic primitive, which takes at least one).
    fn arity(&self) -> usize;

    /// Number of outputs (one for most primitives).
    fn num_outputs(&self) -> usize;

    /// The abstract values of the outputs for operands of types `inputs` (already checked
    /// against [`ShapeRule::arity`]), or an error naming the primitive, the shapes and the
    /// dtypes.
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>>;

    /// Instances of the variant with every parameter value that changes the generated code.
    #[cfg(test)]
    fn examples() -> Vec<Primitive>
    where
        Self: Sized;
}

primitive_table! {
    ($)
    /// An elementwise function of one operand.
    Unary(op: UnaryOp) [Unary(op) => op.name()],
    /// An elementwise function of two operands of the same dtype and shape.
    Binary(op: BinaryOp) [Binary(op) => op.name()],
    /// An elementwise comparison.
    Compare(op: CompareOp) [Compare(op) => op.name()],
    /// `pred ? on_true : on_false` elementwise, operands `(pred, on_true, on_false)`
    /// (`jax.lax.select`; two-way, not JAX's n-way `select_n`, whose cases come in the
    /// other order).
    Select [Select => "select"],
    /// Dtype conversion; `weak` is the weak-type flag of the result.
    ConvertElementType {
        /// Target dtype.
        dtype: DType,
        /// Weak-type flag of the result.
        weak: bool,
    } [ConvertElementType { .. } => "convert_element_type"],
    /// A contiguous copy.
    Copy [Copy => "copy"],
    /// A new array filled with one value.
    Full {
        /// Output shape.
        shape: Vec<usize>,
        /// The value (and so the dtype).
        value: Literal,
    } [Full { .. } => "full"],
    /// Index along one dimension.
    Iota {
        /// Output dtype (integers or floats).
        dtype: DType,
        /// Output shape.
        shape: Vec<usize>,
        /// The dimension whose index is the value.
        dimension: usize,
    } [Iota { .. } => "iota"],
    /// Permutes dimensions (a view): output dimension `i` is operand dimension
    /// `permutation[i]`.
    Transpose {
        /// A permutation of `0..ndim`.
        permutation: Vec<usize>,
    } [Transpose { .. } => "transpose"],
    /// Reshape in C order (a view of a contiguous operand; others are copied first).
    Reshape {
        /// Output shape (same number of elements).
        new_sizes: Vec<usize>,
    } [Reshape { .. } => "reshape"],
    /// Reverses the order of elements along some dimensions (a view with negative strides).
    Rev {
        /// The dimensions to reverse.
        dimensions: Vec<usize>,
    } [Rev { .. } => "rev"],
    /// The int32 position along `axis` (removed from the shape) of the first maximum, or
    /// minimum, of each row; a NaN counts as the extreme, so the first NaN wins (JAX's
    /// `argmax`/`argmin` primitives). Two reduction trees: the extreme, then the first
    /// position holding it (a fused comparison and minimum).
    ArgReduce {
        /// The maximum (else the minimum).
        max: bool,
        /// The reduced dimension (of nonzero size).
        axis: usize,
    } [ArgReduce { max: true, .. } => "argmax", ArgReduce { max: false, .. } => "argmin"],
    /// Combines elements over `axes` (removed from the shape).
    Reduce {
        /// The combining operation.
        op: ReduceOp,
        /// The reduced axes (distinct, in range).
        axes: Vec<usize>,
    } [Reduce { op, .. } => op.name()],
    /// A strided window (a view): elements `start..limit` stepping by `strides` along each
    /// dimension (`jax.lax.slice`).
    Slice {
        /// First index of each dimension.
        start_indices: Vec<usize>,
        /// One past the last index of each dimension (`start <= limit <= size`).
        limit_indices: Vec<usize>,
        /// Step of each dimension (at least 1).
        strides: Vec<usize>,
    } [Slice { .. } => "slice"],
    /// Joins operands of one dtype along `dimension`; the other dimensions must match
    /// (`jax.lax.concatenate`). Variadic.
    Concatenate {
        /// The joined dimension.
        dimension: usize,
    } [Concatenate { .. } => "concatenate"],
    /// Pads each dimension with `low` elements before and `high` after: copies of `value`,
    /// or of the nearest edge element when `value` is `None` (`jax.lax.pad` without
    /// interior padding, plus NumPy's edge mode).
    Pad {
        /// Elements added before each dimension.
        low: Vec<usize>,
        /// Elements added after each dimension.
        high: Vec<usize>,
        /// The fill value (in the operand's dtype), or `None` for edge padding.
        value: Option<Literal>,
    } [Pad { .. } => "pad"],
    /// `out[p] = x[p with p[axis] = idx[p]]` where `idx` (int32 or uint32) has the output's
    /// shape, which equals `x`'s except along `axis` (`take_along_axis`). Indices are clamped
    /// into range, as JAX does where it cannot check.
    Gather {
        /// The indexed dimension.
        axis: usize,
    } [Gather { .. } => "gather"],
    /// For each query (operand 1), how many elements of its row of `sorted` (operand 0, of
    /// the queries' dtype and shape except along `axis`, the row) order before it, or with
    /// `right` at or before it: int32 of the queries' shape, from a binary search per query
    /// (`searchsorted`, `digitize`, histogram bins). Floats order as the sort orders them:
    /// NaN last, -0.0 equal to 0.0. A row out of order gives unspecified positions.
    SearchSorted {
        /// The dimension searched along.
        axis: usize,
        /// Count the elements equal to the query too (NumPy's `side="right"`).
        right: bool,
    } [SearchSorted { .. } => "search_sorted"],
    /// Batched matrix product: `[b, m, k] x [b, k, n] -> [b, m, n]` over operands of one
    /// dtype (a `dot_general` with one batch and one contracting dimension; NumPy's
    /// `matmul`, `tensordot` and `einsum` reduce to it with views). float16 accumulates in
    /// float32, int32 wraps, bool is "any of and". Named for the one form it takes: not
    /// JAX's `dot_general`, whose batch and contracting dimensions are any.
    BatchMatmul [BatchMatmul => "batch_matmul"],
    /// Stable ascending sort along the last dimension, NaN last (a bitonic network of
    /// compare-exchange kernels). Gives the sorted values, or with `indices` the int32
    /// positions that sort each row (`argsort`).
    Sort {
        /// Return positions instead of values.
        indices: bool,
    } [Sort { .. } => "sort"],
    /// The `k` largest elements of each row along `axis` and their positions
    /// (`jax.lax.top_k`): two outputs, the values in descending order and their int32
    /// positions, of the operand's shape with `axis` of length `k`. Floats order by IEEE's
    /// total order as XLA's comparator does (NaN above +inf, -NaN below -inf, -0.0 below
    /// 0.0); equal values keep their order (the lower position first); bool orders true
    /// above false.
    TopK {
        /// How many elements each row keeps (at most the row's length).
        k: usize,
        /// The dimension the rows run along.
        axis: usize,
    } [TopK { .. } => "top_k"],
    /// A function with a custom JVP rule (`jax.custom_jvp`): evaluated as its graph, and
    /// differentiated by its rule (reverse mode transposes the rule).
    CustomJvpCall {
        /// The function and its rule.
        call: CustomCall,
    } [CustomJvpCall { .. } => "custom_jvp_call"],
    /// A function with a custom VJP (`jax.custom_vjp`): evaluated as its graph, and in
    /// reverse mode by its forward and backward rules.
    CustomVjpCall {
        /// The function and its rules.
        call: CustomCall,
    } [CustomVjpCall { .. } => "custom_vjp_call"],
    /// The linear part of a `custom_vjp` call, made when reverse mode linearizes one (JAX's
    /// `custom_lin`): its operands are the tangents of the call's operands, its outputs the
    /// tangents of the call's outputs, and its rules the backward rule with the forward
    /// rule's residuals. It is only ever transposed; evaluating it is an error.
    CustomLin {
        /// The function, with the backward rule and residuals as its rules.
        call: CustomCall,
    } [CustomLin { .. } => "custom_lin"],
    /// Inclusive cumulative sum or product along `axis` (`jax.lax.cumsum`, `cumprod`): a
    /// chunked scan, two passes over memory (see `codegen::cumulative`). `reverse` scans from
    /// the last element to the first. float16 accumulates in float32, int32 wraps.
    Cumulative {
        /// The combining operation.
        op: CumulativeOp,
        /// The scanned dimension.
        axis: usize,
        /// Scan from the end.
        reverse: bool,
    } [Cumulative { op, .. } => op.name()],
    /// `x` with `values[t]` combined into the element at flat position `positions[t]`
    /// (operands: `x`, int32 `positions`, `values` of `x`'s dtype and `positions`' shape).
    /// Duplicates accumulate for combining modes; out-of-range positions are dropped.
    Scatter {
        /// How updates combine.
        mode: ScatterMode,
    } [Scatter { .. } => "scatter"],
    /// The Threefry-2x32 block function (20 rounds) elementwise over four uint32 operands
    /// `(k0, k1, c0, c1)` of one shape: key words and counter words, as JAX's
    /// `threefry2x32_p`. Gives the first output word, the second, or their xor (JAX's
    /// 32-bit random bits).
    Threefry {
        /// Which word(s) to return.
        output: ThreefryOutput,
    } [Threefry { .. } => "threefry2x32"],
    /// Reinterprets the bits (`jax.lax.bitcast_convert_type`) between dtypes of one width;
    /// to a 16-bit float it also takes the low 16 bits of a uint32, from one it gives them.
    BitcastConvertType {
        /// The result dtype.
        dtype: DType,
    } [BitcastConvertType { .. } => "bitcast_convert_type"],
    /// `a * b + c` with one rounding (floats), the contraction XLA's CPU backend applies to
    /// a multiply feeding an add; used where bit-identity with JAX depends on it.
    Fma [Fma => "fma"],
    /// `x` clamped into `[min, max]` elementwise (`jax.lax.clamp`), operands `(min, x, max)`
    /// of one dtype and shape: `min(max(x, min), max)`, so a NaN in any operand gives NaN
    /// and -0.0 orders below 0.0, as XLA's clamp does.
    Clamp [Clamp => "clamp"],
    /// Broadcast to a shape (a view).
    BroadcastInDim {
        /// Output shape.
        shape: Vec<usize>,
        /// Output dimension of each operand dimension.
        broadcast_dimensions: Vec<usize>,
    } [BroadcastInDim { .. } => "broadcast_in_dim"],
}
