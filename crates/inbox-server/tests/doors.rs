//! The HTTP doors over real HTTP on 127.0.0.1:0: paging, answers, idempotency, wait, withdraw,
//! media, the callback door, and a refusal per door for every kind of bad input.

mod common;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use base64::Engine;
use common::callback::{door_of, post_form, post_json, ticket_of};
use common::{ADMIN, ASKER, OTHER_ASKER, REVIEWER, assert_refused, ids, start, start_with};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

#[tokio::test]
async fn paging_through_a_thousand_pending_asks_has_no_duplicates_or_gaps() {
    let (server, _dir) = start().await;
    let mut asked = Vec::new();
    for i in 0..1000 {
        asked.push(server.ask_confirm(&format!("question {i}")).await);
    }
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    let mut arrived = Vec::new();
    loop {
        let query = match &cursor {
            Some(c) => format!("status=pending&limit=100&cursor={c}"),
            None => "status=pending&limit=100".to_owned(),
        };
        let body = server.page(&query).await;
        assert!(
            body["stream_cursor"]
                .as_str()
                .unwrap()
                .parse::<u64>()
                .is_ok()
        );
        seen.extend(ids(&body));
        pages += 1;
        if pages == 3 {
            // New asks while paging land in front, never inside the pages still to come.
            // (From another asker: this one is at its pending limit.)
            for i in 0..5 {
                let late = json!({"prompt": format!("late {i}"), "answer_format": "confirm"});
                let (status, ia) = server.try_ask(OTHER_ASKER, late).await;
                assert_eq!(status, StatusCode::CREATED);
                arrived.push(ia["id"].as_str().unwrap().to_owned());
            }
        }
        match body["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    assert_eq!(pages, 10);
    let unique: HashSet<_> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "a page repeated an item");
    let newest_first: Vec<String> = asked.iter().rev().cloned().collect();
    assert_eq!(
        seen, newest_first,
        "pages must run newest first with no gap"
    );

    // A fresh first page shows the late arrivals on top; the default and the cap hold.
    let first = server.page("").await;
    assert_eq!(ids(&first).len(), 50);
    let late: Vec<String> = arrived.iter().rev().cloned().collect();
    assert_eq!(&ids(&first)[..5], &late[..]);
    assert_eq!(ids(&server.page("limit=100000").await).len(), 500);

    // The thousand are this asker's pending limit: one more is refused, nothing is stored.
    let one_more = json!({"prompt": "one too many", "answer_format": "confirm"});
    assert_refused(
        &server.try_ask(ASKER, one_more).await,
        StatusCode::TOO_MANY_REQUESTS,
        "too_many_pending",
        "one over the pending limit",
    );
    assert_eq!(ids(&server.page("limit=500").await).len(), 500);
    server.shutdown().await;
}

#[tokio::test]
async fn list_filters_by_status() {
    let (server, _dir) = start().await;
    let a = server.ask_confirm("a").await;
    let b = server.ask_confirm("b").await;
    assert_eq!(server.answer(&a, json!(true), None).await.0, StatusCode::OK);
    assert_eq!(ids(&server.page("status=pending").await), [b.as_str()]);
    assert_eq!(ids(&server.page("status=answered").await), [a.as_str()]);
    assert_eq!(ids(&server.page("status=all").await), [b, a]);
    assert!(ids(&server.page("status=declined").await).is_empty());
    server.shutdown().await;
}

#[tokio::test]
async fn two_concurrent_answers_have_one_winner() {
    let (server, _dir) = start().await;
    for round in 0..10 {
        let id = server.ask_confirm(&format!("race {round}")).await;
        let (yes, no) = tokio::join!(
            server.answer(&id, json!(true), None),
            server.answer(&id, json!(false), None)
        );
        let (winner, loser) = if yes.0 == StatusCode::OK {
            (yes, no)
        } else {
            (no, yes)
        };
        assert_eq!(winner.0, StatusCode::OK, "{}", winner.1);
        let case = format!("the loser of round {round}");
        assert_refused(&loser, StatusCode::CONFLICT, "already_answered", &case);
        let winning_value = &winner.1["interaction"]["answer"]["value"];
        assert_eq!(
            &loser.1["error"]["interaction"]["answer"]["value"],
            winning_value
        );
        assert_eq!(loser.1["error"]["interaction"]["status"], "answered");
    }
    server.shutdown().await;
}

#[tokio::test]
async fn the_same_idempotency_key_gets_the_same_200() {
    let (server, _dir) = start().await;
    let id = server.ask_confirm("deploy?").await;
    let send = |answer: Value| {
        server
            .request(
                Method::POST,
                &format!("/api/interactions/{id}/answer"),
                Some(REVIEWER),
            )
            .header("Idempotency-Key", "key-1")
            .json(&json!({ "answer": answer }))
            .send()
    };
    let first = send(json!(true)).await.unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    let first = first.bytes().await.unwrap();
    let again = send(json!(true)).await.unwrap();
    assert_eq!(again.status(), StatusCode::OK);
    assert_eq!(
        again.bytes().await.unwrap(),
        first,
        "a replay is byte-identical"
    );
    let body: Value = serde_json::from_slice(&first).unwrap();
    assert_eq!(body["status"], "answered");
    assert_eq!(body["interaction"]["answer"]["answered_by"], "alice");

    let other = send(json!(false)).await.unwrap();
    assert_eq!(other.status(), StatusCode::CONFLICT);
    let other: Value = other.json().await.unwrap();
    assert_eq!(other["error"]["code"], "idempotency_conflict");

    // A different key against the resolved question is the ordinary loser.
    assert_refused(
        &server.answer(&id, json!(true), Some("key-2")).await,
        StatusCode::CONFLICT,
        "already_answered",
        "a different key",
    );
    server.shutdown().await;
}

#[tokio::test]
async fn decline_records_the_reason_and_blocks_answers() {
    let (server, _dir) = start().await;
    let id = server.ask_confirm("drop the table?").await;
    let (status, body) = server
        .decline(&id, json!({"reason": "not today"}), Some("d-1"))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], "declined");
    assert_eq!(body["interaction"]["answer"]["reason"], "not today");
    assert_eq!(body["interaction"]["answer"]["value"], Value::Null);
    let (status, body) = server.answer(&id, json!(true), None).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"]["interaction"]["status"], "declined");
    server.shutdown().await;
}

