//! The auth matrix: every door the router serves × every way a caller can be wrong about who it
//! is (no token, a malformed `Authorization` header, an unknown token, the wrong role, another
//! asker's resource) → the documented `401` / `403` / `404` with the contract's error body, and
//! the right caller gets through. The door list is read from the router's own source, so a door
//! added without a row here fails [`every_door_has_a_row`]. Real server on 127.0.0.1:0.
//!
//! The same run captures every log line the server writes (all levels) and fails if any token,
//! any answer payload or any callback ticket appears in one.

mod common;

use std::collections::BTreeSet;
use std::sync::{Mutex, Once};

use base64::Engine;
use chrono::Utc;
use common::caller::json_reply;
use common::{ADMIN, ASKER, OTHER_ASKER, REVIEWER, TestServer};
use inbox_protocol::paths;
use inbox_server::{Door, PublicDoors};
use reqwest::header::{AUTHORIZATION, HeaderValue};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// Who a door lets in, as documented in docs/api.md and docs/security.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    /// Reviewer or admin; an asker gets `403`.
    Reviewer,
    /// Asker or admin; a reviewer gets `403`.
    Asker,
    /// The asker that owns the resource (or an admin); a reviewer gets `403`, another asker `404`.
    OwnerAsker,
    /// Any reviewer, or the asker that owns it; another asker gets `404`.
    ReviewerOrOwner,
    /// Any valid token, any role; what it sees is scoped by role (the stream: an asker hears
    /// only its own notifications' `submitted`).
    AnyRole,
    /// Public when configuration lists the door; otherwise any valid token, any role.
    Gated(Door),
}

/// What the `{id}` / `{ticket}` of a door's path is filled with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    None,
    /// A fresh pending interaction asked by `ASKER`.
    Interaction,
    /// A fresh park of one asked by `ASKER`.
    Park,
    /// A fresh notification with a one-field form, sent by `ASKER`.
    Notification,
    /// An id nobody issued (media, callback tickets): the door's own `404` is fine, what
    /// matters is whether auth let the request reach it.
    Junk,
}

struct Row {
    method: &'static str,
    /// The route template as the router serves it (a `paths::` constant read as its value).
    template: &'static str,
    access: Access,
    target: Target,
    /// Query string for the allowed call (long-polls must not hold the test).
    query: &'static str,
    /// Body for the allowed call.
    body: fn() -> Option<Value>,
}

/// One row; the allowed call has no query string unless [`Row::query`] gives one.
const fn row(
    method: &'static str,
    template: &'static str,
    access: Access,
    target: Target,
    body: fn() -> Option<Value>,
) -> Row {
    Row {
        method,
        template,
        access,
        target,
        query: "",
        body,
    }
}

impl Row {
    const fn query(self, query: &'static str) -> Row {
        Row { query, ..self }
    }
}

/// A distinctive answer payload: it must never reach a log line.
const ANSWER_PAYLOAD: &str = "matrix-answer-payload-5b1e9c";

fn no_body() -> Option<Value> {
    None
}

fn ask_body() -> Option<Value> {
    Some(json!({"prompt": "matrix ask", "answer_format": "text"}))
}

fn answer_body() -> Option<Value> {
    Some(json!({"answer": ANSWER_PAYLOAD}))
}

fn decline_body() -> Option<Value> {
    Some(json!({"reason": "matrix decline"}))
}

fn notification_body() -> Option<Value> {
    Some(json!({
        "prompt": "matrix notice",
        "schema": {"type": "object", "properties": {"note": {"type": "string"}}},
    }))
}

fn submit_body() -> Option<Value> {
    Some(json!({"value": {"note": ANSWER_PAYLOAD}}))
}

fn park_body() -> Option<Value> {
    Some(json!({"asks": [async_ask()]}))
}

fn async_ask() -> Value {
    json!({
        "prompt": "matrix park",
        "answer_format": "text",
        "mode": "async",
        "expiry_at": (Utc::now() + chrono::Duration::hours(1)).to_rfc3339(),
    })
}

use Access as A;
use Target as T;

