//! The extractors: `Authorization: Bearer <token>` → a [`Principal`] (`401` without a known
//! token), and the role checks that refuse before a body is read (`403`).

use crate::error::ApiError;
use crate::principal::Principal;
use crate::state::AppState;
use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;

/// `Authorization: Bearer <token>` → the principal, or `401`.
impl FromRequestParts<AppState> for Principal {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let header = parts
            .headers
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .ok_or_else(ApiError::unauthorized)?;
        let (scheme, token) = header.split_once(' ').ok_or_else(ApiError::unauthorized)?;
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(ApiError::unauthorized());
        }
        state
            .tokens()
            .authenticate(token.trim())
            .ok_or_else(ApiError::unauthorized)
    }
}

/// An extractor for a principal with one role: it refuses before the body is read, so a wrong
/// role is always `403`, whatever the body holds.
macro_rules! role_extractor {
    ($(#[$doc:meta])* $name:ident, $check:ident) => {
        $(#[$doc])*
        pub struct $name(pub Principal);

        impl FromRequestParts<AppState> for $name {
            type Rejection = ApiError;

            async fn from_request_parts(
                parts: &mut Parts,
                state: &AppState,
            ) -> Result<Self, ApiError> {
                let principal = Principal::from_request_parts(parts, state).await?;
                principal.$check()?;
                Ok($name(principal))
            }
        }
    };
}

role_extractor!(
    /// A principal that may review.
    AsReviewer,
    require_reviewer
);
role_extractor!(
    /// A principal that may ask.
    AsAsker,
    require_asker
);
