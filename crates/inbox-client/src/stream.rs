//! One connection to the SSE stream (`GET /api/interactions/stream`).
//!
//! Built on `eventsource-client` with its own reconnect switched off: one [`SseConnection`] is
//! one HTTP request, and it ends at the first failure. Reconnecting — with our backoff, the
//! server's `retry:` and `Last-Event-ID` — is the caller's job ([`crate::connection`] for a plain
//! tail, [`crate::engine`] for the inbox), so there is exactly one retry policy in play.
//!
//! A connection that goes quiet is treated as dead: the server sends a keepalive comment at
//! least every 15 s, so after `keepalive_timeout` (45 s by default) of silence the connection
//! ends with [`StreamEnd::Silent`] instead of hanging on a half-open socket forever. The sync
//! engine times that silence in its machine instead ([`inbox_sync::Session`]): it reads with
//! [`SseConnection::next_untimed`], which also reports each keepalive.

use std::collections::VecDeque;
use std::time::Duration;

use eventsource_client as es;
use futures::StreamExt;
use inbox_protocol::{StreamEvent, paths};
use launchdarkly_sdk_transport::HyperTransport;

use crate::api::ApiClient;
use crate::error::ClientError;
use crate::transport::Route;

/// How long a connection may stay silent before it counts as dead (three keepalive periods).
pub const DEFAULT_KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(45);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// One frame as it came off the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawEvent {
    /// The SSE `id:` (the events-stream cursor).
    pub id: Option<String>,
    /// The SSE `event:` name.
    pub name: String,
    /// The SSE `data:` text.
    pub data: String,
}

impl RawEvent {
    /// The contract's event, if this frame is one.
    pub fn parse(&self) -> Result<StreamEvent, serde_json::Error> {
        StreamEvent::from_sse(&self.name, &self.data)
    }
}

/// What a connection reports, in order: `Opened`, then frames and hints, then one `Closed`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamSignal {
    /// The server accepted the request; frames follow.
    Opened,
    Event(RawEvent),
    /// The server's `retry:` field: how long it would like reconnects to wait.
    RetryHint(Duration),
    /// The connection is over; nothing follows.
    Closed(StreamEnd),
}

/// Why a connection ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamEnd {
    /// `401`: the token was refused. Retrying cannot help until it changes.
    Unauthorized,
    /// Any other non-2xx answer.
    Refused { status: u16 },
    /// Nothing arrived, not even a keepalive, for the keepalive timeout.
    Silent,
    /// The server closed the response.
    Ended,
    /// The connection could not be made or broke.
    Transport(String),
}

impl StreamEnd {
    pub fn is_unauthorized(&self) -> bool {
        matches!(self, StreamEnd::Unauthorized)
    }
}

impl std::fmt::Display for StreamEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamEnd::Unauthorized => f.write_str("the server refused the token (401)"),
            StreamEnd::Refused { status } => write!(f, "the server answered {status}"),
            StreamEnd::Silent => f.write_str("no keepalive arrived in time"),
            StreamEnd::Ended => f.write_str("the server closed the stream"),
            StreamEnd::Transport(e) => write!(f, "connection failed: {e}"),
        }
    }
}

/// One SSE request in progress.
pub struct SseConnection {
    frames: es::BoxStream<es::Result<es::SSE>>,
    keepalive_timeout: Duration,
    queued: VecDeque<StreamSignal>,
    closed: bool,
}

