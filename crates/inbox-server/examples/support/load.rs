//! The load both benchmark examples drive: their tokens (a reviewer and several askers, so
//! that thousands of pending questions stay under each asker's pending limit), the Redis they
//! are pointed at, a bounded-parallel runner, answering over HTTP, and the figures they report.

use std::time::Duration;

use futures::StreamExt;
use inbox_server::TokenSpec;
use serde_json::json;

pub const REVIEWER: &str = "bench-reviewer-secret-0123456789";
/// How many askers share the load, so that the runs stay under each asker's pending limit
/// (1,000).
const ASKERS: usize = 4;
/// Clients sending requests at once.
pub const CONCURRENCY: usize = 16;

/// The reviewer and every asker, as the server is configured with them.
pub fn tokens() -> anyhow::Result<Vec<TokenSpec>> {
    let mut all = vec![format!("bench-reviewer:reviewer:{REVIEWER}").parse()?];
    for n in 0..ASKERS {
        all.push(format!("bench-bot-{n}:asker:{}", asker_secret(n)).parse()?);
    }
    Ok(all)
}

fn asker_secret(n: usize) -> String {
    format!("bench-asker-{n}-secret-0123456789")
}

/// The token of the asker that sends request `i`: the askers take turns.
pub fn asker_for(i: usize) -> String {
    asker_secret(i % ASKERS)
}

/// The Redis given by `INBOX_REDIS_URL` or else `INBOX_TEST_REDIS_URL`, if either is set.
pub fn configured_redis() -> Option<String> {
    ["INBOX_REDIS_URL", "INBOX_TEST_REDIS_URL"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|u| !u.trim().is_empty()))
}

/// Runs `job(0..n)` with at most CONCURRENCY in flight; results in index order.
pub async fn in_parallel<T, F, Fut>(n: usize, job: F) -> anyhow::Result<Vec<T>>
where
    F: Fn(usize) -> Fut,
    Fut: Future<Output = anyhow::Result<T>>,
{
    futures::stream::iter((0..n).map(job))
        .buffered(CONCURRENCY)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect()
}

/// Answers question `id` with `true` as the reviewer.
pub async fn answer(http: &reqwest::Client, base: &str, id: &str) -> anyhow::Result<()> {
    http.post(format!("{base}/api/interactions/{id}/answer"))
        .bearer_auth(REVIEWER)
        .json(&json!({"answer": true}))
        .send()
        .await?
        .error_for_status()?;
    Ok(())
}

/// The `p` quantile of `sorted` (nearest rank).
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((sorted.len() as f64) * p).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
