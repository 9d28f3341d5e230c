//! The `inbox` binary end to end: a real `inbox serve` process on loopback, driven by the other
//! subcommands exactly as a script would.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const INBOX: &str = env!("CARGO_BIN_EXE_inbox");

/// A server process with its own data dir; killed on drop.
struct Server {
    child: Child,
    url: String,
    dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start_server() -> Server {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");
    let child = Command::new(INBOX)
        .args([
            "serve",
            "--bind",
            &format!("127.0.0.1:{port}"),
            "--data-dir",
        ])
        .arg(dir.path())
        .env_remove("INBOX_TOKENS")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn inbox serve");
    let server = Server { child, url, dir };
    let deadline = Instant::now() + Duration::from_secs(20);
    while !server.dir.path().join("tokens.json").exists()
        || std::net::TcpStream::connect(("127.0.0.1", port)).is_err()
    {
        assert!(Instant::now() < deadline, "inbox serve did not come up");
        std::thread::sleep(Duration::from_millis(50));
    }
    server
}

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
        "serve", "ask", "list", "answer", "decline", "withdraw", "demo",
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
    child.stdin.take().unwrap().write_all(body).unwrap();
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
    assert_eq!(
        created.status.code(),
        Some(13),
        "{}",
        String::from_utf8_lossy(&created.stderr)
    );
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
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
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
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no v1 signature"));
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
    assert!(String::from_utf8_lossy(&stale.stderr).contains("tolerance"));
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
