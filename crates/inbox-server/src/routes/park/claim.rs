//! `POST /api/parks/{id}/claim` — the asker takes a resolved park's resume. The store decides
//! the single winner (`200`, the park now `resumed`); any later claim is `409 already_claimed`,
//! except one with the winner's `Idempotency-Key`, which replays the same `200`. Before the
//! last question resolves: `409 not_resolved`.

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use chrono::Utc;
use inbox_protocol::{ErrorCode, Park, ParkResponse};
use serde_json::Value;

use super::not_found;
use crate::auth::AsAsker;
use crate::error::ApiError;
use crate::extract::PathId;
use crate::routes::found::find;
use crate::routes::resolution::{claim as idempotency_claim, idempotency_key};
use crate::state::AppState;
use crate::store::ClaimOutcome;

pub async fn claim(
    State(state): State<AppState>,
    AsAsker(principal): AsAsker,
    PathId(id): PathId,
    headers: HeaderMap,
) -> Result<Json<ParkResponse>, ApiError> {
    let key = idempotency_key(&headers)?;
    find::<Park>(&state, &principal, &id).await?;
    let claim = idempotency_claim(key, "claim", &principal.name, &Value::Null);
    match state.store().claim_park(&id, claim, Utc::now()).await? {
        ClaimOutcome::Claimed(park) => {
            tracing::info!(park = %park.id, "resume claimed");
            Ok(Json(ParkResponse { park }))
        }
        ClaimOutcome::Replayed(park) => Ok(Json(ParkResponse { park })),
        ClaimOutcome::AlreadyClaimed(_) => Err(ApiError::new(
            ErrorCode::AlreadyClaimed,
            "this park's resume was already claimed",
        )),
        ClaimOutcome::NotResolved(park) => Err(ApiError::new(
            ErrorCode::NotResolved,
            format!(
                "{} of {} questions resolved; the park resumes when all are",
                park.resolutions.len(),
                park.interactions.len()
            ),
        )),
        ClaimOutcome::NotClaimable(park) => Err(ApiError::new(
            ErrorCode::NotClaimable,
            format!(
                "this park resumes by {}; it cannot be claimed",
                park.continuation.kind()
            ),
        )),
        ClaimOutcome::NotFound => Err(not_found()),
    }
}
