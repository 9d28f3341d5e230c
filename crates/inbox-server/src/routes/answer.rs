//! `POST /api/interactions/{id}/answer` — a reviewer answers a pending question.

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use inbox_protocol::validate::validate_params;
use inbox_protocol::{AnswerRequest, ResolveResponse};

use super::resolution::{idempotency_key, settle};
use crate::auth::AsReviewer;
use crate::body::JsonBody;
use crate::error::ApiError;
use crate::extract::PathId;
use crate::state::AppState;
use crate::store::Resolution;

pub async fn answer(
    State(state): State<AppState>,
    AsReviewer(principal): AsReviewer,
    PathId(id): PathId,
    headers: HeaderMap,
    JsonBody(req): JsonBody<AnswerRequest>,
) -> Result<Json<ResolveResponse>, ApiError> {
    let key = idempotency_key(&headers)?;
    validate_params(req.params.as_ref())?;
    let body = serde_json::to_value(&req).unwrap_or_default();
    let resolution = Resolution::Answer {
        value: req.answer,
        params: req.params,
        by: principal.name.clone(),
    };
    settle(
        &state,
        &id,
        "answer",
        &principal.name,
        &body,
        key,
        resolution,
    )
    .await
}
