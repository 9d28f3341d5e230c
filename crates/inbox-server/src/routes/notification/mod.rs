//! The notification doors (`docs/api.md`, "Notifications"), one file each. An asker creates and
//! reads the submissions of its own; reviewers list, read, dismiss and submit. Anyone else
//! meets the uniform 404.

pub mod create;
pub mod list;
pub mod mark;
pub mod read;
pub mod submissions;
pub mod submit;

use inbox_protocol::Notification;

use super::found::missing;
use crate::error::ApiError;

fn not_found() -> ApiError {
    missing::<Notification>()
}
