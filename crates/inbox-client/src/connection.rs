//! A stream subscription that survives drops: it reconnects with backoff (full jitter, the
//! server's `retry:` honoured) and resumes after the last id it saw with `Last-Event-ID`.
//! A `401` ends it — a refused token is not retried.
//!
//! This is the plain tail (`inbox tail`, scripts). The inbox engine drives its stream itself,
//! because the sync state machine decides when the stream may open and what to refetch.

use std::time::Duration;

use crate::api::ApiClient;
use crate::backoff::{Backoff, BackoffPolicy};
use crate::stream::{RawEvent, SseConnection, StreamEnd, StreamSignal};

/// The state of the link, for a status line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkState {
    /// A request is being made (resuming after `last_event_id` when set).
    Connecting { last_event_id: Option<String> },
    /// The stream is open.
    Online,
    /// The connection ended; the next try is in `retry_in`.
    Reconnecting {
        reason: StreamEnd,
        retry_in: Duration,
        attempt: u32,
    },
    /// The token was refused; the subscription is over.
    SignedOut,
}

/// What a subscription yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Update {
    Link(LinkState),
    Event(RawEvent),
}

/// A resuming subscription to the stream.
pub struct Subscription {
    api: ApiClient,
    last_event_id: Option<String>,
    keepalive_timeout: Duration,
    backoff: Backoff,
    connection: Option<SseConnection>,
    /// Wait this long before the next connect.
    pending_delay: Option<Duration>,
    signed_out: bool,
}

impl Subscription {
    pub fn new(
        api: ApiClient,
        last_event_id: Option<String>,
        policy: BackoffPolicy,
        keepalive_timeout: Duration,
    ) -> Subscription {
        Subscription {
            api,
            last_event_id,
            keepalive_timeout,
            backoff: Backoff::new(policy),
            connection: None,
            pending_delay: None,
            signed_out: false,
        }
    }

    /// The id a reconnect would resume after.
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// The next update; `None` once signed out.
    pub async fn next(&mut self) -> Option<Update> {
        loop {
            if self.signed_out {
                return None;
            }
            let Some(connection) = self.connection.as_mut() else {
                if let Some(delay) = self.pending_delay.take() {
                    tokio::time::sleep(delay).await;
                }
                match SseConnection::open(
                    &self.api,
                    self.last_event_id.as_deref(),
                    self.keepalive_timeout,
                ) {
                    Ok(c) => self.connection = Some(c),
                    // A URL or token that cannot form a request will not improve by retrying.
                    Err(e) => {
                        self.signed_out = true;
                        tracing::error!(error = %e, "cannot build the stream request");
                        return Some(Update::Link(LinkState::SignedOut));
                    }
                }
                return Some(Update::Link(LinkState::Connecting {
                    last_event_id: self.last_event_id.clone(),
                }));
            };
            match connection.next().await {
                StreamSignal::Opened => {
                    self.backoff.reset();
                    return Some(Update::Link(LinkState::Online));
                }
                StreamSignal::Event(event) => {
                    if event.id.is_some() {
                        self.last_event_id.clone_from(&event.id);
                    }
                    return Some(Update::Event(event));
                }
                StreamSignal::RetryHint(retry) => self.backoff.honour_server_retry(retry),
                StreamSignal::Closed(reason) => {
                    self.connection = None;
                    if reason.is_unauthorized() {
                        self.signed_out = true;
                        return Some(Update::Link(LinkState::SignedOut));
                    }
                    let retry_in = self.backoff.next_delay_with(&mut rand::rng());
                    self.pending_delay = Some(retry_in);
                    return Some(Update::Link(LinkState::Reconnecting {
                        reason,
                        retry_in,
                        attempt: self.backoff.attempt(),
                    }));
                }
            }
        }
    }
}
