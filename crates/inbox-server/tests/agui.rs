//! AG-UI runs against real agents built here with the `ag-ui` crate and served by axum on
//! loopback: the seed's Deployer (approve, decline, expire) and Planner (two interrupts, one
//! resume), an agent that breaks the protocol (an empty interrupt list), one whose schema the
//! server refuses, one that is down (retried, failed, retried by its asker), and a server
//! restarted while a run waits. On SQLite, and on Redis when `INBOX_TEST_REDIS_URL` is set.

mod common;
mod redis_env;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ag_ui::axum::RouterExt;
use ag_ui::server::{Agent, Error as AgentError, Result as AgentResult, RunContext};
use ag_ui::{Interrupt, JsonObject, ResumeStatus, RunAgentInput, RunOutcome};
use axum::http::{HeaderMap, StatusCode as AxumStatus};
use axum::response::IntoResponse;
use chrono::Utc;
use common::{ASKER, OTHER_ASKER, REVIEWER, TestServer};
use redis_env::{Backend, backends};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const APPROVE_DEPLOY: &str = "approve-deploy";
const BUDGET: &str = "approve-budget";
const DATE: &str = "confirm-date";
const AGENT_KEY: &str = "agent-key-that-must-never-show-0123";

/// Every request an agent received, with the headers it came with.
#[derive(Default)]
struct Seen {
    inputs: Mutex<Vec<(RunAgentInput, HeaderMap)>>,
}

impl Seen {
    fn count(&self) -> usize {
        self.inputs.lock().unwrap().len()
    }

    fn resumes(&self) -> Vec<RunAgentInput> {
        self.inputs
            .lock()
            .unwrap()
            .iter()
            .filter(|(i, _)| i.is_resume())
            .map(|(i, _)| i.clone())
            .collect()
    }
}

/// The seed's Deployer, asking about a streamed `deploy` tool call with a schema that lets the
/// person approve and edit its arguments.
struct Deployer {
    /// `expiresAt` on the interrupt, this far from now.
    expires_in: Option<chrono::Duration>,
}

fn deploy_schema() -> JsonObject {
    json!({"type": "object", "properties": {
        "approved": {"type": "boolean"},
        "editedArgs": {"type": "object", "properties": {"build": {"type": "integer"}}}
    }, "required": ["approved"]})
    .as_object()
    .cloned()
    .unwrap()
}

impl Agent for Deployer {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> AgentResult<RunOutcome> {
        let answer = ctx.resume_for(APPROVE_DEPLOY).cloned();
        let Some(answer) = answer else {
            ctx.say("Deploying to production needs a human.")?;
            let mut call = ctx.tool_call_with_id("call-deploy", "deploy")?;
            call.args(r#"{"build": 42}"#)?;
            call.end()?;
            return Ok(RunOutcome::interrupt(vec![Interrupt {
                id: APPROVE_DEPLOY.to_owned(),
                reason: "tool_call".to_owned(),
                message: Some("Deploy build 42 to production?".to_owned()),
                tool_call_id: Some("call-deploy".into()),
                response_schema: Some(deploy_schema()),
                expires_at: self.expires_in.map(|d| (Utc::now() + d).to_rfc3339()),
                metadata: Some(json!({"env": "production"}).as_object().cloned().unwrap()),
                ..Default::default()
            }]));
        };
        match answer.status {
            ResumeStatus::Resolved => {
                let payload = answer.payload.unwrap_or_default();
                if payload["approved"] != json!(true) {
                    ctx.say("Left production alone.")?;
                    return Ok(RunOutcome::Success);
                }
                // Reading the payload is what proves it survived the trip.
                let build = payload["editedArgs"]["build"]
                    .as_u64()
                    .ok_or_else(|| AgentError::agent("the approval carried no build number"))?;
                ctx.say(format!("Deployed build {build}."))?;
            }
            ResumeStatus::Cancelled => {
                ctx.say("Left production alone.")?;
            }
        }
        Ok(RunOutcome::Success)
    }
}

/// The seed's Planner: pauses on whatever the request did not answer.
struct Planner;

impl Agent for Planner {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> AgentResult<RunOutcome> {
        let pending: Vec<Interrupt> = [BUDGET, DATE]
            .into_iter()
            .filter(|id| ctx.resume_for(id).is_none())
            .map(|id| Interrupt::new(id, "tool_approval"))
            .collect();
        if pending.is_empty() {
            ctx.say("Booked.")?;
            return Ok(RunOutcome::Success);
        }
        Ok(RunOutcome::interrupt(pending))
    }
}

/// Asks a fine question and one whose schema the server refuses.
struct BadSchema;

impl Agent for BadSchema {
    type State = ();

