//! `DELETE /api/interactions/{id}` — its asker withdraws a pending question (`cancelled`).

use axum::Json;
use axum::extract::State;
use inbox_protocol::{ResolveResponse, Status};

use super::resolution::respond;
use crate::auth::AsAsker;
use crate::error::ApiError;
use crate::extract::PathId;
use crate::state::AppState;
use crate::store::{Resolution, ResolveOutcome};

pub async fn withdraw(
    State(state): State<AppState>,
    AsAsker(principal): AsAsker,
    PathId(id): PathId,
) -> Result<Json<ResolveResponse>, ApiError> {
    let ia = state
        .store()
        .get(&id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    // Someone else's question is as invisible as a missing one.
    if !principal.is_asker_of(&ia) {
        return Err(ApiError::not_found());
    }
    match state.store().resolve(&id, Resolution::Cancel, None).await? {
        // Withdrawing twice is not an error: the question is cancelled either way.
        ResolveOutcome::AlreadyFinal(ia) if ia.status == Status::Cancelled => {
            Ok(Json(ResolveResponse {
                status: ia.status,
                interaction: ia,
            }))
        }
        outcome => {
            if matches!(outcome, ResolveOutcome::Resolved(_)) {
                tracing::info!(interaction = %id, "withdrawn");
            }
            respond(outcome)
        }
    }
}
