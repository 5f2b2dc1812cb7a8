//! The crate's one error type.
//!
//! Every fallible operation returns [`Result`]. Messages name the failing function and,
//! where they matter, the shapes and dtypes involved, so a user can act on them without
//! reading our source.

use crate::dtype::DType;

/// The result type used throughout Olympus.
pub type Result<T> = std::result::Result<T, Error>;

/// Formats a shape as NumPy does: `(2, 3)`, `(4,)`, `()`.
pub fn fmt_shape(shape: &[usize]) -> String {
    fmt_tuple(shape)
}

/// Formats sizes as Python prints a tuple: `()`, `(5,)`, `(3, -1)`.
pub(crate) fn fmt_tuple<T: std::fmt::Display>(items: &[T]) -> String {
    match items {
        [] => "()".to_string(),
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            items
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

pub(crate) fn fmt_shapes(shapes: &[Vec<usize>]) -> String {
    shapes
        .iter()
        .map(|s| fmt_shape(s))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Formats a list of dtypes as `float32, int32`.
pub(crate) fn fmt_dtypes(dtypes: &[DType]) -> String {
    dtypes
        .iter()
        .map(|d| d.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Everything that can go wrong in Olympus.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Operand shapes do not fit the operation (broadcasting, reshapes, axes).
    #[error("{func}: incompatible shapes {}: {reason}", fmt_shapes(.shapes))]
    ShapeMismatch {
        /// The public function that failed.
        func: String,
        /// The shapes involved.
        shapes: Vec<Vec<usize>>,
        /// What exactly did not fit.
        reason: String,
    },
    /// A dtype the operation does not accept.
    #[error("{func}: unsupported dtype {}: {reason}", fmt_dtypes(.dtypes))]
    InvalidDType {
        /// The public function that failed.
        func: String,
        /// The dtypes involved.
        dtypes: Vec<DType>,
        /// What exactly was wrong.
        reason: String,
    },
    /// An argument value that is out of range or otherwise invalid.
    #[error("{func}: {reason}")]
    InvalidArgument {
        /// The public function that failed.
        func: String,
        /// What exactly was wrong.
        reason: String,
    },
    /// The array would not fit the device (larger than its largest buffer), or the device ran
    /// out of memory while allocating it. The device stays usable.
    #[error("{func}: out of device memory allocating {bytes} bytes for shape {} {dtype}: {reason}", fmt_shape(.shape))]
    OutOfMemory {
        /// The public function that failed.
        func: String,
        /// Bytes requested.
        bytes: u64,
        /// Shape of the array being allocated.
        shape: Vec<usize>,
        /// Its dtype.
        dtype: DType,
        /// The device's own words, or the limit that was exceeded.
        reason: String,
    },
    /// Arrays on different devices met in one operation.
    #[error("{func}: arrays live on different devices ({}); move them to one device first", .devices.join(" and "))]
    DeviceMismatch {
        /// The public function that failed.
        func: String,
        /// Descriptions of the devices involved.
        devices: Vec<String>,
    },
    /// The device was lost (driver reset, removal, or destroyed). Arrays on it are gone.
    #[error("device lost: {reason}")]
    DeviceLost {
        /// The driver's explanation.
        reason: String,
    },
    /// No adapter could be found.
    #[error("no GPU or software adapter found: {tried}")]
    NoAdapter {
        /// What was tried, in order.
        tried: String,
    },
    /// A value could not be converted to an array.
    #[error(
        "{func}: cannot convert argument {position} of type `{type_name}` to an array: {reason}"
    )]
    Conversion {
        /// The public function that failed.
        func: String,
        /// Zero-based position of the argument.
        position: usize,
        /// The Rust type of the argument.
        type_name: String,
        /// Why the conversion failed.
        reason: String,
    },
    /// A traced array's values were needed while tracing a function under
    /// [`jit`](crate::jit::jit), [`grad`](crate::grad) or [`vmap`](crate::vmap) (they only
    /// exist once the transformed function runs), or a traced array was used outside the
    /// trace that made it.
    #[error("{func}: {reason} (while tracing `{traced}` under jit, grad or vmap)")]
    Tracing {
        /// The operation that needed values.
        func: String,
        /// The function being traced.
        traced: String,
        /// What exactly was wrong, and what to do instead.
        reason: String,
    },
    /// An error reported by the GPU driver or by wgpu that is not one of the above.
    #[error("{func}: device error: {reason}")]
    Device {
        /// The operation during which the error was reported.
        func: String,
        /// wgpu's message.
        reason: String,
    },
}

impl Error {
    /// The error with the failing function named `func`: a numpy function's name in place
    /// of the primitive's it was built on (`zeros` rather than `full`).
    pub(crate) fn renamed(self, func: &str) -> Error {
        match self {
            Error::ShapeMismatch { shapes, reason, .. } => Error::ShapeMismatch {
                func: func.to_string(),
                shapes,
                reason,
            },
            Error::OutOfMemory {
                bytes,
                shape,
                dtype,
                reason,
                ..
            } => Error::OutOfMemory {
                func: func.to_string(),
                bytes,
                shape,
                dtype,
                reason,
            },
            e => e,
        }
    }

    pub(crate) fn shape(func: &str, shapes: &[&[usize]], reason: impl Into<String>) -> Error {
        Error::ShapeMismatch {
            func: api_name(func),
            shapes: shapes.iter().map(|s| s.to_vec()).collect(),
            reason: reason.into(),
        }
    }

    pub(crate) fn dtype(func: &str, dtypes: &[DType], reason: impl Into<String>) -> Error {
        Error::InvalidDType {
            func: api_name(func),
            dtypes: dtypes.to_vec(),
            reason: reason.into(),
        }
    }

    pub(crate) fn arg(func: &str, reason: impl Into<String>) -> Error {
        Error::InvalidArgument {
            func: api_name(func),
            reason: reason.into(),
        }
    }
}

thread_local! {
    /// The public function the user called on this thread, while it runs.
    static API: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Marks a public function running on this thread (the outermost one wins), so that an
/// error raised by the primitives it is built on names what the user called:
/// `broadcast_to`, not the `broadcast_in_dim` inside it.
pub(crate) struct ApiScope(bool);

impl ApiScope {
    pub(crate) fn enter(func: &str) -> ApiScope {
        ApiScope(API.with(|a| {
            let mut a = a.borrow_mut();
            a.is_none().then(|| *a = Some(func.to_string())).is_some()
        }))
    }
}

impl Drop for ApiScope {
    fn drop(&mut self) {
        if self.0 {
            API.with(|a| *a.borrow_mut() = None);
        }
    }
}

/// The name an error raised in `func` should carry: the public function running, if any.
pub(crate) fn api_name(func: &str) -> String {
    API.with(|a| a.borrow().clone())
        .unwrap_or_else(|| func.to_string())
}
