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
//! - [`Array`] defers: when every handler declines, the function runs on the arguments
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

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::array::Array;
use crate::convert::{ArrayLike, Operand};
use crate::dtype::{DType, TypeSpec};
use crate::error::{Error, Result};

/// A type's handler for the numpy calls it takes part in. See the [module docs](self).
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

macro_rules! debug_param {
    ($($t:ty),*) => {$(
        impl IntoParam for $t {
            fn to_param(&self) -> Param {
                Param::Other(format!("{self:?}"))
            }
        }
    )*};
}
debug_param!(
    super::Sections,
    super::Repeats,
    super::PadMode,
    super::IndexMode,
    &[(usize, usize)]
);

/// One array argument of a call: its value if it overrides (downcast it with
/// [`Arg::downcast_ref`]), and its conversion to an array.
pub struct Arg {
    handler: Option<Arc<dyn ArrayFunction>>,
    type_name: &'static str,
    operand: std::result::Result<Operand, Error>,
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
            Ok(op) => super::asarray(op.clone()),
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

/// Offers a call to the handlers of its overriding arguments (NEP 18's rules; see the
/// [module docs](self)): `Some(result)` when one of them handled it, `None` when all
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
