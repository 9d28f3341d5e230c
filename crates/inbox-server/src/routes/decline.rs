//! `POST /api/interactions/{id}/decline` — a reviewer says no to the whole question.

use axum::Json;
use axum::extract::State;
use inbox_protocol::validate::validate_decline;
use inbox_protocol::{DeclineRequest, ResolveResponse};

use super::resolution::{ReviewerWrite, settle};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::Resolution;

pub async fn decline(
    State(state): State<AppState>,
    write: ReviewerWrite<DeclineRequest>,
) -> Result<Json<ResolveResponse>, ApiError> {
    validate_decline(&write.body)?;
    let claim = write.claim("decline");
    let resolution = Resolution::Decline {
        reason: write.body.reason,
        by: write.principal.name,
    };
    settle(&state, &write.id, "decline", claim, resolution).await
}
