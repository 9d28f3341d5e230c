//! `GET /api/notifications?limit=&cursor=` — outstanding notifications, newest first, with
//! the stream cursor read at the same moment (reviewers).

use axum::Json;
use axum::extract::State;
use inbox_protocol::NotificationPage;
use inbox_protocol::caps::{PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX};

use crate::auth::AsReviewer;
use crate::error::ApiError;
use crate::extract::QueryParams;
use crate::state::AppState;

pub async fn list(
    State(state): State<AppState>,
    AsReviewer(_): AsReviewer,
    QueryParams(params): QueryParams,
) -> Result<Json<NotificationPage>, ApiError> {
    let limit = match params.get("limit") {
        None => PAGE_LIMIT_DEFAULT,
        Some(s) => match s.parse::<usize>() {
            Ok(n) if n >= 1 => n.min(PAGE_LIMIT_MAX),
            _ => {
                return Err(ApiError::invalid_query(
                    "limit",
                    format!("limit is a whole number from 1 to {PAGE_LIMIT_MAX}"),
                ));
            }
        },
    };
    let cursor = params.get("cursor").filter(|c| !c.is_empty()).cloned();
    Ok(Json(state.store().list_notifications(limit, cursor).await?))
}
