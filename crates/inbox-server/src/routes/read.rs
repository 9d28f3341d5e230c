//! `GET /api/interactions/{id}` — one interaction, for a reviewer or its asker.

use axum::Json;
use axum::extract::State;
use inbox_protocol::Interaction;

use crate::error::ApiError;
use crate::extract::PathId;
use crate::principal::Principal;
use crate::state::AppState;

pub async fn read(
    State(state): State<AppState>,
    principal: Principal,
    PathId(id): PathId,
) -> Result<Json<Interaction>, ApiError> {
    let ia = state
        .store()
        .get(&id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    if principal.require_reviewer().is_ok() || principal.is_asker_of(&ia) {
        Ok(Json(ia))
    } else {
        // Another asker's question: indistinguishable from a missing one.
        Err(ApiError::not_found())
    }
}
