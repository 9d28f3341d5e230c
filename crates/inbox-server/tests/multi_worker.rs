//! Several real server workers (`inbox_server::start`, each on its own port) sharing one
//! Redis: what one worker does, every other worker's clients see; a worker can die without
//! losing anything; a Redis restart makes the workers unready and then ready again.
//!
//! Needs `INBOX_TEST_REDIS_URL` (see `redis_env`). The restart test starts and kills its own
//! redis-server, so it never disturbs the shared one the other tests use.

mod common;
mod redis_env;

use std::collections::BTreeSet;
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{ASKER, Frame, REVIEWER, Sse, TestServer};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// `n` workers on one Redis key space of their own.
async fn workers(test: &str, n: usize) -> Option<(Vec<TestServer>, tempfile::TempDir)> {
    let (url, prefix) = redis_env::url_and_prefix(test)?;
    Some(workers_on(&url, &prefix, n).await)
}

async fn workers_on(url: &str, prefix: &str, n: usize) -> (Vec<TestServer>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let redis = Some((url.to_owned(), prefix.to_owned()));
    let mut started = Vec::new();
    for _ in 0..n {
        started.push(common::start_on(dir.path(), &redis, |_| {}).await);
    }
    (started, dir)
}

/// Every pending id, read page by page from `worker`: the server's truth.
async fn pending_ids(worker: &TestServer) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    let mut path = "/api/interactions?status=pending&limit=7".to_owned();
    loop {
        let (status, page) = worker.get_json(&path, Some(REVIEWER)).await;
        assert_eq!(status, StatusCode::OK, "{page}");
        for id in common::ids(&page) {
            assert!(ids.insert(id), "duplicate across pages");
        }
        match page["next_cursor"].as_str() {
            Some(cursor) => {
                path = format!("/api/interactions?status=pending&limit=7&cursor={cursor}")
            }
            None => return ids,
        }
    }
}

/// The client's view: `add` puts a card in, `answered`/`removed` take it out.
fn apply(inbox: &mut BTreeSet<String>, frame: &Frame) {
    let id = frame.data["id"].as_str().unwrap().to_owned();
    match frame.event.as_str() {
        "add" => {
            inbox.insert(id);
        }
        "answered" | "removed" => {
            inbox.remove(&id);
        }
        other => panic!("unexpected event {other}: {frame:?}"),
    }
}

