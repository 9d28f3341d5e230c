//! `GET /api/parks/{id}/wait?timeout_s=` — its asker long-polls: `200` once the park has left
//! `parked`, `202` while questions remain. Wakes on the events of the park's own questions
//! (which every Redis worker hears) and on this worker's park transitions.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use inbox_protocol::{Park, ParkResponse};

use crate::error::ApiError;
use crate::routes::found::find;
use crate::routes::poll::{self, AskerWait, LongPoll, Wake};
use crate::state::AppState;

pub async fn wait(
    State(state): State<AppState>,
    wait: AskerWait,
) -> Result<(StatusCode, Json<ParkResponse>), ApiError> {
    // Subscribe before reading, so a resolution between the read and the wait still wakes us.
    let mut poll = LongPoll::start(&state, wait.timeout).watching_parks(&state);
    let mut park = find::<Park>(&state, &wait.principal, &wait.id).await?;
    while !park.is_resolved() {
        let recheck = match poll.next().await {
            Wake::Event(event) => match event.stored.event.interaction_id() {
                Some(about) => park.interactions.iter().any(|ia| ia == about),
                // A `reset` may hide ours: look again.
                None => true,
            },
            Wake::Park(moved) => moved == wait.id,
            Wake::Missed => true,
            Wake::Over => break,
        };
        if recheck {
            park = find::<Park>(&state, &wait.principal, &wait.id).await?;
        }
    }
    let status = poll::status(park.is_resolved());
    Ok((status, Json(ParkResponse { park })))
}
