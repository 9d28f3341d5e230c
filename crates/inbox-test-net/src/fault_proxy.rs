//! A TCP proxy that misbehaves on command: cut every open connection, refuse (new ones closed at
//! once, open ones cut), stall (hold connections, pass nothing) or throttle. It spreads new
//! connections over its upstreams in turn, as a load balancer in front of workers would.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// How long the proxy waits for one upstream to take a connection before it tries the next.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Pass bytes both ways.
    Forward,
    /// The link is down: a new connection is accepted and closed at once, like a server that is
    /// not there, and every open one is cut.
    Refuse,
    /// Keep connections open and pass nothing either way, like a dead link nobody noticed.
    Stall,
    /// Pass at most this many bytes a second each way.
    Throttle(u32),
}

struct Shared {
    upstreams: Vec<SocketAddr>,
    next: AtomicUsize,
    mode: watch::Sender<Mode>,
    cuts: watch::Sender<u64>,
    accepted: AtomicU64,
}

pub struct Proxy {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl Proxy {
    /// A proxy on a free loopback port in front of `upstreams` (one or more), forwarding.
    pub async fn start(upstreams: Vec<SocketAddr>) -> io::Result<Proxy> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            upstreams,
            next: AtomicUsize::new(0),
            mode: watch::channel(Mode::Forward).0,
            cuts: watch::channel(0).0,
            accepted: AtomicU64::new(0),
        });
        let task = tokio::spawn({
            let shared = shared.clone();
            async move {
                while let Ok((client, _)) = listener.accept().await {
                    shared.accepted.fetch_add(1, Ordering::SeqCst);
                    tokio::spawn(relay(client, shared.clone()));
                }
            }
        });
        Ok(Proxy { addr, shared, task })
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn set_mode(&self, mode: Mode) {
        self.shared.mode.send_replace(mode);
    }

    /// Drop every connection open right now.
    pub fn cut_all(&self) {
        self.shared.cuts.send_modify(|n| *n += 1);
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> u64 {
        self.shared.accepted.load(Ordering::SeqCst)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
        self.cut_all();
    }
}

/// The first upstream that takes the connection, starting from the next in turn.
async fn connect(shared: &Shared) -> Option<TcpStream> {
    let count = shared.upstreams.len();
    let start = shared.next.fetch_add(1, Ordering::Relaxed);
    for i in 0..count {
        let addr = shared.upstreams[(start + i) % count];
        if let Ok(Ok(conn)) = tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(addr)).await
        {
            return Some(conn);
        }
    }
    None
}

async fn relay(client: TcpStream, shared: Arc<Shared>) {
    // Both watched before the mode is first read, so a refusal or a cut made after that read
    // still ends this connection.
    let mut cuts = shared.cuts.subscribe();
    let mut modes = shared.mode.subscribe();
    cuts.mark_unchanged();
    if *modes.borrow_and_update() == Mode::Refuse {
        return;
    }
    let Some(upstream) = connect(&shared).await else {
        return;
    };
    let (client_read, client_write) = client.into_split();
    let (up_read, up_write) = upstream.into_split();
    let up = pump(client_read, up_write, shared.mode.subscribe());
    let down = pump(up_read, client_write, shared.mode.subscribe());
    tokio::select! {
        _ = up => {}
        _ = down => {}
        _ = cuts.changed() => {}
        _ = modes.wait_for(|mode| *mode == Mode::Refuse) => {}
    }
}

/// One direction of a connection, as the mode says.
async fn pump(mut from: OwnedReadHalf, mut to: OwnedWriteHalf, mut mode: watch::Receiver<Mode>) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let mut sent = 0;
        while sent < n {
            let current = *mode.borrow_and_update();
            match current {
                Mode::Stall => {
                    if mode.changed().await.is_err() {
                        return;
                    }
                    continue;
                }
                Mode::Throttle(per_second) => {
                    let step = (per_second as usize / 10).clamp(1, n - sent);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    if to.write_all(&buf[sent..sent + step]).await.is_err() {
                        return;
                    }
                    sent += step;
                }
                // `relay` is cutting the connection.
                Mode::Refuse => return,
                Mode::Forward => {
                    if to.write_all(&buf[sent..n]).await.is_err() {
                        return;
                    }
                    sent = n;
                }
            }
        }
    }
}
