//! The notification doors (`docs/api.md`, "Notifications"), one file each. An asker creates and
//! reads the submissions of its own; reviewers list, read, dismiss and submit. Anyone else
//! meets the uniform 404.

pub mod create;
pub mod list;
pub mod mark;
pub mod read;
pub mod submissions;
pub mod submit;

use axum::Router;
use axum::routing::{get, post};
use inbox_protocol::{Notification, paths};

use super::found::missing;
use crate::error::ApiError;
use crate::state::AppState;

/// The family's doors at their contract paths, merged into the one router.
pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route(paths::NOTIFICATIONS, get(list::list).post(create::create))
        .route("/api/notifications/{id}", get(read::read))
        .route("/api/notifications/{id}/read", post(mark::read))
        .route("/api/notifications/{id}/dismiss", post(mark::dismiss))
        .route("/api/notifications/{id}/submit", post(submit::submit))
        .route(
            "/api/notifications/{id}/submissions",
            get(submissions::submissions),
        )
}

fn not_found() -> ApiError {
    missing::<Notification>()
}
