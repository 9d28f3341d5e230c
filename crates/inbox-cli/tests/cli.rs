//! The `inbox` binary end to end: a real `inbox serve` process on loopback, driven by the other
//! subcommands exactly as a script would. Every wait on a child has a deadline: a hung command
//! is killed and fails its test instead of hanging the run.

mod support;

use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use inbox_test_net::recording_proxy::RecordingProxy;
use support::{INBOX, Serve, Server, assert_exit, inbox, stderr, stdout};

/// The longest any one command of these tests may take.
const COMMAND_DEADLINE: Duration = Duration::from_secs(30);

/// The link of the tests' external question: a signing site that posts the answer back.
const SIGN_LINK: &str = "https://sign.example.com/?cb={callback_url}";

/// A running `inbox` with its output read on threads, so that no read and no wait on it can
/// block past a deadline; killed on drop.
struct Proc {
    child: Child,
    what: String,
    stderr_lines: mpsc::Receiver<String>,
    stdout: Option<std::thread::JoinHandle<Vec<u8>>>,
    stderr: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
}

impl Proc {
    fn spawn(mut cmd: Command) -> Proc {
        let what = format!("{cmd:?}");
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {what}: {e}"));
        let mut out = child.stdout.take().unwrap();
        let stdout = std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = out.read_to_end(&mut buf);
            buf
        });
        let (lines, stderr_lines) = mpsc::channel();
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = stderr.clone();
        let mut reader = BufReader::new(child.stderr.take().unwrap());
        std::thread::spawn(move || {
            let mut line = String::new();
            while matches!(reader.read_line(&mut line), Ok(n) if n > 0) {
                kept.lock().unwrap().extend_from_slice(line.as_bytes());
                let _ = lines.send(std::mem::take(&mut line));
            }
        });
        Proc {
            child,
            what,
            stderr_lines,
            stdout: Some(stdout),
            stderr,
        }
    }

    /// The next line the child writes on stderr, within `within`.
    fn stderr_line(&self, within: Duration) -> String {
        match self.stderr_lines.recv_timeout(within) {
            Ok(line) => line,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                panic!("{}: no stderr line within {within:?}", self.what)
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                panic!("{}: stderr closed before the line", self.what)
            }
        }
    }

    /// Reads stderr lines until one contains `text`.
    fn stderr_until(&self, text: &str, within: Duration) -> String {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.stderr_line(left);
            if line.contains(text) {
                return line;
            }
        }
    }

    /// Waits for the child to exit within `within`; kills it and fails the test otherwise.
    fn finish(mut self, within: Duration) -> Output {
        let deadline = Instant::now() + within;
        let status: ExitStatus = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!(
                    "{} still running after {within:?}; killed. stderr so far:\n{}",
                    self.what,
                    String::from_utf8_lossy(&self.stderr.lock().unwrap())
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let stdout = self.stdout.take().unwrap().join().unwrap();
        // stderr's reader ends with the pipe; give it a moment to take the last bytes.
        let until = Instant::now() + Duration::from_secs(2);
        while self
            .stderr_lines
            .recv_timeout(Duration::from_millis(50))
            .is_ok()
            && Instant::now() < until
        {}
        let stderr = self.stderr.lock().unwrap().clone();
        Output {
            status,
            stdout,
            stderr,
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if self.stdout.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The server of these tests logs at debug: one test reads its log for secrets.
fn start_server() -> Server {
    Serve::new().env("RUST_LOG", "debug").start()
}

/// Runs `cmd` to its end within [`COMMAND_DEADLINE`].
fn output_of(cmd: Command) -> Output {
    Proc::spawn(cmd).finish(COMMAND_DEADLINE)
}

fn run(server: &Server, args: &[&str]) -> Output {
    output_of(inbox(server, args))
}

/// Start a blocking `inbox ask ARGS…` and return it with the id it printed on stderr.
fn ask_in_background(server: &Server, args: &[&str]) -> (Proc, String) {
    let mut all = vec!["ask"];
    all.extend_from_slice(args);
    let asker = Proc::spawn(inbox(server, &all));
    let line = asker.stderr_until("ia_", Duration::from_secs(20));
    let id = line
        .split_whitespace()
        .find(|w| w.starts_with("ia_"))
        .unwrap_or_else(|| panic!("no id in `{line}`"))
        .to_owned();
    (asker, id)
}

fn exit_code(child: Proc) -> (i32, String) {
    let out = child.finish(COMMAND_DEADLINE);
    (out.status.code().unwrap_or(-1), stdout(&out))
}

#[test]
fn a_sync_ask_returns_the_answer_given_through_inbox_answer() {
    let server = start_server();
    let (asker, id) = ask_in_background(
        &server,
        &[
            "Which region?",
            "--format",
            "select",
            "-o",
            "eu=Europe",
            "-o",
            "us=US East",
        ],
    );
    let listed = run(&server, &["list", "--json"]);
    assert!(listed.status.success(), "{listed:?}");
    assert!(
        stdout(&listed).contains(&id),
        "the pending list shows the ask"
    );

    // By label: the CLI maps it to the option's value.
    let answered = run(&server, &["answer", &id, "US East"]);
    assert!(answered.status.success(), "{answered:?}");

    let (code, out) = exit_code(asker);
    assert_eq!(code, 0);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&out).unwrap(),
        "us"
    );
}

#[test]
fn each_format_round_trips_with_its_typed_answer() {
    let server = start_server();
    let schema =
        r#"{"type":"object","required":["count"],"properties":{"count":{"type":"integer"}}}"#;
    let cases: [(&[&str], &str, serde_json::Value); 3] = [
        (
            &["Deploy?", "--format", "confirm"],
            "yes",
            serde_json::json!(true),
        ),
        (
            &["Headline?", "-o", "Faster builds"],
            "42",
            serde_json::json!("42"),
        ),
        (
            &["How many?", "--format", "form", "--schema", schema],
            r#"{"count":3}"#,
            serde_json::json!({"count": 3}),
        ),
    ];
    for (ask, answer, want) in cases {
        let (asker, id) = ask_in_background(&server, ask);
        let answered = run(&server, &["answer", &id, answer]);
        assert!(answered.status.success(), "{answered:?}");
        let (code, out) = exit_code(asker);
        assert_eq!(code, 0, "{ask:?}");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&out).unwrap(),
            want,
            "{ask:?}"
        );
    }
}

