//! Raw TCP clients for the tests that must control exactly which bytes reach the server and
//! when (half-sent heads, bodies that never finish, foreign `Host` headers).

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::TestServer;

/// A connection to the server with `head` already written (nothing else).
pub async fn send(server: &TestServer, head: &[u8]) -> TcpStream {
    let mut conn = TcpStream::connect(server.server.addr).await.unwrap();
    conn.write_all(head).await.unwrap();
    conn
}

/// `Host: <the server's own address>`.
pub fn host(server: &TestServer) -> String {
    server.server.addr.to_string()
}

/// Everything the server sends until it closes the connection, or `None` if it is still open
/// after `within`.
pub async fn read_until_closed(conn: &mut TcpStream, within: Duration) -> Option<Vec<u8>> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, conn.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some(got),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
}

/// The response head the server sent within `within` (up to the blank line), as text.
pub async fn read_head(conn: &mut TcpStream, within: Duration) -> Option<String> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") {
            return Some(String::from_utf8_lossy(&got[..end]).into_owned());
        }
        match tokio::time::timeout_at(deadline, conn.read(&mut buf)).await {
            Err(_) | Ok(Ok(0)) | Ok(Err(_)) => return None,
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
}

/// The status code of a response head (`HTTP/1.1 404 Not Found` → 404).
pub fn status_of(head: &str) -> u16 {
    head.split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}
