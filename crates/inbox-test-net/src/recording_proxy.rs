//! An HTTP proxy that forwards nothing: it records the head of every request it receives and
//! answers 502. What it recorded is exactly what a proxy on the path would have seen.
//!
//! It serves on a thread and runtime of its own, so a plain `#[test]` that runs `inbox`
//! processes can use it as well as an async test.

use std::net::TcpListener;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use tokio::io::AsyncWriteExt;
use tokio::sync::oneshot;

const BAD_GATEWAY: &[u8] =
    b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";

pub struct RecordingProxy {
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    heads: Arc<Mutex<Vec<String>>>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl RecordingProxy {
    /// Listening on a free loopback port once this returns.
    pub fn start() -> RecordingProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
        listener
            .set_nonblocking(true)
            .expect("a non-blocking listener");
        let url = format!("http://{}", listener.local_addr().expect("its address"));
        let heads = Arc::new(Mutex::new(Vec::new()));
        let (stop, stopped) = oneshot::channel();
        let thread = std::thread::spawn({
            let heads = heads.clone();
            move || {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a runtime for the proxy")
                    .block_on(serve(listener, heads, stopped));
            }
        });
        RecordingProxy {
            url,
            heads,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// The request heads received so far, as sent.
    pub fn heads(&self) -> Vec<String> {
        self.heads
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Drop for RecordingProxy {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn serve(
    listener: TcpListener,
    heads: Arc<Mutex<Vec<String>>>,
    mut stopped: oneshot::Receiver<()>,
) {
    let listener = tokio::net::TcpListener::from_std(listener).expect("a tokio listener");
    loop {
        let mut socket = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((socket, _)) => socket,
                Err(_) => return,
            },
            _ = &mut stopped => return,
        };
        let heads = heads.clone();
        tokio::spawn(async move {
            let mut head = Vec::new();
            // A head cut short is recorded as far as it came: the proxy saw that much.
            let _ = crate::read_head(&mut socket, &mut head).await;
            heads
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(String::from_utf8_lossy(&head).into_owned());
            let _ = socket.write_all(BAD_GATEWAY).await;
        });
    }
}
