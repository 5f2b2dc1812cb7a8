//! Function overrides (NEP 18's `__array_function__`, Ivy's `__ivy_array_function__`): a
//! user type can take over chosen `numpy` functions for the calls it takes part in.
//!
//! A type opts in by returning a handler from
//! [`SupportsOlympusArray::overrides`](crate::SupportsOlympusArray::overrides) (usually a
//! clone of itself). When a numpy function is called with such a value among its array
//! arguments (or inside a list argument), before computing anything it offers the call to
//! the handlers, following NEP 18:
//!
//! - one handler per distinct overriding type, in argument order (left to right, list
//!   elements in place);
//! - a handler sees the function's name, the overriding types involved, the arguments
//!   (each can be downcast to its Rust type, or converted to an array) and the other
//!   parameters by name; it returns `None` to decline, so the next type is asked;
//! - the first result that does not decline is the call's result; an error from a handler
//!   reaches the caller unchanged;
//! - [`Array`](crate::Array) defers: when every handler declines, the function runs on the arguments
//!   converted through the array-conversion protocol, and if an overriding value cannot be
//!   converted the call is an error naming the function and the types.
//!
//! [`Registry`] is the convenient way to write a handler (Ivy's `HANDLED_FUNCTIONS` with
//! its `implements` decorator):
//!
//! ```
//! use std::sync::{Arc, LazyLock};
//! use olympus::numpy::{self as np, overrides::{ArrayFunction, Call, Registry, Value}};
//! use olympus::{Array, Result, SupportsOlympusArray};
//!
//! /// Metres: `add` checks that both sides are lengths; everything else declines.
//! #[derive(Clone)]
//! struct Metres(Array);
//!
//! static HANDLED: LazyLock<Registry> = LazyLock::new(|| {
//!     Registry::new().implements("add", |call: &Call<'_>| {
//!         let sum = np::add(call.args()[0].to_array()?, call.args()[1].to_array()?)?;
//!         Ok(Value::from(np::multiply(sum, 1.0)?))
//!     })
//! });
//!
//! impl ArrayFunction for Metres {
//!     fn array_function(&self, call: &Call<'_>) -> Option<Result<Value>> {
//!         HANDLED.dispatch(call)
//!     }
//! }
//!
//! impl SupportsOlympusArray for Metres {
//!     fn olympus_array(&self) -> Result<Array> { Ok(self.0.clone()) }
//!     fn overrides(&self) -> Option<Arc<dyn ArrayFunction>> { Some(Arc::new(self.clone())) }
//! }
//!
//! let m = Metres(np::array([1.0f32, 2.0])?);
//! assert_eq!(np::add(&m, &m)?.to_vec::<f32>()?, [2.0, 4.0]);   // handled
//! assert_eq!(np::sqrt(&m)?.shape(), &[2]);                       // declined: the default runs
//! # Ok::<(), olympus::Error>(())
//! ```

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::convert::{ArrayLike, Operand};
use crate::dtype::TypeSpec;
use crate::error::{Error, Result};

// The handler side of the protocol lives with the conversion it extends (`convert`, below
// `numpy`): `ArrayLike::overrides` returns an `ArrayFunction`.
#[doc(inline)]
pub use crate::convert::{offer, Arg, ArrayFunction, Call, IntoParam, Param, Slot, Value};

/// Makes types parameters in their `Debug` form ([`Param::Other`]); invoked where each
/// parameter type is defined.
macro_rules! debug_param {
    ($($t:ty),*) => {$(
        impl $crate::numpy::overrides::IntoParam for $t {
            fn to_param(&self) -> $crate::numpy::overrides::Param {
                $crate::numpy::overrides::Param::Other(format!("{self:?}"))
            }
        }
    )*};
}
pub(crate) use debug_param;
debug_param!(&[(usize, usize)]);

