//! `GET /api/interactions/stream` — the tail-only SSE feed.
//!
//! A fresh connect sends only what happens from then on. A `Last-Event-ID` (or
//! `?last_event_id=`) resumes: every retained event after that id, then the live tail, with no
//! gap and no duplicate — the live subscription is opened before the backlog is read, and live
//! events are passed on only when they come after the last one sent. An id that cannot cover the
//! gap (malformed, aged out, or never issued) gets a `reset` event carrying the tail cursor,
//! then the tail; that fallback is logged. An absent id is a normal connect and is not logged.

use std::convert::Infallible;
use std::sync::Arc;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures::Stream;
use futures::StreamExt;
use inbox_protocol::{ResetEvent, ResetReason, StreamEvent};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use crate::auth::AsReviewer;
use crate::error::ApiError;
use crate::routes::QueryParams;
use crate::state::AppState;
use crate::store::{EventsAfter, Store, StoredEvent};

/// Frames buffered per connection before the sender waits on a slow client.
const FRAME_BUFFER: usize = 256;

pub async fn stream(
    State(state): State<AppState>,
    AsReviewer(_): AsReviewer,
    headers: HeaderMap,
    QueryParams(query): QueryParams,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let requested = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_owned())
        .or_else(|| query.get("last_event_id").cloned())
        // The SSE spec sends an empty id to mean "none".
        .filter(|id| !id.is_empty());

    let store = state.store().clone();
    let mut live = store.subscribe();
    let (backlog, last_sent) = match requested {
        None => (Vec::new(), store.tail_cursor().await?),
        Some(id) => match store.events_after(&id).await? {
            // Dedupe starts at the requested id: the backlog passes, the live copies of the
            // same events (published after we subscribed) do not.
            EventsAfter::Events(events) => (events, id),
            EventsAfter::Gap(reason) => reset_at_tail(store.as_ref(), reason).await?,
        },
    };

    let (frames, rx) = mpsc::channel(FRAME_BUFFER);
    let stopping = state.stopping();
    tokio::spawn(async move {
        let mut feed = Feed {
            store,
            frames,
            last_sent,
        };
        if !feed.send_all(backlog).await {
            return;
        }
        tokio::pin!(stopping);
        loop {
            let keep_going = tokio::select! {
                () = feed.frames.closed() => false,
                () = &mut stopping => false,
                received = live.recv() => match received {
                    Ok(event) => feed.send_all(vec![event]).await,
                    Err(RecvError::Lagged(_)) => feed.catch_up().await,
                    Err(RecvError::Closed) => false,
                },
            };
            if !keep_going {
                break;
            }
        }
    });

    let keepalive = KeepAlive::new()
        .interval(state.keepalive())
        .text("keepalive");
    Ok(Sse::new(ReceiverStream::new(rx).map(Ok)).keep_alive(keepalive))
}

/// The resume cannot be honoured: a `reset` frame at the tail cursor, logged.
async fn reset_at_tail(
    store: &dyn Store,
    reason: ResetReason,
) -> Result<(Vec<StoredEvent>, String), ApiError> {
    let tail = store.tail_cursor().await?;
    tracing::warn!(?reason, tail = %tail, "stream resume fell back to the tail");
    let reset = StoredEvent {
        cursor: tail.clone(),
        event: StreamEvent::Reset(ResetEvent { reason }),
    };
    Ok((vec![reset], tail))
}

/// One connection's sending side.
struct Feed {
    store: Arc<dyn Store>,
    frames: mpsc::Sender<Event>,
    /// The cursor of the last frame sent; nothing at or before it is sent again.
    last_sent: String,
}

impl Feed {
    /// Send the events that come after `last_sent`. `false` once the client is gone.
    async fn send_all(&mut self, events: Vec<StoredEvent>) -> bool {
        for stored in events {
            let is_reset = matches!(stored.event, StreamEvent::Reset(_));
            if !is_reset && !self.store.is_after(&stored.cursor, &self.last_sent) {
                continue;
            }
            let frame = Event::default()
                .id(stored.cursor.clone())
                .event(stored.event.name())
                .data(stored.event.data_json());
            if self.frames.send(frame).await.is_err() {
                return false;
            }
            self.last_sent = stored.cursor;
        }
        true
    }

    /// The live bus dropped events for this slow connection: read them from the store.
    async fn catch_up(&mut self) -> bool {
        let backlog = match self.store.events_after(&self.last_sent).await {
            Ok(EventsAfter::Events(events)) => events,
            Ok(EventsAfter::Gap(reason)) => {
                match reset_at_tail(self.store.as_ref(), reason).await {
                    Ok((reset, _)) => reset,
                    Err(_) => return false,
                }
            }
            Err(e) => {
                tracing::error!(error = %e, "stream could not catch up; closing it");
                return false;
            }
        };
        self.send_all(backlog).await
    }
}
