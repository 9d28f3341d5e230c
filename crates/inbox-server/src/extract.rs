//! The extractors doors share for a request's path and query: decoded leniently, and a
//! failure answered in the contract's error shape (axum's own would answer in plain text).

use std::collections::HashMap;

use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use inbox_protocol::caps::{PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX};

use crate::error::ApiError;

/// The single path parameter of a door. A parameter axum cannot decode is just "not found".
pub struct PathId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for PathId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Path::<String>::from_request_parts(parts, state)
            .await
            .map(|Path(id)| PathId(id))
            .map_err(|_| ApiError::not_found())
    }
}

/// Query parameters, decoded leniently (axum's `Query` would answer a bad one in plain text).
pub struct QueryParams(pub HashMap<String, String>);

impl<S: Send + Sync> FromRequestParts<S> for QueryParams {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let query = parts.uri.query().unwrap_or("");
        Ok(QueryParams(
            url::form_urlencoded::parse(query.as_bytes())
                .into_owned()
                .collect(),
        ))
    }
}

/// The paging parameters the list doors share: `limit` (1 or more, served as at most
/// `PAGE_LIMIT_MAX`) and `cursor` (empty is the first page).
pub struct PageWindow {
    pub limit: usize,
    pub cursor: Option<String>,
}

impl PageWindow {
    /// Read from already decoded query parameters, after any door-specific ones, so a door's
    /// own parameter is refused first.
    pub fn of(params: &HashMap<String, String>) -> Result<PageWindow, ApiError> {
        let limit = match params.get("limit") {
            None => PAGE_LIMIT_DEFAULT,
            Some(s) => match s.parse::<usize>() {
                // Past the cap is not an error: the page is just the largest one served.
                Ok(n) if n >= 1 => n.min(PAGE_LIMIT_MAX),
                _ => {
                    return Err(ApiError::invalid_query(
                        "limit",
                        format!("limit is a whole number from 1 to {PAGE_LIMIT_MAX}"),
                    ));
                }
            },
        };
        let cursor = params.get("cursor").filter(|c| !c.is_empty()).cloned();
        Ok(PageWindow { limit, cursor })
    }
}
