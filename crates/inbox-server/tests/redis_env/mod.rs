//! Where the Redis tests find their Redis: `INBOX_TEST_REDIS_URL`, set by the test command
//! (`scripts/services.sh` starts a real redis-server on a free loopback port).

#![allow(dead_code)] // each test binary uses its own share of these helpers

use std::sync::atomic::{AtomicU64, Ordering};

pub const URL_VAR: &str = "INBOX_TEST_REDIS_URL";

/// The Redis URL, or `None` (with a printed notice) when it is unset outside CI. Under
/// `CI=true` an unset URL fails the test: CI must never silently skip the Redis suite.
pub fn url(test: &str) -> Option<String> {
    match std::env::var(URL_VAR) {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "{URL_VAR} is not set, but CI=true: the Redis tests must run. Start a \
                 redis-server and export {URL_VAR}=redis://127.0.0.1:PORT \
                 (scripts/services.sh does this)."
            );
            eprintln!("SKIPPED {test}: {URL_VAR} is unset (start redis-server and set it to run)");
            None
        }
    }
}

/// The Redis URL and a key prefix of `test`'s own, or `None` as [`url`] says.
pub fn url_and_prefix(test: &str) -> Option<(String, String)> {
    Some((url(test)?, unique_prefix(test)))
}

/// A key prefix no other test (or earlier run) uses, so tests share one Redis in parallel.
pub fn unique_prefix(test: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!(
        "test:{test}:{}:{nanos}:{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Which store a suite that runs on both has its server on.
#[derive(Clone, Copy, Debug)]
pub enum Backend {
    Sqlite,
    Redis,
}

/// SQLite always, and Redis too when it is configured, with the URL and a key prefix of
/// `test`'s own.
pub fn backends(test: &str) -> Vec<(Backend, Option<(String, String)>)> {
    let mut all = vec![(Backend::Sqlite, None)];
    if let Some(space) = url_and_prefix(test) {
        all.push((Backend::Redis, Some(space)));
    }
    all
}
