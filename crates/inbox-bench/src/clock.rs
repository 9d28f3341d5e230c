//! One time base for the whole run, so a publish stamp and an arrival stamp taken in different
//! tasks can be subtracted. Microseconds fit a `u64` for any run.

use std::sync::OnceLock;
use std::time::Instant;

static BASE: OnceLock<Instant> = OnceLock::new();

/// Microseconds since the first call in this process.
pub fn now_us() -> u64 {
    let base = BASE.get_or_init(Instant::now);
    base.elapsed().as_micros() as u64
}
