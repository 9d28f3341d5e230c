//! `GET /api/interactions/{id}` — one interaction, for a reviewer or its asker.

use axum::Json;
use inbox_protocol::Interaction;

use super::found::Found;

pub async fn read(found: Found<Interaction>) -> Json<Interaction> {
    Json(found.item)
}