#[tokio::test]
async fn answers_are_validated_against_the_format() {
    let (server, _dir) = start().await;
    let id = server
        .ask(json!({"prompt": "region?", "answer_format": "select",
                    "options": [{"value": "eu", "label": "Europe"}, {"value": "us"}]}))
        .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_refused(
        &server.answer(&id, json!("mars"), None).await,
        StatusCode::BAD_REQUEST,
        "invalid_answer",
        "an option not offered",
    );
    let (status, body) = server.answer(&id, json!("eu"), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["interaction"]["answer"]["value"], "eu");
    server.shutdown().await;
}

#[tokio::test]
async fn wait_returns_as_soon_as_the_question_is_answered() {
    let (server, _dir) = start().await;
    let id = server.ask_confirm("ship it?").await;
    let waiting = tokio::spawn(
        server
            .request(
                Method::GET,
                &format!("/api/interactions/{id}/wait?timeout_s=30"),
                Some(ASKER),
            )
            .send(),
    );
    // The answer lands while the wait is listening (observed, not guessed by a sleep)…
    server.until_long_polls_waiting(1).await;
    assert!(
        !waiting.is_finished(),
        "the wait returned before the answer"
    );
    let answered_at = Instant::now();
    let answered = server.answer(&id, json!(true), None).await;
    assert_eq!(answered.0, StatusCode::OK);
    // …and wakes it: long before its 30 s timeout.
    let waited = tokio::time::timeout(Duration::from_secs(5), waiting)
        .await
        .expect("wait did not wake on the answer")
        .unwrap()
        .unwrap();
    assert!(answered_at.elapsed() < Duration::from_secs(5));
    assert_eq!(waited.status(), StatusCode::OK);
    assert_eq!(server.server.long_polls_waiting(), 0);
    let body: Value = waited.json().await.unwrap();
    assert_eq!(body["status"], "answered");
    assert_eq!(body["answer"]["value"], true);

    // Already resolved: at once. Still pending: 202 after the timeout.
    let (status, _) = server
        .get_json(&format!("/api/interactions/{id}/wait"), Some(ASKER))
        .await;
    assert_eq!(status, StatusCode::OK);
    let pending = server.ask_confirm("later?").await;
    let started = Instant::now();
    let (status, body) = server
        .get_json(
            &format!("/api/interactions/{pending}/wait?timeout_s=1"),
            Some(ASKER),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(body["status"], "pending");
    assert!(started.elapsed() >= Duration::from_millis(900));
    // Only its asker waits: a reviewer lacks the role, another asker sees nothing; a timeout
    // that is not a number is refused.
    for (case, token, timeout, status, code) in [
        (
            "a reviewer",
            REVIEWER,
            "1",
            StatusCode::FORBIDDEN,
            "forbidden",
        ),
        (
            "another asker",
            OTHER_ASKER,
            "1",
            StatusCode::NOT_FOUND,
            "not_found",
        ),
        (
            "timeout_s=soon",
            ASKER,
            "soon",
            StatusCode::BAD_REQUEST,
            "invalid_query",
        ),
    ] {
        let path = format!("/api/interactions/{pending}/wait?timeout_s={timeout}");
        let refused = server.get_json(&path, Some(token)).await;
        assert_refused(&refused, status, code, case);
    }
    server.shutdown().await;
}

#[tokio::test]
async fn withdraw_cancels_for_its_asker_only() {
    let (server, _dir) = start().await;
    let id = server.ask_confirm("still needed?").await;
    for (case, token, status) in [
        ("another asker", OTHER_ASKER, StatusCode::NOT_FOUND),
        ("a reviewer", REVIEWER, StatusCode::FORBIDDEN),
    ] {
        assert_eq!(server.withdraw(&id, token).await.0, status, "{case}");
    }
    let (status, body) = server.withdraw(&id, ASKER).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], "cancelled");
    assert_eq!(
        server.withdraw(&id, ASKER).await.0,
        StatusCode::OK,
        "withdrawing twice is not an error"
    );
    let (status, body) = server.read(&id).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], "cancelled");
    assert_refused(
        &server.answer(&id, json!(true), None).await,
        StatusCode::NOT_FOUND,
        "not_found",
        "a withdrawn question cannot be answered",
    );
    server.shutdown().await;
}

