//! The error body every door returns, and the codes clients switch on.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Stable, snake_case error codes. Clients switch on these, never on the message text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The body is not valid JSON, or not the JSON shape the door takes.
    MalformedJson,
    /// The body is larger than the door accepts.
    PayloadTooLarge,
    /// No bearer token, or one the server does not know.
    Unauthorized,
    /// The token's role lacks the right for this door.
    Forbidden,
    /// Unknown, expired or pruned — deliberately indistinguishable.
    NotFound,
    /// Somebody resolved the question first; the body carries the winner.
    AlreadyAnswered,
    /// A required field is absent.
    MissingField,
    /// A field is present where this format or mode does not allow it.
    FieldNotAllowed,
    /// A field's value is malformed or out of its bounds.
    InvalidField,
    /// A form's `data`/`pages` names a property the schema does not declare.
    UnknownProperty,
    /// A media item breaks a media rule (kind, scheme, caption, filename).
    InvalidMedia,
    /// A media URL, data URI, or the total exceeds its byte cap, or too many items.
    MediaTooLarge,
    /// The answer does not fit the question's format, options or schema.
    InvalidAnswer,
    /// A query parameter is malformed.
    InvalidQuery,
    /// The same `Idempotency-Key` was reused for a different request.
    IdempotencyConflict,
    /// An external question is answered only through its callback door (its link), never
    /// through the authenticated answer door; it can still be declined.
    AnsweredExternally,
    /// The request body did not arrive whole within the server's body read timeout.
    RequestTimeout,
    /// The callback's signature is missing or does not verify under the bound verifier.
    InvalidSignature,
    /// The request's `Host` is not one this server answers to (DNS rebinding guard).
    HostNotAllowed,
    /// The asker already has `PENDING_PER_ASKER_MAX` questions pending; one must be resolved
    /// or withdrawn first.
    TooManyPending,
    /// The notification already holds `SUBMISSIONS_PER_NOTIFICATION_MAX` submissions.
    TooManySubmissions,
    /// The notification offers no form (it has no `schema`), so there is nothing to submit.
    NoForm,
    /// A park question's `expiry_at` lies beyond the server's park retention horizon.
    BeyondRetention,
    /// The park's resume was already taken by an earlier claim.
    AlreadyClaimed,
    /// The park still has questions pending; nothing to claim yet.
    NotResolved,
    /// The park resumes another way (a webhook); it cannot be claimed.
    NotClaimable,
    /// Redeliver: the park's webhook has not failed (it is pending, delivering or delivered);
    /// AG-UI retry: the run has not failed.
    NotFailed,
    /// The store could not be reached.
    Unavailable,
    /// Something failed on the server; details are in its log, not here.
    Internal,
}

impl ErrorCode {
    /// The HTTP status that goes with this code.
    pub fn http_status(self) -> u16 {
        match self {
            ErrorCode::MalformedJson
            | ErrorCode::MissingField
            | ErrorCode::FieldNotAllowed
            | ErrorCode::InvalidField
            | ErrorCode::UnknownProperty
            | ErrorCode::InvalidMedia
            | ErrorCode::MediaTooLarge
            | ErrorCode::InvalidAnswer
            | ErrorCode::InvalidQuery
            | ErrorCode::BeyondRetention => 400,
            ErrorCode::Unauthorized | ErrorCode::InvalidSignature => 401,
            ErrorCode::Forbidden => 403,
            ErrorCode::NotFound => 404,
            ErrorCode::AlreadyAnswered
            | ErrorCode::IdempotencyConflict
            | ErrorCode::AlreadyClaimed
            | ErrorCode::NotResolved
            | ErrorCode::NotClaimable
            | ErrorCode::NotFailed
            | ErrorCode::NoForm
            | ErrorCode::AnsweredExternally => 409,
            ErrorCode::RequestTimeout => 408,
            ErrorCode::PayloadTooLarge => 413,
            ErrorCode::HostNotAllowed => 421,
            ErrorCode::TooManyPending | ErrorCode::TooManySubmissions => 429,
            ErrorCode::Internal => 500,
            ErrorCode::Unavailable => 503,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::MalformedJson => "malformed_json",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::NotFound => "not_found",
            ErrorCode::AlreadyAnswered => "already_answered",
            ErrorCode::MissingField => "missing_field",
            ErrorCode::FieldNotAllowed => "field_not_allowed",
            ErrorCode::InvalidField => "invalid_field",
            ErrorCode::UnknownProperty => "unknown_property",
            ErrorCode::InvalidMedia => "invalid_media",
            ErrorCode::MediaTooLarge => "media_too_large",
            ErrorCode::InvalidAnswer => "invalid_answer",
            ErrorCode::InvalidQuery => "invalid_query",
            ErrorCode::IdempotencyConflict => "idempotency_conflict",
            ErrorCode::AnsweredExternally => "answered_externally",
            ErrorCode::RequestTimeout => "request_timeout",
            ErrorCode::InvalidSignature => "invalid_signature",
            ErrorCode::HostNotAllowed => "host_not_allowed",
            ErrorCode::TooManyPending => "too_many_pending",
            ErrorCode::TooManySubmissions => "too_many_submissions",
            ErrorCode::NoForm => "no_form",
            ErrorCode::BeyondRetention => "beyond_retention",
            ErrorCode::AlreadyClaimed => "already_claimed",
            ErrorCode::NotResolved => "not_resolved",
            ErrorCode::NotClaimable => "not_claimable",
            ErrorCode::NotFailed => "not_failed",
            ErrorCode::Unavailable => "unavailable",
            ErrorCode::Internal => "internal",
        }
    }
}

/// `Display` for types whose text is their `as_str()` (the wire spelling of a code or a role),
/// so the two can never differ. Used here and by the crates above with codes of their own.
#[macro_export]
macro_rules! display_as_str {
    ($($name:ty),+ $(,)?) => {
        $(
            impl ::std::fmt::Display for $name {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    f.write_str(self.as_str())
                }
            }
        )+
    };
}

display_as_str!(ErrorCode);

/// `{"error": {...}}` — the body of every non-2xx response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct ErrorDetail {
    pub code: ErrorCode,
    /// Human text; never echoes secrets.
    pub message: String,
    /// Dotted path of the field at fault (`media[2].url`, `data.values.count`).
    pub field: Option<String>,
    /// `already_answered`: the interaction as resolved by the winner.
    pub interaction: Option<Box<crate::Interaction>>,
}

impl ErrorBody {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorBody {
            error: ErrorDetail {
                code,
                message: message.into(),
                field: None,
                interaction: None,
            },
        }
    }
}

/// A refusal of submitted input, naming the field at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct ValidationError {
    pub code: ErrorCode,
    /// Dotted path of the field at fault.
    pub field: String,
    pub message: String,
}

impl ValidationError {
    pub fn new(code: ErrorCode, field: impl Into<String>, message: impl Into<String>) -> Self {
        ValidationError {
            code,
            field: field.into(),
            message: message.into(),
        }
    }
}

impl From<ValidationError> for ErrorBody {
    fn from(e: ValidationError) -> Self {
        ErrorBody {
            error: ErrorDetail {
                code: e.code,
                message: e.message,
                field: Some(e.field),
                interaction: None,
            },
        }
    }
}
