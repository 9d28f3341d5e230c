//! Throughput and stream latency of the stores, side by side, in one run:
//! the embedded SQLite store (one worker), and Redis with one and with two workers.
//!
//! ```text
//! cargo run --release -p inbox-server --example bench_stores
//! ```
//!
//! Redis comes from `INBOX_REDIS_URL` or `INBOX_TEST_REDIS_URL`; with neither set, the
//! benchmark starts its own `redis-server` on a free loopback port and stops it at the end.
//! Every worker is a real server (`inbox_server::start`) on 127.0.0.1, driven over HTTP by
//! clients in this same process, so on a small machine the load generator competes with the
//! servers for the same cores: compare the rows with each other, not with other machines.
//!
//! Measured per setup:
//! - asks/s: `POST /api/interactions` from `CONCURRENCY` clients, spread over the workers;
//! - answers/s: `POST …/answer` for each of those questions, spread the same way;
//! - SSE delivery latency: asks paced at `PACED_RATE`/s spread over the workers, timed from
//!   sending the ask to the `add` frame arriving on a stream held open on the first worker
//!   (with two workers, half of them travel through Redis from the other worker).

use std::collections::HashMap;
use std::net::{SocketAddr, TcpListener};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use futures::StreamExt;
use inbox_server::{RedisConfig, RunningServer, ServerConfig};
use serde_json::{Value, json};

#[path = "support/bench_args.rs"]
mod bench_args;
#[path = "support/load.rs"]
mod load;
#[path = "support/redis_keys.rs"]
mod redis_keys;
use bench_args::scaled;
use load::{CONCURRENCY, REVIEWER, answer, in_parallel, ms, percentile, tokens};
use redis_keys::remove_keys;

/// Questions asked (then answered) in the throughput phase.
const QUESTIONS: usize = 2000;
/// Asks timed for stream latency, and their pace.
const PACED_ASKS: usize = 600;
const PACED_RATE: u32 = 200;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let redis = Redis::find_or_start()?;
    let run_id = std::process::id();
    let setups = [
        Setup::Sqlite,
        Setup::Redis { workers: 1 },
        Setup::Redis { workers: 2 },
    ];
    let mut results = Vec::new();
    for setup in setups {
        eprintln!("running {} ...", setup.name());
        let prefix = format!("bench:{run_id}:{}", setup.slug());
        let result = run(setup, redis.url(), &prefix).await?;
        if matches!(setup, Setup::Redis { .. }) {
            remove_keys(redis.url(), &prefix).await?;
        }
        results.push((setup, result));
    }

    println!(
        "{} questions from {CONCURRENCY} concurrent clients; \
         latency over {} asks paced at {PACED_RATE}/s\n",
        scaled(QUESTIONS),
        scaled(PACED_ASKS)
    );
    let mut json: Vec<(String, &str, f64)> = Vec::new();
    for (setup, r) in &results {
        json.push((
            format!("throughput.{}.asks_per_s", setup.slug()),
            "1/s",
            r.asks_per_s,
        ));
        json.push((
            format!("throughput.{}.answers_per_s", setup.slug()),
            "1/s",
            r.answers_per_s,
        ));
    }
    bench_args::write_json(&json)?;
    println!("| store | workers | asks/s | answers/s | SSE delivery p50 | SSE delivery p99 |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (setup, r) in &results {
        println!(
            "| {} | {} | {:.0} | {:.0} | {:.2} ms | {:.2} ms |",
            setup.store(),
            setup.workers(),
            r.asks_per_s,
            r.answers_per_s,
            ms(r.latency_p50),
            ms(r.latency_p99),
        );
    }
    Ok(())
}

#[derive(Debug, Clone, Copy)]
enum Setup {
    Sqlite,
    Redis { workers: usize },
}

impl Setup {
    fn store(self) -> &'static str {
        match self {
            Setup::Sqlite => "SQLite (embedded)",
            Setup::Redis { .. } => "Redis 7",
        }
    }

    fn workers(self) -> usize {
        match self {
            Setup::Sqlite => 1,
            Setup::Redis { workers } => workers,
        }
    }

    fn name(self) -> String {
        format!("{}, {} worker(s)", self.store(), self.workers())
    }

    fn slug(self) -> String {
        match self {
            Setup::Sqlite => "sqlite".into(),
            Setup::Redis { workers } => format!("redis{workers}"),
        }
    }
}

struct Measured {
    asks_per_s: f64,
    answers_per_s: f64,
    latency_p50: Duration,
    latency_p99: Duration,
}