#[tokio::test]
async fn read_is_for_reviewers_and_the_asker() {
    let (server, _dir) = start().await;
    let id = server.ask_confirm("mine").await;
    let path = format!("/api/interactions/{id}");
    for token in [REVIEWER, ASKER, ADMIN] {
        let (status, body) = server.get_json(&path, Some(token)).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body["asker"], "deploy-bot");
        assert_eq!(body["prompt"], "mine");
    }
    assert_refused(
        &server.get_json(&path, Some(OTHER_ASKER)).await,
        StatusCode::NOT_FOUND,
        "not_found",
        "another asker's read",
    );
    server.shutdown().await;
}

/// A 1x1 transparent PNG.
const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

#[tokio::test]
async fn an_inline_image_is_served_by_reference_with_locked_down_headers() {
    let (server, _dir) = start().await;
    let ia = server
        .ask(json!({"prompt": "this chart?", "answer_format": "confirm", "media": [
            {"kind": "image", "url": format!("data:image/png;base64,{PNG}"), "caption": "chart"},
            {"kind": "link", "url": "https://example.com/run/1", "caption": "run"}
        ]}))
        .await;
    let url = ia["media"][0]["url"].as_str().unwrap();
    assert!(url.starts_with("/api/interactions/media/md_"), "{url}");
    assert_eq!(ia["media"][1]["url"], "https://example.com/run/1");
    // The stored record keeps the reference too.
    let (_, stored) = server.read(ia["id"].as_str().unwrap()).await;
    assert_eq!(stored["media"][0]["url"], url);

    let resp = server.request(Method::GET, url, None).send().await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let headers = resp.headers().clone();
    assert_eq!(headers["content-type"], "image/png");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(
        headers["content-security-policy"],
        "default-src 'none'; sandbox"
    );
    assert!(
        headers["cache-control"]
            .to_str()
            .unwrap()
            .starts_with("private")
    );
    let expected = base64::engine::general_purpose::STANDARD
        .decode(PNG)
        .unwrap();
    assert_eq!(resp.bytes().await.unwrap().to_vec(), expected);

    let missing = server
        .request(Method::GET, "/api/interactions/media/md_nope", None)
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    server.shutdown().await;
}

