//! `GET /api/interactions/{id}/wait?timeout_s=` — its asker long-polls: `200` with the
//! resolved interaction, `202` with it still pending. Wakes on the live event bus.

use std::time::Duration;

use axum::Json;
use axum::extract::{FromRequestParts, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use inbox_protocol::Interaction;
use inbox_protocol::caps::WAIT_MAX_SECONDS;

use super::found::find;
use crate::auth::AsAsker;
use crate::error::ApiError;
use crate::extract::{PathId, QueryParams};
use crate::long_poll::{self, LongPoll, Wake};
use crate::principal::Principal;
use crate::state::AppState;

/// `timeout_s` when absent.
const WAIT_DEFAULT_SECONDS: u64 = 30;

/// How long a long-poll (this door's and the park's) waits: its `timeout_s` query parameter,
/// served as at most `WAIT_MAX_SECONDS`.
fn wait_timeout(
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

/// An asker's long-poll on one item (this door's and the park's), extracted in the order its
/// refusals come: the role (`401`/`403`), the path (`404`), then `timeout_s` (`400`).
pub(super) struct AskerWait {
    pub principal: Principal,
    pub id: String,
    pub timeout: Duration,
}

impl FromRequestParts<AppState> for AskerWait {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let AsAsker(principal) = AsAsker::from_request_parts(parts, state).await?;
        let PathId(id) = PathId::from_request_parts(parts, state).await?;
        let QueryParams(params) = QueryParams::from_request_parts(parts, state).await?;
        let timeout = wait_timeout(&params)?;
        Ok(AskerWait {
            principal,
            id,
            timeout,
        })
    }
}

pub async fn wait(
    State(state): State<AppState>,
    wait: AskerWait,
) -> Result<(StatusCode, Json<Interaction>), ApiError> {
    // Subscribe before reading, so a resolution between the read and the wait still wakes us.
    let mut poll = LongPoll::start(&state, wait.timeout);
    let mut ia = find::<Interaction>(&state, &wait.principal, &wait.id).await?;
    while ia.is_pending() {
        let recheck = match poll.next().await {
            // A `reset` (the Redis follower saw part of the stream lost) may hide ours too.
            Wake::Event(event) => event
                .stored
                .event
                .interaction_id()
                .is_none_or(|about| about == wait.id),
            // This wait does not watch parks.
            Wake::Park(_) => false,
            // Missed events might include ours: look again.
            Wake::Missed => true,
            Wake::Over => break,
        };
        if recheck {
            ia = state
                .store()
                .get(&wait.id)
                .await?
                .ok_or_else(ApiError::not_found)?;
        }
    }
    Ok((long_poll::status(!ia.is_pending()), Json(ia)))
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
