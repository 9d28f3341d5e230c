//! `GET /api/notifications/{id}` — one notification, for a reviewer or its asker. Reading it
//! here does not mark it read (that is `POST …/read`, a reviewer's act).

use axum::Json;
use inbox_protocol::Notification;

use crate::routes::found::Found;

pub async fn read(found: Found<Notification>) -> Json<Notification> {
    Json(found.item)
}
