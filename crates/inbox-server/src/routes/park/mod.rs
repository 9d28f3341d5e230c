//! The park doors (`docs/api.md`, "Parks"), one file each. Every one answers `{"park": Park}`
//! and reaches only the park's asker (or an admin); anyone else gets the uniform 404.

pub mod claim;
pub mod create;
pub mod read;
pub mod redeliver;
pub mod wait;

use inbox_protocol::{ErrorCode, Park};

use crate::error::ApiError;
use crate::principal::Principal;
use crate::state::AppState;

/// The park, if it exists and `principal` parked it; the uniform 404 otherwise.
async fn own_park(state: &AppState, principal: &Principal, id: &str) -> Result<Park, ApiError> {
    match state.store().get_park(id).await? {
        Some(park) if principal.is_asker_of_park(&park) => Ok(park),
        // Another asker's park: indistinguishable from a missing one.
        _ => Err(not_found()),
    }
}

fn not_found() -> ApiError {
    ApiError::new(ErrorCode::NotFound, "no such park")
}
