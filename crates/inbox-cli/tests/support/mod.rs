//! What the end-to-end tests of the `inbox` binary share: a real `inbox serve` process on a
//! free loopback port with its own data dir (SQLite, or a worker of a Redis deployment), the
//! `inbox` command pointed at it, and the Redis URL the multi-worker tests need.

#![allow(dead_code)] // each test binary uses its own part of this

use std::ffi::OsString;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub const INBOX: &str = env!("CARGO_BIN_EXE_inbox");

/// How long `inbox serve` may take to answer `/readyz`.
const START_DEADLINE: Duration = Duration::from_secs(20);

/// A server process with its own data dir; killed on drop (also when the test fails). Its
/// stderr is kept in `log` for the tests that read what the server wrote.
pub struct Server {
    /// The process itself, for the tests that SIGKILL a worker as a crash would.
    pub child: Child,
    pub url: String,
    pub dir: tempfile::TempDir,
    pub log: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `inbox serve --bind 127.0.0.1:<free port> --data-dir <temp dir>` and whatever flags and
/// environment a test adds. Without a `--token` flag the server makes its own tokens, and
/// [`Serve::start`] waits for their `tokens.json` too.
#[derive(Default)]
pub struct Serve {
    args: Vec<OsString>,
    env: Vec<(String, String)>,
}

impl Serve {
    pub fn new() -> Serve {
        Serve::default()
    }

    pub fn args<I, S>(mut self, args: I) -> Serve
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn env(mut self, key: &str, value: &str) -> Serve {
        self.env.push((key.to_owned(), value.to_owned()));
        self
    }

    /// Starts the server and returns once it is ready.
    pub fn start(self) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let log = dir.path().join("serve.log");
        let own_tokens = !self.args.iter().any(|a| a == "--token");
        let child = Command::new(INBOX)
            .args([
                "serve",
                "--bind",
                &format!("127.0.0.1:{port}"),
                "--data-dir",
            ])
            .arg(dir.path())
            .args(&self.args)
            .env_remove("INBOX_TOKENS")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("spawn inbox serve");
        let server = Server {
            child,
            url: format!("http://127.0.0.1:{port}"),
            dir,
            log,
        };
        let tokens = server.dir.path().join("tokens.json");
        until("inbox serve to come up", START_DEADLINE, || {
            (!own_tokens || tokens.exists()) && ready(port)
        });
        server
    }
}

/// A server with the tokens it made itself, in `tokens.json` of its data dir.
pub fn start_server() -> Server {
    Serve::new().start()
}

/// `inbox …` against `server`, reading its tokens from the server's data dir (none from the
/// environment).
pub fn inbox(server: &Server, args: &[&str]) -> Command {
    let mut cmd = Command::new(INBOX);
    cmd.args(args)
        .env("INBOX_URL", &server.url)
        .env("INBOX_DATA_DIR", server.dir.path())
        .env_remove("INBOX_TOKEN");
    cmd
}

/// What a finished command wrote on stdout, as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What a finished command wrote on stderr, as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Fails the test unless `out` exited with `code`, showing what the command wrote on stderr.
pub fn assert_exit(out: &Output, code: i32) {
    assert_eq!(out.status.code(), Some(code), "{}", stderr(out));
}

/// Everything a child writes on one of its piped streams (`child.stdout.take()`), to its end.
pub fn read_all(pipe: Option<impl Read>) -> String {
    let mut text = String::new();
    pipe.expect("the stream is piped")
        .read_to_string(&mut text)
        .unwrap();
    text
}

/// Serves `app` (the tests' agents) on a free loopback port, on a thread and runtime of its own
/// so that a blocking test can host it too.
pub fn serve_on_thread(app: axum::Router) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    addr
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Whether the server on `port` answers `GET /readyz` with 200.
fn ready(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    if stream
        .write_all(b"GET /readyz HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n")
        .is_err()
    {
        return false;
    }
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).is_ok() && head.ends_with(b"200")
}

/// Poll `probe` every 50 ms until it is true, failing the test after `within`.
pub fn until(what: &str, within: Duration, mut probe: impl FnMut() -> bool) {
    let deadline = Instant::now() + within;
    while !probe() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The Redis the multi-worker tests run against (`INBOX_TEST_REDIS_URL`); `None` skips the
/// test, except under CI, where a missing Redis fails it.
pub fn redis_url(test: &str) -> Option<String> {
    match std::env::var("INBOX_TEST_REDIS_URL") {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "INBOX_TEST_REDIS_URL is not set, but CI=true: the Redis tests must run"
            );
            eprintln!("SKIPPED {test}: INBOX_TEST_REDIS_URL is unset");
            None
        }
    }
}
