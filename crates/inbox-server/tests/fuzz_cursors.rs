//! Property fuzzing of every cursor and query parameter a door parses, over real HTTP on
//! 127.0.0.1:0: the list's `status` / `limit` / `cursor`, the stream's `Last-Event-ID` (header
//! and `?last_event_id=`), and the long-polls' `timeout_s`. Against the SQLite store always,
//! and the Redis store too when `INBOX_TEST_REDIS_URL` is set. The properties: never a 5xx,
//! every refusal a 400 naming the parameter, and a cursor the server issued always works.
//!
//! `INBOX_PROPTEST_CASES=N` runs N cases per property instead of the bounded CI count.

mod common;
mod redis_env;

use std::sync::OnceLock;

use common::caller::json_reply;
use common::{ASKER, REVIEWER, TestServer};
use inbox_protocol::test_support::proptest_config;
use proptest::prelude::*;
use reqwest::{Method, StatusCode};
use serde_json::Value;

fn config(default_cases: u32) -> ProptestConfig {
    let base = proptest_config(default_cases);
    ProptestConfig {
        // The wait property skips positive timeouts (they would hold the test), about one
        // input in ten: proptest's default of 1,024 skips ended long runs early, not the
        // property. Allow as many skips as cases.
        max_global_rejects: base.cases.max(1024),
        ..base
    }
}

/// One runtime and one set of servers for every case: starting a server per case would make
/// the fuzzing about start-up time.
struct World {
    runtime: tokio::runtime::Runtime,
    servers: Vec<(&'static str, TestServer)>,
    /// Ids of questions asked in the fixture, so `wait` has something real to poll too.
    question: String,
    _dirs: Vec<tempfile::TempDir>,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let (servers, dirs, question) = runtime.block_on(async {
            let mut servers = Vec::new();
            let mut dirs = Vec::new();
            let dir = tempfile::tempdir().unwrap();
            servers.push(("sqlite", common::start_in(dir.path(), |_| {}).await));
            dirs.push(dir);
            if let Some(space) = redis_env::url_and_prefix("fuzz_cursors") {
                let dir = tempfile::tempdir().unwrap();
                let server = common::start_on(dir.path(), &Some(space), |_| {}).await;
                servers.push(("redis", server));
                dirs.push(dir);
            }
            let mut question = String::new();
            for (_, server) in &servers {
                for i in 0..30 {
                    question = server.ask_confirm(&format!("fuzz {i}")).await;
                }
            }
            (servers, dirs, question)
        });
        World {
            runtime,
            servers,
            question,
            _dirs: dirs,
        }
    })
}

/// Parameter values: well-formed ones, near misses, and junk.
fn param() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => ".{0,16}",
        1 => (0u64..u64::MAX).prop_map(|n| n.to_string()),
        1 => (0i64..1_000).prop_map(|n| format!("r{n}")),
        1 => any::<i64>().prop_map(|n| format!("r{n}")),
        1 => Just("r".to_owned()),
        1 => Just("r99999999999999999999999".to_owned()),
        1 => Just("1700000000000-3".to_owned()),
        1 => Just("0-0".to_owned()),
        1 => Just("-".to_owned()),
        1 => Just("+".to_owned()),
        1 => Just("18446744073709551615-18446744073709551615".to_owned()),
        1 => Just("99999999999999999999-1".to_owned()),
        1 => Just("(5".to_owned()),
        1 => Just("pending".to_owned()),
        1 => Just("all".to_owned()),
        1 => (0usize..600).prop_map(|n| n.to_string()),
        1 => (0usize..3000).prop_map(|n| "9".repeat(n)),
    ]
}

fn encode(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

/// A response that is a success or a `400` naming one of `fields`, and never a 5xx.
fn judge(
    what: &str,
    status: StatusCode,
    body: &Value,
    fields: &[&str],
) -> Result<(), TestCaseError> {
    prop_assert!(!status.is_server_error(), "{what}: {status} {body}");
    if status.is_client_error() {
        prop_assert_eq!(status, StatusCode::BAD_REQUEST, "{}: {}", what, body);
        let field = body["error"]["field"].as_str().unwrap_or("");
        prop_assert!(fields.contains(&field), "{what}: names `{field}`: {body}");
    } else {
        prop_assert!(status.is_success(), "{what}: {status}");
    }
    Ok(())
}

async fn get(
    server: &TestServer,
    path: &str,
    token: &str,
    header: Option<&str>,
) -> (StatusCode, Value) {
    let mut req = server.request(Method::GET, path, Some(token));
    if let Some(id) = header {
        req = req.header("Last-Event-ID", id);
    }
    // An accepted stream stays open: the head is the verdict, the body is not read.
    json_reply(req.send().await.unwrap()).await
}

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn any_list_query_is_served_or_refused_naming_its_parameter(
        status in prop::option::of(param()),
        limit in prop::option::of(param()),
        cursor in prop::option::of(param()),
    ) {
        let w = world();
        let mut query = Vec::new();
        if let Some(s) = &status { query.push(format!("status={}", encode(s))); }
        if let Some(l) = &limit { query.push(format!("limit={}", encode(l))); }
        if let Some(c) = &cursor { query.push(format!("cursor={}", encode(c))); }
        let path = format!("/api/interactions?{}", query.join("&"));
        for (store, server) in &w.servers {
            let (code, body) = w.runtime.block_on(get(server, &path, REVIEWER, None));
            judge(&format!("{store} {path}"), code, &body, &["status", "limit", "cursor"])?;
            // A cursor the server hands out always leads to the next page.
            if let Some(next) = body["next_cursor"].as_str() {
                let again = format!("/api/interactions?cursor={}", encode(next));
                let (code, body) = w.runtime.block_on(get(server, &again, REVIEWER, None));
                prop_assert_eq!(code, StatusCode::OK, "{} {}: {}", store, again, body);
            }
        }
    }

    #[test]
    fn any_last_event_id_resumes_or_resets_or_is_refused_naming_it(
        id in param(),
        in_header in any::<bool>(),
    ) {
        let w = world();
        for (store, server) in &w.servers {
            let (code, body) = if in_header {
                // Header values must be visible ASCII; others cannot be sent at all.
                if !id.bytes().all(|b| (0x20..0x7f).contains(&b)) { continue; }
                w.runtime.block_on(get(server, "/api/interactions/stream", REVIEWER, Some(&id)))
            } else {
                let path = format!("/api/interactions/stream?last_event_id={}", encode(&id));
                w.runtime.block_on(get(server, &path, REVIEWER, None))
            };
            judge(&format!("{store} Last-Event-ID {id:?}"), code, &body, &["last_event_id"])?;
        }
    }

    #[test]
    fn any_wait_timeout_is_served_or_refused_naming_it(timeout in param()) {
        let w = world();
        // Long enough values would hold the test: only the ones that parse to 0 or fail.
        let holds = timeout.parse::<u64>().is_ok_and(|n| n > 0);
        prop_assume!(!holds);
        for (store, server) in &w.servers {
            let path = format!("/api/interactions/{}/wait?timeout_s={}", w.question, encode(&timeout));
            let (code, body) = w.runtime.block_on(get(server, &path, ASKER, None));
            // The fixture's question lives on one server; on the other it is a plain 404.
            if code == StatusCode::NOT_FOUND { continue; }
            judge(&format!("{store} {path}"), code, &body, &["timeout_s"])?;
        }
    }
}
