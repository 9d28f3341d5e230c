//! What the end-to-end tests share: a real `inbox serve` on loopback with its own data dir.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const INBOX: &str = env!("CARGO_BIN_EXE_inbox");

/// A server process with its own data dir; killed on drop.
pub struct Server {
    child: Child,
    pub url: String,
    pub dir: tempfile::TempDir,
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

pub fn start_server() -> Server {
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
