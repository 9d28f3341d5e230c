//! `POST /api/parks` — an asker parks one or more async questions with a continuation.
//! Validated whole (fields named `asks[i].…`) before anything is stored; then the park and all
//! its questions are stored in one atomic step.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use inbox_protocol::validate::{AcceptedPark, validate_park};
use inbox_protocol::{ParkPlace, ParkRequest, ParkResponse, ValidationError};

use crate::error::ApiError;
use crate::ids;
use crate::routes::ask::{new_park, prepare};
use crate::routes::asker_write::{AskerWrite, Judged};
use crate::state::AppState;

impl Judged for ParkRequest {
    type Accepted = AcceptedPark;

    fn rules(
        state: &AppState,
        now: DateTime<Utc>,
    ) -> impl FnOnce(&Self) -> Result<AcceptedPark, ValidationError> + Send + 'static {
        let retention = state.park_retention();
        move |req| validate_park(req, now, retention)
    }
}

pub async fn create(
    State(state): State<AppState>,
    write: AskerWrite<ParkRequest>,
) -> Result<(StatusCode, Json<ParkResponse>), ApiError> {
    let (asker, now, req) = (write.principal.name, write.now, write.req);
    let park_id = ids::park_id();
    let size = req.asks.len() as u32;
    let run = ParkPlace::run_of(req.metadata.as_ref());
    let mut asks = Vec::with_capacity(req.asks.len());
    for (i, (ask, ok)) in req.asks.into_iter().zip(&write.accepted.asks).enumerate() {
        let prefix = format!("asks[{i}].");
        let place = ParkPlace {
            size,
            index: i as u32,
            run: run.clone(),
        };
        asks.push(prepare(
            &state,
            &asker,
            ask,
            ok,
            now,
            &prefix,
            Some((&park_id, place)),
        )?);
    }
    let continuation = req.continuation.unwrap_or_default();
    let park = new_park(park_id, &asker, now, asks, continuation, req.metadata);
    let park = state.store().insert_park(park).await?;
    tracing::info!(
        park = %park.id,
        questions = park.interactions.len(),
        continuation = park.continuation.kind(),
        "parked"
    );
    Ok((StatusCode::CREATED, Json(ParkResponse { park })))
}
