//! An HTTP proxy that forwards nothing: it records the head of every request it receives and
//! answers 502. What it recorded is exactly what a proxy on the path would have seen.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

pub struct RecordingProxy {
    pub url: String,
    heads: Arc<Mutex<Vec<String>>>,
    task: JoinHandle<()>,
}

impl RecordingProxy {
    pub async fn start() -> RecordingProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let heads = Arc::new(Mutex::new(Vec::new()));
        let task = tokio::spawn({
            let heads = heads.clone();
            async move {
                while let Ok((mut socket, _)) = listener.accept().await {
                    let heads = heads.clone();
                    tokio::spawn(async move {
                        let mut head = Vec::new();
                        let mut buf = [0u8; 4096];
                        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                            match socket.read(&mut buf).await {
                                Ok(0) | Err(_) => break,
                                Ok(n) => head.extend_from_slice(&buf[..n]),
                            }
                        }
                        heads
                            .lock()
                            .unwrap()
                            .push(String::from_utf8_lossy(&head).into_owned());
                        let _ = socket
                            .write_all(
                                b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                            )
                            .await;
                    });
                }
            }
        });
        RecordingProxy { url, heads, task }
    }

    /// The request heads received so far, as sent.
    pub fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }
}

impl Drop for RecordingProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}
