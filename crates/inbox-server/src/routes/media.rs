//! `GET /api/interactions/media/{id}` — public by default (the id is the capability; whether it
//! is public is configuration, `public_doors.rs`). Serves the stored
//! bytes with the stored content type, locked down so the bytes can never act as a page.

use axum::extract::State;
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, X_CONTENT_TYPE_OPTIONS,
};
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::extract::PathId;
use crate::state::AppState;

pub async fn media(
    State(state): State<AppState>,
    PathId(id): PathId,
) -> Result<Response, ApiError> {
    let media = state
        .store()
        .get_media(&id)
        .await?
        .ok_or_else(|| ApiError::new(inbox_protocol::ErrorCode::NotFound, "no such media"))?;
    Ok((
        [
            (CONTENT_TYPE, media.content_type),
            (X_CONTENT_TYPE_OPTIONS, "nosniff".to_owned()),
            (
                CONTENT_SECURITY_POLICY,
                "default-src 'none'; sandbox".to_owned(),
            ),
            (CACHE_CONTROL, "private, max-age=3600".to_owned()),
        ],
        media.bytes,
    )
        .into_response())
}
