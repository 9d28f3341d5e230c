//! `POST /api/interactions/{id}/decline` — a reviewer says no to the whole question.

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use inbox_protocol::validate::validate_decline;
use inbox_protocol::{DeclineRequest, ResolveResponse};

use super::PathId;
use super::resolution::{claim, idempotency_key, past_deadline, respond};
use crate::auth::AsReviewer;
use crate::body::JsonBody;
use crate::error::ApiError;
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
    let ia = state
        .store()
        .get(&id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    if past_deadline(&ia) {
        return Err(ApiError::not_found());
    }
    let fingerprint_body = serde_json::to_value(&req).unwrap_or_default();
    let claim = claim(key, "decline", &principal.name, &fingerprint_body);
    let resolution = Resolution::Decline {
        reason: req.reason,
        by: principal.name,
    };
    let outcome = state.store().resolve(&id, resolution, claim).await?;
    if matches!(outcome, crate::store::ResolveOutcome::Resolved(_)) {
        tracing::info!(interaction = %id, "declined");
    }
    respond(outcome)
}
