//! Where the Redis tests find their Redis: `INBOX_TEST_REDIS_URL`, set by the test command
//! (`scripts/services.sh` starts a real redis-server on a free loopback port).

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
