//! [`Found`]: what the door's path id names (an interaction, a notification, a park, an AG-UI
//! run), looked up before the door runs, for a caller who may see it. Anyone else's is as
//! missing as an unknown one: the uniform 404.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use inbox_protocol::{AguiRun, ErrorCode, Interaction, Notification, Park};

use crate::error::ApiError;
use crate::extract::PathId;
use crate::principal::Principal;
use crate::state::AppState;
use crate::store::{Store, StoreError};

/// What a door reaches by its path id.
pub trait Lookup: Sized + Send {
    /// Only its asker (or an admin) reaches it, so any other role is refused (`403`) before the
    /// path is looked at, as [`crate::auth::AsAsker`] does.
    const ASKERS_ONLY: bool;
    /// The message of its uniform 404.
    const MISSING: &'static str;

    /// Who asked, parked or started it.
    fn asker(&self) -> &str;

    fn fetch<'a>(
        store: &'a dyn Store,
        id: &'a str,
    ) -> impl Future<Output = Result<Option<Self>, StoreError>> + Send + 'a;
}

/// Every kind a door reaches by id, with its store getter, whether only askers reach it, and
/// what its 404 says.
macro_rules! lookups {
    ($($kind:ty => $fetch:ident, askers only: $askers:literal, $missing:literal;)*) => {$(
        impl Lookup for $kind {
            const ASKERS_ONLY: bool = $askers;
            const MISSING: &'static str = $missing;

            fn asker(&self) -> &str {
                &self.asker
            }

            fn fetch<'a>(
                store: &'a dyn Store,
                id: &'a str,
            ) -> impl Future<Output = Result<Option<Self>, StoreError>> + Send + 'a {
                store.$fetch(id)
            }
        }
    )*};
}

lookups! {
    Interaction => get, askers only: false, "no such interaction";
    Notification => get_notification, askers only: false, "no such notification";
    Park => get_park, askers only: true, "no such park";
    AguiRun => get_agui_run, askers only: true, "no such run";
}

/// The `T` with `id`, if `principal` may see it: a reviewer (or admin) any, an asker what it
/// asked. Another asker's is indistinguishable from a missing one: the uniform 404.
pub async fn find<T: Lookup>(
    state: &AppState,
    principal: &Principal,
    id: &str,
) -> Result<T, ApiError> {
    match T::fetch(&**state.store(), id).await? {
        Some(item) if principal.sees_from(item.asker()) => Ok(item),
        _ => Err(missing::<T>()),
    }
}

/// The uniform 404 of a `T`.
pub fn missing<T: Lookup>() -> ApiError {
    ApiError::new(ErrorCode::NotFound, T::MISSING)
}

/// The caller (`401`/`403` first) and the item at the door's path id (`404`).
pub struct Found<T> {
    pub principal: Principal,
    pub item: T,
}

impl<T: Lookup> FromRequestParts<AppState> for Found<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let principal = Principal::from_request_parts(parts, state).await?;
        if T::ASKERS_ONLY {
            principal.require_asker()?;
        }
        let PathId(id) = PathId::from_request_parts(parts, state).await?;
        let item = find(state, &principal, &id).await?;
        Ok(Found { principal, item })
    }
}
