//! `GET /api/interactions/{id}/wait?timeout_s=` — its asker long-polls: `200` with the
//! resolved interaction, `202` with it still pending. Wakes on the live event bus.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use inbox_protocol::Interaction;

use super::found::find;
use super::poll::{self, AskerWait, LongPoll, Wake};
use crate::error::ApiError;
use crate::state::AppState;

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
    Ok((poll::status(!ia.is_pending()), Json(ia)))
}