#[rustfmt::skip] // one door a line: the table reads as the matrix it is
const ROWS: &[Row] = &[
    row("GET", "/api/interactions", A::Reviewer, T::None, no_body),
    row("POST", "/api/interactions", A::Asker, T::None, ask_body),
    row("GET", "/api/interactions/stream", A::AnyRole, T::None, no_body),
    row("GET", "/api/interactions/{id}", A::ReviewerOrOwner, T::Interaction, no_body),
    row("DELETE", "/api/interactions/{id}", A::OwnerAsker, T::Interaction, no_body),
    row("POST", "/api/interactions/{id}/answer", A::Reviewer, T::Interaction, answer_body),
    row("POST", "/api/interactions/{id}/decline", A::Reviewer, T::Interaction, decline_body),
    row("GET", "/api/interactions/{id}/wait", A::OwnerAsker, T::Interaction, no_body)
        .query("timeout_s=0"),
    row("GET", "/api/interactions/media/{id}", A::Gated(Door::Media), T::Junk, no_body),
    row("GET", "/api/interactions/callback/{ticket}", A::Gated(Door::Callback), T::Junk, no_body),
    row("POST", "/api/interactions/callback/{ticket}", A::Gated(Door::Callback), T::Junk,
        answer_body),
    row("GET", "/healthz", A::Gated(Door::Health), T::None, no_body),
    row("GET", "/readyz", A::Gated(Door::Health), T::None, no_body),
    row("POST", "/api/parks", A::Asker, T::None, park_body),
    row("GET", "/api/parks/{id}", A::OwnerAsker, T::Park, no_body),
    row("GET", "/api/parks/{id}/wait", A::OwnerAsker, T::Park, no_body).query("timeout_s=0"),
    row("POST", "/api/parks/{id}/claim", A::OwnerAsker, T::Park, no_body),
    row("POST", "/api/parks/{id}/redeliver", A::OwnerAsker, T::Park, no_body),
    row("GET", "/api/notifications", A::Reviewer, T::None, no_body),
    row("POST", "/api/notifications", A::Asker, T::None, notification_body),
    row("GET", "/api/notifications/{id}", A::ReviewerOrOwner, T::Notification, no_body),
    row("POST", "/api/notifications/{id}/read", A::Reviewer, T::Notification, no_body),
    row("POST", "/api/notifications/{id}/dismiss", A::Reviewer, T::Notification, no_body),
    row("POST", "/api/notifications/{id}/submit", A::Reviewer, T::Notification, submit_body),
    row("GET", "/api/notifications/{id}/submissions", A::ReviewerOrOwner, T::Notification, no_body),
    // AG-UI runs: a run needs a reachable agent to exist, so the `{id}` doors are probed with
    // an id nobody issued; auth (401/403) is checked in full, ownership by the run's own tests.
    row("POST", "/api/agui/runs", A::Asker, T::None, no_body),
    row("GET", "/api/agui/runs/{id}", A::OwnerAsker, T::Junk, no_body),
    row("POST", "/api/agui/runs/{id}/retry", A::OwnerAsker, T::Junk, no_body),
];

// ---- the router's own door list -------------------------------------------------------------

/// `(METHOD, template)` for every `.route(…)` in the router source. Paths given as
/// `paths::NAME` are resolved through the contract's constants.
fn routed_doors() -> BTreeSet<(String, String)> {
    // The router, and the families it merges in (`.merge(family::routes())`), each listing its
    // own doors. A merge this list does not know of fails here rather than hiding its doors.
    let router = include_str!("../src/routes/mod.rs");
    let families = [
        include_str!("../src/routes/park/mod.rs"),
        include_str!("../src/routes/notification/mod.rs"),
    ];
    assert_eq!(
        router.matches(".merge(").count(),
        families.len(),
        "the router merges a family this scan does not read: add its file here"
    );
    let source = [router].into_iter().chain(families).collect::<String>();
    let constants = [
        ("paths::INTERACTIONS", paths::INTERACTIONS),
        ("paths::STREAM", paths::STREAM),
        ("paths::PARKS", paths::PARKS),
        ("paths::HEALTHZ", paths::HEALTHZ),
        ("paths::READYZ", paths::READYZ),
        ("paths::AGUI_RUNS", paths::AGUI_RUNS),
        ("paths::NOTIFICATIONS", paths::NOTIFICATIONS),
    ];
    let mut doors = BTreeSet::new();
    let mut rest = source.as_str();
    while let Some(at) = rest.find(".route(") {
        let args = balanced(&rest[at + ".route(".len()..]);
        rest = &rest[at + ".route(".len() + args.len()..];
        let (path, handlers) = args.split_once(',').expect("route(path, handlers)");
        let path = path.trim();
        let template = if let Some(literal) = path.strip_prefix('"') {
            literal.trim_end_matches('"').to_owned()
        } else {
            constants
                .iter()
                .find(|(name, _)| *name == path)
                .unwrap_or_else(|| panic!("unknown path constant {path}: add it to this test"))
                .1
                .to_owned()
        };
        for method in top_level_calls(handlers) {
            let method = match method.as_str() {
                "get" | "post" | "delete" | "put" | "patch" => method.to_uppercase(),
                _ => continue, // route_layer(...) and friends
            };
            doors.insert((method, template.clone()));
        }
    }
    doors
}