#[tokio::test]
async fn the_callback_door_answers_an_external_question() {
    let (server, _dir) = start_with(|c| {
        c.public_url = Some("https://inbox.example.org/".into());
    })
    .await;
    let ia = server
        .ask(
            json!({"prompt": "sign the NDA", "answer_format": "external",
                    "link": "https://sign.example.com/doc/7?return={callback_url}"}),
        )
        .await;
    let link = ia["link"].as_str().unwrap();
    assert!(
        link.starts_with("https://sign.example.com/doc/7?return=https://inbox.example.org/api/interactions/callback/cb_"),
        "{link}"
    );
    let ticket = ticket_of(link);
    assert!(ticket.len() >= 50, "the ticket is high-entropy");
    let door = format!("/api/interactions/callback/{ticket}");

    // GET is a byte-constant page that reflects nothing and changes nothing.
    let plain = common::callback::get(&server, &door).await;
    assert_eq!(plain.status(), StatusCode::OK);
    assert!(
        plain.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert_eq!(plain.headers()["referrer-policy"], "no-referrer");
    let plain = plain.text().await.unwrap();
    let probe = common::callback::get(
        &server,
        &format!("{door}?signed=%3Cscript%3Ex%3C/script%3E"),
    )
    .await
    .text()
    .await
    .unwrap();
    assert_eq!(plain, probe);
    assert!(plain.contains(r#"<form method="post">"#));
    assert!(!plain.contains("script"));
    let id = ia["id"].as_str().unwrap();
    let (_, still) = server.read(id).await;
    assert_eq!(still["status"], "pending");

    let signed = json!({"signed": true, "envelope": "e-1"});
    assert_eq!(
        post_json(&server, &door, &signed).await,
        (StatusCode::OK, json!({"status": "answered"}))
    );
    let (_, done) = server.read(id).await;
    assert_eq!(done["status"], "answered");
    assert_eq!(done["answer"]["answered_by"], "callback");
    assert_eq!(done["answer"]["value"], signed);

    // A provider retry is an idempotent success; the page is gone.
    assert_eq!(
        post_json(&server, &door, &signed).await,
        (StatusCode::OK, json!({"status": "already_answered"}))
    );
    let used = common::callback::get(&server, &door).await;
    assert_eq!(used.status(), StatusCode::NOT_FOUND);
    let used = used.bytes().await.unwrap();
    for method in [Method::GET, Method::POST] {
        let unknown = server
            .request(method, "/api/interactions/callback/cb_unknown", None)
            .send()
            .await
            .unwrap();
        assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
        assert_eq!(unknown.bytes().await.unwrap(), used, "404s are uniform");
    }
    server.shutdown().await;
}

#[tokio::test]
async fn an_external_question_is_answered_only_through_its_callback_door() {
    let (server, _dir) = start().await;
    let external = json!({"prompt": "sign the NDA", "answer_format": "external",
                          "link": "https://sign.example.com/doc/7?return={callback_url}"});
    let ia = server.ask(external.clone()).await;
    let id = ia["id"].as_str().unwrap();
    // The answer door refuses it whatever the value, with or without a key, naming the field.
    for (value, key) in [(json!({"signed": true}), Some("k-1")), (json!(true), None)] {
        let refused = server.answer(id, value.clone(), key).await;
        let case = format!("answer {value} with key {key:?}");
        assert_refused(&refused, StatusCode::CONFLICT, "answered_externally", &case);
        assert_eq!(refused.1["error"]["field"], "answer");
    }
    let (_, read) = server.read(id).await;
    assert_eq!(read["status"], "pending", "nothing was recorded");
    assert_eq!(read["answer"], Value::Null);
    // The callback door still answers it.
    let (status, _) = post_json(&server, &door_of(&ia), &json!({"signed": true})).await;
    assert_eq!(status, StatusCode::OK);
    // Once answered there, the answer door still says where answers come from.
    assert_refused(
        &server.answer(id, json!({"signed": false}), None).await,
        StatusCode::CONFLICT,
        "answered_externally",
        "an answer after the callback's",
    );

    // A reviewer can still decline an external question.
    let other = server.ask(external).await;
    let other_id = other["id"].as_str().unwrap();
    let (status, body) = server
        .decline(other_id, json!({"reason": "not signing"}), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], "declined");
    server.shutdown().await;
}

#[tokio::test]
async fn the_confirm_form_posts_query_params_typed_by_the_schema() {
    let (server, _dir) = start().await;
    let ia = server
        .ask(
            json!({"prompt": "approve the refund", "answer_format": "external",
                    "link": "https://pay.example.com/r/9?cb={callback_url}",
                    "schema": {"type": "object", "properties": {
                        "approved": {"type": "boolean"}, "amount": {"type": "integer"}},
                        "required": ["approved"]}}),
        )
        .await;
    let ticket = ticket_of(ia["link"].as_str().unwrap());
    // Callback URLs default to the server's own address.
    assert!(ia["link"].as_str().unwrap().contains(&server.base));
    let door = format!("/api/interactions/callback/{ticket}");
    let bad = post_form(&server, &format!("{door}?amount=12"), "").await;
    assert_eq!(
        bad.status(),
        StatusCode::BAD_REQUEST,
        "the schema requires `approved`"
    );
    let resp = post_form(&server, &format!("{door}?approved=true&amount=12"), "").await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(resp.text().await.unwrap().contains("Answer received"));
    let (_, done) = server.read(ia["id"].as_str().unwrap()).await;
    assert_eq!(
        done["answer"]["value"],
        json!({"approved": true, "amount": 12})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn a_refused_ask_leaves_nothing_behind() {
    let (server, _dir, mut stream) = common::start_listening().await;
    for bad in [
        json!({"prompt": "pick", "answer_format": "select"}),
        json!({"prompt": "look", "answer_format": "confirm", "media": []}),
        json!({"prompt": "look", "answer_format": "confirm",
               "media": [{"kind": "document", "url": "data:image/png;base64,AAAA"}]}),
        json!({"prompt": "", "answer_format": "text"}),
    ] {
        let (status, body) = server.try_ask(ASKER, bad.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
        assert!(
            body["error"]["field"].is_string(),
            "a refusal names the field: {body}"
        );
    }
    server.assert_nothing_stored("the refused asks").await;
    stream.expect_quiet(Duration::from_millis(300)).await;
    server.shutdown().await;
}

/// Every door refuses every kind of bad input with the contract's error body.
#[tokio::test]
async fn every_door_refuses_bad_input_with_a_coded_error() {
    let (server, _dir) = start().await;
    let id = server.ask_confirm("probe").await;
    let authed_doors: Vec<(Method, String, &str)> = vec![
        (Method::GET, "/api/interactions".into(), REVIEWER),
        (Method::GET, "/api/interactions/stream".into(), REVIEWER),
        (Method::GET, format!("/api/interactions/{id}"), REVIEWER),
        (
            Method::POST,
            format!("/api/interactions/{id}/answer"),
            REVIEWER,
        ),
        (
            Method::POST,
            format!("/api/interactions/{id}/decline"),
            REVIEWER,
        ),
        (Method::POST, "/api/interactions".into(), ASKER),
        (
            Method::GET,
            format!("/api/interactions/{id}/wait?timeout_s=0"),
            ASKER,
        ),
        (Method::DELETE, format!("/api/interactions/{id}"), ASKER),
    ];
    let code_of = |body: &Value| body["error"]["code"].as_str().unwrap_or("").to_owned();
    for (method, path, _) in &authed_doors {
        let missing = server
            .request(method.clone(), path, None)
            .send()
            .await
            .unwrap();
        assert_eq!(
            missing.status(),
            StatusCode::UNAUTHORIZED,
            "{method} {path}"
        );
        assert_eq!(code_of(&missing.json().await.unwrap()), "unauthorized");
        let wrong = server
            .request(method.clone(), path, Some("not-a-token"))
            .send()
            .await
            .unwrap();
        assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED, "{method} {path}");
        let basic = server
            .http
            .request(method.clone(), server.url(path))
            .header("authorization", format!("Basic {REVIEWER}"))
            .send()
            .await
            .unwrap();
        assert_eq!(basic.status(), StatusCode::UNAUTHORIZED, "{method} {path}");
    }

    // Wrong role: askers cannot review, reviewers cannot ask, wait or withdraw.
    for (method, path, right) in &authed_doors {
        if path.ends_with(&format!("/{id}")) && *method == Method::GET {
            continue; // read admits both roles
        }
        if path.ends_with("/stream") {
            continue; // an asker hears its own submissions there (tests/notifications.rs)
        }
        let wrong_role = if *right == REVIEWER { ASKER } else { REVIEWER };
        let resp = server
            .request(method.clone(), path, Some(wrong_role))
            .json(&json!({"answer": true}))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::FORBIDDEN, "{method} {path}");
        assert_eq!(code_of(&resp.json().await.unwrap()), "forbidden");
    }

    // Malformed JSON and wrong shapes on every door with a body.
    let bodied = [
        (format!("/api/interactions/{id}/answer"), REVIEWER),
        (format!("/api/interactions/{id}/decline"), REVIEWER),
        ("/api/interactions".to_owned(), ASKER),
    ];
    for (path, token) in &bodied {
        for body in [
            "{\"answer\": tru",
            "[1, 2]",
            "{\"unexpected\": 1}",
            "{} trailing",
        ] {
            let resp = server
                .request(Method::POST, path, Some(token))
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await
                .unwrap();
            assert_eq!(resp.status(), StatusCode::BAD_REQUEST, "{path} {body}");
            assert_eq!(
                code_of(&resp.json().await.unwrap()),
                "malformed_json",
                "{path} {body}"
            );
        }
        let huge = vec![b' '; inbox_protocol::caps::REQUEST_BODY_MAX_BYTES + 1];
        let resp = server
            .request(Method::POST, path, Some(token))
            .header("content-type", "application/json")
            .body(huge)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::PAYLOAD_TOO_LARGE, "{path}");
        assert_eq!(code_of(&resp.json().await.unwrap()), "payload_too_large");
    }
    // A wrong shape names the field.
    let (_, body) = server
        .try_ask(
            ASKER,
            json!({"prompt": "x", "answer_format": "confirm", "mode": "someday"}),
        )
        .await;
    assert_eq!(body["error"]["code"], "malformed_json");
    assert_eq!(body["error"]["field"], "mode");

    // Unknown ids: the same 404 on every door that takes one.
    let unknown = "ia_doesnotexist";
    let cases: Vec<(Method, String, &str)> = vec![
        (
            Method::GET,
            format!("/api/interactions/{unknown}"),
            REVIEWER,
        ),
        (
            Method::POST,
            format!("/api/interactions/{unknown}/answer"),
            REVIEWER,
        ),
        (
            Method::POST,
            format!("/api/interactions/{unknown}/decline"),
            REVIEWER,
        ),
        (
            Method::GET,
            format!("/api/interactions/{unknown}/wait?timeout_s=1"),
            ASKER,
        ),
        (
            Method::DELETE,
            format!("/api/interactions/{unknown}"),
            ASKER,
        ),
        (
            Method::GET,
            "/api/interactions/media/md_unknown".into(),
            REVIEWER,
        ),
        (
            Method::GET,
            "/api/interactions/callback/cb_unknown".into(),
            REVIEWER,
        ),
        (Method::GET, "/api/nowhere".into(), REVIEWER),
    ];
    for (method, path, token) in cases {
        let body = if path.ends_with("/answer") {
            json!({"answer": true})
        } else {
            json!({})
        };
        let resp = server
            .request(method.clone(), &path, Some(token))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::NOT_FOUND, "{method} {path}");
        assert_eq!(
            code_of(&resp.json().await.unwrap()),
            "not_found",
            "{method} {path}"
        );
    }

    // Query and header mistakes.
    for query in ["status=bogus", "limit=0", "limit=x", "cursor=nope"] {
        let (status, body) = server
            .get_json(&format!("/api/interactions?{query}"), Some(REVIEWER))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}");
        assert_eq!(code_of(&body), "invalid_query", "{query}");
    }
    let long_key = "k".repeat(inbox_protocol::caps::IDEMPOTENCY_KEY_MAX_CHARS + 1);
    let (status, body) = server.answer(&id, json!(true), Some(&long_key)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"]["field"], "Idempotency-Key");
    server.shutdown().await;
}

#[tokio::test]
async fn health_doors_need_no_token() {
    let (server, _dir) = start().await;
    for (path, want) in [("/healthz", "ok"), ("/readyz", "ready")] {
        let (status, body) = server.get_json(path, None).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body, json!({ "status": want }));
    }
    server.shutdown().await;
}

