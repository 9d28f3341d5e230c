//! Webhook continuations against a real HTTP receiver on loopback: one signed delivery per
//! park (the signature checked here with an independent HMAC), retries with the same id, a
//! restart between the last answer and the delivery, giving up and redelivering. On SQLite,
//! and on Redis when `INBOX_TEST_REDIS_URL` is set.

mod common;
mod orders;
mod redis_env;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode as AxumStatus};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::Utc;
use common::{ASKER, TestServer};
use hmac::{Hmac, KeyInit, Mac};
use inbox_server::WebhookPolicy;
use orders::every_order;
use redis_env::backends;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sha2::Sha256;

const KEY: &[u8] = b"a test webhook key of 32 bytes!!";

fn secret() -> String {
    format!("whsec_{}", STANDARD.encode(KEY))
}

/// What the receiver saw; how many requests it should still take and never answer while the
/// test lasts (a receiver that hangs), and how many after those it should refuse with a 500.
#[derive(Default)]
struct Receiver {
    seen: Mutex<Vec<(HeaderMap, Bytes)>>,
    hang_next: AtomicU32,
    fail_next: AtomicU32,
}

/// Takes one from `left`, if any are left.
fn take_one(left: &AtomicU32) -> bool {
    left.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
}

async fn receiver() -> (Arc<Receiver>, SocketAddr) {
    let state = Arc::new(Receiver::default());
    let shared = state.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: HeaderMap, body: Bytes| {
            let state = shared.clone();
            async move {
                state.seen.lock().unwrap().push((headers, body));
                if take_one(&state.hang_next) {
                    tokio::time::sleep(Duration::from_secs(600)).await;
                    AxumStatus::NO_CONTENT
                } else if take_one(&state.fail_next) {
                    AxumStatus::INTERNAL_SERVER_ERROR
                } else {
                    AxumStatus::NO_CONTENT
                }
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (state, addr)
}

impl Receiver {
    fn count(&self) -> usize {
        self.seen.lock().unwrap().len()
    }

    async fn until(&self, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(15);
        while self.count() < n {
            assert!(
                Instant::now() < deadline,
                "only {} deliveries arrived",
                self.count()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// A server on `dir` signing with the test key, on Redis when `redis` is set; `policy` sets
/// the delivery policy the test needs.
async fn server_with(
    dir: &std::path::Path,
    redis: &Option<(String, String)>,
    policy: impl FnOnce(&mut WebhookPolicy),
) -> TestServer {
    common::start_on(dir, redis, |c| {
        c.webhook_secret = Some(secret().into());
        policy(&mut c.webhook);
    })
    .await
}

/// Quick retries, given up after `max_attempts`.
async fn server(
    dir: &std::path::Path,
    redis: &Option<(String, String)>,
    max_attempts: u32,
) -> TestServer {
    server_with(dir, redis, |policy| {
        policy.retry_base = Duration::from_millis(50);
        policy.retry_cap = Duration::from_millis(200);
        policy.poll = Duration::from_millis(50);
        policy.max_attempts = max_attempts;
    })
    .await
}

/// A webhook park of two, both answered; returns the park id.
async fn park_and_answer(server: &TestServer, hook: SocketAddr) -> String {
    let expiry = (Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
    let ask = json!({"prompt": "Ship?", "answer_format": "confirm", "mode": "async", "expiry_at": expiry});
    let park = server
        .park(json!({"asks": [ask, ask],
                     "continuation": {"kind": "webhook", "url": format!("http://{hook}/hook")}}))
        .await;
    for ia in &park.questions {
        let (status, _) = server.answer(ia, json!(true), None).await;
        assert_eq!(status, StatusCode::OK);
    }
    park.id
}

/// The signature, checked the way a receiver would: HMAC-SHA256 over "{id}.{ts}.{body}".
fn assert_signed(headers: &HeaderMap, body: &[u8]) {
    let id = headers["webhook-id"].to_str().unwrap();
    let ts = headers["webhook-timestamp"].to_str().unwrap();
    assert!((Utc::now().timestamp() - ts.parse::<i64>().unwrap()).abs() < 60);
    let mut mac = Hmac::<Sha256>::new_from_slice(KEY).unwrap();
    mac.update(format!("{id}.{ts}.").as_bytes());
    mac.update(body);
    let want = format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()));
    assert_eq!(headers["webhook-signature"].to_str().unwrap(), want);
}

async fn park(server: &TestServer, id: &str) -> Value {
    let (status, body) = server
        .get_json(&format!("/api/parks/{id}"), Some(ASKER))
        .await;
    assert_eq!(status, StatusCode::OK);
    body["park"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resolved_park_is_delivered_once_signed_and_retried_with_the_same_id() {
    for (backend, redis) in backends("webhook_once") {
        let dir = tempfile::tempdir().unwrap();
        let server = server(dir.path(), &redis, 8).await;
        let (hook, addr) = receiver().await;
        // First: a receiver that answers 500 twice.
        hook.fail_next.store(2, Ordering::SeqCst);
        let id = park_and_answer(&server, addr).await;
        hook.until(3).await;
        tokio::time::sleep(Duration::from_millis(400)).await;
        let seen = hook.seen.lock().unwrap().clone();
        assert_eq!(
            seen.len(),
            3,
            "{backend:?}: two failures and one success, nothing more"
        );
        let ids: Vec<_> = seen
            .iter()
            .map(|(h, _)| h["webhook-id"].to_str().unwrap().to_owned())
            .collect();
        assert!(
            ids.iter().all(|i| i == &ids[0]),
            "{backend:?}: one id per park: {ids:?}"
        );
        for (headers, body) in &seen {
            assert_signed(headers, body);
            let sent: Value = serde_json::from_slice(body).unwrap();
            assert_eq!(sent["type"], "park.resolved");
            assert_eq!(sent["park"]["id"], id.as_str());
            assert_eq!(sent["park"]["resolutions"].as_array().unwrap().len(), 2);
        }
        let after = park(&server, &id).await;
        assert_eq!(after["status"], "resumed", "{backend:?}");
        assert_eq!(after["attempts"], 3);
        // A webhook park is not claimed.
        let (status, _) = server
            .as_caller(ASKER)
            .post_empty(&format!("/api/parks/{id}/claim"))
            .await;
        assert_eq!(status, StatusCode::CONFLICT);
        server.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receiver_that_hangs_does_not_hold_back_other_resumes() {
    for (backend, redis) in backends("webhook_hanging") {
        let dir = tempfile::tempdir().unwrap();
        let server = server_with(dir.path(), &redis, |policy| {
            policy.poll = Duration::from_millis(50);
            // Long enough that one delivery at a time would hold the second park past the
            // assertion's window.
            policy.timeout = Duration::from_secs(60);
            policy.lease = Duration::from_secs(90);
            policy.concurrency = 4;
        })
        .await;
        // This one takes every request and never answers.
        let (hung, hung_addr) = receiver().await;
        hung.hang_next.store(u32::MAX, Ordering::SeqCst);
        let (hook, addr) = receiver().await;
        park_and_answer(&server, hung_addr).await;
        let deadline = Instant::now() + Duration::from_secs(10);
        while hung.count() == 0 {
            assert!(
                Instant::now() < deadline,
                "{backend:?}: the first delivery never started"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let started = Instant::now();
        let id = park_and_answer(&server, addr).await;
        while hook.count() == 0 {
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "{backend:?}: the second park waited behind the hanging receiver"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let seen = hook.seen.lock().unwrap().clone();
        let sent: Value = serde_json::from_slice(&seen[0].1).unwrap();
        assert_eq!(sent["park"]["id"], id.as_str(), "{backend:?}");
        assert_eq!(
            hung.count(),
            1,
            "{backend:?}: the hanging one is not re-sent"
        );
        server.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_between_the_last_answer_and_delivery_still_delivers() {
    for (backend, redis) in backends("webhook_restart") {
        let dir = tempfile::tempdir().unwrap();
        let (hook, addr) = receiver().await;
        hook.fail_next.store(u32::MAX, Ordering::SeqCst);
        let first = server(dir.path(), &redis, 1000).await;
        let id = park_and_answer(&first, addr).await;
        hook.until(1).await;
        first.shutdown().await;
        let failed_id = hook.seen.lock().unwrap()[0].0["webhook-id"].clone();
        // The receiver recovers while the server is down; the new server delivers.
        hook.fail_next.store(0, Ordering::SeqCst);
        let before = hook.count();
        let second = server(dir.path(), &redis, 1000).await;
        let deadline = Instant::now() + Duration::from_secs(15);
        while park(&second, &id).await["status"] != "resumed" {
            assert!(
                Instant::now() < deadline,
                "{backend:?}: not delivered after the restart"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let seen = hook.seen.lock().unwrap().clone();
        assert!(seen.len() > before, "{backend:?}");
        for (headers, body) in &seen {
            assert_eq!(
                headers["webhook-id"], failed_id,
                "{backend:?}: the same id throughout"
            );
            assert_signed(headers, body);
        }
        second.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delivery_that_keeps_failing_is_failed_and_can_be_redelivered() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path(), &None, 2).await;
    let (hook, addr) = receiver().await;
    hook.fail_next.store(2, Ordering::SeqCst);
    let id = park_and_answer(&server, addr).await;
    let deadline = Instant::now() + Duration::from_secs(15);
    while park(&server, &id).await["status"] != "failed" {
        assert!(Instant::now() < deadline, "never failed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let failed = park(&server, &id).await;
    assert_eq!(failed["attempts"], 2);
    assert_eq!(failed["last_error"], "the receiver answered 500");
    let redeliver = format!("/api/parks/{id}/redeliver");
    let asker = server.as_caller(ASKER);
    let (status, _) = server
        .as_caller(common::OTHER_ASKER)
        .post_empty(&redeliver)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "not another asker's");
    let (status, _) = asker.post_empty(&redeliver).await;
    assert_eq!(status, StatusCode::OK);
    let deadline = Instant::now() + Duration::from_secs(15);
    while park(&server, &id).await["status"] != "resumed" {
        assert!(Instant::now() < deadline, "never redelivered");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(hook.count(), 3);
    let (status, _) = asker.post_empty(&redeliver).await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "a delivered park is not redelivered"
    );
    server.shutdown().await;
}

/// Redis, two workers: the worker holding a delivery's lease stops making progress
/// mid-delivery (its POST hangs, as a worker that died would leave it); when the lease runs
/// out the other worker delivers it, with the same id, and the stuck one can change nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_worker_takes_over_a_delivery_whose_lease_ran_out() {
    let Some(space) = redis_env::url_and_prefix("webhook_takeover") else {
        return;
    };
    // A receiver whose first request never gets an answer; later ones get 204.
    let (hook, addr) = receiver().await;
    hook.hang_next.store(1, Ordering::SeqCst);

    let redis = Some(space);
    let worker = |dir: std::path::PathBuf, poll: Duration| {
        let redis = redis.clone();
        async move {
            server_with(&dir, &redis, |policy| {
                policy.lease = Duration::from_secs(1);
                policy.timeout = Duration::from_secs(300);
                policy.poll = poll;
            })
            .await
        }
    };
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = worker(dir_a.path().to_owned(), Duration::from_millis(20)).await;
    // Only A runs while the park resolves, so A is the one that leases the delivery; B joins
    // once A's attempt is stuck.
    let id = park_and_answer(&a, addr).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while hook.count() == 0 {
        assert!(Instant::now() < deadline, "A never attempted the delivery");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let b = worker(dir_b.path().to_owned(), Duration::from_millis(50)).await;
    let deadline = Instant::now() + Duration::from_secs(15);
    while park(&b, &id).await["status"] != "resumed" {
        assert!(Instant::now() < deadline, "B never took the delivery over");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let seen = hook.seen.lock().unwrap().clone();
    assert_eq!(
        seen.len(),
        2,
        "the stuck attempt and the one that delivered"
    );
    assert_eq!(
        seen[0].0["webhook-id"], seen[1].0["webhook-id"],
        "never a second id"
    );
    assert_eq!(
        park(&a, &id).await["attempts"],
        1,
        "only B's attempt was recorded"
    );
    // A is left stuck in its POST; the runtime ends it with the test.
    drop(a);
    b.shutdown().await;
}

/// How one question of the every-order park is settled.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Surface {
    /// A reviewer's answer through the answer door (what the window's engine and `inbox
    /// answer` both use).
    Door,
    /// The external site, through the callback door.
    Callback,
    /// Nobody: its deadline passes and the sweeper expires it.
    Expiry,
}

/// A park of three — a confirm answered at the door, an external question answered through the
/// callback door, and a confirm left to expire — settled in each of the six orders, on both
/// stores: the receiver gets exactly one resume per park, only after the last, carrying all
/// three in the order asked (the expired one with the marker).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_park_of_three_resumes_once_in_every_order_of_door_callback_and_expiry() {
    use Surface::{Callback, Door, Expiry};
    let orders = every_order([Door, Callback, Expiry]);
    assert_eq!(orders.len(), 6, "{orders:?}");
    for (backend, redis) in backends("webhook_every_order") {
        let dir = tempfile::tempdir().unwrap();
        let server = Arc::new(server(dir.path(), &redis, 8).await);
        let (hook, addr) = receiver().await;
        let mut runs = Vec::new();
        for &order in &orders {
            let (server, hook) = (server.clone(), hook.clone());
            runs.push(tokio::spawn(async move {
                settle_in_order(&server, &hook, addr, order).await
            }));
        }
        let mut parks = Vec::new();
        for run in runs {
            parks.push(run.await.unwrap());
        }
        hook.until(orders.len()).await;
        // Longer than the dispatcher's poll and backoff: a second delivery would show now.
        tokio::time::sleep(Duration::from_millis(600)).await;
        let seen = hook.seen.lock().unwrap().clone();
        assert_eq!(seen.len(), orders.len(), "{backend:?}: one resume per park");
        for (id, ias) in &parks {
            let mine: Vec<_> = seen
                .iter()
                .filter(|(_, body)| {
                    serde_json::from_slice::<Value>(body).unwrap()["park"]["id"] == id.as_str()
                })
                .collect();
            assert_eq!(mine.len(), 1, "{backend:?}: {id} resumed exactly once");
            let (headers, body) = mine[0];
            assert_signed(headers, body);
            let sent: Value = serde_json::from_slice(body).unwrap();
            assert_eq!(
                sent["park"]["resolutions"],
                json!([
                    {"interaction_id": ias[0], "status": "answered", "value": true, "answered_by": "alice"},
                    {"interaction_id": ias[1], "status": "answered", "value": {"signed": true}, "answered_by": "callback"},
                    {"interaction_id": ias[2], "status": "expired", "expired": true},
                ]),
                "{backend:?}: {id}"
            );
            assert_eq!(park(&server, id).await["status"], "resumed");
        }
        Arc::into_inner(server).unwrap().shutdown().await;
    }
}

/// Park the three questions and settle them in `order`, checking before the last step that
/// nothing was resumed; returns the park id and its question ids.
async fn settle_in_order(
    server: &TestServer,
    hook: &Receiver,
    addr: SocketAddr,
    order: [Surface; 3],
) -> (String, Vec<String>) {
    let later = (Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
    // Far enough ahead for the steps before it; the steps after it wait for the sweeper.
    let soon = (Utc::now() + chrono::Duration::seconds(3)).to_rfc3339();
    let created = server
        .park(json!({
            "asks": [
                {"prompt": "Door?", "answer_format": "confirm", "mode": "async", "expiry_at": later},
                {"prompt": "Sign", "answer_format": "external", "mode": "async", "expiry_at": later,
                 "link": "https://sign.example.com/doc?cb={callback_url}"},
                {"prompt": "Expire?", "answer_format": "confirm", "mode": "async", "expiry_at": soon},
            ],
            "continuation": {"kind": "webhook", "url": format!("http://{addr}/hook")},
        }))
        .await;
    let (id, ias) = (created.id, created.questions);
    let delivered = |hook: &Receiver, id: &str| {
        hook.seen
            .lock()
            .unwrap()
            .iter()
            .any(|(_, body)| serde_json::from_slice::<Value>(body).unwrap()["park"]["id"] == id)
    };
    for (n, step) in order.iter().enumerate() {
        let parked = park(server, &id).await;
        assert_eq!(parked["status"], "parked", "{order:?} after {n}");
        assert_eq!(parked["resolutions"].as_array().unwrap().len(), n);
        assert!(
            !delivered(hook, &id),
            "{order:?}: no resume on a partial set"
        );
        match step {
            Surface::Door => {
                let (status, _) = server.answer(&ias[0], json!(true), None).await;
                assert_eq!(status, StatusCode::OK, "{order:?}");
            }
            Surface::Callback => {
                let (_, external) = server
                    .get_json(
                        &format!("/api/interactions/{}", ias[1]),
                        Some(common::REVIEWER),
                    )
                    .await;
                let link = external["link"].as_str().unwrap();
                let door = &link[link.find("/api/interactions/callback/").unwrap()..];
                let resp = server
                    .request(Method::POST, door, None)
                    .json(&json!({"signed": true}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(resp.status(), StatusCode::OK, "{order:?}");
            }
            Surface::Expiry => {
                let deadline = Instant::now() + Duration::from_secs(10);
                loop {
                    let (_, ia) = server
                        .get_json(
                            &format!("/api/interactions/{}", ias[2]),
                            Some(common::REVIEWER),
                        )
                        .await;
                    if ia["status"] == "expired" {
                        break;
                    }
                    assert!(Instant::now() < deadline, "{order:?}: never expired");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }
    (id, ias)
}