#[test]
fn declined_and_expired_asks_exit_with_their_own_codes() {
    let server = start_server();
    let (asker, id) = ask_in_background(&server, &["Drop the table?", "--format", "confirm"]);
    let declined = run(&server, &["decline", &id, "--reason", "not today"]);
    assert!(declined.status.success(), "{declined:?}");
    assert_eq!(exit_code(asker).0, 10);

    let (asker, _id) = ask_in_background(&server, &["Quick one?", "--timeout", "1"]);
    assert_eq!(exit_code(asker).0, 11);
}

#[test]
fn inbox_withdraw_ends_the_waiting_ask_as_cancelled() {
    let server = start_server();
    let (asker, id) = ask_in_background(&server, &["Still needed?"]);
    let withdrawn = run(&server, &["withdraw", &id]);
    assert!(withdrawn.status.success(), "{withdrawn:?}");
    assert!(
        stderr(&withdrawn).contains("is now cancelled"),
        "{withdrawn:?}"
    );
    assert_eq!(exit_code(asker).0, 12);
}

#[test]
fn an_external_question_is_not_answered_from_the_terminal_but_can_be_declined() {
    let server = start_server();
    let (asker, id) = ask_in_background(
        &server,
        &["Sign it?", "--format", "external", "--link", SIGN_LINK],
    );
    let refused = run(&server, &["answer", &id, r#"{"signed":true}"#]);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    let err = stderr(&refused);
    assert!(err.contains("answered only at its link"), "{err}");
    let declined = run(&server, &["decline", &id]);
    assert!(declined.status.success(), "{declined:?}");
    assert_eq!(exit_code(asker).0, 10);
}

#[test]
fn a_refused_ask_names_the_field_and_exits_1() {
    let server = start_server();
    let out = run(&server, &["ask", "Pick one", "--format", "select"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("options"), "the error names the field: {err}");
    let listed = run(&server, &["list", "--json"]);
    assert_eq!(stdout(&listed).trim(), "", "nothing was stored");
}

#[test]
fn demo_asks_one_question_of_every_format() {
    let server = start_server();
    let out = run(&server, &["demo"]);
    assert!(out.status.success(), "{out:?}");
    let listed = run(&server, &["list", "--json"]);
    let formats: std::collections::BTreeSet<String> = stdout(&listed)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["answer_format"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        formats.into_iter().collect::<Vec<_>>(),
        ["confirm", "external", "form", "select", "text"]
    );
}

#[test]
fn help_describes_every_command() {
    let mut help = Command::new(INBOX);
    help.arg("--help");
    let out = output_of(help);
    let text = stdout(&out);
    for cmd in [
        "serve", "ask", "list", "answer", "decline", "withdraw", "demo", "notify", "mcp",
    ] {
        assert!(text.contains(cmd), "--help lists `{cmd}`");
    }
}

/// Every proxy variable the client might read, pointing at `proxy`.
fn through(proxy: &RecordingProxy, cmd: &mut Command) {
    for name in [
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
    ] {
        cmd.env(name, &proxy.url);
    }
    cmd.env_remove("NO_PROXY").env_remove("no_proxy");
}

#[test]
fn a_proxy_in_the_environment_never_sees_a_loopback_token() {
    let server = start_server();
    let proxy = RecordingProxy::start();

    let mut list = inbox(&server, &["list", "--json"]);
    through(&proxy, &mut list);
    let out = output_of(list);
    assert!(out.status.success(), "{}", stderr(&out));

    // The stream too: tail until one event arrives.
    let mut tail = inbox(&server, &["tail", "--count", "1"]);
    through(&proxy, &mut tail);
    let tail = Proc::spawn(tail);
    tail.stderr_until("stream: online", Duration::from_secs(20));
    let asked = run(&server, &["ask", "Tail me?", "--no-wait"]);
    assert!(asked.status.success());
    let (code, printed) = exit_code(tail);
    assert_eq!(code, 0, "tail: {printed}");
    assert!(printed.contains("\"event\":\"add\""), "{printed}");

    assert_eq!(
        proxy.heads(),
        Vec::<String>::new(),
        "the proxy saw requests"
    );
}

#[test]
fn plain_http_to_another_machine_needs_the_flag_and_then_takes_the_proxy() {
    let proxy = RecordingProxy::start();
    let remote = "http://inbox.example.invalid:8790";
    let list = |extra: &[&str], env_flag: bool| {
        let mut cmd = Command::new(INBOX);
        cmd.args(["list", "--url", remote, "--token", "remote-token-0123"])
            .args(extra)
            .env_remove("INBOX_URL")
            .env_remove("INBOX_TOKEN")
            .env_remove("INBOX_ALLOW_INSECURE_HTTP");
        if env_flag {
            cmd.env("INBOX_ALLOW_INSECURE_HTTP", "1");
        }
        through(&proxy, &mut cmd);
        output_of(cmd)
    };

    let refused = list(&[], false);
    assert_eq!(refused.status.code(), Some(1));
    let message = stderr(&refused);
    assert!(
        message.contains("inbox.example.invalid") && message.contains("--allow-insecure-http"),
        "{message}"
    );
    assert!(proxy.heads().is_empty(), "sent before refusing");

    // Allowed (by flag, then by env): the request goes out, through the environment's proxy.
    for (extra, env_flag) in [(&["--allow-insecure-http"][..], false), (&[][..], true)] {
        let before = proxy.heads().len();
        let out = list(extra, env_flag);
        assert_eq!(out.status.code(), Some(1), "the proxy answers 502");
        let heads = proxy.heads();
        assert_eq!(heads.len(), before + 1, "{heads:?}");
        let head = heads.last().unwrap();
        assert!(
            head.starts_with("GET http://inbox.example.invalid:8790/api/interactions"),
            "{head}"
        );
    }
}

#[test]
fn an_async_ask_prints_its_park_and_exits_parked_then_park_wait_and_claim_resume_it() {
    let server = start_server();
    let expiry = (chrono::Utc::now() + chrono::Duration::hours(2)).to_rfc3339();
    let out = run(
        &server,
        &[
            "ask",
            "Ship it later?",
            "--format",
            "confirm",
            "--expiry-at",
            &expiry,
        ],
    );
    // Never 0 (answered): 13, parked.
    assert_exit(&out, 13);
    let printed: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let park = &printed["park"];
    assert_eq!(park["status"], "parked");
    let park_id = park["id"].as_str().unwrap().to_owned();
    let ia = park["interactions"][0].as_str().unwrap().to_owned();

    let still = run(&server, &["park", "wait", &park_id, "--timeout", "1"]);
    assert_eq!(still.status.code(), Some(13));
    let claim = run(&server, &["park", "claim", &park_id]);
    assert_eq!(claim.status.code(), Some(1), "not resolved yet");
    assert!(stderr(&claim).contains("not_resolved") || stderr(&claim).contains("resolved"));

    let answered = run(&server, &["answer", &ia, "true"]);
    assert_exit(&answered, 0);
    let done = run(&server, &["park", "wait", &park_id, "--timeout", "10"]);
    assert_eq!(done.status.code(), Some(0));
    let claimed = run(
        &server,
        &["park", "claim", &park_id, "--idempotency-key", "k1"],
    );
    assert_eq!(claimed.status.code(), Some(0));
    let body: serde_json::Value = serde_json::from_str(&stdout(&claimed)).unwrap();
    assert_eq!(body["park"]["status"], "resumed");
    assert_eq!(body["park"]["resolutions"][0]["value"], true);
    let again = run(
        &server,
        &["park", "claim", &park_id, "--idempotency-key", "k1"],
    );
    assert_eq!(
        (again.status.code(), stdout(&again)),
        (Some(0), stdout(&claimed))
    );
    let other = run(&server, &["park", "claim", &park_id]);
    assert_eq!(other.status.code(), Some(1));
}

/// A plain `GET` over a fresh connection; the whole response as text.
fn http_get(server: &Server, path: &str) -> String {
    use std::io::Write;
    let host = server.url.trim_start_matches("http://");
    let mut socket = std::net::TcpStream::connect(host).unwrap();
    socket.set_read_timeout(Some(COMMAND_DEADLINE)).unwrap();
    write!(
        socket,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    socket.read_to_string(&mut response).unwrap();
    response
}

fn json_of(out: &Output) -> serde_json::Value {
    serde_json::from_str(&stdout(out)).unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(out)))
}

/// `inbox ask --no-wait` and the id of what it asked.
fn ask_no_wait(server: &Server, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["ask"];
    all.extend_from_slice(args);
    all.push("--no-wait");
    let out = run(server, &all);
    assert_exit(&out, 0);
    json_of(&out)
}

#[test]
fn an_ask_prints_the_link_that_opens_it_in_the_app() {
    let server = start_server();
    let out = run(
        &server,
        &["ask", "Link me?", "--format", "confirm", "--no-wait"],
    );
    assert_eq!(out.status.code(), Some(0));
    let id = json_of(&out)["id"].as_str().unwrap().to_owned();
    let stderr = stderr(&out);
    assert!(
        stderr.contains(&format!("open it in the app: inbox://open/{id}\n")),
        "{stderr}"
    );
    // The link is one the app takes back to the same question.
    assert_eq!(
        inbox_protocol::parse_open_link(&inbox_protocol::open_link(&id)),
        Ok(id)
    );
}

#[test]
fn show_reads_a_question_and_withdraw_cancels_it() {
    let server = start_server();
    let asked = ask_no_wait(&server, &["Rotate the keys?", "--format", "confirm"]);
    let id = asked["id"].as_str().unwrap();

    let shown = run(&server, &["show", id]);
    assert_eq!(shown.status.code(), Some(0), "{shown:?}");
    let shown = json_of(&shown);
    assert_eq!(shown["id"], id);
    assert_eq!(shown["status"], "pending");
    assert_eq!(shown["prompt"], "Rotate the keys?");
    let as_asker = run(&server, &["show", id, "--as-asker"]);
    assert_eq!(json_of(&as_asker)["id"], id);

    let withdrawn = run(&server, &["withdraw", id]);
    assert_eq!(withdrawn.status.code(), Some(0), "{withdrawn:?}");
    assert!(
        stderr(&withdrawn).contains("is now cancelled"),
        "{withdrawn:?}"
    );
    assert_eq!(json_of(&run(&server, &["show", id]))["status"], "cancelled");
    // Withdrawing again is no error (it is cancelled either way); an answered one is refused.
    assert_eq!(run(&server, &["withdraw", id]).status.code(), Some(0));
    let answered = ask_no_wait(&server, &["Answered?", "--format", "confirm"]);
    let answered = answered["id"].as_str().unwrap();
    assert!(run(&server, &["answer", answered, "yes"]).status.success());
    assert_eq!(run(&server, &["withdraw", answered]).status.code(), Some(1));
    let missing = run(&server, &["show", "ia_00000000000000000000000000"]);
    assert_eq!(missing.status.code(), Some(1), "{missing:?}");
}

#[cfg(unix)]
#[test]
fn ctrl_c_on_a_blocking_ask_withdraws_it_and_exits_12() {
    let server = start_server();
    let (asker, id) = ask_in_background(&server, &["Wait for me?", "--format", "confirm"]);
    let pid = asker.child.id().to_string();
    let signalled = output_of({
        let mut kill = Command::new("kill");
        kill.args(["-INT", &pid]);
        kill
    });
    assert!(signalled.status.success(), "{signalled:?}");
    let out = asker.finish(COMMAND_DEADLINE);
    assert_exit(&out, 12);
    assert!(
        stderr(&out).contains(&format!("interrupted: withdrew {id}")),
        "{}",
        stderr(&out)
    );
    // Not left behind for a reviewer to answer into the void.
    assert_eq!(
        json_of(&run(&server, &["show", &id]))["status"],
        "cancelled"
    );
}

#[test]
fn tail_prints_each_event_as_a_json_line_and_resumes_after_a_given_id() {
    let server = start_server();
    let tail = Proc::spawn(inbox(&server, &["tail", "--count", "2"]));
    tail.stderr_until("stream: online", Duration::from_secs(20));
    let asked = ask_no_wait(&server, &["Tail this?", "--format", "confirm"]);
    let id = asked["id"].as_str().unwrap();
    assert!(run(&server, &["answer", id, "yes"]).status.success());
    let out = tail.finish(COMMAND_DEADLINE);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["event"], "add");
    assert_eq!(lines[0]["data"]["id"], id);
    assert_ne!(lines[1]["event"], "add", "{lines:?}");
    assert_eq!(lines[1]["data"]["id"], id);
    assert_eq!(lines[1]["data"]["status"], "answered", "{lines:?}");

    // Resuming after the first event's id replays exactly the second.
    let first = lines[0]["id"].as_str().unwrap();
    let resumed = run(&server, &["tail", "--last-event-id", first, "--count", "1"]);
    assert_eq!(resumed.status.code(), Some(0), "{resumed:?}");
    let again: serde_json::Value = serde_json::from_str(stdout(&resumed).trim()).unwrap();
    assert_eq!(again, lines[1]);
}

/// What the server wrote at debug level while a question went through every door that
/// carries a secret: no token, no callback ticket, no answer or decline text.
#[test]
fn the_server_log_never_holds_a_token_a_ticket_or_an_answer() {
    let server = start_server();
    let answer = "answer-payload-5b1e9c";
    let reason = "decline-reason-77d0aa";
    let asked = ask_no_wait(&server, &["Say the word", "--format", "text"]);
    let id = asked["id"].as_str().unwrap();
    assert!(run(&server, &["answer", id, answer]).status.success());
    let declined = ask_no_wait(&server, &["Drop it?", "--format", "confirm"]);
    let declined = declined["id"].as_str().unwrap();
    assert!(
        run(&server, &["decline", declined, "--reason", reason])
            .status
            .success()
    );

    // An external question: its callback ticket is used on the page it links to.
    let external = ask_no_wait(
        &server,
        &["Sign it?", "--format", "external", "--link", SIGN_LINK],
    );
    let external = external["id"].as_str().unwrap();
    let shown = json_of(&run(&server, &["show", external]));
    let link = shown["link"].as_str().expect("link");
    let (_, ticket) = link
        .split_once("/callback/")
        .unwrap_or_else(|| panic!("no callback URL in {link}"));
    let ticket = ticket.to_owned();
    assert!(ticket.len() >= 16, "no ticket in {link}");
    // The page the ticket opens, fetched as the person's browser would.
    let page = http_get(&server, &format!("/api/interactions/callback/{ticket}"));
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");

    let tokens: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(server.dir.path().join("tokens.json")).unwrap(),
    )
    .unwrap();
    let secrets: Vec<String> = tokens
        .iter()
        .filter_map(|t| t["secret"].as_str().map(str::to_owned))
        .collect();
    assert!(!secrets.is_empty(), "no secrets in {tokens:?}");

    let log = std::fs::read_to_string(&server.log).unwrap();
    assert!(
        log.contains(id),
        "the log is not the server's (or empty): {log}"
    );
    for secret in secrets
        .iter()
        .map(String::as_str)
        .chain([answer, reason, ticket.as_str()])
    {
        assert!(
            !log.contains(secret),
            "the server log holds `{secret}`:\n{log}"
        );
    }
}

