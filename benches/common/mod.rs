//! Helpers shared by the benches (each bench includes this file with `#[path]`).

use std::time::{Duration, Instant};

/// The median of `reps` timed runs of `f` after one warm-up run.
pub fn median(reps: usize, mut f: impl FnMut()) -> Duration {
    f();
    let mut times: Vec<Duration> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[reps / 2]
}
