//! The long-polls (`…/wait`): one [`LongPoll`] a wait, and how many are parked on the live bus
//! right now, read in-process through
//! [`crate::RunningServer::long_polls_waiting`] (no door serves it): tests use it to know a
//! wait is listening before they resolve its question, instead of sleeping and hoping.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::http::StatusCode;
use inbox_protocol::Park;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;
use tokio::time::{Sleep, sleep};

use crate::state::AppState;
use crate::store::{LiveBus, LiveEvent};

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

/// One long-poll (`…/wait`): subscribed to the live bus when it starts, before the door's first
/// read, so a change between that read and the wait still wakes it. Its window opens at the
/// first [`LongPoll::next`]: from then it is counted in [`LongPolls`] and lasts until its
/// timeout passes or the server stops.
pub(crate) struct LongPoll {
    events: LiveBus,
    /// This worker's park transitions, for a park's wait.
    parks: Option<broadcast::Receiver<Park>>,
    timeout: Duration,
    window: Option<(Waiting, Pin<Box<Sleep>>)>,
    stopping: Pin<Box<dyn Future<Output = ()> + Send>>,
    long_polls: LongPolls,
}

/// What woke a long-poll.
pub(crate) enum Wake {
    /// An event on the live bus.
    Event(Arc<LiveEvent>),
    /// A park this worker moved (only when watching parks).
    Park(Park),
    /// Events were missed, ours among them perhaps: look again.
    Missed,
    /// The timeout passed, the server is stopping or a bus closed: answer with what is known.
    Over,
}

impl LongPoll {
    pub(crate) fn start(state: &AppState, timeout: Duration) -> LongPoll {
        LongPoll {
            events: state.store().subscribe(),
            parks: None,
            timeout,
            window: None,
            stopping: Box::pin(state.stopping()),
            long_polls: state.long_polls().clone(),
        }
    }

    /// Also wake on this worker's park transitions (another Redis worker's are heard through
    /// the events of the park's questions).
    pub(crate) fn watching_parks(mut self, state: &AppState) -> LongPoll {
        self.parks = Some(state.store().subscribe_parks());
        self
    }

    pub(crate) async fn next(&mut self) -> Wake {
        let LongPoll {
            events,
            parks,
            timeout,
            window,
            stopping,
            long_polls,
        } = self;
        let (_, deadline) =
            window.get_or_insert_with(|| (long_polls.enter(), Box::pin(sleep(*timeout))));
        tokio::select! {
            received = events.recv() => match received {
                Ok(event) => Wake::Event(event),
                Err(RecvError::Lagged(_)) => Wake::Missed,
                Err(RecvError::Closed) => Wake::Over,
            },
            moved = recv_park(parks) => match moved {
                Ok(park) => Wake::Park(park),
                Err(RecvError::Lagged(_)) => Wake::Missed,
                Err(RecvError::Closed) => Wake::Over,
            },
            () = deadline => Wake::Over,
            () = stopping => Wake::Over,
        }
    }
}

async fn recv_park(parks: &mut Option<broadcast::Receiver<Park>>) -> Result<Park, RecvError> {
    match parks {
        Some(parks) => parks.recv().await,
        None => std::future::pending().await,
    }
}

/// A long-poll's answer: `200` once what it waits on has settled, `202` while it has not.
pub(crate) fn status(settled: bool) -> StatusCode {
    if settled {
        StatusCode::OK
    } else {
        StatusCode::ACCEPTED
    }
}
