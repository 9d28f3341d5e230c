//! Which doors are public is configuration (`ServerConfig::public_doors`, `--public-doors`):
//! one server per setting, each door checked with no token, a wrong one, and real ones.

mod common;

use common::{ASKER, REVIEWER, TestServer};
use inbox_server::PublicDoors;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// A 1x1 transparent PNG.
const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/// What each door-that-may-be-public is reached at on one server: a stored image, a live
/// callback ticket (with the POST that answers it), and the health doors.
struct Doors {
    media: String,
    callback: String,
}

impl Doors {
    /// Every door that may be public: the image, the ticket and both health doors.
    fn every(&self) -> [&str; 4] {
        [&self.media, &self.callback, "/healthz", "/readyz"]
    }
}

async fn server_with(setting: &str) -> (TestServer, tempfile::TempDir, Doors) {
    let doors: PublicDoors = setting.parse().unwrap();
    let (server, dir) = common::start_with(move |c| c.public_doors = doors).await;
    let image = server
        .ask(
            json!({"prompt": "this chart?", "answer_format": "confirm", "media": [
            {"kind": "image", "url": format!("data:image/png;base64,{PNG}")}]}),
        )
        .await;
    let external = server
        .ask(json!({"prompt": "sign", "answer_format": "external",
                    "link": "https://sign.example.com/?cb={callback_url}"}))
        .await;
    let doors = Doors {
        media: image["media"][0]["url"].as_str().unwrap().to_owned(),
        callback: common::callback::door_of(&external),
    };
    (server, dir, doors)
}

/// The status of `GET path` with `token`, and for a refusal its error code.
async fn get(server: &TestServer, path: &str, token: Option<&str>) -> (StatusCode, Option<String>) {
    let resp = server
        .request(Method::GET, path, token)
        .send()
        .await
        .unwrap();
    let status = resp.status();
    let code = if status.is_success() {
        None
    } else {
        let body: Value = resp.json().await.unwrap();
        body["error"]["code"].as_str().map(str::to_owned)
    };
    (status, code)
}

async fn assert_public(server: &TestServer, path: &str) {
    assert_eq!(
        get(server, path, None).await.0,
        StatusCode::OK,
        "{path} is public"
    );
}

async fn assert_private(server: &TestServer, path: &str) {
    let unauthorized = (StatusCode::UNAUTHORIZED, Some("unauthorized".to_owned()));
    assert_eq!(
        get(server, path, None).await,
        unauthorized,
        "{path} without a token"
    );
    assert_eq!(
        get(server, path, Some("not-a-token")).await,
        unauthorized,
        "{path} with an unknown token"
    );
    // Any role's token opens it: a reviewer's window and an asker's tool both get through.
    for token in [REVIEWER, ASKER] {
        assert_eq!(
            get(server, path, Some(token)).await.0,
            StatusCode::OK,
            "{path} with a token"
        );
    }
}

async fn answer_callback(server: &TestServer, door: &str, token: Option<&str>) -> StatusCode {
    let req = server.request(Method::POST, door, token);
    common::reply(req.json(&json!({"signed": true}))).await.0
}

#[tokio::test]
async fn by_default_media_callback_and_health_are_public() {
    let (server, _dir, doors) = server_with("media,callback,health").await;
    assert_eq!(server.server.addr.ip().to_string(), "127.0.0.1");
    for path in doors.every() {
        assert_public(&server, path).await;
    }
    assert_eq!(
        answer_callback(&server, &doors.callback, None).await,
        StatusCode::OK
    );
    // The doors that take a role still do.
    assert_eq!(
        get(&server, "/api/interactions", None).await.0,
        StatusCode::UNAUTHORIZED
    );
    server.shutdown().await;
    // And `ServerConfig::new` starts from the same list.
    let config = inbox_server::ServerConfig::new("127.0.0.1:0".parse().unwrap(), "/x".into());
    assert_eq!(config.public_doors, PublicDoors::default());
    assert_eq!(config.public_doors.to_string(), "media,callback,health");
}

#[tokio::test]
async fn the_media_door_made_private_needs_a_token() {
    let (server, _dir, doors) = server_with("callback,health").await;
    assert_private(&server, &doors.media).await;
    // An unknown id with a token is the door's own 404, not an auth refusal.
    assert_eq!(
        get(&server, "/api/interactions/media/md_nope", Some(REVIEWER))
            .await
            .0,
        StatusCode::NOT_FOUND
    );
    assert_public(&server, &doors.callback).await;
    assert_public(&server, "/healthz").await;
    server.shutdown().await;
}

#[tokio::test]
async fn the_callback_door_made_private_needs_a_token() {
    let (server, _dir, doors) = server_with("media,health").await;
    assert_private(&server, &doors.callback).await;
    // The refusal comes before the ticket is looked at: an unknown ticket is 401 too.
    assert_eq!(
        get(&server, "/api/interactions/callback/cb_unknown", None)
            .await
            .0,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        answer_callback(&server, &doors.callback, None).await,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        answer_callback(&server, &doors.callback, Some(ASKER)).await,
        StatusCode::OK
    );
    assert_public(&server, &doors.media).await;
    server.shutdown().await;
}

#[tokio::test]
async fn the_health_doors_made_private_need_a_token() {
    let (server, _dir, doors) = server_with("media,callback").await;
    assert_private(&server, "/healthz").await;
    assert_private(&server, "/readyz").await;
    assert_public(&server, &doors.media).await;
    server.shutdown().await;
}

#[tokio::test]
async fn with_no_public_doors_every_door_needs_a_token() {
    let (server, _dir, doors) = server_with("none").await;
    for path in doors.every() {
        assert_private(&server, path).await;
    }
    server.shutdown().await;
}
