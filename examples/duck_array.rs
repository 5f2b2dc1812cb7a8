//! One user type through Olympus's three extensibility mechanisms: a length in metres or
//! seconds that
//!
//! - converts to an array (the protocol), so every numpy function accepts it;
//! - is a duck array, so generic code (NEP 30's `stack`) returns a `Quantity`;
//! - overrides `add` and `subtract` (NEP 18) so mixing units is an error even through
//!   plain numpy calls, while everything else (`sqrt`, `mean`, ...) runs on the magnitude.
//!
//! Run with `cargo run --example duck_array`.

use std::sync::{Arc, LazyLock};

use olympus::numpy::overrides::{ArrayFunction, Call, Registry, Value};
use olympus::numpy::{self as np, DuckArray};
use olympus::{Array, DType, Error, Result, SupportsOlympusArray};

#[derive(Clone, Debug)]
struct Quantity {
    value: Array,
    unit: String,
}

impl Quantity {
    fn new(v: &[f32], unit: &str) -> Result<Quantity> {
        Ok(Quantity {
            value: np::array(v)?,
            unit: unit.to_string(),
        })
    }

    fn same_unit(&self, other: &Quantity, func: &str) -> Result<()> {
        if self.unit == other.unit {
            Ok(())
        } else {
            Err(Error::InvalidArgument {
                func: func.into(),
                reason: format!("cannot combine {} and {}", self.unit, other.unit),
            })
        }
    }

    fn with(&self, value: Array) -> Quantity {
        Quantity {
            value,
            unit: self.unit.clone(),
        }
    }
}

// 1. The protocol: a quantity converts to its magnitude.
impl SupportsOlympusArray for Quantity {
    fn olympus_array(&self) -> Result<Array> {
        Ok(self.value.clone())
    }
    fn overrides(&self) -> Option<Arc<dyn ArrayFunction>> {
        Some(Arc::new(self.clone()))
    }
}

// 2. A duck array: generic code keeps the unit.
impl DuckArray for Quantity {
    fn duck_shape(&self) -> Vec<usize> {
        self.value.shape().to_vec()
    }
    fn duck_dtype(&self) -> DType {
        self.value.dtype()
    }
    fn expand_dims(&self, axis: isize) -> Result<Self> {
        Ok(self.with(np::expand_dims(&self.value, &[axis])?))
    }
    fn concatenate(arrays: &[Self], axis: isize) -> Result<Self> {
        for q in arrays {
            arrays[0].same_unit(q, "concatenate")?;
        }
        let values: Vec<&Array> = arrays.iter().map(|q| &q.value).collect();
        Ok(arrays[0].with(np::concatenate(values, axis)?))
    }
    fn reshape(&self, shape: &[isize]) -> Result<Self> {
        Ok(self.with(np::reshape(&self.value, shape)?))
    }
    fn transpose(&self, axes: Option<&[isize]>) -> Result<Self> {
        Ok(self.with(np::transpose(&self.value, axes)?))
    }
    fn add(&self, other: &Self) -> Result<Self> {
        self.same_unit(other, "add")?;
        Ok(self.with(np::add(&self.value, &other.value)?))
    }
    fn subtract(&self, other: &Self) -> Result<Self> {
        self.same_unit(other, "subtract")?;
        Ok(self.with(np::subtract(&self.value, &other.value)?))
    }
    fn multiply(&self, other: &Self) -> Result<Self> {
        let unit = if self.unit == other.unit {
            format!("{}^2", self.unit)
        } else {
            format!("{}*{}", self.unit, other.unit)
        };
        Ok(Quantity {
            value: np::multiply(&self.value, &other.value)?,
            unit,
        })
    }
    fn sum(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Self> {
        Ok(self.with(np::sum(&self.value, axis, keepdims)?))
    }
    fn from_array(a: Array) -> Result<Self> {
        Ok(Quantity {
            value: a,
            unit: String::new(),
        })
    }
    fn to_array(&self) -> Result<Array> {
        Ok(self.value.clone())
    }
}

// 3. Overrides: `np::add` and `np::subtract` check units; the rest decline.
static HANDLED: LazyLock<Registry> = LazyLock::new(|| {
    let checked = |call: &Call<'_>| -> Result<Value> {
        let unit = |k: usize| {
            call.args()[k]
                .downcast_ref::<Quantity>()
                .map_or("", |q| q.unit.as_str())
        };
        if unit(0) != unit(1) {
            return Err(Error::InvalidArgument {
                func: call.func().into(),
                reason: format!(
                    "cannot combine {} and {}",
                    if unit(0).is_empty() {
                        "a plain array"
                    } else {
                        unit(0)
                    },
                    if unit(1).is_empty() {
                        "a plain array"
                    } else {
                        unit(1)
                    }
                ),
            });
        }
        let (a, b) = (call.args()[0].to_array()?, call.args()[1].to_array()?);
        Ok(Value::from(match call.func() {
            "add" => np::add(a, b)?,
            _ => np::subtract(a, b)?,
        }))
    };
    Registry::new()
        .implements("add", checked)
        .implements("subtract", checked)
});

impl ArrayFunction for Quantity {
    fn array_function(&self, call: &Call<'_>) -> Option<Result<Value>> {
        HANDLED.dispatch(call)
    }
}

/// NEP 30's example: written once, for arrays and any duck type.
fn stack<D: DuckArray>(arrays: &[D], axis: isize) -> Result<D> {
    let expanded = arrays
        .iter()
        .map(|a| a.expand_dims(axis))
        .collect::<Result<Vec<D>>>()?;
    D::concatenate(&expanded, axis)
}

fn main() -> Result<()> {
    let a = Quantity::new(&[1.0, 2.0, 3.0], "m")?;
    let b = Quantity::new(&[4.0, 5.0, 6.0], "m")?;
    let t = Quantity::new(&[2.0, 2.0, 2.0], "s")?;

    // The protocol: any numpy function runs on the magnitude.
    println!("sqrt(a)          = {:?}", np::sqrt(&a)?.to_vec::<f32>()?);
    println!(
        "mean(b)          = {}",
        np::mean(&b, None, false)?.item::<f32>()?
    );

    // The duck array: generic code returns a Quantity with its unit.
    let s = stack(&[a.clone(), b.clone()], 0)?;
    println!(
        "stack([a, b])    = {:?} {} {:?}",
        s.value.shape(),
        s.unit,
        s.value.to_vec::<f32>()?
    );
    let plain: Array = stack(&[np::array([1.0f32])?, np::array([2.0f32])?], 0)?;
    println!("stack of arrays  = {:?}", plain.to_vec::<f32>()?);
    println!(
        "stack([a, t])    = {}",
        stack(&[a.clone(), t.clone()], 0).unwrap_err()
    );

    // The override: plain numpy calls check units too.
    println!("np.add(a, b)     = {:?}", np::add(&a, &b)?.to_vec::<f32>()?);
    println!("np.subtract(a, t) = {}", np::subtract(&a, &t).unwrap_err());
    println!("a * t (typed)    = {}", DuckArray::multiply(&a, &t)?.unit);
    // Methods on Array call the numpy functions, so they dispatch as well.
    println!(
        "x.add(&a)        = {}",
        a.value.add(&a.value)?.add(&a).unwrap_err()
    );
    println!(
        "x.multiply(&t)   = {:?}",
        a.value.multiply(&t)?.to_vec::<f32>()?
    );
    Ok(())
}
