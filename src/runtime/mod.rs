//! The wgpu runtime: device selection, buffers and their pool, pipelines, the command
//! queue and readback. Nothing above this module touches wgpu types.

mod device;
mod pool;
mod queue;
mod state;

pub use device::{
    missing_limits, Backend, Device, DeviceInfo, DeviceOptions, F16Mode, KernelProfile,
};
pub use pool::MemoryStats;

pub(crate) use device::MemoEntry;
pub(crate) use pool::BufferKind;
pub(crate) use queue::{Binding, Storage};
pub(crate) use state::Kernel;

/// Locks a mutex, ignoring poisoning: a panic on another thread must not turn every later
/// call into a panic too. The state each lock guards stays consistent between statements.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
