//! The public callback door under attack: it finds the ticket before it reads a body, and it
//! bounds the body it does read.

mod common;

use std::time::{Duration, Instant};

use common::callback::{door_of, post_form, post_json, ticket_of};
use common::{assert_refused, raw, reply};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

async fn ask_external(server: &common::TestServer, extra: Value) -> Value {
    let mut body = json!({"prompt": "sign", "answer_format": "external",
                          "link": "https://sign.example.com/doc?return={callback_url}"});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    server.ask(body).await
}

#[tokio::test]
async fn an_unknown_ticket_is_refused_before_its_body_is_read() {
    let (server, _dir) = common::start().await;
    // A body of 100 MB is announced, and a never-ending chunked one on a second connection;
    // the server must answer 404 while the client is still sending.
    let announced = format!(
        "POST /api/interactions/callback/cb_unknown HTTP/1.1\r\nHost: {}\r\n\
         Content-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{{\"a\": \"",
        raw::host(&server)
    );
    let chunked = format!(
        "POST /api/interactions/callback/cb_unknown HTTP/1.1\r\nHost: {}\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n",
        raw::host(&server)
    );
    for head in [announced, chunked] {
        let started = Instant::now();
        let mut conn = raw::send(&server, head.as_bytes()).await;
        // Keep sending for a while in the background, as a slow or endless sender would.
        let (mut reader, mut writer) = conn.split();
        let sender = async {
            let filler = vec![b'x'; 1024];
            for _ in 0..20 {
                if writer.write_all(&filler).await.is_err() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        };
        let answer = async {
            let mut rejoined = Vec::new();
            let mut buf = [0u8; 1024];
            use tokio::io::AsyncReadExt;
            loop {
                match tokio::time::timeout(Duration::from_secs(2), reader.read(&mut buf)).await {
                    Ok(Ok(n)) if n > 0 => {
                        rejoined.extend_from_slice(&buf[..n]);
                        if rejoined.windows(4).any(|w| w == b"\r\n\r\n") {
                            return (
                                Some(String::from_utf8_lossy(&rejoined).into_owned()),
                                started.elapsed(),
                            );
                        }
                    }
                    _ => return (None, started.elapsed()),
                }
            }
        };
        let (_, (head, took)) = tokio::join!(sender, answer);
        let head = head.expect("the server answers while the body is still arriving");
        assert_eq!(raw::status_of(&head), 404, "{head}");
        assert!(
            took < Duration::from_millis(900),
            "answered after {took:?}: before the sender (1 s of sending) finished"
        );
    }
    // The door still works for everyone else.
    let (status, _) = server.get_json("/healthz", None).await;
    assert_eq!(status, StatusCode::OK);
    server.shutdown().await;
}

#[tokio::test]
async fn a_known_ticket_reads_at_most_the_callback_cap() {
    let (server, _dir) = common::start().await;
    let ia = ask_external(&server, json!({})).await;
    let door = door_of(&ia);
    let cap = inbox_protocol::caps::CALLBACK_BODY_MAX_BYTES;
    // Over the cap, declared or streamed: 413, and the question stays pending.
    let mut big = br#"{"note": ""#.to_vec();
    big.resize(cap + 10, b'x');
    big.extend_from_slice(br#""}"#);
    let declared = server
        .request(Method::POST, &door, None)
        .header("content-type", "application/json")
        .body(big.clone());
    assert_refused(
        &reply(declared).await,
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
        "a declared body over the cap",
    );
    let streamed = reqwest::Body::wrap_stream(futures::stream::iter(
        big.chunks(4096)
            .map(|c| Ok::<_, std::io::Error>(c.to_vec()))
            .collect::<Vec<_>>(),
    ));
    let resp = server
        .request(Method::POST, &door, None)
        .header("content-type", "application/json")
        .body(streamed)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(
        status_of(&server, ia["id"].as_str().unwrap()).await,
        "pending"
    );
    // Within the cap it is an answer.
    let within = json!({"note": "x".repeat(cap - 100)});
    assert_eq!(post_json(&server, &door, &within).await.0, StatusCode::OK);
    server.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// External questions: public URL, tickets, verifiers, the rendered form

mod redis_env;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

/// A server on SQLite, or on Redis when `redis` (and `INBOX_TEST_REDIS_URL` is set).
async fn server_on(dir: &std::path::Path, redis: bool, test: &str) -> Option<common::TestServer> {
    let redis = if redis {
        Some((redis_env::url(test)?, redis_env::unique_prefix(test)))
    } else {
        None
    };
    Some(common::start_on(dir, &redis, |_| {}).await)
}

async fn status_of(server: &common::TestServer, id: &str) -> String {
    let (_, read) = server.read(id).await;
    read["status"].as_str().unwrap_or_default().to_owned()
}

fn hmac_sha256(key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).unwrap();
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().to_vec()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

async fn a_forged_callback_is_refused_and_a_signed_one_accepted(redis: bool) {
    let dir = tempfile::tempdir().unwrap();
    let Some(server) = server_on(dir.path(), redis, "forged_callback").await else {
        return;
    };
    let secret = "gh-webhook-secret-do-not-show";
    let mut stream = common::Sse::connect(&server, None).await;
    let ia = ask_external(
        &server,
        json!({"verifier": {"kind": "hmac-sha256", "header": "X-Hub-Signature-256",
                            "prefix": "sha256=", "encoding": "hex", "secret": secret}}),
    )
    .await;
    let id = ia["id"].as_str().unwrap().to_owned();
    let door = door_of(&ia);
    let body = br#"{"signed": true, "envelope": "e-1"}"#;
    let good = format!("sha256={}", hex(&hmac_sha256(secret.as_bytes(), &[body])));
    let forged = format!("sha256={}", hex(&hmac_sha256(b"guess", &[body])));
    let post = |signature: Option<String>, body: &'static [u8]| {
        let mut req = server
            .request(Method::POST, &door, None)
            .header("content-type", "application/json")
            .body(body);
        if let Some(sig) = signature {
            req = req.header("X-Hub-Signature-256", sig);
        }
        req.send()
    };
    // Missing, wrong, for another body, in the wrong encoding: refused, still pending.
    for (signature, sent) in [
        (None, &body[..]),
        (Some(forged), &body[..]),
        (Some(good.clone()), &br#"{"signed": false}"#[..]),
        (
            Some(good.trim_start_matches("sha256=").to_owned()),
            &body[..],
        ),
    ] {
        let resp = post(signature.clone(), sent).await.unwrap();
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED, "{signature:?}");
        let refusal: Value = resp.json().await.unwrap();
        assert_eq!(refusal["error"]["code"], "invalid_signature");
        assert_eq!(refusal["error"]["field"], "X-Hub-Signature-256");
        assert_eq!(status_of(&server, &id).await, "pending");
    }
    // The page's own form post carries no signature: refused too (fail closed).
    let resp = post_form(&server, &door, "signed=true").await;
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(status_of(&server, &id).await, "pending");

    let resp = post(Some(good.clone()), body).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(
        resp.json::<Value>().await.unwrap(),
        json!({"status": "answered"})
    );
    let retry = post(Some(good), body).await.unwrap();
    assert_eq!(
        retry.json::<Value>().await.unwrap(),
        json!({"status": "already_answered"})
    );

    // The secret is never shown back: not on reads, pages, the stream, nor the ask's reply.
    let add = stream.expect_frame().await;
    let answered = stream.expect_frame().await;
    let (_, read) = server.read(&id).await;
    let page = server.page("status=all").await;
    let (_, own) = server
        .get_json(&format!("/api/interactions/{id}"), Some(common::ASKER))
        .await;
    let seen = format!("{ia} {add:?} {answered:?} {read} {page} {own}");
    assert!(seen.contains(&id));
    assert!(!seen.contains(secret), "the verifier secret leaked: {seen}");
    assert_eq!(
        read["answer"]["value"],
        json!({"signed": true, "envelope": "e-1"})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn a_forged_callback_is_refused_and_a_signed_one_accepted_sqlite() {
    a_forged_callback_is_refused_and_a_signed_one_accepted(false).await;
}

#[tokio::test]
async fn a_forged_callback_is_refused_and_a_signed_one_accepted_redis() {
    a_forged_callback_is_refused_and_a_signed_one_accepted(true).await;
}

#[tokio::test]
async fn standard_webhooks_signatures_are_verified_with_a_replay_window() {
    let (server, _dir) = common::start().await;
    let key = b"a-24-byte-or-longer-key!!";
    let secret = format!("whsec_{}", STANDARD.encode(key));
    let ia = ask_external(
        &server,
        json!({"verifier": {"kind": "standard-webhooks", "secret": secret}}),
    )
    .await;
    let id = ia["id"].as_str().unwrap().to_owned();
    let door = door_of(&ia);
    let body = br#"{"signed": true}"#;
    let sign = |ts: i64| {
        let ts = ts.to_string();
        let tag = hmac_sha256(key, &[b"msg_7.", ts.as_bytes(), b".", body]);
        (ts, format!("v1,{}", STANDARD.encode(tag)))
    };
    let post = |ts: String, sig: String| {
        server
            .request(Method::POST, &door, None)
            .header("content-type", "application/json")
            .header("webhook-id", "msg_7")
            .header("webhook-timestamp", ts)
            .header("webhook-signature", sig)
            .body(&body[..])
            .send()
    };
    let now = chrono::Utc::now().timestamp();
    let (stale_ts, stale_sig) = sign(now - 3600);
    let resp = post(stale_ts, stale_sig).await.unwrap();
    assert_eq!(
        resp.status(),
        StatusCode::UNAUTHORIZED,
        "an old, replayed delivery"
    );
    let refusal: Value = resp.json().await.unwrap();
    assert_eq!(refusal["error"]["field"], "webhook-timestamp");
    assert_eq!(status_of(&server, &id).await, "pending");
    let (ts, sig) = sign(now);
    let resp = post(ts, format!("v1,bm90IGl0 {sig}")).await.unwrap();
    assert_eq!(
        resp.status(),
        StatusCode::OK,
        "one of several signatures matches"
    );
    assert_eq!(status_of(&server, &id).await, "answered");
    server.shutdown().await;
}

#[tokio::test]
async fn tickets_are_stored_only_as_their_hash() {
    let (server, dir) = common::start().await;
    let ia = ask_external(&server, json!({})).await;
    let ticket = ticket_of(ia["link"].as_str().unwrap());
    server.shutdown().await;
    let db = rusqlite::Connection::open(dir.path().join("inbox.sqlite3")).unwrap();
    let texts = |sql: &str| -> Vec<String> {
        db.prepare(sql)
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let stored = texts("SELECT hash FROM callback_tickets");
    let digest: String = hex(&Sha256::digest(ticket.as_bytes()));
    assert_eq!(stored, [digest]);
    // No column of the ticket index holds the ticket. (The interaction's `link` does carry the
    // callback URL: reads must show it, see docs/security.md.)
    let rows = texts(
        "SELECT hash || interaction_id || expires_at || coalesce(verifier, '') FROM callback_tickets",
    );
    assert!(rows.iter().all(|r| !r.contains(&ticket[3..])), "{rows:?}");
    let old_table: i64 = db
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'tickets'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(old_table, 0, "no plain-text ticket table");
}

#[tokio::test]
async fn a_ticket_dies_at_its_own_ttl_before_the_question_does() {
    let (server, _dir) = common::start_with(|c| {
        c.ticket_max_ttl = Duration::from_millis(600);
    })
    .await;
    let ia = ask_external(&server, json!({"timeout_s": 3600})).await;
    let id = ia["id"].as_str().unwrap().to_owned();
    let door = door_of(&ia);
    let live = common::callback::get(&server, &door).await;
    assert_eq!(live.status(), StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_refused(
        &post_json(&server, &door, &json!({"signed": true})).await,
        StatusCode::NOT_FOUND,
        "not_found",
        "a post after the ticket's ttl",
    );
    assert_eq!(
        status_of(&server, &id).await,
        "pending",
        "the question lives on"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn an_external_link_without_the_placeholder_is_refused_and_nothing_stored() {
    let (server, _dir) = common::start().await;
    let ask = json!({"prompt": "sign", "answer_format": "external",
                     "link": "https://sign.example.com/doc"});
    assert_ask_refused(&server, ask, "link").await;
    server.shutdown().await;
}

/// Asserts that asking `body` is a 400 naming `field`, and that nothing was stored.
async fn assert_ask_refused(server: &common::TestServer, body: Value, field: &str) {
    let (status, refusal) = server.try_ask(common::ASKER, body).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{field}: {refusal}");
    assert_eq!(refusal["error"]["field"], field, "{refusal}");
    server.assert_nothing_stored(field).await;
}

#[tokio::test]
async fn the_public_url_must_be_https_outside_loopback() {
    let dir = tempfile::tempdir().unwrap();
    let mut config =
        inbox_server::ServerConfig::new("127.0.0.1:0".parse().unwrap(), dir.path().to_owned());
    config.tokens = common::tokens();
    config.public_url = Some("http://inbox.example.org".into());
    let err = match inbox_server::start(config).await {
        Ok(_) => panic!("an http public URL outside loopback must stop the start"),
        Err(e) => e.to_string(),
    };
    assert!(
        err.contains("INTERACTIONS_PUBLIC_BASE_URL") && err.contains("https"),
        "{err}"
    );

    // An unspecified bind without a public URL: external questions are refused, naming the
    // setting; other questions are fine.
    let server = common::start_in(dir.path(), |c| c.bind = "0.0.0.0:0".parse().unwrap()).await;
    let port = server.server.addr.port();
    let base = format!("http://127.0.0.1:{port}");
    let ask = |body: Value| {
        let req = server.http.post(format!("{base}/api/interactions"));
        reply(req.bearer_auth(common::ASKER).json(&body))
    };
    let (status, body) = ask(json!({"prompt": "sign", "answer_format": "external",
                                    "link": "https://sign.example.com/doc?cb={callback_url}"}))
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"]["field"], "answer_format");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("INTERACTIONS_PUBLIC_BASE_URL")
    );
    let (status, _) = ask(json!({"prompt": "ok?", "answer_format": "confirm"})).await;
    assert_eq!(status, StatusCode::CREATED);
    server.shutdown().await;
}

#[tokio::test]
async fn the_get_door_renders_the_stored_schema_as_a_form_whose_post_claims() {
    let (server, _dir) = common::start().await;
    let schema = json!({"type": "object", "title": "Refund <b>42</b>",
        "properties": {
            "approved": {"type": "boolean", "title": "Approve?"},
            "amount": {"type": "integer", "minimum": 1},
            "reason": {"type": "string", "enum": ["duplicate", "fraud"]},
            "note": {"type": "string", "description": "<script>alert(1)</script>"}
        },
        "required": ["approved"]});
    let first = ask_external(&server, json!({"schema": schema})).await;
    let second = ask_external(&server, json!({"schema": schema})).await;
    let srv = &server;
    let get = |path: String| async move {
        let resp = common::callback::get(srv, &path).await;
        assert_eq!(resp.status(), StatusCode::OK);
        let csp = resp.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(csp.contains("default-src 'none'"), "{csp}");
        assert_eq!(resp.headers()["x-frame-options"], "DENY");
        assert_eq!(resp.headers()["referrer-policy"], "no-referrer");
        resp.text().await.unwrap()
    };
    let page = get(door_of(&first)).await;
    // Byte-stable for the same schema, and nothing from the request (ticket, query) in it.
    assert_eq!(page, get(door_of(&second)).await);
    assert_eq!(
        page,
        get(format!("{}?amount=%3Cscript%3E&x=%22", door_of(&first))).await
    );
    assert!(!page.contains(&ticket_of(first["link"].as_str().unwrap())));
    for expected in [
        r#"<form method="post">"#,
        r#"name="approved""#,
        r#"name="amount" type="number" step="1""#,
        r#"<option value="fraud">fraud</option>"#,
        "Refund &lt;b&gt;42&lt;/b&gt;",
        "&lt;script&gt;alert(1)&lt;/script&gt;",
    ] {
        assert!(page.contains(expected), "missing {expected} in\n{page}");
    }
    assert!(!page.contains("<script") && !page.contains("<b>"), "{page}");

    // The form's POST claims, typed by the schema; blank optional fields are "not given".
    let resp = post_form(
        &server,
        &door_of(&first),
        "approved=true&amount=12&reason=&note=dup",
    )
    .await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(resp.text().await.unwrap().contains("Answer received"));
    let (_, read) = server.read(first["id"].as_str().unwrap()).await;
    assert_eq!(
        read["answer"]["value"],
        json!({"approved": true, "amount": 12, "note": "dup"})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn a_schema_outside_the_renderable_subset_is_refused_at_ask_time() {
    let (server, _dir) = common::start().await;
    let ask = json!({"prompt": "sign", "answer_format": "external",
                     "link": "https://sign.example.com/doc?cb={callback_url}",
                     "schema": {"type": "object", "properties": {
                         "name": {"type": "string"},
                         "tags": {"type": "array", "items": {"type": "string"}}}}});
    assert_ask_refused(&server, ask, "schema.properties.tags").await;
    server.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// Enrichment on the answer: `params` from the query (`params.<key>`) or the JSON envelope

const ENVELOPE: &str = "application/vnd.inbox.answer+json";

/// An external question asked with `extra`: its id and its callback door.
async fn external_door(server: &common::TestServer, extra: Value) -> (String, String) {
    let ia = ask_external(server, extra).await;
    (ia["id"].as_str().unwrap().to_owned(), door_of(&ia))
}

/// `POST path` with no token and `envelope` in the answer envelope's media type.
async fn post_envelope(
    server: &common::TestServer,
    path: &str,
    envelope: &Value,
) -> (StatusCode, Value) {
    let req = server.request(Method::POST, path, None);
    reply(
        req.header("content-type", ENVELOPE)
            .body(envelope.to_string()),
    )
    .await
}

/// What the asker sees on the wait door once the question is resolved.
async fn waited(server: &common::TestServer, id: &str) -> Value {
    let (status, ia) = server
        .get_json(
            &format!("/api/interactions/{id}/wait?timeout_s=0"),
            Some(common::ASKER),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{ia}");
    ia
}

async fn callback_params_are_stored_beside_the_answer_and_handed_to_the_asker(redis: bool) {
    let dir = tempfile::tempdir().unwrap();
    let Some(server) = server_on(dir.path(), redis, "callback_params").await else {
        return;
    };
    let mut stream = common::Sse::connect(&server, None).await;

    // Query params on a JSON answer: the body stays the answer, `params.*` go beside it.
    let (id, door) = external_door(&server, json!({})).await;
    let query = format!("{door}?params.reply_id=r-17&params.source=slack");
    let (status, _) = post_json(&server, &query, &json!({"signed": true})).await;
    assert_eq!(status, StatusCode::OK);
    let ia = waited(&server, &id).await;
    assert_eq!(ia["answer"]["value"], json!({"signed": true}));
    assert_eq!(
        ia["answer"]["params"],
        json!({"reply_id": "r-17", "source": "slack"})
    );
    // The reviewer's read and the stream's `answered` frame carry them too.
    let (_, read) = server.read(&id).await;
    assert_eq!(read["answer"]["params"]["reply_id"], "r-17");
    let answered = loop {
        match stream.next_block(Duration::from_secs(5)).await {
            Some(common::Block::Frame(f)) if f.event == "answered" => break f,
            Some(_) => continue,
            None => panic!("no answered frame"),
        }
    };
    assert_eq!(answered.data["answer"]["params"]["source"], "slack");

    // The envelope: a nested object, joined with the query's params.
    let (id, door) = external_door(&server, json!({})).await;
    let envelope = json!({"answer": {"approved": true},
                          "params": {"button": {"payload": "approve-42"}, "referral": null}});
    let (status, _) = post_envelope(&server, &format!("{door}?params.channel=C1"), &envelope).await;
    assert_eq!(status, StatusCode::OK);
    let ia = waited(&server, &id).await;
    assert_eq!(ia["answer"]["value"], json!({"approved": true}));
    assert_eq!(
        ia["answer"]["params"],
        json!({"channel": "C1", "button": {"payload": "approve-42"}, "referral": null})
    );

    // A plain JSON body that happens to hold `params` is still the whole answer (as before),
    // and an answer without enrichment carries none.
    let (id, door) = external_door(&server, json!({})).await;
    let (status, _) = post_json(&server, &door, &json!({"answer": 1, "params": {"x": 1}})).await;
    assert_eq!(status, StatusCode::OK);
    let ia = waited(&server, &id).await;
    assert_eq!(
        ia["answer"]["value"],
        json!({"answer": 1, "params": {"x": 1}})
    );
    assert_eq!(ia["answer"]["params"], Value::Null);

    // A confirm-page form submission: `params.*` in the URL are not answer fields.
    let (id, door) = external_door(
        &server,
        json!({"schema": {"type": "object", "properties": {"approved": {"type": "boolean"}},
                          "required": ["approved"], "additionalProperties": false}}),
    )
    .await;
    let resp = post_form(
        &server,
        &format!("{door}?params.reply_id=r-9"),
        "approved=true",
    )
    .await;
    assert_eq!(resp.status(), StatusCode::OK);
    let ia = waited(&server, &id).await;
    assert_eq!(ia["answer"]["value"], json!({"approved": true}));
    assert_eq!(ia["answer"]["params"], json!({"reply_id": "r-9"}));
    server.shutdown().await;
}

#[tokio::test]
async fn callback_params_are_stored_beside_the_answer_and_handed_to_the_asker_sqlite() {
    callback_params_are_stored_beside_the_answer_and_handed_to_the_asker(false).await;
}

#[tokio::test]
async fn callback_params_are_stored_beside_the_answer_and_handed_to_the_asker_redis() {
    callback_params_are_stored_beside_the_answer_and_handed_to_the_asker(true).await;
}

#[tokio::test]
async fn callback_params_are_bounded_and_a_refusal_names_the_field() {
    let (server, _dir) = common::start().await;
    let (id, door) = external_door(&server, json!({})).await;
    let max = inbox_protocol::caps::PARAMS_MAX_BYTES;
    let depth = inbox_protocol::caps::ANSWER_MAX_DEPTH;
    let deep = (0..depth + 1).fold(json!(1), |v, _| json!({ "k": v }));
    let refused: Vec<(String, Option<Value>, &str, &str)> = vec![
        // Over the byte cap, by the query and by the envelope.
        (
            format!("{door}?params.blob={}", "x".repeat(max)),
            None,
            "invalid_field",
            "params",
        ),
        (
            door.clone(),
            Some(json!({"answer": true, "params": {"blob": "x".repeat(max)}})),
            "invalid_field",
            "params",
        ),
        // Nested past the depth cap.
        (
            door.clone(),
            Some(json!({"answer": true, "params": {"deep": deep}})),
            "invalid_field",
            "params",
        ),
        // Not an object, an unknown envelope key, a bare prefix, a key given both ways.
        (
            door.clone(),
            Some(json!({"answer": true, "params": ["a"]})),
            "malformed_json",
            "params",
        ),
        (
            door.clone(),
            Some(json!({"answer": true, "extra": 1})),
            "malformed_json",
            "",
        ),
        (format!("{door}?params.=x"), None, "invalid_field", "params"),
        (
            format!("{door}?params.a=1"),
            Some(json!({"answer": true, "params": {"a": "2"}})),
            "invalid_field",
            "params.a",
        ),
    ];
    for (url, envelope, code, field) in refused {
        let refused = match &envelope {
            Some(envelope) => post_envelope(&server, &url, envelope).await,
            None => post_json(&server, &url, &json!({"signed": true})).await,
        };
        let case = format!("{url:.80}");
        assert_refused(&refused, StatusCode::BAD_REQUEST, code, &case);
        let body = &refused.1;
        if !field.is_empty() {
            assert!(
                body["error"]["field"]
                    .as_str()
                    .is_some_and(|f| f.starts_with(field)),
                "{body}"
            );
        }
    }
    assert_eq!(status_of(&server, &id).await, "pending", "nothing recorded");
    // Just under the cap is accepted.
    let under = json!({"answer": true, "params": {"blob": "x".repeat(max - 20)}});
    assert_eq!(
        post_envelope(&server, &door, &under).await.0,
        StatusCode::OK
    );
    server.shutdown().await;
}

#[tokio::test]
async fn callback_params_are_opaque_text_never_reflected_into_a_page() {
    let (server, _dir) = common::start().await;
    let hostile = r#"<script>alert("x")</script><img src=x onerror=alert(1)>"#;
    let (id, door) = external_door(
        &server,
        json!({"schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}),
    )
    .await;
    // The byte-constant "Answer received" page of a form submission without params…
    let (_, other) = external_door(
        &server,
        json!({"schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}),
    )
    .await;
    let plain = post_form(&server, &other, "ok=true")
        .await
        .bytes()
        .await
        .unwrap();
    // …is byte for byte the page of one whose params carry markup.
    let encoded: String = url::form_urlencoded::byte_serialize(hostile.as_bytes()).collect();
    let resp = post_form(&server, &format!("{door}?params.note={encoded}"), "ok=true").await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(resp.bytes().await.unwrap(), plain);
    // Stored and returned as the same text, as JSON, not as markup and not mangled.
    let ia = waited(&server, &id).await;
    assert_eq!(ia["answer"]["params"]["note"], hostile);
    let raw = server
        .request(
            Method::GET,
            &format!("/api/interactions/{id}"),
            Some(common::REVIEWER),
        )
        .send()
        .await
        .unwrap();
    assert!(
        raw.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    server.shutdown().await;
}

/// The headers every callback page carries, for each page the door serves: the confirm page,
/// the schema form and the page after a form's POST. No script, no framing, no cache, no
/// referrer, no sniffing.
#[tokio::test]
async fn every_callback_page_forbids_script_framing_caching_and_referrers() {
    let (server, _dir) = common::start().await;
    let plain = ask_external(&server, json!({})).await;
    let schema = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
    let form = ask_external(&server, json!({"schema": schema})).await;
    let confirm = common::callback::get(&server, &door_of(&plain)).await;
    let drawn = common::callback::get(&server, &door_of(&form)).await;
    let posted = post_form(&server, &door_of(&form), "ok=true").await;
    for (page, resp) in [
        ("confirm", confirm),
        ("form", drawn),
        ("after POST", posted),
    ] {
        assert_eq!(resp.status(), StatusCode::OK, "{page}");
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .unwrap_or_else(|| panic!("{page}: no {name}"))
                .to_str()
                .unwrap()
                .to_owned()
        };
        assert_eq!(header("content-type"), "text/html; charset=utf-8", "{page}");
        let csp: Vec<String> = header("content-security-policy")
            .split(';')
            .map(|d| d.trim().to_owned())
            .collect();
        for directive in [
            "default-src 'none'",
            "frame-ancestors 'none'",
            "form-action 'self'",
            "base-uri 'none'",
        ] {
            assert!(csp.iter().any(|d| d == directive), "{page}: {csp:?}");
        }
        assert!(
            !csp.iter().any(|d| d.starts_with("script-src")),
            "{page}: a script source is allowed: {csp:?}"
        );
        assert_eq!(header("x-frame-options"), "DENY", "{page}");
        assert_eq!(header("cache-control"), "no-store", "{page}");
        assert_eq!(header("referrer-policy"), "no-referrer", "{page}");
        assert_eq!(header("x-content-type-options"), "nosniff", "{page}");
    }
    server.shutdown().await;
}
