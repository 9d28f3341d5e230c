//! The notification doors (`docs/api.md`, "Notifications"), one file each. An asker creates and
//! reads the submissions of its own; reviewers list, read, dismiss and submit. Anyone else
//! meets the uniform 404.

pub mod create;
pub mod list;
pub mod mark;
pub mod read;
pub mod submissions;
pub mod submit;

use inbox_protocol::{ErrorCode, Notification};

use crate::config::Role;
use crate::error::ApiError;
use crate::principal::Principal;
use crate::state::AppState;

/// The notification, if it exists and `principal` may see it: a reviewer (or admin) any of
/// them, an asker its own.
async fn visible(
    state: &AppState,
    principal: &Principal,
    id: &str,
) -> Result<Notification, ApiError> {
    match state.store().get_notification(id).await? {
        Some(n) if may_see(principal, &n) => Ok(n),
        // Another asker's notification: indistinguishable from a missing one.
        _ => Err(not_found()),
    }
}

fn may_see(principal: &Principal, n: &Notification) -> bool {
    match principal.role {
        Role::Reviewer | Role::Admin => true,
        Role::Asker => n.asker == principal.name,
    }
}

fn not_found() -> ApiError {
    ApiError::new(ErrorCode::NotFound, "no such notification")
}