    async fn run(&self, _ctx: &mut RunContext<()>) -> AgentResult<RunOutcome> {
        let mut broken = Interrupt::new("pick-color", "input");
        broken.response_schema = json!({"type": "object", "properties": {"c": {"type": "nope"}}})
            .as_object()
            .cloned();
        Ok(RunOutcome::interrupt(vec![
            Interrupt::new("fine", "tool_approval"),
            broken,
        ]))
    }
}

/// Serves `agent` at `/agent`, always up: what it was sent, and where it listens.
async fn serve<A: Agent + 'static>(agent: A) -> (Arc<Seen>, SocketAddr) {
    let seen = Arc::new(Seen::default());
    let addr = serve_agent(agent, seen.clone(), Arc::default()).await;
    (seen, addr)
}

/// Serves `agent` at `/agent`, recording each request; `down` answers 503 instead.
async fn serve_agent<A: Agent + 'static>(
    agent: A,
    seen: Arc<Seen>,
    down: Arc<AtomicBool>,
) -> SocketAddr {
    let record = move |req: axum::extract::Request, next: axum::middleware::Next| {
        let (seen, down) = (seen.clone(), down.clone());
        async move {
            if down.load(Ordering::SeqCst) {
                return AxumStatus::SERVICE_UNAVAILABLE.into_response();
            }
            let (parts, body) = req.into_parts();
            let bytes = axum::body::to_bytes(body, 1 << 20).await.unwrap();
            let input: RunAgentInput = serde_json::from_slice(&bytes).unwrap();
            seen.inputs
                .lock()
                .unwrap()
                .push((input, parts.headers.clone()));
            next.run(axum::extract::Request::from_parts(parts, bytes.into()))
                .await
        }
    };
    let app = axum::Router::new()
        .route_agui("/agent", agent)
        .layer(axum::middleware::from_fn(record));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// An agent that breaks the protocol: `RUN_FINISHED` with an interrupt outcome and no
/// interrupts (the SDK's own runner would refuse to emit it, so this one is written by hand).
async fn serve_empty_interrupts() -> SocketAddr {
    let app = axum::Router::new().route(
        "/agent",
        axum::routing::post(|| async {
            let body = concat!(
                "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n",
                "data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\",",
                "\"outcome\":{\"type\":\"interrupt\",\"interrupts\":[]}}\n\n"
            );
            ([("content-type", "text/event-stream")], body)
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// A server in `dir` (on Redis when `redis` is given) with a fast AG-UI driver.
async fn server_in(dir: &std::path::Path, redis: &Option<(String, String)>) -> TestServer {
    common::start_on(dir, redis, |c| {
        c.agui.poll = Duration::from_millis(50);
        c.agui.retry_base = Duration::from_millis(50);
        c.agui.retry_cap = Duration::from_millis(100);
        c.agui.max_attempts = 3;
    })
    .await
}

/// `server_in` a fresh data dir, which lives as long as the returned guard.
async fn server(redis: &Option<(String, String)>) -> (TestServer, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    (server_in(dir.path(), redis).await, dir)
}

/// The run in a reply's text, checked for the agent's secret header first.
fn run_in(text: &str) -> Value {
    assert!(!text.contains(AGENT_KEY), "the headers are never shown");
    serde_json::from_str::<Value>(text).unwrap()["run"].clone()
}

async fn start_run(server: &TestServer, agent: SocketAddr, message: &str) -> Value {
    let req = server
        .request(Method::POST, "/api/agui/runs", Some(ASKER))
        .json(&json!({
            "agent_url": format!("http://{agent}/agent"),
            "thread_id": "deploy-thread",
            "input": {"messages": [{"id": "m1", "role": "user", "content": message}]},
            "headers": {"X-Agent-Key": AGENT_KEY},
        }));
    run_in(&common::expect_text(req, StatusCode::CREATED).await)
}

async fn run_of(server: &TestServer, id: &str) -> Value {
    let req = server.request(Method::GET, &format!("/api/agui/runs/{id}"), Some(ASKER));
    run_in(&common::expect_text(req, StatusCode::OK).await)
}

/// Starts a run of the agent at `agent` and polls it until it is `status`: its id and the run.
async fn run_until(
    server: &TestServer,
    agent: SocketAddr,
    message: &str,
    status: &str,
) -> (String, Value) {
    let run = start_run(server, agent, message).await;
    let id = run["id"].as_str().unwrap().to_owned();
    let run = until_status(server, &id, status).await;
    (id, run)
}

/// `POST /api/agui/runs/{id}/retry` as `token`: the status.
async fn retry(server: &TestServer, id: &str, token: &str) -> StatusCode {
    let path = format!("/api/agui/runs/{id}/retry");
    common::call(server, Method::POST, &path, token, None, None)
        .await
        .0
}

/// Poll the run until its status is `status`.
async fn until_status(server: &TestServer, id: &str, status: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let run = run_of(server, id).await;
        if run["status"] == status {
            return run;
        }
        assert!(
            Instant::now() < deadline,
            "the run never reached {status}: {run:#}"
        );
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
}

/// Polls the run until it has `succeeded`, and asserts its transcript says `text`.
async fn succeeded_saying(server: &TestServer, id: &str, text: &str, backend: Backend) -> Value {
    let run = until_status(server, id, "succeeded").await;
    assert!(
        transcript_text(&run).contains(text),
        "{backend:?}: {text:?} is not in {run:#}"
    );
    run
}

fn transcript_text(run: &Value) -> String {
    run["transcript"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|item| item["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The park's questions as the reviewer sees them.
async fn questions(server: &TestServer, park_id: &str) -> Vec<Value> {
    let (status, park) = server
        .get_json(&format!("/api/parks/{park_id}"), Some(ASKER))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(park["park"]["continuation"]["kind"], "agui");
    let mut out = Vec::new();
    for id in park["park"]["interactions"].as_array().unwrap() {
        let (status, ia) = server.read(id.as_str().unwrap()).await;
        assert_eq!(status, StatusCode::OK);
        out.push(ia);
    }
    out
}

async fn pending_count(server: &TestServer) -> usize {
    common::ids(&server.page("status=pending").await).len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deployer_approved_deploys_build_42_and_declined_leaves_production_alone() {
    for (backend, redis) in backends("agui_deployer") {
        let (server, _dir) = server(&redis).await;
        let (seen, agent) = serve(Deployer { expires_in: None }).await;

        // Approved: the form is prefilled from the streamed tool call.
        let run = start_run(&server, agent, "deploy").await;
        assert_eq!(run["status"], "running");
        let id = run["id"].as_str().unwrap().to_owned();
        let run = until_status(&server, &id, "interrupted").await;
        let park = run["park_id"].as_str().unwrap();
        let qs = questions(&server, park).await;
        assert_eq!(qs.len(), 1, "{backend:?}");
        let q = &qs[0];
        assert_eq!(q["prompt"], "Deploy build 42 to production?");
        assert_eq!(q["answer_format"], "form");
        assert_eq!(q["data"]["values"]["editedArgs"], json!({"build": 42}));
        let agui = &q["metadata"]["agui"];
        assert_eq!(agui["interrupt_id"], APPROVE_DEPLOY);
        assert_eq!(agui["reason"], "tool_call");
        assert_eq!(agui["tool_call_id"], "call-deploy");
        assert_eq!(agui["tool_call"]["name"], "deploy");
        assert_eq!(agui["tool_call"]["arguments"], r#"{"build": 42}"#);
        assert_eq!(
            agui["last_message"],
            "Deploying to production needs a human."
        );
        assert_eq!(agui["metadata"]["env"], "production");
        let (status, _) = server
            .answer(
                q["id"].as_str().unwrap(),
                json!({"approved": true, "editedArgs": {"build": 42}}),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::OK);
        let run = succeeded_saying(&server, &id, "Deployed build 42.", backend).await;
        assert_eq!(run["turns"], 2);
        let resumes = seen.resumes();
        assert_eq!(resumes.len(), 1, "{backend:?}: one resume");
        assert_eq!(resumes[0].thread_id.as_str(), "deploy-thread");
        let first_run_id = seen.inputs.lock().unwrap()[0].0.run_id.clone();
        assert_ne!(resumes[0].run_id, first_run_id, "a new runId");
        let entry = &resumes[0].resume.as_ref().unwrap()[0];
        assert_eq!(entry.interrupt_id, APPROVE_DEPLOY);
        assert_eq!(entry.status, ResumeStatus::Resolved);
        // The extra header reached the agent; the run never shows it.
        assert_eq!(seen.inputs.lock().unwrap()[0].1["x-agent-key"], AGENT_KEY);
        let (_, park) = server
            .get_json(&format!("/api/parks/{park}"), Some(ASKER))
            .await;
        assert_eq!(park["park"]["status"], "resumed");

        // Declined: the agent reads `cancelled` and goes down its other branch.
        let (id, run) = run_until(&server, agent, "deploy", "interrupted").await;
        let qs = questions(&server, run["park_id"].as_str().unwrap()).await;
        let (status, _) = server
            .decline(qs[0]["id"].as_str().unwrap(), json!({}), None)
            .await;
        assert_eq!(status, StatusCode::OK);
        succeeded_saying(&server, &id, "Left production alone.", backend).await;
        let last = seen.resumes().pop().unwrap();
        assert_eq!(
            last.resume.unwrap()[0].status,
            ResumeStatus::Cancelled,
            "{backend:?}"
        );
        assert_eq!(seen.count(), 4);
        server.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn planner_answered_in_either_order_gets_one_resume_carrying_both() {
    for (backend, redis) in backends("agui_planner") {
        let (server, _dir) = server(&redis).await;
        for reversed in [false, true] {
            let (seen, agent) = serve(Planner).await;
            let (id, run) = run_until(&server, agent, "plan the trip", "interrupted").await;
            let mut qs = questions(&server, run["park_id"].as_str().unwrap()).await;
            assert_eq!(qs.len(), 2);
            for q in &qs {
                assert_eq!(q["answer_format"], "confirm", "no schema → confirm");
            }
            if reversed {
                qs.reverse();
            }
            let (status, _) = server
                .answer(qs[0]["id"].as_str().unwrap(), json!(true), None)
                .await;
            assert_eq!(status, StatusCode::OK);
            // One of two answered: the run still waits, nothing was sent.
            tokio::time::sleep(Duration::from_millis(300)).await;
            assert_eq!(run_of(&server, &id).await["status"], "interrupted");
            assert_eq!(seen.count(), 1, "{backend:?}: no resume on one answer");
            let (status, _) = server
                .answer(qs[1]["id"].as_str().unwrap(), json!(true), None)
                .await;
            assert_eq!(status, StatusCode::OK);
            succeeded_saying(&server, &id, "Booked.", backend).await;
            tokio::time::sleep(Duration::from_millis(200)).await;
            let resumes = seen.resumes();
            assert_eq!(resumes.len(), 1, "{backend:?}: exactly one resume");
            let entries = resumes[0].resume.clone().unwrap();
            let mut ids: Vec<_> = entries.iter().map(|e| e.interrupt_id.clone()).collect();
            ids.sort();
            assert_eq!(ids, vec![BUDGET.to_owned(), DATE.to_owned()]);
            for e in &entries {
                assert_eq!(e.status, ResumeStatus::Resolved);
                assert_eq!(e.payload, Some(json!({"approved": true})));
            }
        }
        server.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_interrupt_resumes_as_cancelled() {
    for (backend, redis) in backends("agui_expiry") {
        let (server, _dir) = server(&redis).await;
        let expires_in = Some(chrono::Duration::seconds(2));
        let (seen, agent) = serve(Deployer { expires_in }).await;
        let (id, run) = run_until(&server, agent, "deploy", "interrupted").await;
        let qs = questions(&server, run["park_id"].as_str().unwrap()).await;
        assert!(qs[0]["expires_at"].is_string(), "expiresAt → expiry_at");
        succeeded_saying(&server, &id, "Left production alone.", backend).await;
        let resumes = seen.resumes();
        assert_eq!(resumes.len(), 1);
        assert_eq!(
            resumes[0].resume.as_ref().unwrap()[0].status,
            ResumeStatus::Cancelled
        );
        server.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_interrupt_list_or_a_refused_schema_fails_the_run_and_asks_nothing() {
    for (backend, redis) in backends("agui_protocol") {
        let (server, _dir) = server(&redis).await;

        let empty = serve_empty_interrupts().await;
        let (_, run) = run_until(&server, empty, "hi", "failed").await;
        let error = run["error"].as_str().unwrap();
        assert!(error.contains("protocol error"), "{backend:?}: {error}");
        assert!(run.get("park_id").is_none());
        assert_eq!(pending_count(&server).await, 0, "nothing asked");

        let (_, bad) = serve(BadSchema).await;
        let (_, run) = run_until(&server, bad, "hi", "failed").await;
        let error = run["error"].as_str().unwrap();
        assert!(
            error.contains("interrupts[1]") && error.contains("pick-color"),
            "{backend:?}: names the interrupt: {error}"
        );
        assert!(error.contains("responseSchema"), "names the field: {error}");
        assert_eq!(pending_count(&server).await, 0, "nothing half-asked");
        server.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_agent_is_retried_then_failed_and_its_asker_can_retry() {
    for (backend, redis) in backends("agui_unreachable") {
        let (server, _dir) = server(&redis).await;
        let seen = Arc::new(Seen::default());
        let down = Arc::new(AtomicBool::new(true));
        let agent = serve_agent(Planner, seen.clone(), down.clone()).await;
        let (id, run) = run_until(&server, agent, "plan", "failed").await;
        let error = run["error"].as_str().unwrap();
        assert!(
            error.contains("unreachable on 3 attempts") && error.contains("503"),
            "{backend:?}: {error}"
        );
        // Only its asker may retry; a run that has not failed cannot be.
        assert_eq!(
            retry(&server, &id, OTHER_ASKER).await,
            StatusCode::NOT_FOUND
        );
        down.store(false, Ordering::SeqCst);
        assert_eq!(retry(&server, &id, ASKER).await, StatusCode::OK);
        until_status(&server, &id, "interrupted").await;
        assert_eq!(retry(&server, &id, ASKER).await, StatusCode::CONFLICT);
        assert_eq!(seen.count(), 1);
        server.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_restarted_while_a_run_waits_still_resumes_it_once() {
    for (backend, redis) in backends("agui_restart") {
        let dir = tempfile::tempdir().unwrap();
        let (seen, agent) = serve(Planner).await;
        let first = server_in(dir.path(), &redis).await;
        let (id, run) = run_until(&first, agent, "plan", "interrupted").await;
        let park = run["park_id"].as_str().unwrap().to_owned();
        let qs = questions(&first, &park).await;
        first.shutdown().await;

        let second = server_in(dir.path(), &redis).await;
        for q in &qs {
            let (status, _) = second
                .answer(q["id"].as_str().unwrap(), json!(true), None)
                .await;
            assert_eq!(status, StatusCode::OK);
        }
        succeeded_saying(&second, &id, "Booked.", backend).await;
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert_eq!(seen.resumes().len(), 1, "{backend:?}: resumed once");
        assert_eq!(seen.count(), 2);
        second.shutdown().await;
    }
}

#[tokio::test]
async fn bad_run_requests_are_refused_naming_the_field_and_runs_are_their_askers() {
    let (server, _dir) = common::start().await;
    let post = |token: &'static str, body: Value| {
        common::call(
            &server,
            Method::POST,
            "/api/agui/runs",
            token,
            Some(body),
            None,
        )
    };
    let ok_input = json!({"messages": []});
    for (body, field) in [
        (
            json!({"agent_url": "ftp://agent.test/", "input": ok_input}),
            "agent_url",
        ),
        (
            json!({"agent_url": "https://agent.test/", "input": {"messages": [{"role": "user"}]}}),
            "input.messages[0]",
        ),
        (
            json!({"agent_url": "https://agent.test/", "input": {"messages": [], "resume": []}}),
            "input.resume",
        ),
        (
            json!({"agent_url": "https://agent.test/", "input": ok_input, "headers": {"Host": "x"}}),
            "headers.Host",
        ),
    ] {
        let (status, err) = post(ASKER, body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        let got = err["error"]["field"].as_str().unwrap();
        assert!(got.starts_with(field), "{got} vs {field}");
    }
    let (status, _) = post(
        REVIEWER,
        json!({"agent_url": "https://agent.test/", "input": ok_input}),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // Nobody parks an agui continuation by hand.
    let expiry = (Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
    let park = json!({"asks": [{"prompt": "x", "answer_format": "confirm", "mode": "async",
                                "expiry_at": expiry}],
                      "continuation": {"kind": "agui", "run_id": "ar_x"}});
    let (status, err) =
        common::call(&server, Method::POST, "/api/parks", ASKER, Some(park), None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(err["error"]["field"], "continuation.kind");
    // A run is its asker's: another asker sees nothing.
    let (status, run) = post(
        ASKER,
        json!({"agent_url": "http://127.0.0.1:9/agent", "input": ok_input}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let id = run["run"]["id"].as_str().unwrap();
    let (status, _) = server
        .get_json(&format!("/api/agui/runs/{id}"), Some(OTHER_ASKER))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_redis_workers_drive_a_run_and_resume_it_once() {
    let Some(url) = redis_env::url("agui_two_workers") else {
        return;
    };
    let redis = Some((url, redis_env::unique_prefix("agui_two_workers")));
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = server_in(dir_a.path(), &redis).await;
    let b = server_in(dir_b.path(), &redis).await;
    for round in 0..3 {
        let (seen, agent) = serve(Planner).await;
        let run = start_run(&a, agent, "plan").await;
        let id = run["id"].as_str().unwrap().to_owned();
        let run = until_status(&b, &id, "interrupted").await;
        let qs = questions(&b, run["park_id"].as_str().unwrap()).await;
        // One answer on each worker: either worker's driver may send the resume.
        let (status, _) = a
            .answer(qs[0]["id"].as_str().unwrap(), json!(true), None)
            .await;
        assert_eq!(status, StatusCode::OK);
        let (status, _) = b
            .answer(qs[1]["id"].as_str().unwrap(), json!(true), None)
            .await;
        assert_eq!(status, StatusCode::OK);
        until_status(&a, &id, "succeeded").await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(
            seen.count(),
            2,
            "round {round}: one first request, one resume"
        );
        assert_eq!(seen.resumes().len(), 1, "round {round}");
    }
    a.shutdown().await;
    b.shutdown().await;
}

/// Says something, works a while, then finishes.
struct SlowTalker;

impl Agent for SlowTalker {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> AgentResult<RunOutcome> {
        ctx.say("Working on it.")?;
        tokio::time::sleep(Duration::from_millis(2_000)).await;
        ctx.say("Done.")?;
        Ok(RunOutcome::Success)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_transcript_grows_while_the_agent_streams() {
    for (backend, redis) in backends("agui_progress") {
        let (server, _dir) = server(&redis).await;
        let (_, agent) = serve(SlowTalker).await;
        let run = start_run(&server, agent, "go").await;
        let id = run["id"].as_str().unwrap().to_owned();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let run = run_of(&server, &id).await;
            assert_ne!(
                run["status"], "succeeded",
                "{backend:?}: the first message was never shown while the agent worked"
            );
            if transcript_text(&run) == "Working on it." {
                assert_eq!(run["status"], "running");
                break;
            }
            assert!(Instant::now() < deadline);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let run = until_status(&server, &id, "succeeded").await;
        assert_eq!(
            transcript_text(&run),
            "Working on it.\nDone.",
            "{backend:?}"
        );
        server.shutdown().await;
    }
}
