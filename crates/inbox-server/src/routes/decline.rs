//! `POST /api/interactions/{id}/decline` — a reviewer says no to the whole question.

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use inbox_protocol::validate::validate_decline;
use inbox_protocol::{DeclineRequest, ResolveResponse};

use super::resolution::{idempotency_key, settle};
use crate::auth::AsReviewer;
use crate::body::JsonBody;
use crate::error::ApiError;
use crate::extract::PathId;
use crate::state::AppState;
use crate::store::Resolution;

pub async fn decline(
    State(state): State<AppState>,
    AsReviewer(principal): AsReviewer,
    PathId(id): PathId,
    headers: HeaderMap,
    JsonBody(req): JsonBody<DeclineRequest>,
) -> Result<Json<ResolveResponse>, ApiError> {
    let key = idempotency_key(&headers)?;
    validate_decline(&req)?;
    let body = serde_json::to_value(&req).unwrap_or_default();
    let resolution = Resolution::Decline {
        reason: req.reason,
        by: principal.name.clone(),
    };
    settle(
        &state,
        &id,
        "decline",
        &principal.name,
        &body,
        key,
        resolution,
    )
    .await
}
