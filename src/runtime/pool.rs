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
    /// Buffers allocated from the driver since the device was opened: flat while a loop's
    /// arrays come from the pool.
    pub created_buffers: u64,
}

/// The pool keeps at least this many bytes of freed buffers beyond what live arrays hold.
pub(crate) const POOL_FLOOR: u64 = 64 << 20;

/// Freed buffers by kind and size class, kept within [`Pool::budget`]: a working set's
/// buffers are reused at every size, and memory freed by arrays that are gone goes back to
/// the driver as they are dropped.
#[derive(Default)]
pub(crate) struct Pool {
    free: HashMap<(BufferKind, u64), Vec<wgpu::Buffer>>,
    quarantine: Vec<(BufferKind, u64, wgpu::Buffer)>,
    pub(crate) stats: MemoryStats,
    pub(crate) limit: u64,
    /// The largest class released since the pool was last emptied.
    largest_freed: u64,
    /// Bytes of buffers dropped while awaiting a submit, since the last submit.
    dropped: u64,
}

impl Pool {
    pub(crate) fn new(limit: u64) -> Pool {
        Pool {
            limit,
            ..Pool::default()
        }
    }

    /// A pooled buffer of this class, now counted as live. With `recorded`, a buffer still
    /// awaiting the submit may be taken too: the caller only writes it with commands
    /// recorded after those that read it (a kernel's output), which run in order, unlike
    /// `queue.write_buffer`. Without that reuse, a loop whose arrays are dropped between
    /// ops would need two buffers in turn.
    pub(crate) fn take(
        &mut self,
        kind: BufferKind,
        class: u64,
        recorded: bool,
    ) -> Option<wgpu::Buffer> {
        let reusable = self.free.get_mut(&(kind, class)).and_then(|v| v.pop());
        let b = match reusable {
            Some(b) => b,
            None if recorded => {
                let i = self
                    .quarantine
                    .iter()
                    .rposition(|(k, c, _)| *k == kind && *c == class)?;
                self.quarantine.swap_remove(i).2
            }
            None => return None,
        };
        self.stats.pooled_bytes -= class;
        self.stats.pooled_buffers -= 1;
        self.stats.live_bytes += class;
        self.stats.live_buffers += 1;
        self.stats.peak_live_bytes = self.stats.peak_live_bytes.max(self.stats.live_bytes);
        Some(b)
    }

    /// Counts a newly created buffer as live.
    pub(crate) fn created(&mut self, class: u64) {
        self.stats.created_buffers += 1;
        self.stats.live_bytes += class;
        self.stats.live_buffers += 1;
        self.stats.peak_live_bytes = self.stats.peak_live_bytes.max(self.stats.live_bytes);
    }

    /// The bytes the pool keeps: as many as live arrays hold, and room beyond that for the
    /// largest buffer freed since the pool was last emptied (at least [`POOL_FLOOR`]), within
    /// the device's limit. The room is what a loop that makes and drops a large temporary
    /// needs to reuse it; a fixed cap below it gives back the one buffer the loop needs and
    /// makes a new one each time (and the driver zero-fills it) once arrays reach the cap.
    pub(crate) fn budget(&self) -> u64 {
        let room = self.largest_freed.max(POOL_FLOOR);
        self.stats.live_bytes.saturating_add(room).min(self.limit)
    }

    /// Whether the buffers given back since the last submit exceed the budget: the driver
    /// frees them only once the recorded work that may read them has run, so the caller
    /// submits early (a loop of eager ops would otherwise hold a batch's worth of them).
    pub(crate) fn wants_submit(&self) -> bool {
        self.dropped > self.budget()
    }

    /// A buffer is no longer used by any array; it becomes reusable after the next submit.
    /// Past the budget, reusable buffers go back to the driver now (largest first) and this
    /// one too if it still does not fit: memory freed by arrays that are gone does not wait
    /// for a submit. Dropping the handle (not destroying it) lets recorded work that reads
    /// it finish first.
    pub(crate) fn release(&mut self, kind: BufferKind, class: u64, buffer: wgpu::Buffer) {
        self.stats.live_bytes -= class;
        self.stats.live_buffers -= 1;
        self.largest_freed = self.largest_freed.max(class);
        let budget = self.budget();
        if self.stats.pooled_bytes + class > budget {
            self.trim(budget.saturating_sub(class));
            if self.stats.pooled_bytes + class > budget {
                self.dropped += class;
                return;
            }
        }
        self.stats.pooled_bytes += class;
        self.stats.pooled_buffers += 1;
        self.stats.peak_pooled_bytes = self.stats.peak_pooled_bytes.max(self.stats.pooled_bytes);
        self.quarantine.push((kind, class, buffer));
    }

    /// Called after a submit: quarantined buffers become reusable; the pool is trimmed to
    /// its limit, largest classes first.
    pub(crate) fn after_submit(&mut self) {
        for (kind, class, buffer) in self.quarantine.drain(..) {
            self.free.entry((kind, class)).or_default().push(buffer);
        }
        self.dropped = 0;
        self.trim(self.budget());
    }

    /// Gives pooled buffers back, largest classes first, until the pool holds at most
    /// `target` bytes: reusable ones are destroyed, then those awaiting a submit are
    /// dropped (not destroyed: recorded work may still read them, and wgpu keeps them
    /// alive until it has run).
    fn trim(&mut self, target: u64) {
        if self.stats.pooled_bytes <= target {
            return;
        }
        let mut keys: Vec<_> = self.free.keys().copied().collect();
        keys.sort_by_key(|k| std::cmp::Reverse(k.1));
        for key in keys {
            while self.stats.pooled_bytes > target {
                let Some(b) = self.free.get_mut(&key).and_then(|v| v.pop()) else {
                    break;
                };
                b.destroy();
                self.stats.pooled_bytes -= key.1;
                self.stats.pooled_buffers -= 1;
            }
        }
        if self.stats.pooled_bytes > target {
            self.quarantine.sort_by_key(|q| q.1);
            while self.stats.pooled_bytes > target {
                let Some((_, class, _)) = self.quarantine.pop() else {
                    break;
                };
                self.dropped += class;
                self.stats.pooled_bytes -= class;
                self.stats.pooled_buffers -= 1;
            }
        }
    }

    /// Drops every reusable buffer (before retrying an allocation that ran out of memory).
    pub(crate) fn clear(&mut self) {
        self.largest_freed = 0;
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
