//! What the doors an asker creates through (ask, park, notify, an AG-UI run) take: the asker
//! and the body, read, parsed and validated whole — validation on the blocking pool, as
//! compiling a schema and checking a prefill is CPU work. A door that takes an [`AskerWrite`]
//! cannot reach the store with a request that was not judged, and each body says once, in its
//! [`Judged`] impl, what judging it means.

use axum::extract::{FromRequest, FromRequestParts, Request};
use chrono::{DateTime, Utc};
use inbox_protocol::ValidationError;
use serde::de::DeserializeOwned;

use crate::auth::AsAsker;
use crate::body::JsonBody;
use crate::error::ApiError;
use crate::principal::Principal;
use crate::state::AppState;

/// An asker's create request, judged. Extracted in the order its refusals come: the role
/// (`401`/`403`, before the body is read), the body (`400`/`408`/`413`), then its fields
/// (`400`/`422`, naming the field).
pub struct AskerWrite<R: Judged> {
    pub principal: Principal,
    pub req: R,
    /// What validation established (an ask's deadline, a park's per-ask results).
    pub accepted: R::Accepted,
    /// The moment it was judged at; what the door stores is stamped with it.
    pub now: DateTime<Utc>,
}

/// A body an asker sends to create something, and the rules it is judged by.
pub trait Judged: DeserializeOwned + Send + 'static {
    type Accepted: Send + 'static;

    /// This body's rules as of `now`, with what they need of the server's settings taken
    /// from `state` here (they run off the runtime, without it).
    fn rules(
        state: &AppState,
        now: DateTime<Utc>,
    ) -> impl FnOnce(&Self) -> Result<Self::Accepted, ValidationError> + Send + 'static;
}

impl<R: Judged> FromRequest<AppState> for AskerWrite<R> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, ApiError> {
        let (mut parts, body) = req.into_parts();
        let AsAsker(principal) = AsAsker::from_request_parts(&mut parts, state).await?;
        let JsonBody(req) =
            JsonBody::<R>::from_request(Request::from_parts(parts, body), state).await?;
        let now = Utc::now();
        let (req, accepted) = state.validation().judge(req, R::rules(state, now)).await?;
        Ok(AskerWrite {
            principal,
            req,
            accepted,
            now,
        })
    }
}
