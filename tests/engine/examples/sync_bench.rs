//! Benchmark of the sync engine against the real server on loopback (prints figures; not a
//! test). For each list size: the time to a synced list, then events applied per second end
//! to end — live (asked over HTTP while the client listens) and as a resumed backlog (asked
//! while the client was offline, replayed on reconnect with `Last-Event-ID`).
//!
//! ```text
//! cargo run --release -p inbox-engine-tests --example sync_bench            # 10000 and 100000
//! cargo run --release -p inbox-engine-tests --example sync_bench -- 5000    # other sizes
//! ```
//!
//! Measured on the 2-core development machine (release build, SQLite server in-process):
//! 10,000 pending → synced in 0.08 s; 100,000 → 0.90 s (~110,000 items/s, 500 per page);
//! live events ~5,500–5,900/s end to end (bounded by the server's ask rate with 8 askers);
//! a resumed backlog of 2,000 events applied at ~30,000–40,000 events/s.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use inbox_client::Token;
use inbox_sync::Changes;
use tokio::sync::broadcast;

const EVENTS: usize = 2_000;
const ASKERS: usize = 8;

#[tokio::main]
async fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![10_000, 100_000]
    } else {
        sizes
    };
    println!("sync engine benchmark (loopback, {} cores)", cores());
    for size in sizes {
        run(size).await;
    }
}

async fn run(size: usize) {
    let retention = size + 3 * EVENTS;
    let dir = tempfile::tempdir().unwrap();
    let seeding = Instant::now();
    common::seed_pending(&dir, size, retention).await;
    println!(
        "\n{size} pending questions (seeded in {:.1}s)",
        seeding.elapsed().as_secs_f64()
    );
    let mut server = common::TestServer::start_in(dir, retention).await;
    let state = tempfile::tempdir().unwrap();
    let engine = common::engine(state.path());
    let mut changes = engine.subscribe();

    let started = Instant::now();
    engine
        .add_account(
            common::account("bench", &server.url()),
            Some(Token::new(common::ALICE)),
        )
        .await
        .unwrap();
    let batches = wait_for_pending(&mut changes, size).await;
    let synced = started.elapsed();
    println!(
        "  time to a synced list: {:.2}s ({:.0} items/s, {batches} change batches)",
        synced.as_secs_f64(),
        size as f64 / synced.as_secs_f64()
    );

    // Live: askers hammer the server while the engine follows the stream.
    let started = Instant::now();
    let asked = ask_many(&server.url(), EVENTS, "live").await;
    wait_for_pending(&mut changes, size + EVENTS).await;
    let applied = started.elapsed();
    println!(
        "  live: {EVENTS} asks took {:.2}s at the server; all applied after {:.2}s → {:.0} events/s end to end",
        asked.as_secs_f64(),
        applied.as_secs_f64(),
        EVENTS as f64 / applied.as_secs_f64()
    );

    // Backlog: asked while the engine is offline, replayed on reconnect.
    engine.set_network(false).await;
    ask_many(&server.url(), EVENTS, "backlog").await;
    let started = Instant::now();
    engine.set_network(true).await;
    wait_for_pending(&mut changes, size + 2 * EVENTS).await;
    let replayed = started.elapsed();
    println!(
        "  resumed backlog: {EVENTS} events replayed and applied in {:.2}s → {:.0} events/s",
        replayed.as_secs_f64(),
        EVENTS as f64 / replayed.as_secs_f64()
    );
    engine.shutdown().await;
    server.stop().await;
}

/// Wait until a change batch reports `want` pending; returns how many batches it took.
async fn wait_for_pending(changes: &mut broadcast::Receiver<Changes>, want: usize) -> usize {
    let mut batches = 0;
    loop {
        match tokio::time::timeout(Duration::from_secs(120), changes.recv()).await {
            Ok(Ok(batch)) => {
                batches += 1;
                if batch.counts.pending as usize >= want {
                    return batches;
                }
            }
            Ok(Err(broadcast::error::RecvError::Lagged(_))) => continue,
            Ok(Err(e)) => panic!("change stream ended: {e}"),
            Err(_) => panic!("no change for two minutes while waiting for {want} pending"),
        }
    }
}

async fn ask_many(url: &str, count: usize, label: &str) -> Duration {
    let started = Instant::now();
    let mut tasks = Vec::new();
    for worker in 0..ASKERS {
        let url = url.to_owned();
        let label = label.to_owned();
        tasks.push(tokio::spawn(async move {
            let bot = inbox_client::ApiClient::new(&url, Token::new(common::BOT)).unwrap();
            for i in (worker..count).step_by(ASKERS) {
                common::ask(&bot, &format!("{label} {i}")).await;
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    started.elapsed()
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}
