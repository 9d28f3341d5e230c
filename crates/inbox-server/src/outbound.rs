//! What the two workers that call out share — the webhook dispatcher (resumes) and the AG-UI
//! driver (turns): an HTTP client that never follows a redirect, and taking the next due job
//! from the store's durable queue.

use crate::store::StoreError;

/// The client of a worker that calls out, from `builder` with its timeouts. It never follows
/// a redirect: the target was vetted when it was given, and a redirect could carry what goes
/// to it (signed answers, a run's headers) anywhere else; one is a failed attempt. `None`
/// (logged) when it cannot be built: `worker` names who cannot start.
pub fn client(builder: reqwest::ClientBuilder, worker: &str) -> Option<reqwest::Client> {
    match builder.redirect(reqwest::redirect::Policy::none()).build() {
        Ok(http) => Some(http),
        Err(e) => {
            tracing::error!(error = %e, "{worker} cannot start");
            None
        }
    }
}

/// The job a lease took, if any was due. A store failure is logged and reads as "nothing due":
/// the worker's next wake-up tries again. `job` names what was leased.
pub fn leased<J>(lease: Result<Option<J>, StoreError>, job: &str) -> Option<J> {
    lease.unwrap_or_else(|e| {
        tracing::warn!(error = %e, "leasing {job} failed; retrying");
        None
    })
}

/// The kind of a failed call, for what a reqwest error shares between the workers; `None` for
/// the kinds each names itself. Never the error's own text: it holds the URL, which the asker
/// gave and which may carry a token.
pub fn failure(e: &reqwest::Error) -> Option<&'static str> {
    if e.is_timeout() {
        Some("timed out")
    } else if e.is_connect() {
        Some("could not connect")
    } else if e.is_redirect() {
        Some("redirected")
    } else {
        None
    }
}
