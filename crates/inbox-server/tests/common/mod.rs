//! What the HTTP tests share: a real server on 127.0.0.1:0 with known tokens, request helpers,
//! and a small SSE reader that parses frames straight off the response body.

#![allow(dead_code)] // each test binary uses its own share of these helpers

pub mod callback;
pub mod caller;
pub mod park;
pub mod raw;

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use inbox_server::{RedisConfig, RunningServer, ServerConfig, TokenSpec};
use reqwest::{Method, RequestBuilder, StatusCode};
use serde_json::{Value, json};

pub const REVIEWER: &str = "reviewer-secret-0123456789";
pub const ASKER: &str = "asker-secret-0123456789";
pub const OTHER_ASKER: &str = "other-asker-secret-0123456789";
pub const ADMIN: &str = "admin-secret-0123456789";

pub fn tokens() -> Vec<TokenSpec> {
    [
        format!("alice:reviewer:{REVIEWER}"),
        format!("deploy-bot:asker:{ASKER}"),
        format!("other-bot:asker:{OTHER_ASKER}"),
        format!("root:admin:{ADMIN}"),
    ]
    .iter()
    .map(|s| s.parse().unwrap())
    .collect()
}

pub struct TestServer {
    pub server: RunningServer,
    pub base: String,
    pub http: reqwest::Client,
}

/// A server on `dir` with the test tokens, a fast sweeper and a short keepalive; `tweak`
/// adjusts the config further.
pub async fn start_in(dir: &Path, tweak: impl FnOnce(&mut ServerConfig)) -> TestServer {
    let bind: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let mut config = ServerConfig::new(bind, dir.to_owned());
    config.tokens = tokens();
    config.sweep_interval = Duration::from_millis(100);
    config.keepalive = Duration::from_secs(1);
    tweak(&mut config);
    let server = inbox_server::start(config).await.expect("server starts");
    let base = server.base_url.clone();
    TestServer {
        server,
        base,
        http: reqwest::Client::new(),
    }
}

/// `start_in` on Redis at `url` under the key `prefix` when `redis` is given, else on SQLite
/// in `dir`: one home for the backend choice of the suites that run on both.
pub async fn start_on(
    dir: &Path,
    redis: &Option<(String, String)>,
    tweak: impl FnOnce(&mut ServerConfig),
) -> TestServer {
    let redis = redis.clone();
    start_in(dir, move |c| {
        tweak(c);
        if let Some((url, prefix)) = redis {
            c.redis = Some(RedisConfig {
                url: url.into(),
                prefix,
            });
        }
    })
    .await
}

/// `start_in` on a fresh data dir, which lives as long as the returned guard.
pub async fn start_with(tweak: impl FnOnce(&mut ServerConfig)) -> (TestServer, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let server = start_in(dir.path(), tweak).await;
    (server, dir)
}

pub async fn start() -> (TestServer, tempfile::TempDir) {
    start_with(|_| {}).await
}

/// `start`, with the reviewer's stream already open: the set-up of every test that listens
/// from the first event on.
pub async fn start_listening() -> (TestServer, tempfile::TempDir, Sse) {
    let (server, dir) = start().await;
    let stream = Sse::connect(&server, None).await;
    (server, dir, stream)
}

/// Sends `req`: the status and the body (`null` when it is not JSON).
pub async fn reply(req: RequestBuilder) -> (StatusCode, Value) {
    let resp = req.send().await.unwrap();
    let status = resp.status();
    (status, resp.json().await.unwrap_or(Value::Null))
}

/// Sends `req` and asserts the status is `want` (the body is shown when it is not); the body
/// as text.
pub async fn expect_text(req: RequestBuilder, want: StatusCode) -> String {
    let resp = req.send().await.unwrap();
    let status = resp.status();
    let text = resp.text().await.unwrap();
    assert_eq!(status, want, "{text}");
    text
}

/// Asserts that `got` (a status and a body) is the refusal `status` with the error `code`;
/// `case` names what was refused.
pub fn assert_refused(got: &(StatusCode, Value), status: StatusCode, code: &str, case: &str) {
    let (got_status, body) = got;
    assert_eq!(*got_status, status, "{case}: {body}");
    assert_eq!(body["error"]["code"], code, "{case}: {body}");
}

