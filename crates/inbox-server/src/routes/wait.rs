//! `GET /api/interactions/{id}/wait?timeout_s=` — its asker long-polls: `200` with the
//! resolved interaction, `202` with it still pending. Wakes on the live event bus.

use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use inbox_protocol::Interaction;
use inbox_protocol::caps::WAIT_MAX_SECONDS;
use tokio::sync::broadcast::error::RecvError;

use crate::auth::AsAsker;
use crate::error::ApiError;
use crate::extract::{PathId, QueryParams};
use crate::state::AppState;

/// `timeout_s` when absent.
const WAIT_DEFAULT_SECONDS: u64 = 30;

/// How long a long-poll (this door's and the park's) waits: its `timeout_s` query parameter,
/// served as at most `WAIT_MAX_SECONDS`.
pub(super) fn wait_timeout(
    params: &std::collections::HashMap<String, String>,
) -> Result<Duration, ApiError> {
    let seconds = match params.get("timeout_s") {
        None => WAIT_DEFAULT_SECONDS,
        Some(s) => s.parse::<u64>().map_err(|_| {
            ApiError::invalid_query("timeout_s", "timeout_s is a whole number of seconds")
        })?,
    };
    Ok(Duration::from_secs(seconds.min(WAIT_MAX_SECONDS)))
}

pub async fn wait(
    State(state): State<AppState>,
    AsAsker(principal): AsAsker,
    PathId(id): PathId,
    QueryParams(params): QueryParams,
) -> Result<(StatusCode, Json<Interaction>), ApiError> {
    let timeout = wait_timeout(&params)?;
    // Subscribe before reading, so a resolution between the read and the wait still wakes us.
    let mut live = state.store().subscribe();
    let mut ia = state
        .store()
        .get(&id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    if !principal.is_asker_of(&ia) {
        return Err(ApiError::not_found());
    }
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    let stopping = state.stopping();
    tokio::pin!(stopping);
    let _waiting = ia.is_pending().then(|| state.long_polls().enter());
    while ia.is_pending() {
        let recheck = tokio::select! {
            received = live.recv() => match received {
                // A `reset` (the Redis follower saw part of the stream lost) may hide ours too.
                Ok(event) => match event.stored.event.interaction_id() {
                    Some(about) => about == id,
                    None => true,
                },
                // Missed events might include ours: look again.
                Err(RecvError::Lagged(_)) => true,
                Err(RecvError::Closed) => break,
            },
            () = &mut deadline => break,
            () = &mut stopping => break,
        };
        if recheck {
            ia = state
                .store()
                .get(&id)
                .await?
                .ok_or_else(ApiError::not_found)?;
        }
    }
    let status = if ia.is_pending() {
        StatusCode::ACCEPTED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(ia)))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn timeout_of(value: Option<&str>) -> Result<Duration, ApiError> {
        let params: HashMap<String, String> = value
            .map(|v| ("timeout_s".to_owned(), v.to_owned()))
            .into_iter()
            .collect();
        wait_timeout(&params)
    }

    #[test]
    fn timeout_s_is_clamped_to_the_cap_and_defaults_when_absent() {
        assert_eq!(timeout_of(None).unwrap(), Duration::from_secs(30));
        assert_eq!(timeout_of(Some("0")).unwrap(), Duration::ZERO);
        assert_eq!(timeout_of(Some("7")).unwrap(), Duration::from_secs(7));
        let cap = Duration::from_secs(WAIT_MAX_SECONDS);
        assert_eq!(timeout_of(Some("60")).unwrap(), cap);
        assert_eq!(timeout_of(Some("61")).unwrap(), cap);
        assert_eq!(timeout_of(Some(&u64::MAX.to_string())).unwrap(), cap);
        for bad in ["-1", "1.5", "", "18446744073709551616", "ten"] {
            assert!(timeout_of(Some(bad)).is_err(), "{bad:?} accepted");
        }
    }
}
