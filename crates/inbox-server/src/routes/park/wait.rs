//! `GET /api/parks/{id}/wait?timeout_s=` — its asker long-polls: `200` once the park has left
//! `parked`, `202` while questions remain. Wakes on the events of the park's own questions
//! (which every Redis worker hears) and on this worker's park transitions.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use inbox_protocol::ParkResponse;
use tokio::sync::broadcast::error::RecvError;

use super::own_park;
use crate::auth::AsAsker;
use crate::error::ApiError;
use crate::extract::{PathId, QueryParams};
use crate::routes::wait::wait_timeout;
use crate::state::AppState;

pub async fn wait(
    State(state): State<AppState>,
    AsAsker(principal): AsAsker,
    PathId(id): PathId,
    QueryParams(params): QueryParams,
) -> Result<(StatusCode, Json<ParkResponse>), ApiError> {
    let timeout = wait_timeout(&params)?;
    // Subscribe before reading, so a resolution between the read and the wait still wakes us.
    let mut events = state.store().subscribe();
    let mut parks = state.store().subscribe_parks();
    let mut park = own_park(&state, &principal, &id).await?;
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    let stopping = state.stopping();
    tokio::pin!(stopping);
    let _waiting = (!park.is_resolved()).then(|| state.long_polls().enter());
    while !park.is_resolved() {
        let recheck = tokio::select! {
            received = events.recv() => match received {
                Ok(event) => match event.stored.event.interaction_id() {
                    Some(about) => park.interactions.iter().any(|ia| ia == about),
                    // A `reset` may hide ours: look again.
                    None => true,
                },
                Err(RecvError::Lagged(_)) => true,
                Err(RecvError::Closed) => break,
            },
            moved = parks.recv() => match moved {
                Ok(moved) => moved.id == id,
                Err(RecvError::Lagged(_)) => true,
                Err(RecvError::Closed) => break,
            },
            () = &mut deadline => break,
            () = &mut stopping => break,
        };
        if recheck {
            park = own_park(&state, &principal, &id).await?;
        }
    }
    let status = if park.is_resolved() {
        StatusCode::OK
    } else {
        StatusCode::ACCEPTED
    };
    Ok((status, Json(ParkResponse { park })))
}
