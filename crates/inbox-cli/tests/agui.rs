//! `inbox agui run` end to end: a real `inbox serve` process, a real AG-UI agent (the `ag-ui`
//! crate on axum, loopback), the question answered with `inbox answer`, and the exit code.

mod support;

use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ag_ui::axum::RouterExt;
use ag_ui::server::{Agent, Result, RunContext};
use ag_ui::{Interrupt, RunOutcome};
use support::{Server, inbox, read_all, serve_on_thread, start_server, stderr, stdout};

/// Asks one yes/no question; says "Booked." once it has an answer.
struct Booker;

impl Agent for Booker {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<RunOutcome> {
        if ctx.resume_for("book").is_some() {
            ctx.say("Booked.")?;
            return Ok(RunOutcome::Success);
        }
        ctx.say("Shall I book the 9:40 train?")?;
        let mut ask = Interrupt::new("book", "tool_approval");
        ask.message = Some("Book the 9:40 train?".into());
        Ok(RunOutcome::interrupt(vec![ask]))
    }
}

/// Fails every run with RUN_ERROR.
struct Broken;

impl Agent for Broken {
    type State = ();

    async fn run(&self, _ctx: &mut RunContext<()>) -> Result<RunOutcome> {
        Err(ag_ui::server::Error::agent("the booking service is down"))
    }
}

fn serve_agents() -> SocketAddr {
    serve_on_thread(
        axum::Router::new()
            .route_agui("/booker", Booker)
            .route_agui("/broken", Broken),
    )
}

/// `inbox agui run URL --message MESSAGE` against `server`.
fn agui_run(server: &Server, agent_url: &str, message: &str) -> Command {
    inbox(server, &["agui", "run", agent_url, "--message", message])
}

#[test]
fn agui_run_prints_the_transcript_and_exits_by_outcome() {
    let server = start_server();
    let agents = serve_agents();
    let mut child = agui_run(
        &server,
        &format!("http://{agents}/booker"),
        "get me to Lyon",
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();

    // The run's question shows up in the inbox; answer it like any other.
    let deadline = Instant::now() + Duration::from_secs(20);
    let id = loop {
        let out = inbox(&server, &["list", "--json"]).output().unwrap();
        let text = stdout(&out);
        if let Some(line) = text.lines().find(|l| l.contains("Book the 9:40 train?")) {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            break v["id"].as_str().unwrap().to_owned();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let err = read_all(child.stderr.take());
            panic!("the run's question never appeared; inbox agui run said: {err}\nlist: {text}");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let answered = inbox(&server, &["answer", &id, "yes"]).output().unwrap();
    assert!(answered.status.success(), "{answered:?}");

    let status = child.wait().unwrap();
    let (out, err) = (read_all(child.stdout.take()), read_all(child.stderr.take()));
    assert_eq!(status.code(), Some(0), "{out}\n{err}");
    assert!(
        out.contains("assistant: Shall I book the 9:40 train?"),
        "{out}"
    );
    assert!(out.contains("assistant: Booked."), "{out}");
    assert!(err.contains("succeeded"), "{err}");

    // RUN_ERROR: exit 14 with the agent's message.
    let failed = agui_run(&server, &format!("http://{agents}/broken"), "hi")
        .output()
        .unwrap();
    let err = stderr(&failed);
    assert_eq!(failed.status.code(), Some(14), "{err}");
    assert!(err.contains("the booking service is down"), "{err}");

    // A URL that is not http(s): refused by the server, exit 1 naming the field.
    let refused = agui_run(&server, "ftp://x.test/", "hi").output().unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("agent_url"));
}
