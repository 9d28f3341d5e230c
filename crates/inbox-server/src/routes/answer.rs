//! `POST /api/interactions/{id}/answer` — a reviewer answers a pending question.

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use inbox_protocol::validate::validate_answer;
use inbox_protocol::{AnswerRequest, ResolveResponse};

use super::PathId;
use super::resolution::{claim, idempotency_key, past_deadline, respond};
use crate::auth::AsReviewer;
use crate::body::JsonBody;
use crate::error::ApiError;
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
    let ia = state
        .store()
        .get(&id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    if past_deadline(&ia) {
        return Err(ApiError::not_found());
    }
    // Only a live question is judged: a resolved one gets its replay or its winner below.
    if ia.is_pending() {
        validate_answer(&ia, &req.answer)?;
    }
    let fingerprint_body = serde_json::to_value(&req).unwrap_or_default();
    let claim = claim(key, "answer", &principal.name, &fingerprint_body);
    let resolution = Resolution::Answer {
        value: req.answer,
        params: req.params,
        by: principal.name,
    };
    let outcome = state.store().resolve(&id, resolution, claim).await?;
    if matches!(outcome, crate::store::ResolveOutcome::Resolved(_)) {
        tracing::info!(interaction = %id, "answered");
    }
    respond(outcome)
}
