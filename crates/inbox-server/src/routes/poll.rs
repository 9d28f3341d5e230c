//! What the two long-poll doors (`GET /api/interactions/{id}/wait`, `GET /api/parks/{id}/wait`)
//! share: the request ([`AskerWait`], with its `timeout_s`), the wait itself ([`LongPoll`]) and
//! the answer's status.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::FromRequestParts;
use axum::http::StatusCode;
use axum::http::request::Parts;
use inbox_protocol::Park;
use inbox_protocol::caps::WAIT_MAX_SECONDS;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;
use tokio::time::{Sleep, sleep};

use crate::auth::AsAsker;
use crate::error::ApiError;
use crate::extract::{PathId, QueryParams};
use crate::long_poll::{LongPolls, Waiting};
use crate::principal::Principal;
use crate::state::AppState;
use crate::store::{LiveBus, LiveEvent};

/// `timeout_s` when absent.
const WAIT_DEFAULT_SECONDS: u64 = 30;

/// How long a long-poll waits: its `timeout_s` query parameter,
/// served as at most `WAIT_MAX_SECONDS`.
fn wait_timeout(params: &std::collections::HashMap<String, String>) -> Result<Duration, ApiError> {
    let seconds = match params.get("timeout_s") {
        None => WAIT_DEFAULT_SECONDS,
        Some(s) => s.parse::<u64>().map_err(|_| {
            ApiError::invalid_query("timeout_s", "timeout_s is a whole number of seconds")
        })?,
    };
    Ok(Duration::from_secs(seconds.min(WAIT_MAX_SECONDS)))
}

/// An asker's long-poll on one item (a question or a park), extracted in the order its
/// refusals come: the role (`401`/`403`), the path (`404`), then `timeout_s` (`400`).
pub struct AskerWait {
    pub principal: Principal,
    pub id: String,
    pub timeout: Duration,
}

impl FromRequestParts<AppState> for AskerWait {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let AsAsker(principal) = AsAsker::from_request_parts(parts, state).await?;
        let PathId(id) = PathId::from_request_parts(parts, state).await?;
        let QueryParams(params) = QueryParams::from_request_parts(parts, state).await?;
        let timeout = wait_timeout(&params)?;
        Ok(AskerWait {
            principal,
            id,
            timeout,
        })
    }
}

/// One long-poll (`…/wait`): subscribed to the live bus when it starts, before the door's first
/// read, so a change between that read and the wait still wakes it. Its window opens at the
/// first [`LongPoll::next`]: from then it is counted in [`LongPolls`] and lasts until its
/// timeout passes or the server stops.
pub struct LongPoll {
    events: LiveBus,
    /// This worker's park transitions, for a park's wait.
    parks: Option<broadcast::Receiver<Park>>,
    timeout: Duration,
    window: Option<(Waiting, Pin<Box<Sleep>>)>,
    stopping: Pin<Box<dyn Future<Output = ()> + Send>>,
    long_polls: LongPolls,
}

/// What woke a long-poll.
pub enum Wake {
    /// An event on the live bus.
    Event(Arc<LiveEvent>),
    /// The id of a park this worker moved (only when watching parks).
    Park(String),
    /// Events were missed, ours among them perhaps: look again.
    Missed,
    /// The timeout passed, the server is stopping or a bus closed: answer with what is known.
    Over,
}

impl LongPoll {
    pub fn start(state: &AppState, timeout: Duration) -> LongPoll {
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
    pub fn watching_parks(mut self, state: &AppState) -> LongPoll {
        self.parks = Some(state.store().subscribe_parks());
        self
    }

    pub async fn next(&mut self) -> Wake {
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
                Ok(park) => Wake::Park(park.id),
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
pub fn status(settled: bool) -> StatusCode {
    if settled {
        StatusCode::OK
    } else {
        StatusCode::ACCEPTED
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn timeout_of(value: Option<&str>) -> Result<Duration, ApiError> {
        let params: HashMap<String, String> = value
            .map(|v| ("timeout_s".to_owned(), v.to_owned()))
            .into_iter()
            .collect();
        wait_timeout(&params)
    }

    #[test]
    fn timeout_s_is_clamped_to_the_cap_and_defaults_when_absent() {
        assert_eq!(timeout_of(None).unwrap(), Duration::from_secs(30));
        assert_eq!(timeout_of(Some("0")).unwrap(), Duration::ZERO);
        assert_eq!(timeout_of(Some("7")).unwrap(), Duration::from_secs(7));
        let cap = Duration::from_secs(WAIT_MAX_SECONDS);
        assert_eq!(timeout_of(Some("60")).unwrap(), cap);
        assert_eq!(timeout_of(Some("61")).unwrap(), cap);
        assert_eq!(timeout_of(Some(&u64::MAX.to_string())).unwrap(), cap);
        for bad in ["-1", "1.5", "", "18446744073709551616", "ten"] {
            assert!(timeout_of(Some(bad)).is_err(), "{bad:?} accepted");
        }
    }
}