impl SseConnection {
    /// Start a stream request as `api`'s principal, resuming after `last_event_id` when given.
    /// Nothing is sent until the first [`SseConnection::next`].
    pub fn open(
        api: &ApiClient,
        last_event_id: Option<&str>,
        keepalive_timeout: Duration,
    ) -> Result<SseConnection, ClientError> {
        let url = api
            .base_url()
            .join(paths::STREAM)
            .map_err(|e| ClientError::InvalidUrl {
                url: api.base_url().to_string(),
                reason: e.to_string(),
            })?;
        let invalid = |reason: String| ClientError::InvalidUrl {
            url: url.to_string(),
            reason,
        };
        let mut builder = es::ClientBuilder::for_url(url.as_str())
            .map_err(|e| invalid(e.to_string()))?
            // The token goes into this header and nowhere else; the library logs responses only.
            .header("Authorization", &format!("Bearer {}", api.token().expose()))
            .map_err(|_| invalid("the token is not a valid header value".into()))?
            // Our own loop reconnects (full jitter, `Last-Event-ID`, 401 handling).
            .reconnect(
                es::ReconnectOptions::reconnect(false)
                    .retry_initial(false)
                    .build(),
            )
            .redirect_limit(0);
        if let Some(id) = last_event_id.filter(|id| !id.is_empty()) {
            builder = builder.last_event_id(id.to_owned());
        }
        let mut transport = HyperTransport::builder().connect_timeout(CONNECT_TIMEOUT);
        // The route the API client decided (never a proxy to a server on this machine); the
        // transport's own reading of the environment is switched off either way.
        transport = match api.route() {
            Route::Direct => transport.disable_proxy(),
            Route::Proxy(proxy) => transport.proxy_url(proxy.to_string()),
        };
        let frames = if url.scheme() == "https" {
            let transport = transport
                .build_https()
                .map_err(|e| invalid(format!("TLS setup failed: {e}")))?;
            es::Client::stream(&builder.build_with_transport(transport))
        } else {
            let transport = transport
                .build_http()
                .map_err(|e| invalid(format!("HTTP setup failed: {e}")))?;
            es::Client::stream(&builder.build_with_transport(transport))
        };
        Ok(SseConnection {
            frames,
            keepalive_timeout,
            queued: VecDeque::new(),
            closed: false,
        })
    }

    /// The next signal; silence past the keepalive timeout ends the connection
    /// ([`StreamEnd::Silent`]). After `Closed` it keeps answering `Closed(Ended)`.
    pub async fn next(&mut self) -> StreamSignal {
        loop {
            if let Some(signal) = self.read(Some(self.keepalive_timeout)).await {
                return signal;
            }
        }
    }

    /// The next signal, or `None` for a keepalive (proof of life), waiting as long as it
    /// takes: for a caller that times the silence itself.
    pub async fn next_untimed(&mut self) -> Option<StreamSignal> {
        self.read(None).await
    }

    /// `silence`: end the connection after this long without a frame; `None` never times
    /// out. A keepalive is `None`.
    async fn read(&mut self, silence: Option<Duration>) -> Option<StreamSignal> {
        loop {
            if let Some(signal) = self.queued.pop_front() {
                return Some(signal);
            }
            if self.closed {
                return Some(StreamSignal::Closed(StreamEnd::Ended));
            }
            let frame = match silence {
                Some(limit) => tokio::time::timeout(limit, self.frames.next()).await,
                None => Ok(self.frames.next().await),
            };
            let end = match frame {
                Err(_) => StreamEnd::Silent,
                Ok(None) => StreamEnd::Ended,
                Ok(Some(Ok(es::SSE::Connected(_)))) => return Some(StreamSignal::Opened),
                // A keepalive: proof of life, and nothing else.
                Ok(Some(Ok(es::SSE::Comment(_)))) => return None,
                Ok(Some(Ok(es::SSE::Event(ev)))) => {
                    if let Some(ms) = ev.retry {
                        self.queued
                            .push_back(StreamSignal::RetryHint(Duration::from_millis(ms)));
                    }
                    self.queued.push_back(StreamSignal::Event(RawEvent {
                        id: ev.id.filter(|id| !id.is_empty()),
                        name: ev.event_type,
                        data: ev.data,
                    }));
                    continue;
                }
                Ok(Some(Err(e))) => classify(e),
            };
            self.closed = true;
            return Some(StreamSignal::Closed(end));
        }
    }
}

fn classify(error: es::Error) -> StreamEnd {
    match error {
        es::Error::UnexpectedResponse(response, _) if response.status() == 401 => {
            StreamEnd::Unauthorized
        }
        es::Error::UnexpectedResponse(response, _) => StreamEnd::Refused {
            status: response.status(),
        },
        es::Error::Eof | es::Error::UnexpectedEof => StreamEnd::Ended,
        other => StreamEnd::Transport(other.to_string()),
    }
}
