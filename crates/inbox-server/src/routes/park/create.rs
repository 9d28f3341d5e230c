//! `POST /api/parks` — an asker parks one or more async questions with a continuation.
//! Validated whole (fields named `asks[i].…`) before anything is stored; then the park and all
//! its questions are stored in one atomic step.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::Utc;
use inbox_protocol::validate::validate_park;
use inbox_protocol::{ParkPlace, ParkRequest, ParkResponse};

use crate::auth::AsAsker;
use crate::body::JsonBody;
use crate::error::ApiError;
use crate::ids;
use crate::routes::ask::{new_park, prepare};
use crate::state::AppState;

pub async fn create(
    State(state): State<AppState>,
    AsAsker(principal): AsAsker,
    JsonBody(req): JsonBody<ParkRequest>,
) -> Result<(StatusCode, Json<ParkResponse>), ApiError> {
    let now = Utc::now();
    let retention = state.park_retention();
    let (req, accepted) = state
        .validation()
        .judge(req, move |req| validate_park(req, now, retention))
        .await?;
    let park_id = ids::park_id();
    let size = req.asks.len() as u32;
    let run = ParkPlace::run_of(req.metadata.as_ref());
    let mut asks = Vec::with_capacity(req.asks.len());
    for (i, (ask, ok)) in req.asks.into_iter().zip(&accepted.asks).enumerate() {
        let prefix = format!("asks[{i}].");
        let place = ParkPlace {
            size,
            index: i as u32,
            run: run.clone(),
        };
        asks.push(prepare(
            &state,
            &principal.name,
            ask,
            ok,
            now,
            &prefix,
            Some((&park_id, place)),
        )?);
    }
    let continuation = req.continuation.unwrap_or_default();
    let park = new_park(
        park_id,
        &principal.name,
        now,
        asks,
        continuation,
        req.metadata,
    );
    let park = state.store().insert_park(park).await?;
    tracing::info!(
        park = %park.id,
        questions = park.interactions.len(),
        continuation = park.continuation.kind(),
        "parked"
    );
    Ok((StatusCode::CREATED, Json(ParkResponse { park })))
}
