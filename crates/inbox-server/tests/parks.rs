//! The park doors over real HTTP on loopback: a park of three answered from the answer door,
//! the callback door and the expiry sweeper resumes once; claims; who may see a park; every
//! refusal a 400 naming the field with nothing stored.

mod common;

use std::time::Duration;

use chrono::Utc;
use common::callback::{door_of, post_json};
use common::{ADMIN, ASKER, OTHER_ASKER, REVIEWER, assert_refused};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

fn at(from_now: chrono::Duration) -> String {
    (Utc::now() + from_now).to_rfc3339()
}

fn confirm(expiry_at: &str) -> Value {
    json!({"prompt": "Ship it?", "answer_format": "confirm", "mode": "async", "expiry_at": expiry_at})
}

async fn post(
    server: &common::TestServer,
    path: &str,
    token: &str,
    body: Option<Value>,
    key: Option<&str>,
) -> (StatusCode, Value) {
    common::call(server, Method::POST, path, token, body, key).await
}

async fn create(server: &common::TestServer, body: Value) -> Value {
    let (status, body) = post(server, "/api/parks", ASKER, Some(body), None).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["park"].clone()
}

/// `GET /api/parks/{id}{rest}` as the park's asker: the status and the body.
async fn park_door(server: &common::TestServer, id: &str, rest: &str) -> (StatusCode, Value) {
    server
        .get_json(&format!("/api/parks/{id}{rest}"), Some(ASKER))
        .await
}

#[tokio::test]
async fn a_park_of_three_resumes_once_from_three_surfaces() {
    let (server, _dir) = common::start().await;
    let park = create(
        &server,
        json!({
            "asks": [
                confirm(&at(chrono::Duration::hours(1))),
                {"prompt": "Sign", "answer_format": "external", "mode": "async",
                 "expiry_at": at(chrono::Duration::hours(1)),
                 "link": "https://sign.example.com/doc?cb={callback_url}"},
                confirm(&at(chrono::Duration::seconds(2))),
            ],
            "metadata": {"run": "r-17"},
        }),
    )
    .await;
    let id = park["id"].as_str().unwrap().to_owned();
    assert_eq!(park["status"], "parked");
    assert_eq!(park["continuation"], json!({"kind": "claim"}));
    let ids: Vec<String> = park["interactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 3);
    for (n, ia) in ids.iter().enumerate() {
        let (_, read) = server.read(ia).await;
        assert_eq!(read["park_id"], id.as_str());
        // What a reviewer's window groups the park by, without reading the park itself.
        assert_eq!(read["park"], json!({"size": 3, "index": n, "run": "r-17"}));
    }

    // Nothing to take yet.
    let (status, body) = post(
        &server,
        &format!("/api/parks/{id}/claim"),
        ASKER,
        None,
        None,
    )
    .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::CONFLICT, Some("not_resolved"))
    );
    let (status, _) = park_door(&server, &id, "/wait?timeout_s=0").await;
    assert_eq!(status, StatusCode::ACCEPTED);

    // The answer door, then the callback door.
    let (status, _) = server.answer(&ids[0], json!(true), None).await;
    assert_eq!(status, StatusCode::OK);
    let (_, external) = server.read(&ids[1]).await;
    let (status, _) = post_json(&server, &door_of(&external), &json!({"signed": true})).await;
    assert_eq!(status, StatusCode::OK);
    let (_, partial) = park_door(&server, &id, "").await;
    assert_eq!(partial["park"]["status"], "parked");
    assert_eq!(partial["park"]["resolutions"].as_array().unwrap().len(), 2);

    // The sweeper expires the third; a waiting asker is woken by it.
    let (status, waited) = park_door(&server, &id, "/wait?timeout_s=10").await;
    assert_eq!(status, StatusCode::OK, "{waited}");
    let resolved = &waited["park"];
    assert_eq!(resolved["status"], "resolved");
    assert_eq!(
        resolved["resolutions"],
        json!([
            {"interaction_id": ids[0], "status": "answered", "value": true, "answered_by": "alice"},
            {"interaction_id": ids[1], "status": "answered", "value": {"signed": true}, "answered_by": "callback"},
            {"interaction_id": ids[2], "status": "expired", "expired": true},
        ])
    );

    // One claim wins; its key replays; any other is refused.
    let path = format!("/api/parks/{id}/claim");
    let (status, first) = post(&server, &path, ASKER, None, Some("k-1")).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(first["park"]["status"], "resumed");
    assert_eq!(first["park"]["resolutions"], resolved["resolutions"]);
    let (status, again) = post(&server, &path, ASKER, None, Some("k-1")).await;
    assert_eq!((status, &again), (StatusCode::OK, &first));
    let (status, other) = post(&server, &path, ASKER, None, Some("k-2")).await;
    assert_eq!(
        (status, other["error"]["code"].as_str()),
        (StatusCode::CONFLICT, Some("already_claimed"))
    );
    server.shutdown().await;
}

