//! The park doors (`docs/api.md`, "Parks"), one file each. Every one answers `{"park": Park}`
//! and reaches only the park's asker (or an admin); anyone else gets the uniform 404.

pub mod claim;
pub mod create;
pub mod read;
pub mod redeliver;
pub mod wait;

use axum::Router;
use axum::routing::{get, post};
use inbox_protocol::{Park, paths};

use super::found::missing;
use crate::error::ApiError;
use crate::state::AppState;

/// The family's doors at their contract paths, merged into the one router.
pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route(paths::PARKS, post(create::create))
        .route("/api/parks/{id}", get(read::read))
        .route("/api/parks/{id}/wait", get(wait::wait))
        .route("/api/parks/{id}/claim", post(claim::claim))
        .route("/api/parks/{id}/redeliver", post(redeliver::redeliver))
}

fn not_found() -> ApiError {
    missing::<Park>()
}
