//! `GET /api/interactions/stream` — the tail-only SSE feed.
//!
//! A fresh connect sends only what happens from then on. A `Last-Event-ID` (or
//! `?last_event_id=`) resumes: every retained event after that id, then the live tail, with no
//! gap and no duplicate — the live subscription is opened before the backlog is read, and live
//! events are passed on only when they come after the last one sent. An id that cannot cover the
//! gap (malformed, aged out, or never issued) gets a `reset` event carrying the tail cursor,
//! then the tail; that fallback is logged. An absent id is a normal connect and is not logged.
//!
//! Reviewers see every event. An asker may open the stream too and sees only the `submitted`
//! events of its own notifications (and `reset`): that is how a submission reaches its asker
//! as a message without anyone polling.
//!
//! The response body *is* the feed: hyper asks it for the next frame when the socket can take
//! one, and only then is the next event taken off the live bus. There is no task and no frame
//! queue per connection (at 10,000 subscribers a task each doubled the wake-ups per event and
//! its queue was most of the memory a subscriber cost over the bare broadcast floor; see
//! docs/benchmarks.md). A slow reader therefore holds nothing but its place on the shared bus:
//! when the bus has moved on past it, it gets a `reset` and the stream ends. A client that takes
//! no bytes at all is closed by the listener's send timeout (`listener.rs`).

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use inbox_protocol::{ResetEvent, ResetReason, StreamEvent};
use tokio::sync::broadcast::error::RecvError;
use tokio::time::{Instant, Sleep};

use crate::config::Role;
use crate::error::ApiError;
use crate::extract::QueryParams;
use crate::principal::Principal;
use crate::state::AppState;
use crate::store::{EventsAfter, LiveBus, Store, StoredEvent};

/// Events read from the store at a time while a resume catches up.
const BACKLOG_BATCH: usize = 100;
/// The comment sent when nothing else was sent for the keepalive interval.
const KEEPALIVE: &[u8] = b":keepalive\n\n";

pub async fn stream(
    State(state): State<AppState>,
    principal: Principal,
    headers: HeaderMap,
    QueryParams(query): QueryParams,
) -> Result<Response, ApiError> {
    let requested = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_owned())
        .or_else(|| query.get("last_event_id").cloned())
        // The SSE spec sends an empty id to mean "none".
        .filter(|id| !id.is_empty());

    // Who this connection is for: reviewers everything, an asker only its own submissions.
    let audience = match principal.role {
        Role::Reviewer | Role::Admin => None,
        Role::Asker => Some(principal.name.clone()),
    };
    let store = state.store().clone();
    let live = store.subscribe();
    // Where sending starts, checked before the response so a bad id is known at once. The
    // backlog itself is read in batches by the feed, never held whole.
    let start = match requested {
        None => Start::Tail(store.tail_cursor().await?),
        Some(id) => match store.events_after(&id, 1).await? {
            // Dedupe starts at the requested id: the backlog passes, the live copies of the
            // same events (published after we subscribed) do not.
            EventsAfter::Events(_) => Start::Resume(id),
            EventsAfter::Gap(reason) => {
                let (reset, tail) = reset_at_tail(store.as_ref(), reason).await?;
                Start::Reset {
                    frame: reset.sse_frame(),
                    tail,
                }
            }
        },
    };
    let feed = Feed::new(&state, store, audience, live, start);
    let body = futures::stream::unfold(feed, |mut feed| async move {
        let frame = feed.next_frame().await?;
        Some((Ok::<_, Infallible>(frame), feed))
    });
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/event-stream"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        Body::from_stream(body),
    )
        .into_response())
}

/// Where a connection's feed begins.
enum Start {
    /// A fresh connect: the live tail after this cursor.
    Tail(String),
    /// A resume: the retained events after this id, then the live tail.
    Resume(String),
    /// A resume that cannot be honoured: this `reset` frame first, then the tail after `tail`.
    Reset { frame: Bytes, tail: String },
}

/// The resume cannot be honoured: a `reset` frame at the tail cursor, logged.
async fn reset_at_tail(
    store: &dyn Store,
    reason: ResetReason,
) -> Result<(StoredEvent, String), ApiError> {
    let tail = store.tail_cursor().await?;
    tracing::warn!(?reason, tail = %tail, "stream resume fell back to the tail");
    let reset = StoredEvent {
        cursor: tail.clone(),
        event: StreamEvent::Reset(ResetEvent { reason }),
    };
    Ok((reset, tail))
}

/// What is left of a resume's backlog.
struct Backlog {
    /// Read from the store, not yet sent.
    batch: std::collections::VecDeque<StoredEvent>,
    /// Whether the store may hold more after this batch.
    more: bool,
}

/// One connection's feed, polled by hyper for each next frame.
struct Feed {
    store: Arc<dyn Store>,
    /// `Some(asker)`: only that asker's `submitted` events (and resets) pass.
    audience: Option<String>,
    live: LiveBus,
    /// A frame owed before anything else (the `reset` of a resume that could not be honoured).
    owed: Option<Bytes>,
    /// `Some` while a resume is catching up from the store.
    backlog: Option<Backlog>,
    /// After a final frame (a `reset` for a subscriber the bus left behind): end the stream.
    finished: bool,
    /// The cursor of the last frame sent; nothing at or before it is sent again.
    last_sent: String,
    /// When a frame was last handed to this client: the keepalive counts from here.
    last_sent_at: Instant,
    keepalive: Duration,
    /// Fires at most once per keepalive interval. It is not moved for every frame sent (that
    /// would be a timer update per subscriber per event); when it fires early it is moved on
    /// to `last_sent_at + keepalive`.
    quiet: Pin<Box<Sleep>>,
    stopping: Pin<Box<dyn Future<Output = ()> + Send>>,
}