fn stream_id(frame: &Frame) -> (u64, u64) {
    let id = frame.id.as_deref().expect("every event frame has an id");
    let (ms, seq) = id.split_once('-').expect("a Redis stream id");
    (ms.parse().unwrap(), seq.parse().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_asked_on_one_worker_reaches_a_stream_on_another() {
    let Some((w, _dir)) = workers("ask_reaches_other_worker", 2).await else {
        return;
    };
    let mut on_a = Sse::connect(&w[0], None).await;
    let id = w[1].ask_confirm("Deploy build 42?").await;
    let frame = on_a.expect_frame().await;
    assert_eq!(frame.event, "add");
    assert_eq!(frame.data["id"], id.as_str());
    assert_eq!(frame.data["prompt"], "Deploy build 42?");
    stream_id(&frame);
    // The answer given on B reaches A too, and B's own stream has both.
    let (status, _) = w[1].answer(&id, json!(true), None).await;
    assert_eq!(status, StatusCode::OK);
    let answered = on_a.expect_frame().await;
    assert_eq!(answered.event, "answered");
    assert_eq!(answered.data["id"], id.as_str());
    assert!(stream_id(&answered) > stream_id(&frame));
    // Both workers read the same truth.
    let (_, on_a_read) = w[0]
        .get_json(&format!("/api/interactions/{id}"), Some(REVIEWER))
        .await;
    assert_eq!(on_a_read["status"], "answered");
}

/// The asker's long-poll `GET path` on `server`, running in the background: its status, body
/// and how long it took.
fn long_poll(
    server: &TestServer,
    path: &str,
) -> tokio::task::JoinHandle<(StatusCode, Value, Duration)> {
    let wait = server.request(Method::GET, path, Some(ASKER)).send();
    tokio::spawn(async move {
        let started = Instant::now();
        let resp = wait.await.unwrap();
        (
            resp.status(),
            resp.json::<Value>().await.unwrap(),
            started.elapsed(),
        )
    })
}

/// What a [`long_poll`] returned once `what` woke it: a `200` within 10 s, not a timeout.
async fn woken(
    waiting: tokio::task::JoinHandle<(StatusCode, Value, Duration)>,
    what: &str,
) -> Value {
    let (status, body, elapsed) = tokio::time::timeout(Duration::from_secs(10), waiting)
        .await
        .unwrap_or_else(|_| panic!("the wait returns soon after {what}"))
        .unwrap();
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(
        elapsed < Duration::from_secs(10),
        "woken, not timed out: {elapsed:?}"
    );
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_on_one_worker_wakes_a_wait_on_another() {
    let Some((w, _dir)) = workers("answer_wakes_wait", 2).await else {
        return;
    };
    let id = w[1].ask_confirm("Ship it?").await;
    let waiting = long_poll(&w[1], &format!("/api/interactions/{id}/wait?timeout_s=30"));
    // The answer arrives elsewhere once the long-poll is listening (observed, not slept for).
    w[1].until_long_polls_waiting(1).await;
    assert!(
        !waiting.is_finished(),
        "the wait returned before the answer"
    );
    let (status, _) = w[0].answer(&id, json!(true), Some("k1")).await;
    assert_eq!(status, StatusCode::OK);
    let body = woken(waiting, "the answer").await;
    assert_eq!(body["status"], "answered");
    assert_eq!(body["answer"]["value"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_resumes_on_another_worker_when_its_worker_stops() {
    let Some((mut w, _dir)) = workers("resume_after_worker_stops", 2).await else {
        return;
    };
    let b = Arc::new(w.pop().unwrap());
    let a = w.pop().unwrap();
    for i in 0..5 {
        b.ask_confirm(&format!("before {i}")).await;
    }

    // Seed from a page on A, then stream from the page's cursor.
    let (_, page) = a
        .get_json("/api/interactions?status=pending&limit=100", Some(REVIEWER))
        .await;
    let mut inbox: BTreeSet<String> = common::ids(&page).into_iter().collect();
    assert_eq!(inbox.len(), 5);
    let mut sse = Sse::connect(&a, page["stream_cursor"].as_str()).await;

    // Traffic through B the whole time: asks, some answered, some withdrawn.
    let traffic = {
        let b = b.clone();
        tokio::spawn(async move {
            for i in 0..30 {
                let id = b.ask_confirm(&format!("during {i}")).await;
                match i % 3 {
                    0 => assert_eq!(b.answer(&id, json!(i % 2 == 0), None).await.0, 200),
                    1 => {
                        let (status, _) = b.withdraw(&id, ASKER).await;
                        assert!(status.is_success(), "{status}");
                    }
                    _ => {}
                }
                tokio::time::sleep(Duration::from_millis(15)).await;
            }
        })
    };

    let mut last: Option<Frame> = None;
    let mut seen = 0;
    while seen < 12 {
        let frame = sse.expect_frame().await;
        if let Some(prev) = &last {
            assert!(stream_id(&frame) > stream_id(prev), "ids only grow");
        }
        apply(&mut inbox, &frame);
        last = Some(frame);
        seen += 1;
    }
    // Worker A goes away mid-stream; whatever it had not sent yet is lost with it.
    a.shutdown().await;
    while let Some(frame) = sse.next_frame(Duration::from_secs(2)).await {
        apply(&mut inbox, &frame);
        last = Some(frame);
    }
    let resume_from = last.as_ref().and_then(|f| f.id.clone()).unwrap();

    // The client reconnects to B with its Last-Event-ID and misses nothing.
    let mut sse = Sse::connect(&b, Some(&resume_from)).await;
    traffic.await.unwrap();
    while let Some(frame) = sse.next_frame(Duration::from_millis(1500)).await {
        assert_ne!(
            frame.event, "reset",
            "a retained id resumes without a reset"
        );
        assert!(
            stream_id(&frame) > stream_id(last.as_ref().unwrap()),
            "no repeats"
        );
        apply(&mut inbox, &frame);
        last = Some(frame);
    }
    let truth = pending_ids(&b).await;
    assert_eq!(truth.len(), 5 + 10, "5 before, 10 of 30 left pending");
    assert_eq!(inbox, truth, "the client's list equals the server's");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reviewers_racing_on_two_workers_get_one_winner() {
    let Some((w, _dir)) = workers("race_across_workers", 3).await else {
        return;
    };
    for round in 0..8 {
        let id = w[2].ask_confirm(&format!("round {round}")).await;
        let ((a_status, a_body), (b_status, b_body)) = tokio::join!(
            w[0].answer(&id, json!(true), Some("key-a")),
            w[1].answer(&id, json!(false), Some("key-b")),
        );
        let mut statuses = [a_status.as_u16(), b_status.as_u16()];
        statuses.sort();
        assert_eq!(statuses, [200, 409], "round {round}: {a_body} / {b_body}");
        let (winner, loser) = if a_status == StatusCode::OK {
            (a_body, b_body)
        } else {
            (b_body, a_body)
        };
        assert_eq!(loser["error"]["code"], "already_answered");
        assert_eq!(
            loser["error"]["interaction"]["answer"], winner["interaction"]["answer"],
            "the 409 carries the winning answer"
        );
        // The winner's retry with its key replays the same 200, on any worker.
        let key = if winner["interaction"]["answer"]["value"] == true {
            "key-a"
        } else {
            "key-b"
        };
        let (status, replay) = w[2]
            .answer(
                &id,
                winner["interaction"]["answer"]["value"].clone(),
                Some(key),
            )
            .await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(replay, winner);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_worker_sweeps_but_each_question_expires_once() {
    let Some((w, _dir)) = workers("expiry_on_every_worker", 3).await else {
        return;
    };
    let mut on_a = Sse::connect(&w[0], None).await;
    let mut ids = BTreeSet::new();
    for (i, worker) in w.iter().enumerate() {
        let ia = worker
            .ask(json!({"prompt": format!("soon {i}"), "answer_format": "text", "timeout_s": 1}))
            .await;
        ids.insert(ia["id"].as_str().unwrap().to_owned());
    }
    let mut added = BTreeSet::new();
    let mut expired = Vec::new();
    // Three sweepers every 100 ms race over the same due questions.
    while let Some(frame) = on_a.next_frame(Duration::from_secs(5)).await {
        let id = frame.data["id"].as_str().unwrap().to_owned();
        match frame.event.as_str() {
            "add" => assert!(added.insert(id)),
            "removed" => {
                assert_eq!(frame.data["reason"], "expired");
                expired.push(id);
            }
            other => panic!("unexpected {other}"),
        }
        if expired.len() == ids.len() {
            break;
        }
    }
    on_a.expect_quiet(Duration::from_millis(800)).await;
    expired.sort();
    assert_eq!(added, ids);
    assert_eq!(
        expired,
        ids.iter().cloned().collect::<Vec<_>>(),
        "each expired exactly once"
    );
    for id in &ids {
        let (_, read) = w[1]
            .get_json(&format!("/api/interactions/{id}"), Some(REVIEWER))
            .await;
        assert_eq!(read["status"], "expired");
    }
}

/// A redis-server this test owns, on a fixed port so it can be restarted in place.
struct OwnRedis {
    port: u16,
    dir: tempfile::TempDir,
    child: Option<Child>,
}

impl OwnRedis {
    async fn start() -> OwnRedis {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut redis = OwnRedis {
            port,
            dir: tempfile::tempdir().unwrap(),
            child: None,
        };
        redis.launch().await;
        redis
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    async fn launch(&mut self) {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(self.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server is installed (it is when INBOX_TEST_REDIS_URL is set)");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not come up");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn status_of(worker: &TestServer, path: &str) -> StatusCode {
    worker
        .request(Method::GET, path, None)
        .timeout(Duration::from_secs(5))
        .send()
        .await
        .unwrap()
        .status()
}

/// Polls `path` on `worker` until it answers `want`.
async fn until_status(worker: &TestServer, path: &str, want: StatusCode, within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        let got = status_of(worker, path).await;
        if got == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{path} stayed {got}, wanted {want}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_become_unready_while_redis_restarts_and_then_serve_again() {
    if redis_env::url("redis_restart").is_none() {
        return;
    }
    let mut redis = OwnRedis::start().await;
    let (w, _dir) = workers_on(&redis.url(), "restart", 2).await;
    for worker in &w {
        assert_eq!(status_of(worker, "/readyz").await, StatusCode::OK);
    }
    let mut on_a = Sse::connect(&w[0], None).await;
    w[1].ask_confirm("before the restart").await;
    assert_eq!(on_a.expect_frame().await.event, "add");

    redis.kill();
    for worker in &w {
        until_status(
            worker,
            "/readyz",
            StatusCode::SERVICE_UNAVAILABLE,
            Duration::from_secs(10),
        )
        .await;
        assert_eq!(status_of(worker, "/healthz").await, StatusCode::OK);
    }
    let (status, body) = w[0].get_json("/api/interactions", Some(REVIEWER)).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["error"]["code"], "unavailable");

    redis.launch().await;
    for worker in &w {
        until_status(worker, "/readyz", StatusCode::OK, Duration::from_secs(20)).await;
    }
    // Serving again. The stream A kept open through the outage first hears that Redis lost
    // what it held (a `reset`: refetch), then an ask made on B.
    let reset = on_a
        .next_frame(Duration::from_secs(10))
        .await
        .expect("a reset after Redis came back empty");
    assert_eq!(reset.event, "reset");
    assert_eq!(reset.data["reason"], "aged_out");
    let id = w[1].ask_confirm("after the restart").await;
    let frame = on_a
        .next_frame(Duration::from_secs(10))
        .await
        .expect("the open stream hears new events after the restart");
    assert_eq!(frame.event, "add");
    assert_eq!(frame.data["id"], id.as_str());
    let wait = w[1]
        .request(
            Method::GET,
            &format!("/api/interactions/{id}/wait?timeout_s=20"),
            Some(ASKER),
        )
        .send();
    let waiting = tokio::spawn(async move { wait.await.unwrap().status() });
    w[1].until_long_polls_waiting(1).await;
    assert!(
        !waiting.is_finished(),
        "the wait returned before the answer"
    );
    assert_eq!(w[0].answer(&id, json!(true), None).await.0, StatusCode::OK);
    assert_eq!(
        tokio::time::timeout(Duration::from_secs(10), waiting)
            .await
            .unwrap()
            .unwrap(),
        StatusCode::OK
    );
    assert_eq!(pending_ids(&w[0]).await, BTreeSet::new());
}

/// A park's long-poll on one worker wakes when the last of its questions is answered on
/// another (the other worker's store made the transition; this one hears the question's event).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_answer_on_one_worker_wakes_a_park_wait_on_another() {
    let Some((w, _dir)) = workers("park_wait_wakes", 2).await else {
        return;
    };
    let expiry = (chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
    let ask = json!({"prompt": "Ship?", "answer_format": "confirm", "mode": "async", "expiry_at": expiry});
    let common::park::Parked { id, questions } = w[1].park(json!({"asks": [ask, ask]})).await;
    let (status, _) = w[0].answer(&questions[0], json!(true), None).await;
    assert_eq!(status, StatusCode::OK);
    let waiting = long_poll(&w[1], &format!("/api/parks/{id}/wait?timeout_s=30"));
    w[1].until_long_polls_waiting(1).await;
    assert!(
        !waiting.is_finished(),
        "the park wait returned before the last answer"
    );
    let (status, _) = w[0].answer(&questions[1], json!(false), None).await;
    assert_eq!(status, StatusCode::OK);
    let body = woken(waiting, "the park's last answer").await;
    assert_eq!(body["park"]["status"], "resolved");
    assert_eq!(body["park"]["resolutions"].as_array().unwrap().len(), 2);
    // And the claim, taken on the other worker, is the one claim.
    let claim = format!("/api/parks/{id}/claim");
    let (first, second) = tokio::join!(
        w[0].as_caller(ASKER).post_empty(&claim),
        w[1].as_caller(ASKER).post_empty(&claim),
    );
    let mut statuses = [first.0, second.0];
    statuses.sort();
    assert_eq!(statuses, [StatusCode::OK, StatusCode::CONFLICT]);
}
