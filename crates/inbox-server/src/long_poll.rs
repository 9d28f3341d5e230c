//! How many long-polls (`…/wait`) are parked on the live bus right now. Read in-process through
//! [`crate::RunningServer::long_polls_waiting`] (no door serves it): tests use it to know a
//! wait is listening before they resolve its question, instead of sleeping and hoping.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(Clone, Default)]
pub(crate) struct LongPolls {
    waiting: Arc<AtomicUsize>,
}

impl LongPolls {
    /// Counts a wait from here until the returned guard drops (answered, timed out, stopped,
    /// or the client went away and the handler was dropped).
    pub(crate) fn enter(&self) -> Waiting {
        self.waiting.fetch_add(1, Ordering::SeqCst);
        Waiting {
            waiting: self.waiting.clone(),
        }
    }

    pub(crate) fn count(&self) -> usize {
        self.waiting.load(Ordering::SeqCst)
    }
}

/// One wait being counted.
pub(crate) struct Waiting {
    waiting: Arc<AtomicUsize>,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.waiting.fetch_sub(1, Ordering::SeqCst);
    }
}
