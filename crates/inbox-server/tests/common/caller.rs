//! One caller — a token on one server — so that a test reads as the requests it makes: the
//! method, the path and the body, without the request plumbing around each. Also the reading
//! of a reply that may not be JSON (a stream held open, a page).

use reqwest::{Method, Response, StatusCode};
use serde_json::Value;

use super::{TestServer, call};

/// `token` talking to `server`; every call returns the status and the body (`null` when it
/// is not JSON), as [`call`] does. A copy is cheap, so calls take it by value and their
/// futures borrow only the server.
#[derive(Clone, Copy)]
pub struct Caller<'a> {
    pub server: &'a TestServer,
    pub token: &'a str,
}

impl TestServer {
    /// This server, called with `token`.
    pub fn as_caller<'a>(&'a self, token: &'a str) -> Caller<'a> {
        Caller {
            server: self,
            token,
        }
    }
}

impl Caller<'_> {
    async fn send(
        self,
        method: Method,
        path: &str,
        body: Option<Value>,
        key: Option<&str>,
    ) -> (StatusCode, Value) {
        call(self.server, method, path, self.token, body, key).await
    }

    pub async fn get(self, path: &str) -> (StatusCode, Value) {
        self.send(Method::GET, path, None, None).await
    }

    /// `POST path` without a body (the doors that mark or claim).
    pub async fn post_empty(self, path: &str) -> (StatusCode, Value) {
        self.send(Method::POST, path, None, None).await
    }

    pub async fn post(self, path: &str, body: Value) -> (StatusCode, Value) {
        self.send(Method::POST, path, Some(body), None).await
    }

    /// `POST path` with `body` and `key` as its `Idempotency-Key`.
    pub async fn post_keyed(self, path: &str, body: Value, key: &str) -> (StatusCode, Value) {
        self.send(Method::POST, path, Some(body), Some(key)).await
    }
}

/// The status, and the body when the reply says it is JSON (`null` otherwise, unread: an
/// accepted stream stays open, so its head is the verdict).
pub async fn json_reply(resp: Response) -> (StatusCode, Value) {
    let status = resp.status();
    let is_json = resp
        .headers()
        .get("content-type")
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !is_json {
        return (status, Value::Null);
    }
    (status, resp.json().await.unwrap_or(Value::Null))
}
