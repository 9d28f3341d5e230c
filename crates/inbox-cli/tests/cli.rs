//! The `inbox` binary end to end: a real `inbox serve` process on loopback, driven by the other
//! subcommands exactly as a script would.

mod support;

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Command, Output, Stdio};

use support::{INBOX, Server, start_server};

fn inbox(server: &Server, args: &[&str]) -> Command {
    let mut cmd = Command::new(INBOX);
    cmd.args(args)
        .env("INBOX_URL", &server.url)
        .env("INBOX_DATA_DIR", server.dir.path())
        .env_remove("INBOX_TOKEN");
    cmd
}

fn run(server: &Server, args: &[&str]) -> Output {
    inbox(server, args).output().expect("run inbox")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Start a blocking `inbox ask` and return it with the id it printed on stderr.
fn ask_in_background(server: &Server, args: &[&str]) -> (Child, String) {
    let mut child = inbox(server, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn inbox ask");
    let stderr = child.stderr.take().unwrap();
    let mut reader = BufReader::new(stderr);
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    // Keep draining: a closed pipe would make the child's later messages fail.
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    let id = line
        .split_whitespace()
        .find(|w| w.starts_with("ia_"))
        .unwrap_or_else(|| panic!("no id in `{line}`"))
        .to_owned();
    (child, id)
}

fn exit_code(child: Child) -> (i32, String) {
    let out = child.wait_with_output().unwrap();
    (out.status.code().unwrap_or(-1), stdout(&out))
}

#[test]
fn a_sync_ask_returns_the_answer_given_through_inbox_answer() {
    let server = start_server();
    let (asker, id) = ask_in_background(
        &server,
        &[
            "ask",
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
            &["ask", "Deploy?", "--format", "confirm"],
            "yes",
            serde_json::json!(true),
        ),
        (
            &["ask", "Headline?", "-o", "Faster builds"],
            "42",
            serde_json::json!("42"),
        ),
        (
            &["ask", "How many?", "--format", "form", "--schema", schema],
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
    let (asker, id) =
        ask_in_background(&server, &["ask", "Drop the table?", "--format", "confirm"]);
    let declined = run(&server, &["decline", &id, "--reason", "not today"]);
    assert!(declined.status.success(), "{declined:?}");
    assert_eq!(exit_code(asker).0, 10);

    let (asker, _id) = ask_in_background(&server, &["ask", "Quick one?", "--timeout", "1"]);
    assert_eq!(exit_code(asker).0, 11);
}

#[test]
fn inbox_withdraw_ends_the_waiting_ask_as_cancelled() {
    let server = start_server();
    let (asker, id) = ask_in_background(&server, &["ask", "Still needed?"]);
    let withdrawn = run(&server, &["withdraw", &id]);
    assert!(withdrawn.status.success(), "{withdrawn:?}");
    assert!(
        String::from_utf8_lossy(&withdrawn.stderr).contains("is now cancelled"),
        "{withdrawn:?}"
    );
    assert_eq!(exit_code(asker).0, 12);
}

#[test]
fn an_external_question_is_not_answered_from_the_terminal_but_can_be_declined() {
    let server = start_server();
    let (asker, id) = ask_in_background(
        &server,
        &[
            "ask",
            "Sign it?",
            "--format",
            "external",
            "--link",
            "https://sign.example.com/?cb={callback_url}",
        ],
    );
    let refused = run(&server, &["answer", &id, r#"{"signed":true}"#]);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    let err = String::from_utf8_lossy(&refused.stderr);
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
    let err = String::from_utf8_lossy(&out.stderr);
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
    let out = Command::new(INBOX).arg("--help").output().unwrap();
    let text = stdout(&out);
    for cmd in [
        "serve", "ask", "list", "answer", "decline", "withdraw", "demo", "mcp",
    ] {
        assert!(text.contains(cmd), "--help lists `{cmd}`");
    }
}

/// An HTTP proxy that forwards nothing: it records each request head and answers 502.
struct RecordingProxy {
    url: String,
    heads: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl RecordingProxy {
    fn start() -> RecordingProxy {
        use std::io::{Read, Write};
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let heads = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let recorded = heads.clone();
        std::thread::spawn(move || {
            for mut socket in listener.incoming().flatten() {
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                recorded
                    .lock()
                    .unwrap()
                    .push(String::from_utf8_lossy(&head).into_owned());
                let _ = socket.write_all(
                    b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                );
            }
        });
        RecordingProxy { url, heads }
    }

    fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }

    /// Every proxy variable the client might read, pointing here.
    fn set_on(&self, cmd: &mut Command) {
        for name in [
            "HTTP_PROXY",
            "http_proxy",
            "HTTPS_PROXY",
            "https_proxy",
            "ALL_PROXY",
            "all_proxy",
        ] {
            cmd.env(name, &self.url);
        }
        cmd.env_remove("NO_PROXY").env_remove("no_proxy");
    }
}

#[test]
fn a_proxy_in_the_environment_never_sees_a_loopback_token() {
    let server = start_server();
    let proxy = RecordingProxy::start();

    let mut list = inbox(&server, &["list", "--json"]);
    proxy.set_on(&mut list);
    let out = list.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The stream too: tail until one event arrives.
    let mut tail = inbox(&server, &["tail", "--count", "1"]);
    proxy.set_on(&mut tail);
    let mut tail = tail
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(tail.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("stream: online") {
        line.clear();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "tail ended before it was online"
        );
    }
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
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
        proxy.set_on(&mut cmd);
        cmd.output().unwrap()
    };

    let refused = list(&[], false);
    assert_eq!(refused.status.code(), Some(1));
    let message = String::from_utf8_lossy(&refused.stderr);
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
    assert_eq!(
        out.status.code(),
        Some(13),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let park = &printed["park"];
    assert_eq!(park["status"], "parked");
    let park_id = park["id"].as_str().unwrap().to_owned();
    let ia = park["interactions"][0].as_str().unwrap().to_owned();

    let still = run(&server, &["park", "wait", &park_id, "--timeout", "1"]);
    assert_eq!(still.status.code(), Some(13));
    let claim = run(&server, &["park", "claim", &park_id]);
    assert_eq!(claim.status.code(), Some(1), "not resolved yet");
    assert!(
        String::from_utf8_lossy(&claim.stderr).contains("not_resolved")
            || String::from_utf8_lossy(&claim.stderr).contains("resolved")
    );

    let answered = run(&server, &["answer", &ia, "true"]);
    assert_eq!(
        answered.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&answered.stderr)
    );
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
