//! The accept loop: a connection cap, per-connection header and idle timeouts, and a graceful
//! shutdown. `axum::serve` has none of the first three, so one half-sent request per socket
//! could hold the server's connections (and memory) forever.
//!
//! - **Cap**: at most `max_connections` connections are served at once. The loop accepts only
//!   while it holds a free slot, so connections beyond the cap wait in the kernel's listen
//!   backlog (none is dropped by the server) and are served as slots free.
//! - **Header read timeout**: once the first byte of a request arrives, its whole head must
//!   arrive within `header_read_timeout`, or the connection is closed (slowloris).
//! - **Idle timeout**: a connection with no request in flight and no byte received for
//!   `idle_timeout` is closed. A request is in flight until its response body has been sent
//!   or dropped, so an open SSE stream or a long-poll is never idle, whatever its keepalive.
//! - **Send timeout**: a connection whose socket has refused every byte for `send_timeout`
//!   (its client stopped reading while a response waits to go out) is closed. This is what ends
//!   an SSE stream whose client went silent: the stream holds no queue of its own (`stream.rs`).
//! - The body read timeout lives with the body readers (`body.rs`): it bounds reading the
//!   whole body, not the gaps between its bytes.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, HttpBody};
use axum::http::Request;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, oneshot};
use tokio::time::Instant;
use tower::ServiceExt;

/// How connections are bounded. See the module docs for what each one means.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    pub header_read_timeout: Duration,
    pub idle_timeout: Duration,
    pub send_timeout: Duration,
    pub max_connections: usize,
}

/// Serve `router` on `listener` until `stop` fires, then stop accepting and wait for the
/// open connections to finish their requests (the caller bounds that wait).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    stop: oneshot::Receiver<()>,
) -> io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    let builder = auto::Builder::new(TokioExecutor::new());
    tokio::pin!(stop);
    loop {
        let slot = tokio::select! {
            _ = &mut stop => break,
            slot = slots.clone().acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => break, // the semaphore is never closed
            },
        };
        let (tcp, _peer) = tokio::select! {
            _ = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors and the like: wait a little rather than spin.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let _ = tcp.set_nodelay(true);
        let activity = Arc::new(Activity::new());
        let io = TokioIo::new(Watched {
            io: tcp,
            activity: activity.clone(),
            write_blocked: false,
        });
        let service = hyper::service::service_fn({
            let router = router.clone();
            let activity = activity.clone();
            move |req: Request<Incoming>| {
                let in_flight = InFlight::begin(activity.clone());
                let router = router.clone();
                async move {
                    let response = router.oneshot(req.map(Body::new)).await;
                    response.map(|r| {
                        r.map(|body| {
                            Body::new(Tracked {
                                body,
                                _in_flight: in_flight,
                            })
                        })
                    })
                }
            }
        });
        let conn = builder
            .serve_connection_with_upgrades(io, service)
            .into_owned();
        let watched = graceful.watcher().watch(conn);
        // The watchdog ticks in a task of its own and sends its verdict once. Raced in the
        // connection's task, each tick would wake that task and poll the whole connection
        // (hyper, the response body, a stream's feed) once a second per connection: at 10,000
        // streams, 10,000 full polls a second, as many as one event's whole fan-out
        // (docs/benchmarks.md).
        let (verdict_tx, verdict) = oneshot::channel();
        let watchdog = tokio::spawn(async move {
            let _ = verdict_tx.send(activity.expired(limits).await);
        });
        tokio::spawn(async move {
            tokio::select! {
                ended = watched => {
                    if let Err(e) = ended {
                        tracing::debug!(error = %e, "connection ended with an error");
                    }
                }
                Ok(reason) = verdict => {
                    // Nothing is in flight, or the client stopped taking what is: dropping
                    // the connection loses no response anyone would read.
                    tracing::debug!(reason, "connection closed");
                }
            }
            watchdog.abort();
            drop(slot);
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// What the watchdog of one connection needs to know.
struct Activity {
    state: Mutex<ActivityState>,
}

struct ActivityState {
    /// Requests whose response body is still being sent.
    in_flight: usize,
    /// When the first byte of a request head arrived, while no request was in flight.
    head_started: Option<Instant>,
    /// When the connection last became idle (opened, or its last response finished).
    idle_since: Instant,
    /// Since when the socket has taken no byte of what is waiting to be written.
    write_blocked_since: Option<Instant>,
}

impl Activity {
    fn new() -> Activity {
        Activity {
            state: Mutex::new(ActivityState {
                in_flight: 0,
                head_started: None,
                idle_since: Instant::now(),
                write_blocked_since: None,
            }),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut ActivityState) -> T) -> T {
        f(&mut self.state.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn received_bytes(&self) {
        self.with(|s| {
            if s.in_flight == 0 && s.head_started.is_none() {
                s.head_started = Some(Instant::now());
            }
        });
    }

    /// Resolves when the connection should be closed, naming why.
    async fn expired(&self, limits: ConnectionLimits) -> &'static str {
        let tick = (limits
            .header_read_timeout
            .min(limits.idle_timeout)
            .min(limits.send_timeout)
            / 4)
        .clamp(Duration::from_millis(20), Duration::from_secs(1));
        loop {
            tokio::time::sleep(tick).await;
            let verdict = self.with(|s| {
                if s.write_blocked_since
                    .is_some_and(|at| at.elapsed() >= limits.send_timeout)
                {
                    return Some("client stopped reading");
                }
                if s.in_flight > 0 {
                    return None;
                }
                match s.head_started {
                    Some(at) if at.elapsed() >= limits.header_read_timeout => {
                        Some("request head not received in time")
                    }
                    Some(_) => None,
                    None if s.idle_since.elapsed() >= limits.idle_timeout => Some("idle"),
                    None => None,
                }
            });
            if let Some(reason) = verdict {
                return reason;
            }
        }
    }
}

/// Counts one request as in flight from its head to the end of its response body.
struct InFlight {
    activity: Arc<Activity>,
}

impl InFlight {
    fn begin(activity: Arc<Activity>) -> InFlight {
        activity.with(|s| {
            s.in_flight += 1;
            s.head_started = None;
        });
        InFlight { activity }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.activity.with(|s| {
            s.in_flight = s.in_flight.saturating_sub(1);
            s.idle_since = Instant::now();
        });
    }
}

/// A response body that keeps its request in flight until it is finished or dropped.
struct Tracked {
    body: Body,
    /// Held only for its `Drop`.
    _in_flight: InFlight,
}

impl HttpBody for Tracked {
    type Data = <Body as HttpBody>::Data;
    type Error = <Body as HttpBody>::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// The socket, reporting received bytes and refused writes to the watchdog.
struct Watched {
    io: TcpStream,
    activity: Arc<Activity>,
    /// Whether the last write was refused (`Pending`): the watchdog is told only when this
    /// changes, not on every write.
    write_blocked: bool,
}

impl Watched {
    fn note_write<T>(&mut self, polled: &Poll<io::Result<T>>) {
        let blocked = polled.is_pending();
        if blocked != self.write_blocked {
            self.write_blocked = blocked;
            let since = blocked.then(Instant::now);
            self.activity.with(|s| s.write_blocked_since = since);
        }
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.io).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.received_bytes();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write(cx, buf);
        self.note_write(&polled);
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.note_write(&polled);
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}