/// What woke a feed waiting on the live tail.
enum Woken {
    Stopping,
    Quiet,
    Live(Result<Arc<crate::store::LiveEvent>, RecvError>),
}

impl Feed {
    fn new(
        state: &AppState,
        store: Arc<dyn Store>,
        audience: Option<String>,
        live: LiveBus,
        start: Start,
    ) -> Feed {
        let (last_sent, owed, backlog) = match start {
            Start::Tail(tail) => (tail, None, None),
            Start::Resume(id) => (
                id,
                None,
                Some(Backlog {
                    batch: Default::default(),
                    more: true,
                }),
            ),
            Start::Reset { frame, tail } => (tail, Some(frame), None),
        };
        let keepalive = state.keepalive();
        let now = Instant::now();
        Feed {
            store,
            audience,
            live,
            owed,
            backlog,
            finished: false,
            last_sent,
            last_sent_at: now,
            keepalive,
            quiet: Box::pin(tokio::time::sleep_until(now + keepalive)),
            stopping: Box::pin(state.stopping()),
        }
    }

    /// The next frame for this client, waiting for one as long as it takes; `None` ends the
    /// stream (the server is stopping, the bus closed, or the client was left behind).
    async fn next_frame(&mut self) -> Option<Bytes> {
        if let Some(owed) = self.owed.take() {
            return Some(self.sent_at_now(owed));
        }
        if self.finished {
            return None;
        }
        if self.backlog.is_some()
            && let Some(frame) = self.next_from_backlog().await
        {
            return Some(frame);
        }
        if self.finished {
            return None;
        }
        loop {
            let woken = tokio::select! {
                () = &mut self.stopping => Woken::Stopping,
                () = &mut self.quiet => Woken::Quiet,
                received = self.live.recv() => Woken::Live(received),
            };
            match woken {
                Woken::Stopping | Woken::Live(Err(RecvError::Closed)) => return None,
                // Nothing sent to this client for a while (events it may not see do not
                // count): a comment, so proxies and its silence timer see the stream alive.
                Woken::Quiet => {
                    let due = self.last_sent_at + self.keepalive;
                    if Instant::now() >= due {
                        return Some(self.sent_at_now(Bytes::from_static(KEEPALIVE)));
                    }
                    self.quiet.as_mut().reset(due);
                }
                Woken::Live(Ok(event)) => {
                    if self.passes(&event.stored) {
                        return Some(self.sent(&event.stored, event.frame.clone()));
                    }
                }
                // The live bus moved on past this connection: it cannot keep up. Tell it to
                // refetch and let it go, rather than hold anything for it.
                Woken::Live(Err(RecvError::Lagged(_))) => {
                    tracing::warn!(
                        "a stream subscriber fell behind the live bus; sending reset and closing"
                    );
                    return self.final_reset(ResetReason::Lagged).await;
                }
            }
        }
    }

    /// The next frame of the resume's backlog, reading the store a batch at a time so a long
    /// resume never sits in memory whole; `None` once it is used up (or ended the stream).
    async fn next_from_backlog(&mut self) -> Option<Bytes> {
        loop {
            let backlog = self.backlog.as_mut()?;
            if let Some(stored) = backlog.batch.pop_front() {
                if self.passes(&stored) {
                    let frame = stored.sse_frame();
                    return Some(self.sent(&stored, frame));
                }
                continue;
            }
            if !backlog.more {
                self.backlog = None;
                return None;
            }
            match self
                .store
                .events_after(&self.last_sent, BACKLOG_BATCH)
                .await
            {
                Ok(EventsAfter::Events(events)) => {
                    backlog.more = events.len() == BACKLOG_BATCH;
                    backlog.batch = events.into();
                }
                // The window moved on while this resume read it: a reset, and the end.
                Ok(EventsAfter::Gap(reason)) => return self.final_reset(reason).await,
                Err(e) => {
                    tracing::error!(error = %e, "stream could not read its backlog; closing it");
                    self.finished = true;
                    return None;
                }
            }
        }
    }

    /// Whether `stored` is for this client: after `last_sent` (or a reset, which starts the
    /// stream over — e.g. Redis restarted empty — so it may well be "before" it) and, for an
    /// asker, one of its own submissions.
    fn passes(&self, stored: &StoredEvent) -> bool {
        if matches!(stored.event, StreamEvent::Reset(_)) {
            return true;
        }
        self.store.is_after(&stored.cursor, &self.last_sent)
            && self
                .audience
                .as_ref()
                .is_none_or(|asker| stored.event.visible_to_asker(asker))
    }

    /// `frame` (of `stored`) goes out: nothing at or before its cursor is sent again.
    fn sent(&mut self, stored: &StoredEvent, frame: Bytes) -> Bytes {
        // In place: the cursor keeps its allocation from frame to frame.
        self.last_sent.clone_from(&stored.cursor);
        self.sent_at_now(frame)
    }

    fn sent_at_now(&mut self, frame: Bytes) -> Bytes {
        self.last_sent_at = Instant::now();
        frame
    }

    /// A `reset` at the tail as the last frame: the client refetches its list and reconnects,
    /// which costs the server nothing while it waits.
    async fn final_reset(&mut self, reason: ResetReason) -> Option<Bytes> {
        self.finished = true;
        self.backlog = None;
        let (reset, _) = reset_at_tail(self.store.as_ref(), reason).await.ok()?;
        Some(self.sent_at_now(reset.sse_frame()))
    }
}
