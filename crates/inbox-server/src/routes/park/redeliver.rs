//! `POST /api/parks/{id}/redeliver` — the asker asks for a `failed` webhook park to be
//! delivered again: it goes back to `resolved`, its attempts start over, and it is queued (with
//! the same delivery id, so a receiver that did see an earlier attempt dedupes it).

use axum::Json;
use axum::extract::State;
use chrono::Utc;
use inbox_protocol::{ErrorCode, Park, ParkResponse};

use crate::error::ApiError;
use crate::routes::found::{Found, find};
use crate::state::AppState;

pub async fn redeliver(
    State(state): State<AppState>,
    found: Found<Park>,
) -> Result<Json<ParkResponse>, ApiError> {
    let id = &found.item.id;
    if !state.store().redeliver_park(id, Utc::now()).await? {
        return Err(ApiError::new(
            ErrorCode::NotFailed,
            "only a park whose webhook failed can be redelivered",
        ));
    }
    tracing::info!(park = %id, "webhook queued again");
    let park = find::<Park>(&state, &found.principal, id).await?;
    Ok(Json(ParkResponse { park }))
}