async fn run(setup: Setup, redis_url: &str, prefix: &str) -> anyhow::Result<Measured> {
    let dir = tempfile::tempdir()?;
    let mut servers = Vec::new();
    for _ in 0..setup.workers() {
        let mut config = ServerConfig::new("127.0.0.1:0".parse()?, dir.path().to_owned());
        config.tokens = tokens()?;
        if let Setup::Redis { .. } = setup {
            config.redis = Some(RedisConfig {
                url: redis_url.into(),
                prefix: prefix.to_owned(),
            });
        }
        servers.push(inbox_server::start(config).await?);
    }
    let bases: Arc<Vec<String>> = Arc::new(servers.iter().map(|s| s.base_url.clone()).collect());
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(CONCURRENCY)
        .build()?;

    // Throughput: asks, then answers, each from CONCURRENCY clients.
    let started = Instant::now();
    let ids = in_parallel(scaled(QUESTIONS), {
        let (http, bases) = (http.clone(), bases.clone());
        move |i| {
            let (http, base) = (http.clone(), bases[i % bases.len()].clone());
            async move { ask(&http, &base, i, &format!("throughput {i}")).await }
        }
    })
    .await?;
    let asks_per_s = scaled(QUESTIONS) as f64 / started.elapsed().as_secs_f64();
    let ids = Arc::new(ids);
    let started = Instant::now();
    in_parallel(scaled(QUESTIONS), {
        let (http, bases, ids) = (http.clone(), bases.clone(), ids.clone());
        move |i| {
            let (http, base, id) = (
                http.clone(),
                bases[(i + 1) % bases.len()].clone(),
                ids[i].clone(),
            );
            async move { answer(&http, &base, &id).await }
        }
    })
    .await?;
    let answers_per_s = scaled(QUESTIONS) as f64 / started.elapsed().as_secs_f64();

    // Latency: paced asks, timed to their `add` frame on a stream held on the first worker.
    let sent: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let (arrived_tx, mut arrived_rx) = tokio::sync::mpsc::unbounded_channel::<(String, Instant)>();
    let stream = http
        .get(format!("{}/api/interactions/stream", bases[0]))
        .bearer_auth(REVIEWER)
        .send()
        .await?
        .error_for_status()?;
    let reader = tokio::spawn(read_add_frames(stream, arrived_tx));
    let mut pace = tokio::time::interval(Duration::from_secs(1) / PACED_RATE);
    let mut asks = Vec::with_capacity(scaled(PACED_ASKS));
    for i in 0..scaled(PACED_ASKS) {
        pace.tick().await;
        let (http, base, sent) = (http.clone(), bases[i % bases.len()].clone(), sent.clone());
        asks.push(tokio::spawn(async move {
            let prompt = format!("paced {i}");
            sent.lock().unwrap().insert(prompt.clone(), Instant::now());
            ask(&http, &base, i, &prompt).await
        }));
    }
    for handle in asks {
        handle.await??;
    }
    let mut latencies = Vec::with_capacity(scaled(PACED_ASKS));
    while latencies.len() < scaled(PACED_ASKS) {
        let (prompt, at) = tokio::time::timeout(Duration::from_secs(10), arrived_rx.recv())
            .await
            .context("an add frame went missing")?
            .context("the stream ended")?;
        if let Some(start) = sent.lock().unwrap().get(&prompt) {
            latencies.push(at.saturating_duration_since(*start));
        }
    }
    reader.abort();
    latencies.sort();

    for server in servers {
        stop(server).await;
    }
    Ok(Measured {
        asks_per_s,
        answers_per_s,
        latency_p50: percentile(&latencies, 0.50),
        latency_p99: percentile(&latencies, 0.99),
    })
}

async fn ask(http: &reqwest::Client, base: &str, i: usize, prompt: &str) -> anyhow::Result<String> {
    let created: Value = http
        .post(format!("{base}/api/interactions"))
        .bearer_auth(load::asker_for(i))
        .json(&json!({"prompt": prompt, "answer_format": "confirm"}))
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    created["id"]
        .as_str()
        .map(str::to_owned)
        .context("the ask response has an id")
}

/// Reports the prompt of every `add` frame and when it arrived.
async fn read_add_frames(
    response: reqwest::Response,
    arrived: tokio::sync::mpsc::UnboundedSender<(String, Instant)>,
) {
    let mut body = response.bytes_stream();
    let mut buffer = String::new();
    while let Some(Ok(chunk)) = body.next().await {
        let now = Instant::now();
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            if !block.lines().any(|l| l == "event: add" || l == "event:add") {
                continue;
            }
            let data = block
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect::<Vec<_>>()
                .join("\n");
            if let Ok(ia) = serde_json::from_str::<Value>(&data)
                && let Some(prompt) = ia["prompt"].as_str()
            {
                let _ = arrived.send((prompt.to_owned(), now));
            }
        }
    }
}

async fn stop(server: RunningServer) {
    // The stream reader was aborted, so nothing holds the shutdown open.
    server.shutdown().await;
}

/// The Redis to measure against: configured, or started here for the run.
struct Redis {
    url: String,
    child: Option<Child>,
}

impl Redis {
    fn find_or_start() -> anyhow::Result<Redis> {
        if let Some(url) = load::configured_redis() {
            return Ok(Redis { url, child: None });
        }
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("no INBOX_REDIS_URL set and redis-server could not be started")?;
        let addr: SocketAddr = ([127, 0, 0, 1], port).into();
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(addr).is_err() {
            if Instant::now() > deadline {
                bail!("redis-server did not start on {addr}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        eprintln!("started redis-server on {addr} for this run");
        Ok(Redis {
            url: format!("redis://{addr}"),
            child: Some(child),
        })
    }

    fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
