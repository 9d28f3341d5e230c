//! The callback door as its callers reach it: the ticket in an external question's link, the
//! door's path, and the tokenless posts a provider or the confirm page makes to it.

use reqwest::{Method, Response, StatusCode};
use serde_json::Value;

use super::{TestServer, reply};

const DOOR: &str = "/api/interactions/callback/";

/// The ticket in an external question's `link` (everything after the door's path).
pub fn ticket_of(link: &str) -> String {
    let at = link.find(DOOR).expect("callback url in link");
    link[at + DOOR.len()..].to_owned()
}

/// The path of the callback door of the external question `ia`.
pub fn door_of(ia: &Value) -> String {
    format!("{DOOR}{}", ticket_of(ia["link"].as_str().unwrap()))
}

/// `POST path` with no token and `body` as JSON, the way a provider answers: the status and
/// the reply.
pub async fn post_json(server: &TestServer, path: &str, body: &Value) -> (StatusCode, Value) {
    reply(server.request(Method::POST, path, None).json(body)).await
}

/// `POST path` with no token and `form` as a urlencoded body, the way the door's page posts.
pub async fn post_form(server: &TestServer, path: &str, form: &'static str) -> Response {
    server
        .request(Method::POST, path, None)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form)
        .send()
        .await
        .unwrap()
}

/// `GET path` with no token.
pub async fn get(server: &TestServer, path: &str) -> Response {
    server
        .request(Method::GET, path, None)
        .send()
        .await
        .unwrap()
}
