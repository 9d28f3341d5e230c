//! The notification doors over HTTP against a real server: created at once, listed, read,
//! dismissed, submitted (validated like a form answer, 400 naming the field with nothing
//! stored), submissions read back by their asker only and heard by it on the stream. Run on
//! SQLite, and on two Redis workers (created on one, submitted on the other) when
//! `INBOX_TEST_REDIS_URL` is set.

mod common;
mod redis_env;

use std::time::{Duration, Instant};

use common::{ADMIN, ASKER, OTHER_ASKER, REVIEWER, Sse, TestServer};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

fn form() -> Value {
    json!({
        "prompt": "How did the deploy go?",
        "body": "Tell us whenever you like.",
        "schema": {"type": "object",
            "properties": {"rating": {"type": "integer", "minimum": 1, "maximum": 5},
                           "note": {"type": "string"}},
            "required": ["rating"]},
        "data": {"values": {"rating": 3}},
        "metadata": {"run": "r-17"}
    })
}

/// The whole story; `asking` is where the asker talks, `reviewing` where the reviewer does
/// (the same server on SQLite, two workers on Redis).
async fn the_notification_doors(asking: &TestServer, reviewing: &TestServer) {
    let asker = asking.as_caller(ASKER);
    let other_asker = asking.as_caller(OTHER_ASKER);
    let admin = asking.as_caller(ADMIN);
    let reviewer = reviewing.as_caller(REVIEWER);
    // The asker's stream: only its own submissions reach it.
    let mut asker_stream =
        Sse::open(asking.request(Method::GET, "/api/interactions/stream", Some(ASKER))).await;
    let mut reviewer_stream = Sse::connect(reviewing, None).await;

    let started = Instant::now();
    let (status, n) = asker.post("/api/notifications", form()).await;
    assert_eq!(status, StatusCode::CREATED, "{n}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "returns at once"
    );
    let id = n["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("nt_"));
    assert_eq!(n["asker"], "deploy-bot");
    assert_eq!(n["read_at"], Value::Null);
    assert_eq!(n["submissions"], 0);
    assert!(n.get("expires_at").is_none() && n.get("ticket").is_none());

    let added = reviewer_stream.expect_frame().await;
    assert_eq!(added.event, "notification_added");
    assert_eq!(added.data["id"], id.as_str());

    // Reviewers list and read; askers may not list.
    let (status, page) = reviewer.get("/api/notifications").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(page["items"][0]["id"], id.as_str());
    assert!(page["stream_cursor"].is_string());
    assert_eq!(
        asker.get("/api/notifications").await.0,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        reviewer.get("/api/notifications?limit=0").await.0,
        StatusCode::BAD_REQUEST
    );

    let read_path = format!("/api/notifications/{id}/read");
    let (status, read) = reviewer.post_empty(&read_path).await;
    assert_eq!(status, StatusCode::OK);
    assert!(read["read_at"].is_string());
    let updated = reviewer_stream.expect_frame().await;
    assert_eq!(updated.event, "notification_updated");
    assert_eq!(updated.data["read_at"], read["read_at"]);
    // An asker cannot mark or submit.
    assert_eq!(asker.post_empty(&read_path).await.0, StatusCode::FORBIDDEN);

    // A bad submission: 400 naming the field, nothing stored.
    let submit = format!("/api/notifications/{id}/submit");
    for (value, field) in [
        (json!({"rating": 9}), "rating"),
        (json!({"note": "no rating"}), "rating"),
        (json!("just text"), "value"),
    ] {
        let (status, err) = reviewer.post(&submit, json!({"value": value})).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{err}");
        assert_eq!(err["error"]["code"], "invalid_answer");
        assert_eq!(err["error"]["field"], field, "{err}");
    }
    let (status, err) = reviewer.post(&submit, json!({"answer": {}})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{err}");
    let submissions = format!("/api/notifications/{id}/submissions");
    let (_, none) = asker.get(&submissions).await;
    assert_eq!(none["items"], json!([]), "nothing stored");

    // A good one, with a key: 201, then the same again replays with 200.
    let good = json!({"value": {"rating": 4, "note": "smooth"}});
    let (status, first) = reviewer.post_keyed(&submit, good.clone(), "sub-1").await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    assert_eq!(first["ordinal"], 1);
    assert_eq!(first["submitted_by"], "alice");
    let (status, replay) = reviewer.post_keyed(&submit, good, "sub-1").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(replay, first);
    let other_value = json!({"value": {"rating": 1}});
    assert_eq!(
        reviewer.post_keyed(&submit, other_value, "sub-1").await.0,
        StatusCode::CONFLICT
    );

    // The asker hears it on its stream (and nothing else: no add, no update).
    let heard = asker_stream.expect_frame().await;
    assert_eq!(heard.event, "submitted");
    assert_eq!(heard.data, first);
    asker_stream.expect_quiet(Duration::from_millis(300)).await;

    // Its asker reads the submissions; another asker gets the uniform 404, as for the
    // notification itself.
    let (status, list) = asker.get(&submissions).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list["items"], json!([first]));
    assert_eq!(other_asker.get(&submissions).await.0, StatusCode::NOT_FOUND);
    let notification = format!("/api/notifications/{id}");
    assert_eq!(
        other_asker.get(&notification).await.0,
        StatusCode::NOT_FOUND
    );
    let (status, mine) = asker.get(&notification).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(mine["submissions"], 1);
    assert_eq!(
        admin
            .get("/api/notifications/nt_unknown/submissions")
            .await
            .0,
        StatusCode::NOT_FOUND
    );

    // Dismissed: out of the list, no more submissions, still readable by its asker.
    let dismiss = format!("/api/notifications/{id}/dismiss");
    let (status, dismissed) = reviewer.post_empty(&dismiss).await;
    assert_eq!(status, StatusCode::OK);
    assert!(dismissed["dismissed_at"].is_string());
    let (_, page) = reviewer.get("/api/notifications").await;
    assert!(
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["id"] != id.as_str())
    );
    let (status, _) = reviewer
        .post(&submit, json!({"value": {"rating": 2}}))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (_, list) = asker.get(&submissions).await;
    assert_eq!(list["items"].as_array().unwrap().len(), 1);

    // Without a schema there is no form to submit.
    let (_, plain) = asker
        .post("/api/notifications", json!({"prompt": "FYI: deployed"}))
        .await;
    let plain_submit = format!(
        "/api/notifications/{}/submit",
        plain["id"].as_str().unwrap()
    );
    let (status, err) = reviewer.post(&plain_submit, json!({"value": {}})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{err}");
    assert_eq!(err["error"]["code"], "no_form");
}

/// Bad notifications are refused naming the field, and nothing is stored or announced.
async fn bad_notifications_are_refused(server: &TestServer) {
    let asker = server.as_caller(ASKER);
    let reviewer = server.as_caller(REVIEWER);
    let mut stream = Sse::connect(server, None).await;
    let (_, before) = reviewer.get("/api/notifications").await;
    let huge = "x".repeat(inbox_protocol::caps::NOTIFICATION_BODY_MAX_CHARS + 1);
    for (body, field) in [
        (json!({"prompt": "  "}), "prompt"),
        (json!({"prompt": "hi", "body": huge}), "body"),
        (
            json!({"prompt": "hi", "data": {"values": {"a": 1}}}),
            "data",
        ),
        (
            json!({"prompt": "hi", "schema": {"type": "object", "properties": {"a": {"type": "integer"}}},
                "data": {"values": {"a": "not a number"}}}),
            "data.values.a",
        ),
        (json!({"prompt": "hi", "media": []}), "media"),
        (
            json!({"prompt": "hi", "media": [{"kind": "image", "url": "http://plain.example/a.png"}]}),
            "media[0].url",
        ),
    ] {
        let (status, err) = asker.post("/api/notifications", body.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body} → {err}");
        assert_eq!(err["error"]["field"], field, "{body} → {err}");
    }
    let unknown_field = json!({"prompt": "hi", "expiry_at": "2030-01-01T00:00:00Z"});
    let (status, _) = asker.post("/api/notifications", unknown_field).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "unknown fields are refused"
    );
    let (status, _) = reviewer
        .post("/api/notifications", json!({"prompt": "hi"}))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (_, page) = reviewer.get("/api/notifications").await;
    assert_eq!(page["items"], before["items"], "nothing stored");
    stream.expect_quiet(Duration::from_millis(300)).await;

    // The same key and body replay the one created; another body with it conflicts.
    let once = json!({"prompt": "once"});
    let (status, a) = asker
        .post_keyed("/api/notifications", once.clone(), "n-1")
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, b) = asker.post_keyed("/api/notifications", once, "n-1").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(a["id"], b["id"]);
    let (status, _) = asker
        .post_keyed("/api/notifications", json!({"prompt": "twice"}), "n-1")
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notification_doors_on_sqlite() {
    let (server, _dir) = common::start().await;
    the_notification_doors(&server, &server).await;
    bad_notifications_are_refused(&server).await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notification_doors_on_two_redis_workers() {
    let Some(space) = redis_env::url_and_prefix("notification_doors") else {
        return;
    };
    let (redis, dir) = (Some(space), tempfile::tempdir().unwrap());
    let mut workers = Vec::new();
    for _ in 0..2 {
        workers.push(common::start_on(dir.path(), &redis, |_| {}).await);
    }
    the_notification_doors(&workers[0], &workers[1]).await;
    bad_notifications_are_refused(&workers[1]).await;
    for w in workers {
        w.shutdown().await;
    }
}