/// `inbox notify` returns at once (nobody is asked to answer), printing the id; a reviewer's
/// submission is read back with `inbox notify submissions`, and one the schema refuses names
/// the field and stores nothing.
#[test]
fn notify_returns_at_once_and_its_submissions_are_read_back() {
    let server = start_server();
    let schema = server.dir.path().join("rating.json");
    std::fs::write(
        &schema,
        r#"{"type": "object", "properties": {"rating": {"type": "integer", "maximum": 5}},
            "required": ["rating"]}"#,
    )
    .unwrap();
    let started = Instant::now();
    let sent = run(
        &server,
        &[
            "notify",
            "Rate the deploy",
            "--body",
            "whenever you like",
            "--schema",
            schema.to_str().unwrap(),
            "--data",
            r#"{"rating": 4}"#,
        ],
    );
    let took = started.elapsed();
    assert!(sent.status.success(), "{sent:?}");
    assert!(
        took < Duration::from_secs(5),
        "returned at once, took {took:?}"
    );
    let id = stdout(&sent).trim().to_owned();
    assert!(id.starts_with("nt_"), "prints the id: {id:?}");

    let empty = run(&server, &["notify", "submissions", &id]);
    assert!(empty.status.success(), "{empty:?}");
    assert_eq!(stdout(&empty), "");

    let refused = run(&server, &["notify", "submit", &id, r#"{"rating": 9}"#]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("rating"), "{refused:?}");
    let submitted = run(&server, &["notify", "submit", &id, r#"{"rating": 5}"#]);
    assert!(submitted.status.success(), "{submitted:?}");

    let read = run(&server, &["notify", "submissions", &id]);
    let lines: Vec<serde_json::Value> = stdout(&read)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "only the valid one was stored");
    assert_eq!(lines[0]["value"], serde_json::json!({"rating": 5}));
    assert_eq!(lines[0]["ordinal"], 1);

    let blank = run(&server, &["notify", " "]);
    assert_eq!(blank.status.code(), Some(1));
    assert!(stderr(&blank).contains("prompt"));
}

/// What a webhook receiver on loopback got: the three signature headers and the raw body.
struct Received {
    id: String,
    timestamp: String,
    signature: String,
    body: Vec<u8>,
}

/// A one-shot HTTP receiver on loopback: takes one POST, answers 204, hands it back.
fn receive_one() -> (String, std::sync::mpsc::Receiver<Received>) {
    use std::io::{Read, Write};
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/resume", listener.local_addr().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream);
        let mut headers = std::collections::HashMap::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
            }
        }
        let len: usize = headers["content-length"].parse().unwrap();
        let mut body = vec![0; len];
        reader.read_exact(&mut body).unwrap();
        reader
            .get_mut()
            .write_all(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            .unwrap();
        let _ = tx.send(Received {
            id: headers["webhook-id"].clone(),
            timestamp: headers["webhook-timestamp"].clone(),
            signature: headers["webhook-signature"].clone(),
            body,
        });
    });
    (url, rx)
}

