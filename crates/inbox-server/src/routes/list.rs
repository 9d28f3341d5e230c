//! `GET /api/interactions?status=&limit=&cursor=` — one page, newest first, with the stream
//! cursor read at the same moment.

use axum::Json;
use axum::extract::State;
use inbox_protocol::caps::{PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX};
use inbox_protocol::{InteractionPage, StatusFilter};

use crate::auth::AsReviewer;
use crate::error::ApiError;
use crate::extract::QueryParams;
use crate::state::AppState;
use crate::store::PageQuery;

pub async fn list(
    State(state): State<AppState>,
    AsReviewer(_): AsReviewer,
    QueryParams(params): QueryParams,
) -> Result<Json<InteractionPage>, ApiError> {
    let status = match params.get("status") {
        None => StatusFilter::Pending,
        Some(s) => StatusFilter::parse(s).ok_or_else(|| {
            ApiError::invalid_query(
                "status",
                "status is one of pending, answered, declined, expired, cancelled, all",
            )
        })?,
    };
    let limit = match params.get("limit") {
        None => PAGE_LIMIT_DEFAULT,
        Some(s) => match s.parse::<usize>() {
            // Past the cap is not an error: the page is just the largest one served.
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
    let page = state
        .store()
        .list_page(PageQuery {
            status,
            limit,
            cursor,
        })
        .await?;
    Ok(Json(page))
}
