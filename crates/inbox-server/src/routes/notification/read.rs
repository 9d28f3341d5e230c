//! `GET /api/notifications/{id}` — one notification, for a reviewer or its asker. Reading it
//! here does not mark it read (that is `POST …/read`, a reviewer's act).

use axum::Json;
use axum::extract::State;
use inbox_protocol::Notification;

use super::visible;
use crate::error::ApiError;
use crate::extract::PathId;
use crate::principal::Principal;
use crate::state::AppState;

pub async fn read(
    State(state): State<AppState>,
    principal: Principal,
    PathId(id): PathId,
) -> Result<Json<Notification>, ApiError> {
    Ok(Json(visible(&state, &principal, &id).await?))
}