#[tokio::test]
async fn without_configured_tokens_the_first_start_generates_them() {
    let dir = tempfile::tempdir().unwrap();
    let server = common::start_in(dir.path(), |c| c.tokens.clear()).await;
    let file = server.server.tokens_file.clone().expect("a tokens file");
    assert_eq!(file, dir.path().join("tokens.json"));
    let reviewer = server
        .server
        .token_for(inbox_server::Role::Reviewer)
        .unwrap();
    let asker = server.server.token_for(inbox_server::Role::Asker).unwrap();
    assert_ne!(reviewer, asker);
    let (status, _) = server.get_json("/api/interactions", Some(&reviewer)).await;
    assert_eq!(status, StatusCode::OK);
    let listed: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(listed[0]["name"], "local-reviewer");
    assert_eq!(listed[1]["role"], "asker");
    server.shutdown().await;

    // A later start reuses them.
    let again = common::start_in(dir.path(), |c| c.tokens.clear()).await;
    assert_eq!(
        again
            .server
            .token_for(inbox_server::Role::Reviewer)
            .unwrap(),
        reviewer
    );
    again.shutdown().await;
}

#[tokio::test]
async fn a_question_past_its_deadline_cannot_be_answered_before_the_sweep() {
    // A sweeper that never runs during the test: the deadline alone must close the question.
    let (server, _dir) = start_with(|c| c.sweep_interval = Duration::from_secs(3600)).await;
    let ia = server
        .ask(json!({"prompt": "quick?", "answer_format": "confirm", "timeout_s": 1}))
        .await;
    let id = ia["id"].as_str().unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let (status, body) = server.answer(id, json!(true), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, _) = server.decline(id, json!({}), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    server.shutdown().await;
}

/// The sweeper prunes a resolved question once the retention has passed: it is gone from every
/// door, and an open stream hears `removed{pruned}`.
#[tokio::test]
async fn a_resolved_question_is_pruned_after_the_retention() {
    let (server, _dir) = start_with(|c| {
        c.retentions.resolved = Some(Duration::from_millis(300));
    })
    .await;
    let mut stream = common::Sse::connect(&server, None).await;
    let id = server.ask_confirm("prune me").await;
    assert_eq!(stream.expect_frame().await.event, "add");
    let (status, _) = server.answer(&id, json!(true), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(stream.expect_frame().await.event, "answered");
    let removed = stream.expect_frame().await;
    assert_eq!(removed.event, "removed");
    assert_eq!(removed.data, json!({"id": id, "reason": "pruned"}));
    assert_eq!(server.read(&id).await.0, StatusCode::NOT_FOUND);
    server.shutdown().await;
}

/// A path no door serves answers like every other refusal: `404` with the JSON error body,
/// with or without a token, for any method; never an empty body or an HTML page.
#[tokio::test]
async fn an_unknown_path_is_a_json_404_in_the_error_shape() {
    let (server, _dir) = start().await;
    for (method, path, token) in [
        (Method::GET, "/api/no-such-door", None),
        (Method::GET, "/api/no-such-door", Some(REVIEWER)),
        (Method::POST, "/api/interactions/ia_x/nope", Some(ASKER)),
        (Method::DELETE, "/definitely/not/here", Some(ADMIN)),
        (Method::GET, "/", None),
    ] {
        let resp = server
            .request(method.clone(), path, token)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::NOT_FOUND, "{method} {path}");
        assert_eq!(
            resp.headers()["content-type"],
            "application/json",
            "{method} {path}"
        );
        let body: Value = resp.json().await.unwrap();
        assert_eq!(
            body["error"]["code"], "not_found",
            "{method} {path}: {body}"
        );
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{method} {path}: {body}"
        );
        let keys: Vec<&String> = body.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["error"], "{method} {path}: {body}");
    }
    server.shutdown().await;
}