/// `inbox webhook verify` with the body on stdin.
fn verify_webhook(secret: &str, got: &Received, body: &[u8], extra: &[&str]) -> Output {
    use std::io::Write;
    let mut child = Command::new(INBOX)
        .args([
            "webhook",
            "verify",
            "--webhook-id",
            &got.id,
            "--webhook-timestamp",
            &got.timestamp,
            "--webhook-signature",
            &got.signature,
        ])
        .args(extra)
        .env("INBOX_WEBHOOK_SECRET", secret)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A refusal that needs no body (a bad header) may exit before reading it: the pipe is then
    // closed, which is no failure of the test; its output says what happened.
    if let Err(e) = child.stdin.take().unwrap().write_all(body) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

#[test]
fn webhook_verify_accepts_the_servers_own_resume_and_refuses_any_change() {
    let server = start_server();
    let (url, received) = receive_one();
    let expiry = (chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
    let asks = serde_json::json!([{
        "prompt": "Sign me?", "answer_format": "confirm", "mode": "async", "expiry_at": expiry
    }])
    .to_string();
    let created = run(
        &server,
        &["park", "create", "--asks", &asks, "--webhook", &url],
    );
    assert_exit(&created, 13);
    let park: serde_json::Value = serde_json::from_str(&stdout(&created)).unwrap();
    let ia = park["park"]["interactions"][0].as_str().unwrap().to_owned();
    assert_eq!(
        run(&server, &["answer", &ia, "true"]).status.code(),
        Some(0)
    );
    let got = received
        .recv_timeout(Duration::from_secs(20))
        .expect("the dispatcher delivers the resume");
    // The secret the server generated into its data dir signed it.
    let secret = std::fs::read_to_string(server.dir.path().join("webhook_secret")).unwrap();
    let secret = secret.trim();

    let ok = verify_webhook(secret, &got, &got.body, &[]);
    assert_exit(&ok, 0);
    // The same body read from a file verifies too.
    let file = server.dir.path().join("body.json");
    std::fs::write(&file, &got.body).unwrap();
    let from_file = verify_webhook(secret, &got, b"", &["--body", file.to_str().unwrap()]);
    assert_eq!(from_file.status.code(), Some(0));

    let mut tampered = got.body.clone();
    let at = tampered.iter().position(|b| *b == b't').unwrap();
    tampered[at] = b'T';
    let bad = verify_webhook(secret, &got, &tampered, &[]);
    assert_eq!(bad.status.code(), Some(20), "a changed body");
    assert!(stderr(&bad).contains("no v1 signature"));
    let other_id = Received {
        id: "msg_pk_another".into(),
        ..got_clone(&got)
    };
    assert_eq!(
        verify_webhook(secret, &other_id, &got.body, &[])
            .status
            .code(),
        Some(20),
        "another webhook-id"
    );
    let other_secret = format!("whsec_{}", "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=");
    assert_eq!(
        verify_webhook(&other_secret, &got, &got.body, &[])
            .status
            .code(),
        Some(20),
        "another secret"
    );
    assert_eq!(
        verify_webhook("not-a-secret", &got, &got.body, &[])
            .status
            .code(),
        Some(1),
        "a malformed secret is an error, not a verdict"
    );
}

fn got_clone(r: &Received) -> Received {
    Received {
        id: r.id.clone(),
        timestamp: r.timestamp.clone(),
        signature: r.signature.clone(),
        body: r.body.clone(),
    }
}

#[test]
fn webhook_verify_refuses_a_stale_timestamp_with_its_own_code() {
    use base64::Engine as _;
    let key = b"stale-test-key-0123456789abcdef";
    let secret = format!(
        "whsec_{}",
        base64::engine::general_purpose::STANDARD.encode(key)
    );
    let body = br#"{"type":"park.resolved"}"#;
    let signed_at = chrono::Utc::now().timestamp() - 600;
    let signed = Received {
        id: "msg_pk_old".into(),
        timestamp: signed_at.to_string(),
        signature: inbox_server::webhook::sign(key, "msg_pk_old", signed_at, body),
        body: body.to_vec(),
    };
    let stale = verify_webhook(&secret, &signed, body, &[]);
    assert_eq!(
        stale.status.code(),
        Some(21),
        "ten minutes old, tolerance five"
    );
    assert!(stderr(&stale).contains("tolerance"));
    let tolerant = verify_webhook(&secret, &signed, body, &["--tolerance", "900"]);
    assert_eq!(tolerant.status.code(), Some(0));
    let garbled = Received {
        timestamp: "soon".into(),
        ..got_clone(&signed)
    };
    assert_eq!(
        verify_webhook(&secret, &garbled, body, &[]).status.code(),
        Some(20)
    );
}