/// The text up to (not including) the `)` closing an already-opened `(`.
fn balanced(text: &str) -> &str {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return &text[..i],
            ')' => depth -= 1,
            _ => {}
        }
    }
    panic!("unbalanced route(...) in the router source")
}

/// Names of the calls at nesting depth 0: `get(a).post(b).route_layer(c)` → get, post, route_layer.
fn top_level_calls(text: &str) -> Vec<String> {
    let mut calls = Vec::new();
    let mut depth = 0usize;
    let mut name = String::new();
    for c in text.chars() {
        match c {
            '(' => {
                if depth == 0 {
                    calls.push(std::mem::take(&mut name));
                }
                depth += 1;
            }
            ')' => depth -= 1,
            c if depth == 0 && (c.is_alphanumeric() || c == '_') => name.push(c),
            _ if depth == 0 => name.clear(),
            _ => {}
        }
    }
    calls
}

#[test]
fn every_door_has_a_row() {
    let routed = routed_doors();
    let rows: BTreeSet<(String, String)> = ROWS
        .iter()
        .map(|r| (r.method.to_owned(), r.template.to_owned()))
        .collect();
    assert!(
        routed.len() >= 18,
        "the router scan found too few doors: {routed:?}"
    );
    let missing: Vec<_> = routed.difference(&rows).collect();
    let stale: Vec<_> = rows.difference(&routed).collect();
    assert!(
        missing.is_empty(),
        "doors without an auth-matrix row: {missing:?}"
    );
    assert!(
        stale.is_empty(),
        "rows for doors the router no longer has: {stale:?}"
    );
}

#[test]
fn the_router_scan_sees_methods_and_skips_layers() {
    assert_eq!(
        top_level_calls(" get(a::b).post(c(d)).route_layer(gate(Door::X))"),
        vec!["get", "post", "route_layer"]
    );
}

// ---- the calls ------------------------------------------------------------------------------

/// A header a caller can send instead of a valid token.
enum BadAuth {
    Missing,
    Raw(&'static str, Vec<u8>),
}

fn bad_auths() -> Vec<BadAuth> {
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("alice:{REVIEWER}"));
    vec![
        BadAuth::Missing,
        BadAuth::Raw("scheme only", b"Bearer".to_vec()),
        BadAuth::Raw("empty token", b"Bearer ".to_vec()),
        BadAuth::Raw("basic scheme", format!("Basic {basic}").into_bytes()),
        BadAuth::Raw("no scheme", REVIEWER.as_bytes().to_vec()),
        BadAuth::Raw("other scheme", format!("Token {REVIEWER}").into_bytes()),
        BadAuth::Raw("tab separator", format!("Bearer\t{REVIEWER}").into_bytes()),
        BadAuth::Raw("non-utf8 bytes", b"Bearer \xff\xfe\xfd".to_vec()),
        BadAuth::Raw("unknown token", b"Bearer not-a-configured-token".to_vec()),
        BadAuth::Raw(
            "token prefix",
            format!("Bearer {}", &ASKER[..ASKER.len() - 1]).into_bytes(),
        ),
        BadAuth::Raw("token with suffix", format!("Bearer {ADMIN}0").into_bytes()),
        BadAuth::Raw(
            "two tokens",
            format!("Bearer {REVIEWER},{ASKER}").into_bytes(),
        ),
    ]
}

impl BadAuth {
    fn name(&self) -> &'static str {
        match self {
            BadAuth::Missing => "no Authorization",
            BadAuth::Raw(name, _) => name,
        }
    }
}

struct Fixtures {
    /// `ASKER`'s question per row that needs one.
    interaction: String,
    park: String,
    notification: String,
}

