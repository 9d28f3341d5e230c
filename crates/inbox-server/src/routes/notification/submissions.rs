//! `GET /api/notifications/{id}/submissions` — every submission so far, oldest first, for the
//! notification's asker (or a reviewer); another asker gets the uniform 404.

use axum::Json;
use axum::extract::State;
use inbox_protocol::{Notification, SubmissionList};

use crate::error::ApiError;
use crate::extract::PathId;
use crate::principal::Principal;
use crate::routes::found::find;
use crate::state::AppState;

pub async fn submissions(
    State(state): State<AppState>,
    principal: Principal,
    PathId(id): PathId,
) -> Result<Json<SubmissionList>, ApiError> {
    let n = find::<Notification>(&state, &principal, &id).await?;
    let items = state.store().submissions(&n.id).await?;
    Ok(Json(SubmissionList { items }))
}
