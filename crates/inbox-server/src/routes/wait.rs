//! `GET /api/interactions/{id}/wait?timeout_s=` — its asker long-polls: `200` with the
//! resolved interaction, `202` with it still pending. Wakes on the live event bus.

use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use inbox_protocol::Interaction;
use inbox_protocol::caps::WAIT_MAX_SECONDS;
use tokio::sync::broadcast::error::RecvError;

use super::{PathId, QueryParams};
use crate::auth::AsAsker;
use crate::error::ApiError;
use crate::state::AppState;

/// `timeout_s` when absent.
const WAIT_DEFAULT_SECONDS: u64 = 30;

/// The `timeout_s` query parameter of a long-poll (this door's and the park's).
pub(super) fn timeout_param(
    params: &std::collections::HashMap<String, String>,
) -> Result<u64, ApiError> {
    match params.get("timeout_s") {
        None => Ok(WAIT_DEFAULT_SECONDS),
        Some(s) => s.parse::<u64>().map_err(|_| {
            ApiError::invalid_query("timeout_s", "timeout_s is a whole number of seconds")
        }),
    }
}

pub async fn wait(
    State(state): State<AppState>,
    AsAsker(principal): AsAsker,
    PathId(id): PathId,
    QueryParams(params): QueryParams,
) -> Result<(StatusCode, Json<Interaction>), ApiError> {
    let timeout_s = timeout_param(&params)?.min(WAIT_MAX_SECONDS);
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
    let deadline = tokio::time::sleep(Duration::from_secs(timeout_s));
    tokio::pin!(deadline);
    let stopping = state.stopping();
    tokio::pin!(stopping);
    while ia.is_pending() {
        let recheck = tokio::select! {
            received = live.recv() => match received {
                // A `reset` (the Redis follower saw part of the stream lost) may hide ours too.
                Ok(event) => match event.event.interaction_id() {
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
