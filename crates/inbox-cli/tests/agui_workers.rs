//! Two real `inbox serve --redis` processes on one real redis-server and a real AG-UI agent on
//! loopback that holds the first resume open: the worker holding the turn's lease is killed
//! (SIGKILL) mid-request, the other takes the turn over once the lease runs out, and the run
//! finishes once — the park resumed once, the transcript not doubled. The agent may see the
//! killed request's resume twice (api.md: the HTTP request cannot be made exactly-once).
//! The workers use the default key prefix (`serve` has no prefix flag), so give this test a
//! Redis of its own. Needs `INBOX_TEST_REDIS_URL` (skipped with a notice otherwise, failed under `CI=true`).

mod support;

use std::net::SocketAddr;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ag_ui::axum::RouterExt;
use ag_ui::server::{Agent, Result, RunContext};
use ag_ui::{Interrupt, RunOutcome};
use serde_json::{Value, json};
use support::{Serve, Server, redis_url, serve_on_thread};

const ASKER: &str = "asker-secret-for-the-worker-test-0001";
const REVIEWER: &str = "reviewer-secret-for-the-worker-test-01";
/// Short, so the dead worker's lease (this + min(30 s, this)) runs out within the test.
const TURN_TIMEOUT_S: u64 = 4;

/// Asks one question; on a resume says "Resuming.", holds the first resume open (it is cut
/// by the worker's death), and finishes every later one.
struct Holder {
    resumes: Arc<AtomicUsize>,
}

impl Agent for Holder {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<RunOutcome> {
        if ctx.resume_for("go").is_none() {
            ctx.say("May I go?")?;
            return Ok(RunOutcome::interrupt(vec![Interrupt::new(
                "go",
                "tool_approval",
            )]));
        }
        let n = self.resumes.fetch_add(1, Ordering::SeqCst);
        ctx.say("Resuming.")?;
        if n == 0 {
            tokio::time::sleep(Duration::from_secs(60)).await;
        }
        ctx.say("Done.")?;
        Ok(RunOutcome::Success)
    }
}

fn serve_agent(resumes: Arc<AtomicUsize>) -> SocketAddr {
    serve_on_thread(axum::Router::new().route_agui("/agent", Holder { resumes }))
}

/// A worker of the Redis deployment, with the two tokens of this test.
fn start_worker(redis: &str) -> Server {
    Serve::new()
        .args(["--redis", redis])
        .args(["--token", &format!("bot:asker:{ASKER}")])
        .args(["--token", &format!("alice:reviewer:{REVIEWER}")])
        .args(["--agui-turn-timeout-s", &TURN_TIMEOUT_S.to_string()])
        .start()
}

async fn get(http: &reqwest::Client, worker: &Server, path: &str, token: &str) -> Value {
    let resp = http
        .get(format!("{}{path}", worker.url))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    assert!(resp.status().is_success(), "GET {path}: {}", resp.status());
    resp.json().await.unwrap()
}

/// Poll until `done` holds for what `path` returns; panics (the workers die on drop) after `within`.
async fn until(
    http: &reqwest::Client,
    worker: &Server,
    path: &str,
    within: Duration,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + within;
    loop {
        let v = get(http, worker, path, ASKER).await;
        if done(&v) {
            return v;
        }
        assert!(Instant::now() < deadline, "{path} never got there: {v:#}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn texts(run: &Value) -> Vec<String> {
    run["transcript"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["text"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_killed_mid_turn_hands_the_run_to_another_which_finishes_it_once() {
    let Some(redis) = redis_url("agui_workers") else {
        return;
    };
    let resumes = Arc::new(AtomicUsize::new(0));
    let agent = serve_agent(resumes.clone());
    let http = reqwest::Client::new();

    // Only A runs while the resume is leased, so A is the one holding the lease.
    let mut a = start_worker(&redis);
    let resp = http
        .post(format!("{}/api/agui/runs", a.url))
        .bearer_auth(ASKER)
        .json(&json!({
            "agent_url": format!("http://{agent}/agent"),
            "input": {"messages": [{"id": "m1", "role": "user", "content": "go"}]},
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), reqwest::StatusCode::CREATED);
    let id = resp.json::<Value>().await.unwrap()["run"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let run_path = format!("/api/agui/runs/{id}");
    let run = until(&http, &a, &run_path, Duration::from_secs(20), |v| {
        v["run"]["status"] == "interrupted"
    })
    .await;
    let park_id = run["run"]["park_id"].as_str().unwrap().to_owned();
    let park = get(&http, &a, &format!("/api/parks/{park_id}"), ASKER).await;
    let question = park["park"]["interactions"][0].as_str().unwrap().to_owned();
    let resp = http
        .post(format!("{}/api/interactions/{question}/answer", a.url))
        .bearer_auth(REVIEWER)
        .json(&json!({"answer": true}))
        .send()
        .await
        .unwrap();
    assert!(resp.status().is_success(), "answer: {}", resp.status());

    // A sends the resume; the agent holds it open.
    let deadline = Instant::now() + Duration::from_secs(20);
    while resumes.load(Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "A never sent the resume");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let b = start_worker(&redis);
    // SIGKILL: no shutdown path runs, the lease is simply left to run out.
    a.child.kill().unwrap();
    a.child.wait().unwrap();
    let killed_at = Instant::now();

    let lease = 2 * TURN_TIMEOUT_S;
    let run = until(&http, &b, &run_path, Duration::from_secs(lease + 20), |v| {
        v["run"]["status"] != "interrupted" && v["run"]["status"] != "running"
    })
    .await;
    assert_eq!(run["run"]["status"], "succeeded", "{run:#}");
    assert!(
        killed_at.elapsed() < Duration::from_secs(lease + 15),
        "B took over only after {:?}",
        killed_at.elapsed()
    );
    assert_eq!(
        texts(&run["run"]),
        ["May I go?", "Resuming.", "Done."],
        "the dead worker's partial stream is not added twice: {run:#}"
    );
    // The killed request is the only one re-sent: two resumes, never a third.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(resumes.load(Ordering::SeqCst), 2);
    let park = get(&http, &b, &format!("/api/parks/{park_id}"), ASKER).await;
    assert_eq!(park["park"]["status"], "resumed", "{park:#}");
    drop(b);
}
