//! A small TCP proxy between the client and the server that can misbehave on command: drop
//! every open connection, refuse new ones, or go silent (hold connections open, pass nothing).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Pass bytes both ways.
    Forward,
    /// Accept and close at once, like a server that is not there.
    Refuse,
    /// Keep connections open and pass nothing, like a dead link nobody noticed.
    Stall,
}

struct Shared {
    upstream: SocketAddr,
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
    pub async fn start(upstream: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Shared {
            upstream,
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
        Proxy { addr, shared, task }
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

async fn relay(mut client: TcpStream, shared: Arc<Shared>) {
    let mut modes = shared.mode.subscribe();
    let mut cuts = shared.cuts.subscribe();
    cuts.borrow_and_update();
    if *modes.borrow_and_update() == Mode::Refuse {
        return;
    }
    let Ok(mut server) = TcpStream::connect(shared.upstream).await else {
        return;
    };
    loop {
        let mode = *modes.borrow_and_update();
        match mode {
            Mode::Refuse => return,
            Mode::Stall => {
                tokio::select! {
                    _ = cuts.changed() => return,
                    _ = modes.changed() => continue,
                }
            }
            Mode::Forward => {
                tokio::select! {
                    _ = tokio::io::copy_bidirectional(&mut client, &mut server) => return,
                    _ = cuts.changed() => return,
                    _ = modes.changed() => continue,
                }
            }
        }
    }
}
