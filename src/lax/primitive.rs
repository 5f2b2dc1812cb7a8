//! The primitive table and each primitive's shape/dtype rule.

use crate::array::Aval;
use crate::dtype::DType;
use crate::error::{Error, Result};
use half::f16;

/// A scalar in one dtype, as a primitive parameter (the value of `full`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Literal {
    /// A bool.
    Bool(bool),
    /// An int32.
    I32(i32),
    /// A uint32.
    U32(u32),
    /// A float16.
    F16(f16),
    /// A float32.
    F32(f32),
}

impl Literal {
    /// The literal's dtype.
    pub fn dtype(self) -> DType {
        match self {
            Literal::Bool(_) => DType::Bool,
            Literal::I32(_) => DType::Int32,
            Literal::U32(_) => DType::UInt32,
            Literal::F16(_) => DType::Float16,
            Literal::F32(_) => DType::Float32,
        }
    }

    /// The bits of the value in its compute type (float16 computes as float32).
    pub(crate) fn compute_bits(self) -> u32 {
        match self {
            Literal::Bool(b) => u32::from(b),
            Literal::I32(v) => v as u32,
            Literal::U32(v) => v,
            Literal::F16(v) => v.to_f32().to_bits(),
            Literal::F32(v) => v.to_bits(),
        }
    }

    /// The value converted to `dtype` with the crate's conversion rules (as `astype`).
    pub fn cast(self, dtype: DType) -> Literal {
        let f = match self {
            Literal::Bool(b) => f64::from(u8::from(b)),
            Literal::I32(v) => f64::from(v),
            Literal::U32(v) => f64::from(v),
            Literal::F16(v) => v.to_f64(),
            Literal::F32(v) => f64::from(v),
        };
        match dtype {
            DType::Bool => Literal::Bool(f != 0.0 || f.is_nan()),
            // `as` saturates and maps NaN to 0: XLA's float-to-int conversion.
            DType::Int32 => match self {
                Literal::U32(v) => Literal::I32(v as i32),
                _ => Literal::I32(f as i32),
            },
            DType::UInt32 => match self {
                Literal::I32(v) => Literal::U32(v as u32),
                _ => Literal::U32(f as u32),
            },
            DType::Float16 => match self {
                Literal::F32(v) => Literal::F16(f16::from_f32(v)),
                _ => Literal::F16(f16::from_f64(f)),
            },
            DType::Float32 => Literal::F32(f as f32),
        }
    }
}

/// Every operation Olympus performs. Parameters live in the variants.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Primitive {
    /// `x + y`; logical or on bool.
    Add,
    /// `x * y`; logical and on bool.
    Mul,
    /// `e^x` on floats.
    Exp,
    /// Dtype conversion; `weak` is the weak-type flag of the result.
    ConvertElementType {
        /// Target dtype.
        dtype: DType,
        /// Weak-type flag of the result.
        weak: bool,
    },
    /// A contiguous copy.
    Copy,
    /// A new array filled with one value.
    Full {
        /// Output shape.
        shape: Vec<usize>,
        /// The value (and so the dtype).
        value: Literal,
    },
    /// Index along one dimension.
    Iota {
        /// Output dtype (integers or floats).
        dtype: DType,
        /// Output shape.
        shape: Vec<usize>,
        /// The dimension whose index is the value.
        dimension: usize,
    },
    /// Permutes dimensions (a view): output dimension `i` is operand dimension
    /// `permutation[i]`.
    Transpose {
        /// A permutation of `0..ndim`.
        permutation: Vec<usize>,
    },
    /// Broadcast to a shape (a view).
    BroadcastInDim {
        /// Output shape.
        shape: Vec<usize>,
        /// Output dimension of each operand dimension.
        broadcast_dimensions: Vec<usize>,
    },
}

/// How a primitive is evaluated eagerly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EvalKind {
    /// Metadata only: a new layout over the same buffer.
    View,
    /// One elementwise kernel from the generator.
    Elementwise,
}

