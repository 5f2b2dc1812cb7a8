//! # Olympus
//!
//! A portable GPU array library: NumPy's API and JAX's model on wgpu (Vulkan, Metal, DX12,
//! GL, and a software adapter where no GPU exists).
//!
//! ```
//! use olympus::numpy as np;
//!
//! let x = np::arange(5)?;                          // int32 on the default device
//! let y = np::multiply(&x, 2)?;                    // weak scalar: stays int32
//! assert_eq!(format!("{y:?}"), "Array([0, 2, 4, 6, 8], dtype=int32)");
//! let z = np::exp(np::multiply(&x, 0.5)?)?;        // float32
//! println!("{z:?}");
//! # Ok::<(), olympus::Error>(())
//! ```
//!
//! ## The path of a value
//!
//! [`numpy`] functions accept anything [`ArrayLike`], promote with JAX's lattice and weak
//! types ([`result_type`]), broadcast, and bind [`lax`] primitives. Each primitive has a
//! shape/dtype rule and a WGSL rule; eager evaluation runs a one-node program through the
//! one kernel generator and records the dispatch without waiting. Reading data back is the
//! only wait.
//!
//! ## Devices
//!
//! The default device is opened on first use and shared by all threads: a discrete GPU,
//! else an integrated one, else a software adapter (lavapipe through Vulkan, then llvmpipe
//! through GL). `OLYMPUS_BACKEND` (vulkan|metal|dx12|gl) and `OLYMPUS_ADAPTER` (a substring
//! of the adapter name) override the choice; [`Device::new`] opens others, and
//! [`with_device`] makes one the default for a scope.
//!
//! ## Pytrees
//!
//! Transformations take and return *pytrees*: nested structures whose leaves are
//! [`Array`]s. [`tree`] implements [`PyTree`] for arrays (the leaves), tuples up to 12,
//! `Vec`, Rust arrays, `Option` (`None` is an empty node, not a leaf), `BTreeMap<String, _>`
//! and `HashMap<String, _>` (sorted key order) and `Box`; [`register_pytree!`] registers
//! your structs, with `#[static]` fields carried as metadata in the [`TreeDef`]. Rust
//! scalars and `String`s are static too, not leaves: to trace a scalar, make it an `Array`.
//!
//! ```
//! use olympus::{numpy as np, tree, Array};
//!
//! struct Linear { w: Array, b: Array, activation: String }
//! olympus::register_pytree!(Linear { w, b, #[static] activation });
//!
//! let layer = |v: f32| -> olympus::Result<Linear> {
//!     Ok(Linear { w: np::full(&[2, 2], v, None)?, b: np::zeros(&[2], olympus::DType::Float32)?,
//!                 activation: "relu".into() })
//! };
//! let params = vec![layer(1.0)?, layer(2.0)?];
//! let grads = vec![layer(10.0)?, layer(10.0)?];
//! // One SGD step over every leaf; the structure (and `activation`) carries over.
//! let params: Vec<Linear> =
//!     tree::tree_map2(|p, g| np::subtract(p, np::multiply(g, 0.1)?), &params, &grads)?;
//! assert_eq!(params[1].w.to_vec::<f32>()?, [1.0; 4]);
//! let def = tree::tree_structure(&params);
//! assert_eq!(def.to_string(), "PyTreeDef([Linear { w: *, b: *, activation: \"relu\" }, \
//!                              Linear { w: *, b: *, activation: \"relu\" }])");
//! assert_eq!(def.key_paths()[2].to_string(), "[1].w");
//! # Ok::<(), olympus::Error>(())
//! ```
//!
//! ## Array extensibility
//!
//! Every [`numpy`] function takes its array arguments as [`ArrayLike`]: arrays, Rust
//! scalars (weakly typed), `half::f16`, slices, Vecs, nested arrays, and any type that
//! implements [`SupportsOlympusArray`] — the Rust form of JEP 28661's `__olympus_array__`.
//! A user type implements one method (`olympus_array`) and is accepted everywhere;
//! declaring its shape and dtype (`olympus_shape`, `olympus_dtype`) lets `shape`, `ndim`,
//! `size` and the `_like` constructors work without converting it. [`impl_array_ops!`]
//! gives it the operators; [`arrays!`] builds lists that mix types for `concatenate`,
//! `stack` or `einsum`. A failed conversion is [`Error::Conversion`], naming the function,
//! the argument position and the type; a type that is not array-like does not compile, and
//! the compiler says to implement the protocol or call `asarray`.
//!
//! The protocol is a `numpy`-layer feature: [`lax`] takes arrays only. At transformation
//! boundaries (`jit`, `grad`, `vmap`) pytree flattening applies instead and the protocol
//! is never called, so a type that is both a registered pytree and array-like keeps its
//! identity inside a transformed function.
//!
//! ```
//! use olympus::{numpy as np, Array, DType, Result, SupportsOlympusArray};
//!
//! /// Temperatures kept on the host in tenths of a degree.
//! struct Tenths(Vec<i32>);
//!
//! impl SupportsOlympusArray for Tenths {
//!     fn olympus_array(&self) -> Result<Array> {
//!         np::divide(np::asarray(self.0.clone())?, 10.0)
//!     }
//!     fn olympus_shape(&self) -> Option<Vec<usize>> { Some(vec![self.0.len()]) }
//!     fn olympus_dtype(&self) -> Option<DType> { Some(DType::Float32) }
//! }
//! olympus::impl_array_ops!(Tenths);
//!
//! let t = Tenths(vec![215, 195, 230]);
//! assert_eq!(np::max(&t, None, false)?.item::<f32>()?, 23.0);
//! assert_eq!((&t + 0.5)?.to_vec::<f32>()?, vec![22.0, 20.0, 23.5]);
//! assert_eq!(np::zeros_like(&t)?.shape(), &[3]);          // no conversion needed
//! let all = np::concatenate(olympus::arrays![&t, vec![25.0f32]], 0)?;
//! assert_eq!(all.shape(), &[4]);
//! # Ok::<(), olympus::Error>(())
//! ```
//!
//! ### Three mechanisms, and when to use which
//!
//! | you want | use | a call returns |
//! |---|---|---|
//! | your type accepted by every numpy function, computed as an array | the conversion protocol ([`SupportsOlympusArray`]) | an [`Array`] |
//! | generic code that keeps its input's type (a quantity stays a quantity) | duck arrays ([`numpy::DuckArray`], [`numpy::duckarray`], NEP 30) | the duck type |
//! | to change what chosen numpy functions compute for your type (check units, skip masked elements), the rest converted | overrides ([`numpy::overrides`], NEP 18) | the function's type (an [`Array`]) |
//!
//! The protocol converts and forgets the type. A duck array never converts: code written
//! over [`numpy::DuckArray`] calls the type's own operations, and a mix with plain arrays
//! is expressed in the duck type ([`numpy::duck_as`]). An override is offered each numpy
//! call the type takes part in, one handler per distinct type, left to right (list
//! elements included); it may decline, so the next handler or the default (the protocol
//! conversion) runs, and [`numpy::overrides::Registry`] maps function names to handlers
//! as Ivy's `HANDLED_FUNCTIONS` does. Every numpy function that takes an array first is
//! also a method on [`Array`] (`x.sin()?.sum(None, false)?`), so methods dispatch too.
//! `cargo run --example duck_array` shows all three on one type.
//!
//! ## Random numbers
//!
//! [`random`] follows JAX: a key is a plain uint32 array, samplers are pure functions of a
//! key, and [`random::split`] / [`random::fold_in`] derive new keys. The same key gives the
//! same numbers on every adapter and the same numbers JAX gives (Threefry-2x32 with JAX's
//! partitionable counters): sampling is reproducible, parallel (each element hashes its own
//! counter, so 16M samples come from one kernel that reads only the key) and composes with
//! transformations — a batch of keys `[n, 2]` gives a batch of samples, and keys are
//! ordinary pytree leaves.
//!
//! ```
//! use olympus::{random, DType};
//! let key = random::key(42)?;
//! let (k_init, k_noise) = random::split2(&key)?;
//! let w = random::normal(&k_init, &[3, 3], DType::Float32)?;
//! let keys = random::split(&k_noise, 4)?;                  // a batch of 4 keys
//! let noise = random::uniform(&keys, &[3], 0.0, 1.0, DType::Float32)?;
//! assert_eq!((w.shape(), noise.shape()), (&[3usize, 3][..], &[4usize, 3][..]));
//! # Ok::<(), olympus::Error>(())
//! ```
//!
//! ## jit
//!
//! [`jit()`] compiles a function over pytrees: it is traced once per signature into a typed
//! [`jit::Graph`] of [`lax`] primitives, dead code is removed, and chains of elementwise
//! primitives are fused into single generated kernels (a chain feeding only a reduction is
//! computed inside the reduction's first pass); later calls with new values reuse the
//! executable. At the boundary, pytree flattening applies and the conversion protocol
//! is never called, so a registered user type arrives inside the function as itself. See
//! the [`jit`](mod@jit) module.
//!
//! ## Differentiation and vectorisation
//!
//! [`grad()`], [`value_and_grad()`], [`vjp()`] and [`jvp()`] differentiate a function over
//! pytrees; [`vmap()`] vectorises it over a batch axis. Each traces the function into the
//! same graph `jit` uses and rewrites it with per-primitive rules (a JVP rule for every
//! differentiable primitive, a transpose rule for the linear ones, a batching rule for every
//! primitive); reverse mode traces the JVP into a linear graph, keeping its residuals, and
//! transposes it, as JAX does. Rules bind `lax` primitives as they go, so the results are
//! plain functions that compose in any order:
//!
//! ```
//! use olympus::{grad, jit, vmap, numpy as np, Array, Result};
//!
//! let loss = |w: Array| -> Result<Array> { np::sum(np::square(np::sin(&w)?)?, None, false) };
//! let w = np::array(&[0.5f32, 1.0])?;
//! let g = grad(loss)(w.clone())?;                          // 2 sin(w) cos(w) = sin(2w)
//! let compiled = jit(grad(loss));                          // the backward pass, fused
//! assert_eq!(compiled.call(w.clone())?.shape(), &[2]);
//! let per_row = vmap(grad(loss), 0, 0);                    // per-example gradients
//! let rows = np::stack(vec![w.clone(), np::multiply(&w, 2.0)?], 0)?;
//! assert_eq!(per_row(rows)?.shape(), &[2, 2]);
//! let second = grad(grad(|x: Array| np::sin(&x)));         // -sin(x)
//! assert!((second(Array::scalar(1.0f32)?)?.item::<f32>()? + 1f32.sin()).abs() < 1e-6);
//! # assert!((g.to_vec::<f32>()?[0] - 1f32.sin()).abs() < 1e-6);
//! # Ok::<(), olympus::Error>(())
//! ```
//!
//! A registered pytree's gradient is a value of the same type; [`grad_argnums`] with
//! [`Arg`] selectors differentiates chosen elements of a tuple argument (JAX's `argnums`);
//! [`Axes`] gives `vmap`'s `in_axes`/`out_axes` as pytree prefixes. Integer and bool values
//! carry no derivative (their gradients are zero, and asking for the gradient with respect
//! to an integer input is an error, as in JAX). `cargo run --release --example regression`
//! trains a small network with `jit` of a step built on `value_and_grad`.
//!
//! ## Interop
//!
//! Olympus fits into programs that already have a GPU device and data:
//!
//! - **A shared device.** [`Device::from_wgpu`] wraps an application's own wgpu adapter,
//!   device and queue (a renderer's, say), checks the limits Olympus needs and names any
//!   that are missing, and then behaves like any Olympus device. Olympus submits its own
//!   command buffers on the shared queue; ordering with the application's submissions is
//!   queue order, and Olympus flushes its pending work before handing out a buffer.
//! - **Buffers both ways.** [`Array::wgpu_buffer`] gives a contiguous array's buffer, byte
//!   offset and size for the application's own bind groups (usage `STORAGE | COPY_SRC |
//!   COPY_DST`); [`Array::from_wgpu_buffer`] wraps an application's buffer without a copy
//!   after checking its size and usage flags.
//! - **NumPy files.** [`numpy::save`], [`numpy::load`], [`numpy::savez`] and
//!   [`numpy::load_npz`] read and write `.npy`/`.npz` (every byte order, C and Fortran
//!   order; 64-bit dtypes canonicalised to 32 bits as JAX does).
//! - **ndarray** (the `ndarray` cargo feature): every `ndarray::ArrayBase` of a host element
//!   type is [`ArrayLike`] in any memory order, and `Array::to_ndarray` reads an array back
//!   as an `ndarray::ArrayD`.
//!
//! ```
//! use olympus::{numpy as np, Device, DeviceOptions};
//!
//! // The application's own device, as its renderer created it.
//! let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
//! let adapter = pollster::block_on(instance.request_adapter(&Default::default())).unwrap();
//! let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
//!     required_limits: adapter.limits(),
//!     ..Default::default()
//! })).unwrap();
//!
//! let dev = Device::from_wgpu(&adapter, device.clone(), queue.clone(), DeviceOptions::default())?;
//! let heights = olympus::with_device(&dev, || np::sin(np::linspace(0.0, 6.28, 256, true)?))?;
//! // Bind `view.buffer` at `view.offset` in the application's own pipeline.
//! let view = heights.wgpu_buffer()?;
//! assert_eq!(view.size, 256 * 4);
//!
//! // NumPy files: written here, readable by `numpy.load`, and back.
//! let path = std::env::temp_dir().join("olympus_heights.npy");
//! np::save(&path, &heights)?;
//! assert_eq!(np::load(&path)?.to_vec::<f32>()?, heights.to_vec::<f32>()?);
//! # std::fs::remove_file(&path).ok();
//! # Ok::<(), olympus::Error>(())
//! ```

#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod array;
pub(crate) mod codegen;
pub mod convert;
pub mod dtype;
pub mod error;
pub mod interop;
pub mod jit;
pub mod lax;
pub mod numpy;
pub mod ops;
mod primitive;
mod prims;
pub mod random;
pub mod runtime;
pub mod shape;
mod trace;
pub mod tree;
#[cfg(test)]
mod two_word_tests;

pub use array::{current_device, with_device, Array, Aval};
pub use convert::{ArrayLike, SupportsOlympusArray};
pub use dtype::{promote_types, result_type, DType, Element, TypeSpec};
pub use error::{Error, Result};
pub use jit::{
    custom_jvp, custom_vjp, grad, grad_argnums, jit, jvp, linearize, value_and_grad,
    value_and_grad_argnums, vjp, vmap, Arg, Axes,
};
pub use runtime::{
    Backend, Device, DeviceInfo, DeviceOptions, F16Mode, KernelProfile, MemoryStats,
};
pub use shape::broadcast_shapes;
pub use tree::{PyTree, TreeDef};
