//! Connection bounds on a real server: half-sent heads and bodies are dropped within their
//! timeouts while `/healthz` keeps answering, the connection cap queues what is beyond it, and
//! an idle timeout never cuts an open stream.

mod common;

use std::time::{Duration, Instant};

use common::{Sse, TestServer, raw};
use reqwest::StatusCode;
use tokio::io::AsyncWriteExt;

const TIMEOUT: Duration = Duration::from_millis(800);

async fn tight_server(max_connections: usize) -> (TestServer, tempfile::TempDir) {
    common::start_with(|c| {
        c.connections.header_read_timeout = TIMEOUT;
        c.body_read_timeout = TIMEOUT;
        c.connections.idle_timeout = TIMEOUT;
        c.connections.max_connections = max_connections;
    })
    .await
}

/// `/healthz` answers within 100 ms.
async fn assert_healthy(server: &TestServer) {
    let started = Instant::now();
    let (status, _) = server.get_json("/healthz", None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        started.elapsed() < Duration::from_millis(100),
        "healthz took {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn half_sent_heads_are_dropped_while_health_keeps_answering() {
    let (server, _dir) = tight_server(512).await;
    let head = format!(
        "GET /api/interactions HTTP/1.1\r\nHost: {}\r\nX-Slow: ",
        raw::host(&server)
    );
    let mut slow = Vec::new();
    for _ in 0..20 {
        slow.push(raw::send(&server, head.as_bytes()).await);
    }
    let started = Instant::now();
    // Trickle one more byte into each head now and then: a slowloris keeps the head growing.
    for _ in 0..3 {
        assert_healthy(&server).await;
        for conn in &mut slow {
            let _ = conn.write_all(b"x").await;
        }
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
    for conn in &mut slow {
        let closed = raw::read_until_closed(conn, TIMEOUT * 3)
            .await
            .expect("a half-sent head is dropped");
        // Dropped, not answered: the head never completed.
        assert!(
            closed.is_empty() || closed.starts_with(b"HTTP/1.1 408"),
            "{closed:?}"
        );
    }
    let took = started.elapsed();
    assert!(
        took >= TIMEOUT - Duration::from_millis(200),
        "dropped too early: {took:?}"
    );
    assert!(took < TIMEOUT * 3, "dropped after {took:?}");
    assert_healthy(&server).await;
    server.shutdown().await;
}

#[tokio::test]
async fn a_body_that_never_finishes_is_refused_within_the_body_timeout() {
    let (server, _dir) = tight_server(512).await;
    let head = format!(
        "POST /api/interactions HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{{\"prompt\": \"",
        raw::host(&server),
        common::ASKER
    );
    let started = Instant::now();
    let mut stalled = raw::send(&server, head.as_bytes()).await;
    let mut trickle = raw::send(&server, head.as_bytes()).await;
    // One connection stalls; the other keeps sending a byte every 100 ms (the gaps are short,
    // but the whole body would take minutes): both are over the deadline for the whole body.
    let trickling = async {
        for _ in 0..30 {
            if trickle.write_all(b"y").await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        trickle
    };
    let waiting = async {
        let head = raw::read_head(&mut stalled, TIMEOUT * 3).await;
        (head, started.elapsed())
    };
    let (mut trickle, (head, took)) = tokio::join!(trickling, waiting);
    let head = head.expect("a response before the body finished");
    assert_eq!(raw::status_of(&head), 408, "{head}");
    assert!(
        took >= TIMEOUT - Duration::from_millis(100) && took < TIMEOUT * 3,
        "{took:?}"
    );
    let answered = raw::read_until_closed(&mut trickle, TIMEOUT * 2)
        .await
        .expect("the trickling connection is closed");
    assert!(
        answered.starts_with(b"HTTP/1.1 408"),
        "{:?}",
        String::from_utf8_lossy(&answered)
    );
    assert!(
        String::from_utf8_lossy(&answered).contains("request_timeout"),
        "in the error shape"
    );
    server
        .assert_nothing_stored("the bodies that never finished")
        .await;
    assert_healthy(&server).await;
    server.shutdown().await;
}

#[tokio::test]
async fn connections_beyond_the_cap_wait_for_a_free_slot() {
    let (server, _dir) = tight_server(3).await;
    // Three silent connections take every slot...
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(raw::send(&server, b"").await);
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    // ...so a fourth is not served until the idle timeout frees one.
    let started = Instant::now();
    let (status, _) = server.get_json("/healthz", None).await;
    let waited = started.elapsed();
    assert_eq!(status, StatusCode::OK);
    assert!(
        waited >= TIMEOUT - Duration::from_millis(300),
        "served at once ({waited:?}): the cap did not hold"
    );
    assert!(waited < TIMEOUT * 3, "waited {waited:?}");
    for conn in &mut held {
        assert!(
            raw::read_until_closed(conn, TIMEOUT * 2).await.is_some(),
            "idle connections are closed"
        );
    }
    assert_healthy(&server).await;
    server.shutdown().await;
}

#[tokio::test]
async fn an_open_stream_outlives_the_idle_timeout() {
    let (server, _dir) = common::start_with(|c| {
        c.connections.header_read_timeout = TIMEOUT;
        c.connections.idle_timeout = TIMEOUT;
        // Keepalives far apart: the stream sends nothing for longer than the idle timeout.
        c.keepalive = Duration::from_secs(30);
    })
    .await;
    let mut stream = Sse::connect(&server, None).await;
    tokio::time::sleep(TIMEOUT * 3).await;
    let id = server.ask_confirm("still there?").await;
    let frame = stream.expect_frame().await;
    assert_eq!(frame.event, "add");
    assert_eq!(frame.data["id"], id);
    // A long-poll holds its connection past the idle timeout too.
    let started = Instant::now();
    let (status, _) = server
        .get_json(
            &format!("/api/interactions/{id}/wait?timeout_s=2"),
            Some(common::ASKER),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert!(started.elapsed() >= Duration::from_secs(2));
    server.shutdown().await;
}

/// A stream subscriber whose client stops reading holds no queue on the server (the stream
/// takes the next frame off the shared bus only when the socket can take it), so it is the
/// listener's send timeout that ends it: once the socket has refused every byte for
/// `send_timeout`, the connection is closed. A subscriber that keeps reading is not touched.
#[tokio::test]
async fn a_subscriber_that_stops_reading_is_closed_after_the_send_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let server = common::start_in(dir.path(), |c| c.connections.send_timeout = TIMEOUT).await;
    // A small receive window, so the server's writes back up after a few frames.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut silent = socket.connect(server.server.addr).await.unwrap();
    let head = format!(
        "GET /api/interactions/stream HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\n\r\n",
        raw::host(&server),
        common::REVIEWER
    );
    silent.write_all(head.as_bytes()).await.unwrap();
    let status = raw::read_head(&mut silent, TIMEOUT * 3)
        .await
        .expect("the stream's head");
    assert_eq!(raw::status_of(&status), 200, "{status}");
    let mut reading = Sse::connect(&server, None).await;

    // Far more than the silent client's socket buffers hold, while it reads nothing.
    const ASKS: usize = 600;
    let prompt = "x".repeat(7_900);
    for _ in 0..ASKS {
        server
            .ask(serde_json::json!({"prompt": prompt, "answer_format": "confirm"}))
            .await;
    }
    for i in 0..ASKS {
        let frame = reading.expect_frame().await;
        assert_eq!(frame.event, "add", "frame {i} of the reading subscriber");
    }
    // Still silent, well past the send timeout: the server gave up on it. What its socket
    // already held still drains, and then the connection ends — an open stream would go on
    // sending (and never end) once the client reads again.
    tokio::time::sleep(TIMEOUT * 4).await;
    let drained = raw::read_until_closed(&mut silent, TIMEOUT * 6)
        .await
        .expect("the silent subscriber's connection was closed");
    assert!(
        drained.len() < ASKS * prompt.len(),
        "it was closed before everything was sent to it ({} bytes)",
        drained.len()
    );
    // The subscriber that kept reading is still served.
    server.ask_confirm("after").await;
    assert_eq!(reading.expect_frame().await.event, "add");
    assert_healthy(&server).await;
    server.shutdown().await;
}
