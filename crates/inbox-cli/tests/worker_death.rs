//! A worker killed mid-delivery: two real `inbox serve --redis` processes on one Redis, a
//! webhook receiver on loopback that holds the first delivery open, and the worker holding the
//! lease killed with SIGKILL while its POST hangs. The other worker must deliver the resume
//! once its lease has run out, with the same `webhook-id`, and no request may ever carry a
//! second id. Every wait has a deadline.
//!
//! Needs `INBOX_TEST_REDIS_URL` (skipped with a notice when unset, failed under `CI=true`).

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::{INBOX, Serve, Server, assert_exit, redis_url, until};

const SECRET: &str = "whsec_dGhlIGtpbGwtOSB0ZXN0IHNpZ25pbmcga2V5IQ==";
const ASKER: &str = "kill9-asker-token-0123456789";
const REVIEWER: &str = "kill9-reviewer-token-0123456789";

/// An `inbox serve --redis` worker process; killed on drop if still running.
fn worker(redis: &str, prefix: &str) -> Server {
    Serve::new()
        .args(["--redis", redis, "--redis-prefix", prefix])
        .args(["--webhook-secret", SECRET])
        // A short lease so the takeover comes soon; a long attempt timeout so the held POST
        // is never given up by the worker itself.
        .args(["--webhook-lease-s", "2", "--webhook-timeout-s", "120"])
        .args(["--token", &format!("kill9-bot:asker:{ASKER}")])
        .args(["--token", &format!("kill9-reviewer:reviewer:{REVIEWER}")])
        .start()
}

fn inbox(worker: &Server, token: &str, args: &[&str]) -> Output {
    Command::new(INBOX)
        .args(args)
        .env("INBOX_URL", &worker.url)
        .env("INBOX_TOKEN", token)
        .output()
        .expect("run inbox")
}

/// A receiver on loopback recording each request's `webhook-id`; it never answers the first
/// request (the connection stays open, as a slow receiver would hold it) and answers 204 to
/// every later one.
fn receiver() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/resume", listener.local_addr().unwrap());
    let ids = Arc::new(Mutex::new(Vec::new()));
    let seen = ids.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let seen = seen.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream);
                let mut id = None;
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some((name, value)) = line.split_once(':') {
                        match name.trim().to_ascii_lowercase().as_str() {
                            "webhook-id" => id = Some(value.trim().to_owned()),
                            "content-length" => len = value.trim().parse().unwrap_or(0),
                            _ => {}
                        }
                    }
                }
                let mut body = vec![0; len];
                let _ = reader.read_exact(&mut body);
                let first = {
                    let mut seen = seen.lock().unwrap();
                    seen.push(id.unwrap_or_default());
                    seen.len() == 1
                };
                if first {
                    // Held open for longer than the test runs.
                    std::thread::sleep(Duration::from_secs(300));
                    return;
                }
                let _ = reader.get_mut().write_all(
                    b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                );
            });
        }
    });
    (url, ids)
}

#[test]
fn a_worker_killed_mid_delivery_is_taken_over_with_the_same_webhook_id() {
    let Some(redis) = redis_url("worker_death") else {
        return;
    };
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let prefix = format!("test:kill9:{}:{nanos}", std::process::id());
    let (hook, ids) = receiver();

    // Only A runs while the park resolves, so A is the worker that leases the delivery.
    let mut a = worker(&redis, &prefix);
    let expiry = (chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
    let asks = serde_json::json!([
        {"prompt": "Kill the worker?", "answer_format": "confirm", "mode": "async", "expiry_at": expiry},
        {"prompt": "Really?", "answer_format": "confirm", "mode": "async", "expiry_at": expiry},
    ])
    .to_string();
    let created = inbox(
        &a,
        ASKER,
        &["park", "create", "--asks", &asks, "--webhook", &hook],
    );
    assert_exit(&created, 13);
    let park: serde_json::Value = serde_json::from_slice(&created.stdout).unwrap();
    let park_id = park["park"]["id"].as_str().unwrap().to_owned();
    for ia in park["park"]["interactions"].as_array().unwrap() {
        let out = inbox(&a, REVIEWER, &["answer", ia.as_str().unwrap(), "true"]);
        assert_exit(&out, 0);
    }
    until("A's delivery attempt", Duration::from_secs(15), || {
        !ids.lock().unwrap().is_empty()
    });

    // B joins; A dies with its POST still open, holding the lease.
    let b = worker(&redis, &prefix);
    a.child.kill().expect("SIGKILL the lease holder");
    let status = a.child.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9),
        "killed by SIGKILL"
    );

    until("B's takeover", Duration::from_secs(20), || {
        ids.lock().unwrap().len() >= 2
    });
    let show = |w: &Server| -> serde_json::Value {
        let out = inbox(w, ASKER, &["park", "show", &park_id]);
        assert_eq!(out.status.code(), Some(0));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["park"].clone()
    };
    until("the park to be resumed", Duration::from_secs(10), || {
        show(&b)["status"] == "resumed"
    });
    // Longer than a lease: a stray second delivery would have shown itself by now.
    std::thread::sleep(Duration::from_secs(3));
    let ids = ids.lock().unwrap().clone();
    assert_eq!(ids.len(), 2, "the held attempt and the takeover: {ids:?}");
    assert_eq!(ids[0], format!("msg_{park_id}"));
    assert_eq!(ids[1], ids[0], "never a second webhook-id");
    let park = show(&b);
    assert_eq!(park["attempts"], 1, "only B's attempt was recorded");
    assert_eq!(park["resolutions"].as_array().unwrap().len(), 2);
}
