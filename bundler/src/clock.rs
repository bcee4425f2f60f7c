//! Milliseconds since an instant: the timings every command reports (build phases, queries,
//! pools), measured one way.

use std::time::Instant;

/// Milliseconds since `started`.
pub fn elapsed_ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0
}
