//! One SSE connection: what it sends, and how it reports frames, `retry:` and silence (a
//! refused token against the real server is in tests/engine/tests/stream.rs).

use std::time::Duration;

use inbox_client::stream::{RawEvent, SseConnection, StreamEnd, StreamSignal};
use inbox_client::{ApiClient, Token};
use inbox_test_net::read_head;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

/// A one-shot SSE server: answers one request with `body`, then either closes or goes silent.
/// Returns its URL and the request head it received.
async fn sse_once(
    body: &'static str,
    then_silent: bool,
) -> (String, tokio::task::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut head = Vec::new();
        read_head(&mut socket, &mut head)
            .await
            .expect("the whole request head");
        socket
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n")
            .await
            .unwrap();
        socket.write_all(body.as_bytes()).await.unwrap();
        socket.flush().await.unwrap();
        if then_silent {
            tokio::time::sleep(Duration::from_secs(30)).await;
        }
        String::from_utf8(head).unwrap().to_ascii_lowercase()
    });
    (url, task)
}

#[tokio::test]
async fn frames_retry_hints_and_the_request_headers() {
    let body = ": keepalive\n\nretry: 5000\nid: 42\nevent: removed\ndata: {\"id\":\"ia_1\",\"reason\":\"expired\"}\n\n";
    let (url, server) = sse_once(body, false).await;
    let api = ApiClient::new(&url, Token::new("s3cret")).unwrap();
    let mut connection = SseConnection::open(&api, Some("41"), Duration::from_secs(5)).unwrap();
    let mut signals = Vec::new();
    loop {
        let signal = connection.next().await;
        let closed = matches!(signal, StreamSignal::Closed(_));
        signals.push(signal);
        if closed {
            break;
        }
    }
    assert_eq!(
        signals,
        vec![
            StreamSignal::Opened,
            StreamSignal::RetryHint(Duration::from_secs(5)),
            StreamSignal::Event(RawEvent {
                id: Some("42".into()),
                name: "removed".into(),
                data: r#"{"id":"ia_1","reason":"expired"}"#.into(),
            }),
            StreamSignal::Closed(StreamEnd::Ended),
        ]
    );
    let head = server.await.unwrap();
    assert!(head.starts_with("get /api/interactions/stream "), "{head}");
    assert!(head.contains("authorization: bearer s3cret\r\n"), "{head}");
    assert!(head.contains("last-event-id: 41\r\n"), "{head}");
    assert!(head.contains("accept: text/event-stream\r\n"), "{head}");
}

#[tokio::test]
async fn a_silent_connection_ends_after_the_keepalive_timeout() {
    let (url, _server) = sse_once(": hello\n\n", true).await;
    let api = ApiClient::new(&url, Token::new("t")).unwrap();
    let mut connection = SseConnection::open(&api, None, Duration::from_millis(400)).unwrap();
    assert_eq!(connection.next().await, StreamSignal::Opened);
    let started = tokio::time::Instant::now();
    assert_eq!(
        connection.next().await,
        StreamSignal::Closed(StreamEnd::Silent)
    );
    assert!(started.elapsed() >= Duration::from_millis(400));
}
