//! `GET /api/notifications?limit=&cursor=` — outstanding notifications, newest first, with
//! the stream cursor read at the same moment (reviewers).

use axum::Json;
use axum::extract::State;
use inbox_protocol::NotificationPage;

use crate::auth::AsReviewer;
use crate::error::ApiError;
use crate::extract::{PageWindow, QueryParams};
use crate::state::AppState;

pub async fn list(
    State(state): State<AppState>,
    AsReviewer(_): AsReviewer,
    QueryParams(params): QueryParams,
) -> Result<Json<NotificationPage>, ApiError> {
    let PageWindow { limit, cursor } = PageWindow::of(&params)?;
    Ok(Json(state.store().list_notifications(limit, cursor).await?))
}