impl Primitive {
    /// The primitive's name, as JAX spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Primitive::Add => "add",
            Primitive::Mul => "mul",
            Primitive::Exp => "exp",
            Primitive::ConvertElementType { .. } => "convert_element_type",
            Primitive::Copy => "copy",
            Primitive::Full { .. } => "full",
            Primitive::Iota { .. } => "iota",
            Primitive::BroadcastInDim { .. } => "broadcast_in_dim",
            Primitive::Transpose { .. } => "transpose",
        }
    }

    /// Position of the variant in the table (an exhaustive match, so a new variant must be
    /// listed here, in [`Primitive::examples`], and in every rule).
    #[cfg(test)]
    pub(crate) fn variant_index(&self) -> usize {
        match self {
            Primitive::Add => 0,
            Primitive::Mul => 1,
            Primitive::Exp => 2,
            Primitive::ConvertElementType { .. } => 3,
            Primitive::Copy => 4,
            Primitive::Full { .. } => 5,
            Primitive::Iota { .. } => 6,
            Primitive::Transpose { .. } => 7,
            Primitive::BroadcastInDim { .. } => 8,
        }
    }

    /// Number of variants in the table.
    #[cfg(test)]
    pub(crate) const COUNT: usize = 9;

    /// One instance of every variant with every parameter value that changes the generated
    /// code (for rule-coverage and kernel-validation tests).
    #[cfg(test)]
    pub(crate) fn examples() -> Vec<Primitive> {
        let mut v = vec![
            Primitive::Add,
            Primitive::Mul,
            Primitive::Exp,
            Primitive::Copy,
            Primitive::Transpose {
                permutation: vec![1, 0],
            },
            Primitive::BroadcastInDim {
                shape: vec![2, 3],
                broadcast_dimensions: vec![1],
            },
        ];
        for d in DType::ALL {
            v.push(Primitive::ConvertElementType {
                dtype: d,
                weak: false,
            });
            v.push(Primitive::Full {
                shape: vec![3],
                value: Literal::F32(1.0).cast(d),
            });
            if !d.is_bool() {
                v.push(Primitive::Iota {
                    dtype: d,
                    shape: vec![2, 3],
                    dimension: 1,
                });
            }
        }
        v
    }

    pub(crate) fn eval_kind(&self) -> EvalKind {
        match self {
            Primitive::BroadcastInDim { .. } | Primitive::Transpose { .. } => EvalKind::View,
            _ => EvalKind::Elementwise,
        }
    }

    fn arity(&self) -> usize {
        match self {
            Primitive::Add | Primitive::Mul => 2,
            Primitive::Exp
            | Primitive::ConvertElementType { .. }
            | Primitive::Copy
            | Primitive::BroadcastInDim { .. }
            | Primitive::Transpose { .. } => 1,
            Primitive::Full { .. } | Primitive::Iota { .. } => 0,
        }
    }

    /// The shape/dtype rule: the abstract value of the output, or an error naming the
    /// primitive, the shapes and the dtypes.
    pub fn abstract_eval(&self, inputs: &[Aval]) -> Result<Aval> {
        let name = self.name();
        if inputs.len() != self.arity() {
            return Err(Error::arg(
                name,
                format!("takes {} operands, got {}", self.arity(), inputs.len()),
            ));
        }
        let weak = inputs.iter().all(|a| a.weak);
        match self {
            Primitive::Add | Primitive::Mul => {
                let (x, y) = (&inputs[0], &inputs[1]);
                if x.shape != y.shape {
                    return Err(Error::shape(
                        name,
                        &[&x.shape, &y.shape],
                        "lax operands must have equal shapes (numpy functions broadcast)",
                    ));
                }
                if x.dtype != y.dtype {
                    return Err(Error::dtype(
                        name,
                        &[x.dtype, y.dtype],
                        "lax operands must have equal dtypes (numpy functions promote)",
                    ));
                }
                Ok(Aval::new(x.shape.clone(), x.dtype, weak))
            }
            Primitive::Exp => {
                let x = &inputs[0];
                if !x.dtype.is_floating() {
                    return Err(Error::dtype(
                        name,
                        &[x.dtype],
                        "needs a floating operand (numpy.exp converts integers to float32)",
                    ));
                }
                Ok(Aval::new(x.shape.clone(), x.dtype, weak))
            }
            Primitive::ConvertElementType { dtype, weak } => {
                Ok(Aval::new(inputs[0].shape.clone(), *dtype, *weak))
            }
            Primitive::Copy => Ok(inputs[0].clone()),
            Primitive::Full { shape, value } => {
                crate::shape::checked_size(name, shape)?;
                Ok(Aval::new(shape.clone(), value.dtype(), false))
            }
            Primitive::Iota {
                dtype,
                shape,
                dimension,
            } => {
                crate::shape::checked_size(name, shape)?;
                if *dimension >= shape.len() {
                    return Err(Error::shape(
                        name,
                        &[shape],
                        format!("dimension {dimension} is out of range"),
                    ));
                }
                if dtype.is_bool() {
                    return Err(Error::dtype(name, &[*dtype], "iota needs a numeric dtype"));
                }
                Ok(Aval::new(shape.clone(), *dtype, false))
            }
            Primitive::Transpose { permutation } => {
                let x = &inputs[0];
                let mut seen = vec![false; x.shape.len()];
                let ok = permutation.len() == x.shape.len()
                    && permutation
                        .iter()
                        .all(|&p| p < seen.len() && !std::mem::replace(&mut seen[p], true));
                if !ok {
                    return Err(Error::shape(
                        name,
                        &[&x.shape],
                        format!("{permutation:?} is not a permutation of the operand's dimensions"),
                    ));
                }
                let shape = permutation.iter().map(|&p| x.shape[p]).collect();
                Ok(Aval::new(shape, x.dtype, x.weak))
            }
            Primitive::BroadcastInDim {
                shape,
                broadcast_dimensions,
            } => {
                let x = &inputs[0];
                let ok = broadcast_dimensions.len() == x.shape.len()
                    && broadcast_dimensions.windows(2).all(|w| w[0] < w[1])
                    && broadcast_dimensions
                        .iter()
                        .zip(&x.shape)
                        .all(|(&d, &s)| d < shape.len() && (s == 1 || s == shape[d]));
                if !ok {
                    return Err(Error::shape(
                        name,
                        &[&x.shape, shape],
                        format!(
                            "broadcast_dimensions {broadcast_dimensions:?} do not map the operand into the output shape"
                        ),
                    ));
                }
                crate::shape::checked_size(name, shape)?;
                Ok(Aval::new(shape.clone(), x.dtype, x.weak))
            }
        }
    }
}
