//! `GET /api/parks/{id}` — the park, with the resolutions recorded so far.

use axum::Json;
use axum::extract::State;
use inbox_protocol::ParkResponse;

use super::own_park;
use crate::auth::AsAsker;
use crate::error::ApiError;
use crate::extract::PathId;
use crate::state::AppState;

pub async fn read(
    State(state): State<AppState>,
    AsAsker(principal): AsAsker,
    PathId(id): PathId,
) -> Result<Json<ParkResponse>, ApiError> {
    let park = own_park(&state, &principal, &id).await?;
    Ok(Json(ParkResponse { park }))
}
