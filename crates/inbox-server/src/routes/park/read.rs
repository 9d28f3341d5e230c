//! `GET /api/parks/{id}` — the park, with the resolutions recorded so far.

use axum::Json;
use inbox_protocol::{Park, ParkResponse};

use crate::routes::found::Found;

pub async fn read(found: Found<Park>) -> Json<ParkResponse> {
    Json(ParkResponse { park: found.item })
}
