//! `DELETE /api/interactions/{id}` — its asker withdraws a pending question (`cancelled`).

use axum::Json;
use axum::extract::State;
use inbox_protocol::{Interaction, ResolveResponse, Status};

use super::found::find;
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
    // Someone else's question is as invisible as a missing one.
    find::<Interaction>(&state, &principal, &id).await?;
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
