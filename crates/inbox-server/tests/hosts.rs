//! The `Host` allow-list: a request naming a foreign host (what a DNS-rebinding page sends) is
//! refused on every door before the door runs; the server's own names are served.

mod common;

use common::{ASKER, REVIEWER, TestServer};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// The status of the reviewer's `GET /api/interactions` sent with `Host: host`.
async fn list_with_host(server: &TestServer, host: &str) -> StatusCode {
    server
        .request(Method::GET, "/api/interactions", Some(REVIEWER))
        .header("host", host)
        .send()
        .await
        .unwrap()
        .status()
}

#[tokio::test]
async fn a_foreign_host_is_refused_on_every_door_and_the_own_host_is_served() {
    let (server, _dir) = common::start_with(|c| {
        c.allowed_hosts = vec!["inbox.internal".into()];
    })
    .await;
    let id = server.ask_confirm("rebinding probe").await;
    let port = server.server.addr.port();
    let doors: Vec<(Method, String, Option<&str>)> = vec![
        (Method::GET, "/api/interactions".into(), Some(REVIEWER)),
        (
            Method::GET,
            "/api/interactions/stream".into(),
            Some(REVIEWER),
        ),
        (
            Method::GET,
            format!("/api/interactions/{id}"),
            Some(REVIEWER),
        ),
        (
            Method::POST,
            format!("/api/interactions/{id}/answer"),
            Some(REVIEWER),
        ),
        (
            Method::POST,
            format!("/api/interactions/{id}/decline"),
            Some(REVIEWER),
        ),
        (Method::POST, "/api/interactions".into(), Some(ASKER)),
        (
            Method::GET,
            format!("/api/interactions/{id}/wait?timeout_s=0"),
            Some(ASKER),
        ),
        (
            Method::DELETE,
            format!("/api/interactions/{id}"),
            Some(ASKER),
        ),
        (Method::GET, "/api/interactions/media/md_x".into(), None),
        (Method::GET, "/api/interactions/callback/cb_x".into(), None),
        (Method::POST, "/api/interactions/callback/cb_x".into(), None),
        (Method::GET, "/api/nowhere".into(), None),
    ];
    for foreign in [
        format!("rebind.evil.example:{port}"),
        format!("localhost.evil.example:{port}"),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
        "localhost".to_owned(),
    ] {
        for (method, path, token) in &doors {
            let resp = server
                .request(method.clone(), path, *token)
                .header("host", &foreign)
                .json(&json!({"answer": true}))
                .send()
                .await
                .unwrap();
            assert_eq!(
                resp.status(),
                StatusCode::MISDIRECTED_REQUEST,
                "{method} {path} Host: {foreign}"
            );
            let body: Value = resp.json().await.unwrap();
            assert_eq!(body["error"]["code"], "host_not_allowed", "{body}");
            assert_eq!(body["error"]["field"], "Host");
            assert!(
                !body.to_string().contains("evil"),
                "the refused name is not reflected: {body}"
            );
        }
        // The health doors are exempt (load balancers probe them by address; they tell nothing).
        for path in ["/healthz", "/readyz"] {
            let resp = server
                .request(Method::GET, path, None)
                .header("host", &foreign)
                .send()
                .await
                .unwrap();
            assert_eq!(resp.status(), StatusCode::OK, "{path}");
        }
    }
    // Nothing a refused request carried reached the store: the question is still pending.
    let (_, read) = server.read(&id).await;
    assert_eq!(read["status"], "pending");

    // The server's own names are served.
    for own in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("LOCALHOST.:{port}"),
        format!("[::1]:{port}"),
        "inbox.internal".to_owned(),
        format!("inbox.internal:{port}"),
    ] {
        assert_eq!(
            list_with_host(&server, &own).await,
            StatusCode::OK,
            "Host: {own}"
        );
    }
    server.shutdown().await;
}

#[tokio::test]
async fn the_public_urls_host_is_served() {
    let (server, _dir) = common::start_with(|c| {
        c.public_url = Some("https://inbox.example.org".into());
    })
    .await;
    for (host, want) in [
        ("inbox.example.org", StatusCode::OK),
        ("inbox.example.org:443", StatusCode::OK),
        ("inbox.example.org:8443", StatusCode::MISDIRECTED_REQUEST),
        ("other.example.org", StatusCode::MISDIRECTED_REQUEST),
    ] {
        assert_eq!(list_with_host(&server, host).await, want, "Host: {host}");
    }
    server.shutdown().await;
}

#[tokio::test]
async fn a_request_without_a_host_is_refused() {
    let (server, _dir) = common::start().await;
    // HTTP/1.0 lets a client leave Host out; nothing then says which site it meant.
    let mut conn = common::raw::send(
        &server,
        b"GET /api/interactions/callback/cb_x HTTP/1.0\r\n\r\n",
    )
    .await;
    let head = common::raw::read_head(&mut conn, std::time::Duration::from_secs(2))
        .await
        .expect("a response");
    assert_eq!(common::raw::status_of(&head), 421, "{head}");
    server.shutdown().await;
}
