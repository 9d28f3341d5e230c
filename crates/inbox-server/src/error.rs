//! Every refusal a door gives: a status and the contract's `{"error": {...}}` body.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use inbox_protocol::{ErrorBody, ErrorCode, Interaction, ValidationError};

use crate::store::StoreError;

/// An error response. Build it from a code; the HTTP status follows from the code.
#[derive(Debug)]
pub struct ApiError {
    body: ErrorBody,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError {
            body: ErrorBody::new(code, message),
        }
    }

    pub fn with_field(mut self, field: impl Into<String>) -> Self {
        self.body.error.field = Some(field.into());
        self
    }

    /// The one response for unknown, expired, pruned or not-yours: nothing to tell apart.
    pub fn not_found() -> Self {
        ApiError::new(ErrorCode::NotFound, "no such interaction")
    }

    pub fn unauthorized() -> Self {
        ApiError::new(ErrorCode::Unauthorized, "a valid bearer token is required")
    }

    pub fn forbidden() -> Self {
        ApiError::new(
            ErrorCode::Forbidden,
            "this token's role may not use this door",
        )
    }

    /// Somebody resolved it first; the body carries the interaction as the winner left it.
    pub fn already_answered(winner: Interaction) -> Self {
        let mut err = ApiError::new(
            ErrorCode::AlreadyAnswered,
            format!("this interaction is already {}", winner.status.as_str()),
        );
        err.body.error.interaction = Some(Box::new(winner));
        err
    }

    /// The same `Idempotency-Key` came with a different request (`what`: request,
    /// notification, submission); a replay needs the same door, caller and body.
    pub fn idempotency_conflict(what: &str) -> Self {
        ApiError::new(
            ErrorCode::IdempotencyConflict,
            format!("this Idempotency-Key was used for a different {what}"),
        )
        .with_field("Idempotency-Key")
    }

    pub fn invalid_query(field: &str, message: impl Into<String>) -> Self {
        ApiError::new(ErrorCode::InvalidQuery, message).with_field(field)
    }

    #[cfg(test)]
    pub fn code(&self) -> ErrorCode {
        self.body.error.code
    }

    #[cfg(test)]
    pub fn body(&self) -> &ErrorBody {
        &self.body
    }

    /// The human text (the AG-UI driver writes it into a failed run's `error`).
    pub fn message(&self) -> &str {
        &self.body.error.message
    }
}

impl From<ValidationError> for ApiError {
    fn from(e: ValidationError) -> Self {
        ApiError { body: e.into() }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::InvalidCursor => ApiError::invalid_query("cursor", "unknown page cursor"),
            StoreError::PendingLimit { limit } => ApiError::new(
                ErrorCode::TooManyPending,
                format!(
                    "this asker already has {limit} questions pending; wait for answers or \
                     withdraw some before asking more"
                ),
            ),
            StoreError::Sqlite(_) | StoreError::Io(_) | StoreError::Task(_) => {
                tracing::error!(error = %e, "store unavailable");
                ApiError::new(ErrorCode::Unavailable, "the store is unavailable")
            }
            StoreError::Corrupt(_) => {
                tracing::error!(error = %e, "store returned an unreadable record");
                ApiError::new(ErrorCode::Internal, "internal error")
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.body.error.code.http_status())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, Json(self.body)).into_response()
    }
}
