//! `POST /api/notifications/{id}/read` and `…/dismiss` — a reviewer opened or cleared a
//! notification. Each sets its moment once (a repeat is `200` with nothing changed) and the
//! change goes out as `notification_updated`, so every window follows. A dismissed one leaves
//! the list and its asker's outstanding count, and is pruned with the resolved questions.

use axum::Json;
use axum::extract::State;
use chrono::Utc;
use inbox_protocol::Notification;

use super::not_found;
use crate::auth::AsReviewer;
use crate::error::ApiError;
use crate::extract::PathId;
use crate::state::AppState;
use crate::store::Mark;

/// What both doors answer: the notification as marked.
type Marked = Result<Json<Notification>, ApiError>;

pub async fn read(state: State<AppState>, reviewer: AsReviewer, id: PathId) -> Marked {
    mark(state, reviewer, id, Mark::Read).await
}

pub async fn dismiss(state: State<AppState>, reviewer: AsReviewer, id: PathId) -> Marked {
    mark(state, reviewer, id, Mark::Dismiss).await
}

async fn mark(
    State(state): State<AppState>,
    AsReviewer(principal): AsReviewer,
    PathId(id): PathId,
    mark: Mark,
) -> Marked {
    let marked = state
        .store()
        .mark_notification(&id, mark, Utc::now())
        .await?
        .ok_or_else(not_found)?;
    tracing::info!(notification = %id, by = %principal.name, mark = mark.as_str(), "notification marked");
    Ok(Json(marked))
}