#[tokio::test]
async fn only_the_parks_asker_or_an_admin_reaches_it() {
    let (server, _dir) = common::start().await;
    let park = create(
        &server,
        json!({"asks": [confirm(&at(chrono::Duration::hours(1)))]}),
    )
    .await;
    let id = park["id"].as_str().unwrap();
    let unknown = server.get_json("/api/parks/pk_nope", Some(ASKER)).await;
    for path in [
        format!("/api/parks/{id}"),
        format!("/api/parks/{id}/wait?timeout_s=0"),
    ] {
        let (status, body) = server.get_json(&path, Some(OTHER_ASKER)).await;
        assert_eq!((status, &body), (unknown.0, &unknown.1), "{path}");
        assert_eq!(status, StatusCode::NOT_FOUND);
        let (status, _) = server.get_json(&path, Some(REVIEWER)).await;
        assert_eq!(status, StatusCode::FORBIDDEN);
        let (status, _) = server.get_json(&path, Some(ADMIN)).await;
        assert!(status.is_success(), "{path}: {status}");
    }
    let (status, body) = post(
        &server,
        &format!("/api/parks/{id}/claim"),
        OTHER_ASKER,
        None,
        None,
    )
    .await;
    assert_eq!((status, &body), (unknown.0, &unknown.1));
    server.shutdown().await;
}

#[tokio::test]
async fn an_async_ask_is_a_park_of_one() {
    let (server, _dir) = common::start().await;
    let ia = server.ask(confirm(&at(chrono::Duration::hours(1)))).await;
    let park_id = ia["park_id"]
        .as_str()
        .expect("an async ask carries park_id");
    let (status, park) = park_door(&server, park_id, "").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(park["park"]["interactions"], json!([ia["id"]]));
    assert_eq!(ia["park"], json!({"size": 1, "index": 0}));
    let sync = server
        .ask(json!({"prompt": "now?", "answer_format": "confirm"}))
        .await;
    assert!(sync.get("park_id").is_none(), "{sync}");
    let (status, _) = server
        .answer(ia["id"].as_str().unwrap(), json!(false), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, done) = park_door(&server, park_id, "/wait?timeout_s=5").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(done["park"]["resolutions"][0]["value"], json!(false));

    // Beyond the horizon, on the ask door too.
    let refused = server
        .try_ask(ASKER, confirm(&at(chrono::Duration::days(31))))
        .await;
    let case = "an async ask beyond the horizon";
    assert_refused(&refused, StatusCode::BAD_REQUEST, "beyond_retention", case);
    assert_eq!(refused.1["error"]["field"], "expiry_at");
    server.shutdown().await;
}

#[tokio::test]
async fn every_refusal_names_its_field_and_stores_nothing() {
    let (server, _dir) = common::start().await;
    let later = at(chrono::Duration::hours(1));
    let mut no_expiry = confirm(&later);
    no_expiry.as_object_mut().unwrap().remove("expiry_at");
    let sync = json!({"prompt": "now?", "answer_format": "confirm"});
    let too_many: Vec<Value> = (0..=inbox_protocol::caps::PARK_MAX_ASKS)
        .map(|_| confirm(&later))
        .collect();
    let far = at(chrono::Duration::days(45));
    let cases = [
        (
            json!({"asks": [confirm(&later), confirm(&later), no_expiry]}),
            "missing_field",
            "asks[2].expiry_at",
        ),
        (
            json!({"asks": [confirm(&later), sync]}),
            "invalid_field",
            "asks[1].mode",
        ),
        (json!({"asks": []}), "missing_field", "asks"),
        (json!({"asks": too_many}), "invalid_field", "asks"),
        (
            json!({"asks": [confirm(&later), confirm(&far)]}),
            "beyond_retention",
            "asks[1].expiry_at",
        ),
        (
            json!({"asks": [confirm(&later)], "continuation": {"kind": "webhook", "url": "http://hooks.example.org/r"}}),
            "invalid_field",
            "continuation.url",
        ),
        (
            json!({"asks": [confirm(&later)], "continuation": {"kind": "pigeon"}}),
            "malformed_json",
            "continuation.kind",
        ),
    ];
    for (body, code, field) in cases {
        let reply = post(&server, "/api/parks", ASKER, Some(body), None).await;
        assert_refused(&reply, StatusCode::BAD_REQUEST, code, field);
        let refused = &reply.1;
        assert_eq!(refused["error"]["field"], field, "{refused}");
        if code == "beyond_retention" {
            let message = refused["error"]["message"].as_str().unwrap();
            assert!(
                message.contains(&far[..16]) && message.contains("horizon"),
                "{message}"
            );
        }
    }
    server.assert_nothing_stored("every refused park").await;
    server.shutdown().await;
}

#[tokio::test]
async fn forever_retention_has_no_horizon() {
    let (server, _dir) = common::start_with(|c| c.park_retention = None).await;
    create(
        &server,
        json!({"asks": [confirm(&at(chrono::Duration::days(400)))]}),
    )
    .await;
    server.shutdown().await;
    let (server, _dir) =
        common::start_with(|c| c.park_retention = Some(Duration::from_secs(3600))).await;
    let (status, body) = post(
        &server,
        "/api/parks",
        ASKER,
        Some(json!({"asks": [confirm(&at(chrono::Duration::hours(2)))]})),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("1 hour from now"),
        "{body}"
    );
    server.shutdown().await;
}