/// The ids of a page of interactions, in page order.
pub fn ids(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|ia| ia["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Any door as `token`: `body` as JSON and `key` as the `Idempotency-Key` when given; the
/// status and the body (`null` when it is not JSON).
pub async fn call(
    server: &TestServer,
    method: Method,
    path: &str,
    token: &str,
    body: Option<Value>,
    key: Option<&str>,
) -> (StatusCode, Value) {
    let mut req = server.request(method, path, Some(token));
    if let Some(body) = body {
        req = req.json(&body);
    }
    if let Some(key) = key {
        req = req.header("Idempotency-Key", key);
    }
    reply(req).await
}

impl TestServer {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn request(&self, method: Method, path: &str, token: Option<&str>) -> RequestBuilder {
        let req = self.http.request(method, self.url(path));
        match token {
            Some(t) => req.bearer_auth(t),
            None => req,
        }
    }

    /// `POST /api/interactions` as the asker; asserts `201` and returns the interaction.
    pub async fn ask(&self, body: Value) -> Value {
        let (status, created) = self.try_ask(ASKER, body).await;
        assert_eq!(status, StatusCode::CREATED, "ask refused: {created}");
        created
    }

    /// `POST /api/interactions` as `token`, whatever the outcome: the status and the body.
    pub async fn try_ask(&self, token: &str, body: Value) -> (StatusCode, Value) {
        call(
            self,
            Method::POST,
            "/api/interactions",
            token,
            Some(body),
            None,
        )
        .await
    }

    pub async fn ask_confirm(&self, prompt: &str) -> String {
        let ia = self
            .ask(json!({"prompt": prompt, "answer_format": "confirm"}))
            .await;
        ia["id"].as_str().unwrap().to_owned()
    }

    /// Answer as the reviewer; returns the status and the body.
    pub async fn answer(&self, id: &str, answer: Value, key: Option<&str>) -> (StatusCode, Value) {
        let path = format!("/api/interactions/{id}/answer");
        let body = json!({ "answer": answer });
        call(self, Method::POST, &path, REVIEWER, Some(body), key).await
    }

    /// Decline as the reviewer (`body` carries the optional reason); the status and the body.
    pub async fn decline(&self, id: &str, body: Value, key: Option<&str>) -> (StatusCode, Value) {
        let path = format!("/api/interactions/{id}/decline");
        call(self, Method::POST, &path, REVIEWER, Some(body), key).await
    }

    /// Withdraw as `token`; the status and the body.
    pub async fn withdraw(&self, id: &str, token: &str) -> (StatusCode, Value) {
        let path = format!("/api/interactions/{id}");
        call(self, Method::DELETE, &path, token, None, None).await
    }

    /// One interaction as the reviewer reads it: the status and the body.
    pub async fn read(&self, id: &str) -> (StatusCode, Value) {
        self.get_json(&format!("/api/interactions/{id}"), Some(REVIEWER))
            .await
    }

    /// `GET /api/interactions?{query}` as the reviewer; asserts `200` and returns the page.
    pub async fn page(&self, query: &str) -> Value {
        let (status, page) = self
            .get_json(&format!("/api/interactions?{query}"), Some(REVIEWER))
            .await;
        assert_eq!(status, StatusCode::OK, "{page}");
        page
    }

    /// Asserts what a refusal leaves: no interaction stored and no event written. `case` names
    /// what was refused.
    pub async fn assert_nothing_stored(&self, case: &str) {
        let all = self.page("status=all").await;
        assert_eq!(all["items"], json!([]), "{case}: nothing was stored");
        assert_eq!(all["stream_cursor"], "0", "{case}: no event was written");
    }

    pub async fn get_json(&self, path: &str, token: Option<&str>) -> (StatusCode, Value) {
        reply(self.request(Method::GET, path, token)).await
    }

    /// Stops the server; a shutdown still running after 20 s (the server's own grace is 10 s)
    /// fails the test instead of hanging it.
    pub async fn shutdown(self) {
        tokio::time::timeout(Duration::from_secs(20), self.server.shutdown())
            .await
            .expect("the server shut down within 20 s");
    }

    /// Returns once `n` long-polls are listening on this server for their resolution: the
    /// readiness a test needs before it resolves a question "while the wait is waiting".
    pub async fn until_long_polls_waiting(&self, n: usize) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while self.server.long_polls_waiting() < n {
            assert!(
                tokio::time::Instant::now() < deadline,
                "{n} long-poll(s) never started waiting (now {})",
                self.server.long_polls_waiting()
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

/// One SSE block: an event frame, or a comment (keepalive).
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Frame(Frame),
    Comment(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub id: Option<String>,
    pub event: String,
    pub data: Value,
}

impl Frame {
    pub fn seq(&self) -> u64 {
        self.id.as_deref().unwrap().parse().unwrap()
    }
}

pub struct Sse {
    response: reqwest::Response,
    buffer: String,
}

impl Sse {
    /// Open the stream as the reviewer, optionally resuming with a `Last-Event-ID` header.
    pub async fn connect(server: &TestServer, last_event_id: Option<&str>) -> Sse {
        let mut req = server.request(Method::GET, "/api/interactions/stream", Some(REVIEWER));
        if let Some(id) = last_event_id {
            req = req.header("Last-Event-ID", id);
        }
        Sse::open(req).await
    }

    pub async fn open(req: RequestBuilder) -> Sse {
        let response = req.send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let content_type = response.headers()["content-type"].to_str().unwrap();
        assert!(
            content_type.starts_with("text/event-stream"),
            "{content_type}"
        );
        Sse {
            response,
            buffer: String::new(),
        }
    }

    /// The next block within `within`, or `None`.
    pub async fn next_block(&mut self, within: Duration) -> Option<Block> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                return Some(parse_block(&block));
            }
            let chunk = tokio::time::timeout_at(deadline, self.response.chunk())
                .await
                .ok()?
                .expect("stream read")?;
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }

    /// Whether the server ends the response within `within` (frames before the end are
    /// dropped). A timeout is `false`: "ended" and "still open" are told apart.
    pub async fn ends_within(&mut self, within: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            match tokio::time::timeout_at(deadline, self.response.chunk()).await {
                Err(_) => return false,
                Ok(Ok(None)) | Ok(Err(_)) => return true,
                Ok(Ok(Some(_))) => continue,
            }
        }
    }

    /// The next event frame within `within`, skipping keepalive comments.
    pub async fn next_frame(&mut self, within: Duration) -> Option<Frame> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.next_block(left).await? {
                Block::Frame(frame) => return Some(frame),
                Block::Comment(_) => continue,
            }
        }
    }

    /// The next frame, which must arrive within 5 s.
    pub async fn expect_frame(&mut self) -> Frame {
        self.next_frame(Duration::from_secs(5))
            .await
            .expect("a frame within 5 s")
    }

    /// Asserts that no event frame arrives within `within`.
    pub async fn expect_quiet(&mut self, within: Duration) {
        if let Some(frame) = self.next_frame(within).await {
            panic!("expected no frame, got {frame:?}");
        }
    }
}

fn parse_block(block: &str) -> Block {
    let (mut id, mut event, mut data, mut comment) = (None, None, Vec::new(), None);
    for line in block.lines() {
        if let Some(text) = line.strip_prefix(':') {
            comment = Some(text.trim().to_owned());
        } else if let Some(v) = line.strip_prefix("id:") {
            id = Some(v.trim_start().to_owned());
        } else if let Some(v) = line.strip_prefix("event:") {
            event = Some(v.trim_start().to_owned());
        } else if let Some(v) = line.strip_prefix("data:") {
            data.push(v.strip_prefix(' ').unwrap_or(v).to_owned());
        }
    }
    match event {
        Some(event) => Block::Frame(Frame {
            id,
            event,
            data: serde_json::from_str(&data.join("\n")).expect("frame data is JSON"),
        }),
        None => Block::Comment(comment.unwrap_or_default()),
    }
}
