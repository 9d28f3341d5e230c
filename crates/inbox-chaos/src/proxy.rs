//! A TCP proxy between clients and the server workers that misbehaves on command: cut every
//! open connection, refuse new ones, stall (hold connections, pass nothing) or throttle. It also
//! spreads new connections over the live workers, as a load balancer in front of them would.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Forward,
    /// Accept and close at once, like a server that is not there.
    Refuse,
    /// Pass nothing either way, like a dead link nobody noticed.
    Stall,
    /// Pass at most this many bytes a second each way.
    Throttle(u32),
}

struct Shared {
    upstreams: Mutex<Vec<SocketAddr>>,
    next: AtomicUsize,
    mode: watch::Sender<Mode>,
    cuts: watch::Sender<u64>,
}

pub struct Proxy {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl Proxy {
    pub async fn start(upstreams: Vec<SocketAddr>) -> anyhow::Result<Proxy> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            upstreams: Mutex::new(upstreams),
            next: AtomicUsize::new(0),
            mode: watch::channel(Mode::Forward).0,
            cuts: watch::channel(0).0,
        });
        let task = tokio::spawn({
            let shared = shared.clone();
            async move {
                while let Ok((client, _)) = listener.accept().await {
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
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
        self.cut_all();
    }
}

/// The first worker that takes the connection, starting from the next in turn.
async fn connect(shared: &Shared) -> Option<TcpStream> {
    let upstreams = shared.upstreams.lock().unwrap().clone();
    let start = shared.next.fetch_add(1, Ordering::Relaxed);
    for i in 0..upstreams.len() {
        let addr = upstreams[(start + i) % upstreams.len()];
        if let Ok(Ok(conn)) =
            tokio::time::timeout(Duration::from_secs(1), TcpStream::connect(addr)).await
        {
            return Some(conn);
        }
    }
    None
}

async fn relay(client: TcpStream, shared: Arc<Shared>) {
    if *shared.mode.borrow() == Mode::Refuse {
        return;
    }
    let mut cuts = shared.cuts.subscribe();
    cuts.mark_unchanged();
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
    }
}

async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut mode: watch::Receiver<Mode>,
) {
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
                Mode::Forward | Mode::Refuse => {
                    if to.write_all(&buf[sent..n]).await.is_err() {
                        return;
                    }
                    sent = n;
                }
            }
        }
    }
}
