//! The buffer pool: freed device buffers are kept by size class and handed out again.
//!
//! A buffer released while work that uses it may still be unsubmitted goes to a quarantine
//! first and only becomes reusable after the next submit. That keeps `queue.write_buffer`
//! (which runs before the commands of the next submit) from overwriting data a kernel that
//! was encoded earlier has yet to read.

use std::collections::HashMap;

/// What a pooled buffer is for; buffers of different kinds have different usage flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum BufferKind {
    /// `STORAGE | COPY_SRC | COPY_DST`: array data.
    Storage,
    /// `MAP_READ | COPY_DST`: readback staging.
    Staging,
    /// `UNIFORM | COPY_DST`: the kernel metadata of a batch.
    Meta,
}

impl BufferKind {
    pub(crate) fn usage(self) -> wgpu::BufferUsages {
        match self {
            BufferKind::Storage => {
                wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST
            }
            BufferKind::Staging => wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            BufferKind::Meta => wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        }
    }
}

/// Rounds a request up to its size class: powers of two up to 1 MiB (at least 256 bytes),
/// then four classes per octave, so at most 25% of a large allocation is slack.
pub(crate) fn size_class(bytes: u64) -> u64 {
    let bytes = bytes.max(256);
    let p = bytes.next_power_of_two();
    if p <= 1 << 20 {
        return p;
    }
    let quarter = p / 8;
    bytes.div_ceil(quarter) * quarter
}

/// Live and pooled device memory of one device, in bytes and buffers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryStats {
    /// Bytes in buffers owned by live arrays (and in-flight kernel metadata).
    pub live_bytes: u64,
    /// Number of such buffers.
    pub live_buffers: u64,
    /// Bytes kept in the pool for reuse.
    pub pooled_bytes: u64,
    /// Number of pooled buffers.
    pub pooled_buffers: u64,
    /// Bytes of textures holding staged kernel inputs, kept with live arrays or pooled
    /// (CPU adapters, see
    /// [`DeviceOptions::texture_input_bytes`](crate::DeviceOptions::texture_input_bytes)).
    pub texture_bytes: u64,
    /// The most bytes live arrays have held at once since the device was opened.
    pub peak_live_bytes: u64,
    /// The most bytes the pool has kept at once (buffers awaiting reuse after a submit
    /// included).
    pub peak_pooled_bytes: u64,
}

/// The pool keeps at least this many bytes of freed buffers, whatever the live set.
pub(crate) const POOL_FLOOR: u64 = 64 << 20;

/// Freed buffers by kind and size class. The pool keeps at most as many bytes as live
/// arrays hold (at least [`POOL_FLOOR`], at most the device's `pool_limit_bytes`): a
/// working set's buffers are reused, and memory freed by arrays that are gone goes back
/// to the driver at the next submit.
#[derive(Default)]
pub(crate) struct Pool {
    free: HashMap<(BufferKind, u64), Vec<wgpu::Buffer>>,
    quarantine: Vec<(BufferKind, u64, wgpu::Buffer)>,
    quarantined: u64,
    pub(crate) stats: MemoryStats,
    pub(crate) limit: u64,
}

impl Pool {
    pub(crate) fn new(limit: u64) -> Pool {
        Pool {
            limit,
            ..Pool::default()
        }
    }

    /// A pooled buffer of this class, now counted as live.
    pub(crate) fn take(&mut self, kind: BufferKind, class: u64) -> Option<wgpu::Buffer> {
        let b = self.free.get_mut(&(kind, class))?.pop()?;
        self.stats.pooled_bytes -= class;
        self.stats.pooled_buffers -= 1;
        self.stats.live_bytes += class;
        self.stats.live_buffers += 1;
        self.stats.peak_live_bytes = self.stats.peak_live_bytes.max(self.stats.live_bytes);
        Some(b)
    }

    /// Counts a newly created buffer as live.
    pub(crate) fn created(&mut self, class: u64) {
        self.stats.live_bytes += class;
        self.stats.live_buffers += 1;
        self.stats.peak_live_bytes = self.stats.peak_live_bytes.max(self.stats.live_bytes);
    }

    /// The bytes the pool keeps: as many as live arrays hold, within the floor and the
    /// device's limit.
    pub(crate) fn budget(&self) -> u64 {
        self.stats.live_bytes.max(POOL_FLOOR).min(self.limit)
    }

    /// Whether buffers awaiting a submit exceed the budget: the caller submits early so
    /// that they become reusable (a loop of eager ops would otherwise free a batch's worth
    /// of buffers before any can be reused).
    pub(crate) fn wants_submit(&self) -> bool {
        self.quarantined > self.budget()
    }

    /// A buffer is no longer used by any array; it becomes reusable after the next submit.
    pub(crate) fn release(&mut self, kind: BufferKind, class: u64, buffer: wgpu::Buffer) {
        self.stats.live_bytes -= class;
        self.stats.live_buffers -= 1;
        self.stats.pooled_bytes += class;
        self.stats.pooled_buffers += 1;
        self.stats.peak_pooled_bytes = self.stats.peak_pooled_bytes.max(self.stats.pooled_bytes);
        self.quarantined += class;
        self.quarantine.push((kind, class, buffer));
    }

    /// Called after a submit: quarantined buffers become reusable; the pool is trimmed to
    /// its limit, largest classes first.
    pub(crate) fn after_submit(&mut self) {
        for (kind, class, buffer) in self.quarantine.drain(..) {
            self.free.entry((kind, class)).or_default().push(buffer);
        }
        self.quarantined = 0;
        let budget = self.budget();
        if self.stats.pooled_bytes > budget {
            let mut keys: Vec<_> = self.free.keys().copied().collect();
            keys.sort_by_key(|k| std::cmp::Reverse(k.1));
            for key in keys {
                while self.stats.pooled_bytes > budget {
                    let Some(b) = self.free.get_mut(&key).and_then(|v| v.pop()) else {
                        break;
                    };
                    b.destroy();
                    self.stats.pooled_bytes -= key.1;
                    self.stats.pooled_buffers -= 1;
                }
            }
        }
    }

    /// Drops every reusable buffer (before retrying an allocation that ran out of memory).
    pub(crate) fn clear(&mut self) {
        for ((_, class), bufs) in self.free.drain() {
            for b in bufs {
                b.destroy();
                self.stats.pooled_bytes -= class;
                self.stats.pooled_buffers -= 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::size_class;

    #[test]
    fn classes() {
        assert_eq!(size_class(1), 256);
        assert_eq!(size_class(257), 512);
        assert_eq!(size_class(1 << 20), 1 << 20);
        assert_eq!(size_class((1 << 20) + 1), (1 << 20) + (1 << 18));
        for b in [1u64, 100, 5000, 1 << 22, 123_456_789] {
            let c = size_class(b);
            assert!(c >= b && c <= b.max(256) * 2, "{b} -> {c}");
        }
    }
}