type Handler = Box<dyn Fn(&Call<'_>) -> Result<Value> + Send + Sync>;

/// The functions a type handles (Ivy's `HANDLED_FUNCTIONS`): `dispatch` runs the one
/// registered for the call's function and declines the others.
#[derive(Default)]
pub struct Registry {
    handlers: HashMap<&'static str, Handler>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Registers `f` for the numpy function named `func` (the `implements` decorator).
    pub fn implements(
        mut self,
        func: &'static str,
        f: impl Fn(&Call<'_>) -> Result<Value> + Send + Sync + 'static,
    ) -> Registry {
        self.handlers.insert(func, Box::new(f));
        self
    }

    /// Whether `func` is handled.
    pub fn handles(&self, func: &str) -> bool {
        self.handlers.contains_key(func)
    }

    /// Runs the handler for `call`'s function, or declines.
    pub fn dispatch(&self, call: &Call<'_>) -> Option<Result<Value>> {
        self.handlers.get(call.func()).map(|h| h(call))
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&&str> = self.handlers.keys().collect();
        names.sort();
        f.debug_struct("Registry").field("handles", &names).finish()
    }
}

/// An array argument on its way into a numpy function: the value as passed, until a call
/// with overriding arguments converts it (then the default path reads the conversion).
#[doc(hidden)]
pub enum Pass<T> {
    /// As passed.
    Original(T),
    /// Converted while offering the call to handlers.
    Converted(Operand, &'static str),
    /// Its conversion failed while offering the call (the error surfaces when the default
    /// path converts it).
    Failed(Error, &'static str),
    /// Moved out (transient).
    Taken,
}

impl<T: ArrayLike> Pass<T> {
    /// Wraps an argument.
    pub fn new(x: T) -> Pass<T> {
        Pass::Original(x)
    }

    /// The argument's handler, if it overrides.
    pub fn handler(&self) -> Option<Arc<dyn ArrayFunction>> {
        match self {
            Pass::Original(x) => x.overrides(),
            _ => None,
        }
    }

    /// Converts the argument for a call offered to handlers.
    pub fn take_arg(&mut self) -> Arg {
        match std::mem::replace(self, Pass::Taken) {
            Pass::Original(x) => Arg::new(x),
            Pass::Converted(op, type_name) => Arg {
                handler: None,
                type_name,
                operand: Ok(op),
            },
            Pass::Failed(e, type_name) => Arg {
                handler: None,
                type_name,
                operand: Err(e),
            },
            Pass::Taken => Arg {
                handler: None,
                type_name: "?",
                operand: Err(Error::arg("overrides", "an argument was used twice")),
            },
        }
    }

    /// Back from a declined call: the converted argument.
    pub fn restore(&mut self, arg: &Arg) {
        *self = match &arg.operand {
            Ok(op) => Pass::Converted(op.clone(), arg.type_name),
            Err(e) => Pass::Failed(e.clone(), arg.type_name),
        };
    }
}

impl<T: ArrayLike> ArrayLike for Pass<T> {
    fn into_operand(self) -> Result<Operand> {
        match self {
            Pass::Original(x) => x.into_operand(),
            Pass::Converted(op, _) => Ok(op),
            Pass::Failed(e, _) => Err(e),
            Pass::Taken => Err(Error::arg("overrides", "an argument was used twice")),
        }
    }

    fn declared_shape(&self) -> Option<Vec<usize>> {
        match self {
            Pass::Original(x) => x.declared_shape(),
            Pass::Converted(op, _) => Some(op.shape()),
            Pass::Failed(..) | Pass::Taken => None,
        }
    }

    fn declared_type(&self) -> Option<TypeSpec> {
        match self {
            Pass::Original(x) => x.declared_type(),
            Pass::Converted(op, _) => Some(op.type_spec()),
            Pass::Failed(..) | Pass::Taken => None,
        }
    }

    fn overrides(&self) -> Option<Arc<dyn ArrayFunction>> {
        self.handler()
    }

    fn arg_type_name(&self) -> &'static str {
        match self {
            Pass::Original(x) => x.arg_type_name(),
            Pass::Converted(_, n) | Pass::Failed(_, n) => n,
            Pass::Taken => "?",
        }
    }
}

/// Makes a numpy function overridable: wraps its array arguments (`one x`, `list xs`) and,
/// when any of them overrides, offers the call to the handlers before the body runs.
/// `params` lists the other parameters by name.
macro_rules! overridable {
    ($func:expr; [$($kind:ident $arg:ident),*]; [$($param:ident),*]) => {
        let _api = $crate::error::ApiScope::enter($func);
        $( overridable!(@wrap $kind $arg); )*
        if false $( || overridable!(@overrides $kind $arg) )* {
            let mut slots = vec![$( overridable!(@take $kind $arg) ),*];
            let params = vec![$( (stringify!($param), $crate::numpy::overrides::IntoParam::to_param(&$param)) ),*];
            if let Some(v) = $crate::numpy::overrides::offer($func, &slots, &params) {
                return v?.downcast($func);
            }
            let mut _k = 0;
            $(
                overridable!(@restore $kind $arg, slots[_k]);
                _k += 1;
            )*
            let _ = &mut slots;
        }
    };
    (@wrap one $arg:ident) => {
        #[allow(unused_mut)]
        let mut $arg = $crate::numpy::overrides::Pass::new($arg);
    };
    (@wrap list $arg:ident) => {
        #[allow(unused_mut)]
        let mut $arg: Vec<_> = $arg.into_iter().map($crate::numpy::overrides::Pass::new).collect();
    };
    (@overrides one $arg:ident) => { $arg.handler().is_some() };
    (@overrides list $arg:ident) => { $arg.iter().any(|e| e.handler().is_some()) };
    (@take one $arg:ident) => { $crate::numpy::overrides::Slot::One($arg.take_arg()) };
    (@take list $arg:ident) => {
        $crate::numpy::overrides::Slot::List($arg.iter_mut().map(|e| e.take_arg()).collect())
    };
    (@restore one $arg:ident, $slot:expr) => {
        if let $crate::numpy::overrides::Slot::One(a) = &$slot {
            $arg.restore(a);
        }
    };
    (@restore list $arg:ident, $slot:expr) => {
        if let $crate::numpy::overrides::Slot::List(v) = &$slot {
            for (e, a) in $arg.iter_mut().zip(v) {
                e.restore(a);
            }
        }
    };
}

pub(crate) use overridable;
