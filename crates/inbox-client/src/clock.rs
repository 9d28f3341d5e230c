//! The wall clock the engine reads: card deadlines (`Tick`), the retry time it shows, the
//! age of outbox verdicts. A machine's clock can be set forwards or back under a running app
//! (an NTP correction after sleep, a reviewer fixing the time zone by hand), and the list must
//! stay true through it. `Clock` is that clock with an offset a test or the fault campaign can
//! jump for one app without touching the machine's; the app itself never jumps it.
//!
//! Timers (backoff, keepalive, coalescing) run on the monotonic clock and ignore it.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{DateTime, Utc};

/// The system clock plus an offset shared by every clone. The default has no offset.
#[derive(Debug, Clone, Default)]
pub struct Clock {
    offset_ms: Arc<AtomicI64>,
}

impl Clock {
    /// What this clock reads now.
    pub fn now(&self) -> DateTime<Utc> {
        Utc::now() + self.offset()
    }

    /// Move this clock (and every clone of it) by `by`, forwards or back, from now on.
    pub fn jump(&self, by: chrono::Duration) {
        self.offset_ms
            .fetch_add(by.num_milliseconds(), Ordering::SeqCst);
    }

    /// How far this clock reads from the system clock.
    pub fn offset(&self) -> chrono::Duration {
        chrono::Duration::milliseconds(self.offset_ms.load(Ordering::SeqCst))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jump_moves_every_clone_and_a_jump_back_undoes_it() {
        let clock = Clock::default();
        let seen_by_engine = clock.clone();
        clock.jump(chrono::Duration::hours(3));
        let ahead = seen_by_engine.now() - Utc::now();
        assert!(ahead > chrono::Duration::minutes(179), "{ahead}");
        clock.jump(chrono::Duration::hours(-3));
        assert_eq!(seen_by_engine.offset(), chrono::Duration::zero());
    }
}
