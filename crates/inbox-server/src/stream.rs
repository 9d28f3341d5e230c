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

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use inbox_protocol::{ResetEvent, ResetReason, StreamEvent};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::SendTimeoutError;
use tokio_stream::wrappers::ReceiverStream;

use crate::config::Role;
use crate::error::ApiError;
use crate::extract::QueryParams;
use crate::principal::Principal;
use crate::state::AppState;
use crate::store::{EventsAfter, LiveBus, Store, StoredEvent};

/// Frames buffered per connection before the sender waits on a slow client.
const FRAME_BUFFER: usize = 64;
/// Events read from the store at a time while a resume catches up.
const BACKLOG_BATCH: usize = 100;
/// How long a client may leave a full buffer untaken before its stream is closed.
const SUBSCRIBER_STALL: Duration = Duration::from_secs(30);
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
    let (start, resume) = match requested {
        None => (store.tail_cursor().await?, None),
        Some(id) => match store.events_after(&id, 1).await? {
            // Dedupe starts at the requested id: the backlog passes, the live copies of the
            // same events (published after we subscribed) do not.
            EventsAfter::Events(_) => (id.clone(), Some(id)),
            EventsAfter::Gap(reason) => {
                let (reset, tail) = reset_at_tail(store.as_ref(), reason).await?;
                let (frames, rx) = mpsc::channel(FRAME_BUFFER);
                let _ = frames.try_send(frame(&reset));
                return Ok(spawn_feed(
                    &state, store, audience, live, frames, rx, tail, None,
                ));
            }
        },
    };
    let (frames, rx) = mpsc::channel(FRAME_BUFFER);
    Ok(spawn_feed(
        &state, store, audience, live, frames, rx, start, resume,
    ))
}

/// Start the task that feeds one connection: the backlog after `resume` (if any), then the
/// live tail, until the client leaves, the server stops, or the client falls too far behind.
#[allow(clippy::too_many_arguments)]
fn spawn_feed(
    state: &AppState,
    store: Arc<dyn Store>,
    audience: Option<String>,
    mut live: LiveBus,
    frames: mpsc::Sender<Bytes>,
    rx: mpsc::Receiver<Bytes>,
    last_sent: String,
    resume: Option<String>,
) -> Response {
    let stopping = state.stopping();
    let keepalive = state.keepalive();
    tokio::spawn(async move {
        let mut feed = Feed {
            store,
            audience,
            frames,
            last_sent,
            last_queued: tokio::time::Instant::now(),
        };
        if resume.is_some() && !feed.send_backlog().await {
            return;
        }
        tokio::pin!(stopping);
        let quiet = tokio::time::sleep_until(feed.last_queued + keepalive);
        tokio::pin!(quiet);
        loop {
            let keep_going = tokio::select! {
                () = feed.frames.closed() => false,
                () = &mut stopping => false,
                // Nothing queued for this client for a while (events it may not see do not
                // count): a comment, so proxies and its silence timer see the stream alive.
                // A full buffer already says the client is behind.
                () = &mut quiet => {
                    let _ = feed.frames.try_send(Bytes::from_static(KEEPALIVE));
                    feed.last_queued = tokio::time::Instant::now();
                    quiet.as_mut().reset(feed.last_queued + keepalive);
                    true
                }
                received = live.recv() => match received {
                    Ok(event) => {
                        let sent = feed.send(&event.stored, || event.frame.clone()).await;
                        quiet.as_mut().reset(feed.last_queued + keepalive);
                        sent
                    }
                    // The live bus overflowed for this connection: it cannot keep up. Tell
                    // it to refetch and let it go, rather than buffer for it without bound.
                    Err(RecvError::Lagged(_)) => {
                        feed.drop_slow().await;
                        false
                    }
                    Err(RecvError::Closed) => false,
                },
            };
            if !keep_going {
                break;
            }
        }
    });
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/event-stream"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        Body::from_stream(ReceiverStream::new(rx).map(Ok::<_, Infallible>)),
    )
        .into_response()
}

fn frame(stored: &StoredEvent) -> Bytes {
    stored.sse_frame()
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

/// One connection's sending side.
struct Feed {
    store: Arc<dyn Store>,
    /// `Some(asker)`: only that asker's `submitted` events (and resets) pass.
    audience: Option<String>,
    frames: mpsc::Sender<Bytes>,
    /// The cursor of the last frame sent; nothing at or before it is sent again.
    last_sent: String,
    /// When a frame was last queued for this client: the keepalive counts from here.
    last_queued: tokio::time::Instant,
}

impl Feed {
    /// Send `stored` (its frame made by `frame` only if it passes) if it comes after
    /// `last_sent` (or is a reset). `false` once the client is gone or has not taken a frame
    /// for [`SUBSCRIBER_STALL`].
    async fn send(&mut self, stored: &StoredEvent, frame: impl FnOnce() -> Bytes) -> bool {
        // A reset (the store lost events, e.g. Redis restarted empty) always passes: its
        // cursor starts the stream over, so it may well be "before" the last one sent.
        let is_reset = matches!(stored.event, StreamEvent::Reset(_));
        if !is_reset && !self.store.is_after(&stored.cursor, &self.last_sent) {
            return true;
        }
        if let Some(asker) = &self.audience
            && !is_reset
            && !stored.event.visible_to_asker(asker)
        {
            return true;
        }
        match self.frames.send_timeout(frame(), SUBSCRIBER_STALL).await {
            Ok(()) => {
                // In place: the cursor keeps its allocation from frame to frame.
                self.last_sent.clone_from(&stored.cursor);
                self.last_queued = tokio::time::Instant::now();
                true
            }
            Err(SendTimeoutError::Timeout(_)) => {
                tracing::warn!("a stream subscriber stopped reading; closing its stream");
                false
            }
            Err(SendTimeoutError::Closed(_)) => false,
        }
    }

    /// The events after `last_sent`, a batch at a time, so a long resume never sits in
    /// memory whole. A gap found on the way (the window moved on) ends it with a reset.
    async fn send_backlog(&mut self) -> bool {
        loop {
            let batch = match self
                .store
                .events_after(&self.last_sent, BACKLOG_BATCH)
                .await
            {
                Ok(EventsAfter::Events(events)) => events,
                Ok(EventsAfter::Gap(reason)) => {
                    if let Ok((reset, _)) = reset_at_tail(self.store.as_ref(), reason).await {
                        let _ = self.frames.try_send(frame(&reset));
                    }
                    return false;
                }
                Err(e) => {
                    tracing::error!(error = %e, "stream could not read its backlog; closing it");
                    return false;
                }
            };
            let full = batch.len() == BACKLOG_BATCH;
            for stored in &batch {
                if !self.send(stored, || frame(stored)).await {
                    return false;
                }
            }
            if !full {
                return true;
            }
        }
    }

    /// A `reset` at the tail if there is room for it, then the stream ends: the client
    /// refetches its list and reconnects, which costs the server nothing while it waits.
    async fn drop_slow(&mut self) {
        tracing::warn!("a stream subscriber fell behind the live bus; sending reset and closing");
        if let Ok((reset, _)) = reset_at_tail(self.store.as_ref(), ResetReason::Lagged).await {
            let _ = self.frames.try_send(frame(&reset));
        }
    }
}