async fn fresh(server: &TestServer, target: Target) -> Fixtures {
    let mut f = Fixtures {
        interaction: String::new(),
        park: String::new(),
        notification: String::new(),
    };
    match target {
        Target::Interaction => {
            f.interaction = server
                .ask(json!({"prompt": "matrix target", "answer_format": "text"}))
                .await["id"]
                .as_str()
                .unwrap()
                .to_owned();
        }
        Target::Park => f.park = server.park(park_body().unwrap()).await.id,
        Target::Notification => {
            let (status, body) = server
                .as_caller(ASKER)
                .post(paths::NOTIFICATIONS, notification_body().unwrap())
                .await;
            assert_eq!(status, StatusCode::CREATED, "{body}");
            f.notification = body["id"].as_str().unwrap().to_owned();
        }
        Target::None | Target::Junk => {}
    }
    f
}

fn concrete(row: &Row, f: &Fixtures, with_query: bool) -> String {
    let mut path = row.template.replace("{ticket}", "tkt_unknown_matrix_0000");
    path = match row.target {
        Target::Interaction => path.replace("{id}", &f.interaction),
        Target::Park => path.replace("{id}", &f.park),
        Target::Notification => path.replace("{id}", &f.notification),
        _ => path.replace("{id}", "ia_unknown_matrix_0000"),
    };
    if with_query && !row.query.is_empty() {
        path = format!("{path}?{}", row.query);
    }
    path
}

/// Sends one call; `auth` is the raw `Authorization` value, if any. Returns status and body
/// (`Null` when the body is not JSON, e.g. the SSE stream or the callback page).
async fn call(
    server: &TestServer,
    row: &Row,
    path: &str,
    auth: Option<&[u8]>,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let method = Method::from_bytes(row.method.as_bytes()).unwrap();
    let mut req = server.request(method, path, None);
    if let Some(auth) = auth {
        req = req.header(AUTHORIZATION, HeaderValue::from_bytes(auth).unwrap());
    }
    if let Some(body) = body {
        req = req.json(&body);
    }
    json_reply(req.send().await.unwrap()).await
}

/// The contract's error shape with `code`, and no secret echoed back.
fn refusal(
    what: &str,
    status: StatusCode,
    body: &Value,
    want: StatusCode,
    code: &str,
) -> Result<(), String> {
    if status != want {
        return Err(format!("{what}: status {status}, want {want}: {body}"));
    }
    if body["error"]["code"] != code {
        return Err(format!(
            "{what}: code {}, want {code}: {body}",
            body["error"]["code"]
        ));
    }
    if body["error"]["message"].as_str().is_none_or(str::is_empty) {
        return Err(format!("{what}: no message: {body}"));
    }
    let text = body.to_string();
    for secret in [REVIEWER, ASKER, OTHER_ASKER, ADMIN] {
        if text.contains(secret) {
            return Err(format!("{what}: the refusal echoes a token: {body}"));
        }
    }
    Ok(())
}

fn bearer(token: &str) -> Vec<u8> {
    format!("Bearer {token}").into_bytes()
}

/// The state of the row's target, read as the admin, so a refused call can be shown to have
/// changed nothing.
async fn target_state(server: &TestServer, row: &Row, f: &Fixtures) -> Value {
    let path = match row.target {
        Target::Interaction => format!("/api/interactions/{}", f.interaction),
        Target::Park => format!("/api/parks/{}", f.park),
        Target::Notification => format!("/api/notifications/{}", f.notification),
        _ => return Value::Null,
    };
    let (status, body) = server.get_json(&path, Some(ADMIN)).await;
    assert_eq!(status, StatusCode::OK, "{path}: {body}");
    body
}

