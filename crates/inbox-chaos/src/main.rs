//! `inbox-chaos`: the fault campaign behind `scripts/chaos.sh` (docs/reliability.md).
//!
//! Real `inbox serve` processes (one on SQLite; two on a real `redis-server` with AOF on), a
//! few reviewer apps (the `inbox-client` engine, each behind its own TCP proxy), an asker asking
//! questions and parks at a steady rate, and a seeded injector that picks one fault at a time.
//! After each fault, with the load paused, it waits until everything settles and checks:
//! every app's list equals the server's pending truth; every answer an app acknowledged was
//! delivered exactly once (the server's record, the app's outbox verdict and the asker's view
//! agree); every resolved park resumes exactly once (two claimers race; one wins). It prints
//! the counts and the time to converge, and exits 1 on any loss, duplicate or divergence.

mod campaign;
mod client;
mod cluster;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StoreMode {
    Sqlite,
    Redis,
    /// Half the faults on SQLite, then half on Redis.
    Both,
}

/// Run a seeded fault campaign against real servers and count what is lost.
#[derive(Debug, Parser)]
#[command(name = "inbox-chaos")]
struct Args {
    /// How many faults to inject (split between the stores with `--store both`).
    #[arg(long, default_value_t = 50)]
    faults: usize,
    /// Seed of the fault sequence (which fault, when, on whom, for how long).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Which store the servers run on.
    #[arg(long, value_enum, default_value = "both")]
    store: StoreMode,
    /// Reviewer apps (engine clients).
    #[arg(long, default_value_t = 3)]
    reviewers: usize,
    /// The `inbox` binary to run as the server.
    #[arg(long, env = "INBOX_BIN")]
    inbox_bin: PathBuf,
    /// The longest the system may take to settle after a fault before it counts as diverged.
    #[arg(long, default_value_t = 40)]
    settle_timeout_s: u64,
    /// Keep the run directory (server logs, data, client state) here instead of a temp dir.
    #[arg(long)]
    keep: Option<PathBuf>,
    /// Run redis-server without its append-only file, so a `kill -9` forgets acknowledged
    /// writes: a check of the campaign itself, which must then report losses and exit 1.
    #[arg(long)]
    redis_without_aof: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let stores: Vec<(StoreMode, usize)> = match args.store {
        StoreMode::Both => vec![
            (StoreMode::Sqlite, args.faults.div_ceil(2)),
            (StoreMode::Redis, args.faults / 2),
        ],
        one => vec![(one, args.faults)],
    };
    let mut total = campaign::Report::default();
    for (i, (store, faults)) in stores.into_iter().enumerate() {
        let settings = campaign::Settings {
            store,
            faults,
            seed: args.seed.wrapping_add(i as u64),
            reviewers: args.reviewers,
            inbox_bin: args.inbox_bin.clone(),
            settle_timeout: std::time::Duration::from_secs(args.settle_timeout_s),
            keep: args
                .keep
                .as_ref()
                .map(|k| k.join(format!("{store:?}").to_lowercase())),
            redis_without_aof: args.redis_without_aof,
        };
        match runtime.block_on(campaign::run(settings)) {
            Ok(report) => {
                report.print(&format!("{store:?}").to_lowercase());
                total.merge(report);
            }
            Err(e) => {
                eprintln!("chaos: the {store:?} campaign could not run: {e:#}");
                return ExitCode::from(2);
            }
        }
    }
    total.print("total");
    // The engines' runtimes are dropped in the background; do not wait on their sockets.
    runtime.shutdown_background();
    if total.failed() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
