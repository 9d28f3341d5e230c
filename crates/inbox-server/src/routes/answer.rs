//! `POST /api/interactions/{id}/answer` — a reviewer answers a pending question.

use axum::Json;
use axum::extract::State;
use inbox_protocol::validate::validate_params;
use inbox_protocol::{AnswerRequest, ResolveResponse};

use super::resolution::{ReviewerWrite, settle};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::Resolution;

pub async fn answer(
    State(state): State<AppState>,
    write: ReviewerWrite<AnswerRequest>,
) -> Result<Json<ResolveResponse>, ApiError> {
    validate_params(write.body.params.as_ref())?;
    let claim = write.claim("answer");
    let resolution = Resolution::Answer {
        value: write.body.answer,
        params: write.body.params,
        by: write.principal.name,
    };
    settle(&state, &write.id, "answer", claim, resolution).await
}
