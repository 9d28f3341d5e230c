//! The park doors (`docs/api.md`, "Parks"), one file each. Every one answers `{"park": Park}`
//! and reaches only the park's asker (or an admin); anyone else gets the uniform 404.

pub mod claim;
pub mod create;
pub mod read;
pub mod redeliver;
pub mod wait;

use inbox_protocol::Park;

use super::found::missing;
use crate::error::ApiError;

fn not_found() -> ApiError {
    missing::<Park>()
}
