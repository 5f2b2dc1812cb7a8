#![allow(clippy::type_complexity)]
//! The foundation's tests, in one binary (each test binary links wgpu, so fewer is faster).

mod autodiff;
mod common;
mod creation;
mod custom;
mod display;
mod dtype_programs;
mod dtypes;
mod einsum;
mod elementwise;
mod indexing;
mod interop;
mod jit;
mod jit_programs;
mod joins;
mod limits;
mod linalg;
mod narrow;
mod ndarray_interop;
mod npy;
mod numpy_extra;
mod operators;
mod particles;
mod random;
mod reductions;
mod runtime;
mod scans;
mod sets_search;
mod shapes;
mod sizes;
mod statistics;
mod textures;
mod top_k;
mod tree;
mod ufuncs;
mod vmap;
