//! `GET /healthz` (the process answers) and `GET /readyz` (the store answers). No details.
//! Public by default; `public_doors.rs` decides.

use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};

use crate::error::ApiError;
use crate::state::AppState;

pub async fn healthz() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

pub async fn readyz(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    state.store().ping().await?;
    Ok(Json(json!({"status": "ready"})))
}