/// Every case of one row against `server`; returns the failures.
async fn run_row(server: &TestServer, row: &Row, public: &PublicDoors) -> Vec<String> {
    let mut failures = Vec::new();
    let f = fresh(server, row.target).await;
    let path = concrete(row, &f, false);
    let allowed_path = concrete(row, &f, true);
    let label = |case: &str| format!("{} {} [{case}]", row.method, row.template);
    let before = target_state(server, row, &f).await;
    let is_public = matches!(row.access, Access::Gated(door) if public.contains(door));

    for bad in bad_auths() {
        let auth = match &bad {
            BadAuth::Missing => None,
            BadAuth::Raw(_, value) => Some(value.as_slice()),
        };
        let (status, body) = call(server, row, &allowed_path, auth, (row.body)()).await;
        if is_public {
            // A public door ignores the header entirely: never 401/403.
            if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
                failures.push(format!(
                    "{}: public door refused with {status}",
                    label(bad.name())
                ));
            }
        } else if let Err(e) = refusal(
            &label(bad.name()),
            status,
            &body,
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        ) {
            failures.push(e);
        }
    }

    let wrong_role = match row.access {
        Access::Reviewer => Some(ASKER),
        Access::Asker | Access::OwnerAsker => Some(REVIEWER),
        Access::ReviewerOrOwner | Access::AnyRole | Access::Gated(_) => None,
    };
    if let Some(token) = wrong_role {
        let (status, body) = call(server, row, &path, Some(&bearer(token)), (row.body)()).await;
        if let Err(e) = refusal(
            &label("wrong role"),
            status,
            &body,
            StatusCode::FORBIDDEN,
            "forbidden",
        ) {
            failures.push(e);
        }
    }
    if matches!(row.access, Access::OwnerAsker | Access::ReviewerOrOwner) {
        let (status, body) =
            call(server, row, &path, Some(&bearer(OTHER_ASKER)), (row.body)()).await;
        if let Err(e) = refusal(
            &label("another asker's"),
            status,
            &body,
            StatusCode::NOT_FOUND,
            "not_found",
        ) {
            failures.push(e);
        }
    }
    let after = target_state(server, row, &f).await;
    if before != after {
        failures.push(format!(
            "{}: a refused call changed the target: {before} → {after}",
            label("refused")
        ));
    }

    // The right callers get through (read-only doors by every role that may use them; a
    // mutating door once, by its owner, last).
    let allowed: Vec<&str> = match row.access {
        Access::Reviewer => vec![ADMIN, REVIEWER],
        Access::Asker => vec![ADMIN, ASKER],
        Access::OwnerAsker => vec![ADMIN, ASKER],
        Access::ReviewerOrOwner => vec![ADMIN, REVIEWER, ASKER],
        Access::AnyRole | Access::Gated(_) => vec![ADMIN, REVIEWER, ASKER, OTHER_ASKER],
    };
    for token in allowed {
        let (status, body) = call(
            server,
            row,
            &allowed_path,
            Some(&bearer(token)),
            (row.body)(),
        )
        .await;
        let role = match token {
            t if t == ADMIN => "admin",
            t if t == REVIEWER => "reviewer",
            t if t == ASKER => "owner asker",
            _ => "other asker",
        };
        let through = status != StatusCode::UNAUTHORIZED
            && status != StatusCode::FORBIDDEN
            && !(row.target != Target::Junk && status == StatusCode::NOT_FOUND);
        if !through {
            failures.push(format!("{}: refused with {status}: {body}", label(role)));
        }
    }
    failures
}

// ---- log capture ------------------------------------------------------------------------------

/// Every server log line of this test binary, at every level.
fn captured_logs() -> &'static Mutex<Vec<u8>> {
    static LOGS: Mutex<Vec<u8>> = Mutex::new(Vec::new());
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        use tracing_subscriber::fmt::MakeWriter;
        use tracing_subscriber::layer::SubscriberExt;
        let subscriber = tracing_subscriber::registry()
            .with(
                tracing_subscriber::fmt::layer()
                    .with_ansi(false)
                    .with_writer(|| LOGS.make_writer()),
            )
            .with(
                tracing_subscriber::filter::Targets::new()
                    .with_target("inbox_server", tracing::Level::TRACE)
                    .with_target("tower_http", tracing::Level::TRACE),
            );
        tracing::subscriber::set_global_default(subscriber).expect("one subscriber");
    });
    &LOGS
}

async fn matrix(public: PublicDoors) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let configured = public.clone();
    let server = common::start_in(dir.path(), move |c| c.public_doors = configured).await;
    let mut failures = Vec::new();
    for row in ROWS {
        failures.extend(run_row(&server, row, &public).await);
    }
    server.shutdown().await;
    failures
}

#[tokio::test]
async fn every_door_refuses_every_wrong_caller_and_no_secret_reaches_a_log() {
    let logs = captured_logs();
    let mut failures = matrix(PublicDoors::default()).await;
    failures.extend(matrix(PublicDoors::none()).await);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );

    let text = String::from_utf8_lossy(&logs.lock().unwrap()).into_owned();
    assert!(
        text.lines().count() > 100,
        "the capture saw too few log lines to mean anything"
    );
    for secret in [
        REVIEWER,
        ASKER,
        OTHER_ASKER,
        ADMIN,
        ANSWER_PAYLOAD,
        "tkt_unknown_matrix",
    ] {
        let hit = text.lines().find(|l| l.contains(secret));
        assert!(
            hit.is_none(),
            "a log line holds a secret or a payload: {}",
            hit.unwrap()
        );
    }
}
