//! `GET /api/interactions?status=&limit=&cursor=` — one page, newest first, with the stream
//! cursor read at the same moment.

use axum::Json;
use axum::extract::State;
use inbox_protocol::{InteractionPage, StatusFilter};

use crate::auth::AsReviewer;
use crate::error::ApiError;
use crate::extract::{PageWindow, QueryParams};
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
    let PageWindow { limit, cursor } = PageWindow::of(&params)?;
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
