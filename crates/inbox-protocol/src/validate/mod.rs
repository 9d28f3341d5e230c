//! Ask-time and answer-time validation. Every refusal is a [`ValidationError`] naming the field;
//! callers validate before anything is stored.
//!
//! One file per concept: [`ask`] (prompt, format-specific fields, link, metadata), `options`
//! (choice lists), `park` (a park's questions and continuation), `timing` (sync timeout and async expiry), `media`, `form` (schema, prefill
//! data, pages) and `answer` (answer values by format).

mod agui;
mod answer;
mod ask;
mod external;
mod form;
mod media;
mod notification;
mod options;
mod park;
mod schema_guard;
mod timing;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::ask::AskRequest;
use crate::caps::{DECLINE_REASON_MAX_CHARS, PARAMS_MAX_BYTES};
use crate::error::{ErrorCode, ValidationError};
use crate::interaction::Interaction;
use crate::resolve::DeclineRequest;

pub use answer::AnswerRules;
pub use ask::CALLBACK_URL_PLACEHOLDER;
pub use external::{STANDARD_WEBHOOKS_SECRET_PREFIX, check_renderable};
pub use form::{compile_checked, effective_schema};
pub use media::{decode_data_image, is_renderable_media_url};
pub use park::{AcceptedPark, Retention};

/// What an accepted ask resolves to, beyond the request itself.
#[derive(Debug, Clone, PartialEq)]
pub struct AcceptedAsk {
    /// The deadline: `now + timeout_s` (sync) or `expiry_at` (async); `None` when unbounded.
    pub expires_at: Option<DateTime<Utc>>,
}

/// Check an ask against every rule of the contract. `now` anchors a sync `timeout_s`.
/// A `kind: "notification"` is refused here: notifications have their own door
/// (`POST /api/notifications`), so there is one way to send one.
pub fn validate_ask(req: &AskRequest, now: DateTime<Utc>) -> Result<AcceptedAsk, ValidationError> {
    refuse_present(
        req.kind == crate::interaction::InteractionKind::Notification,
        "kind",
        "this door asks questions; send a notification to POST /api/notifications (`inbox notify`)",
    )?;
    ask::validate(req, now)
}

/// Check a notification: the ask rules for its prompt, media, form and metadata, and its
/// `body` bound. Nothing about it waits, so there is no deadline to resolve.
pub fn validate_notification(
    req: &crate::notification::NotificationRequest,
    now: DateTime<Utc>,
) -> Result<(), ValidationError> {
    notification::validate(req, now)
}

/// Check a submission of a notification's form (compiles the schema each time; a server
/// keeps [`AnswerRules::for_notification`]).
pub fn validate_submission(
    notification: &crate::notification::Notification,
    value: &Value,
) -> Result<(), ValidationError> {
    AnswerRules::for_notification(notification)?.check_submission(notification, value)
}

/// Check a park: each question by the ask rules (fields named `asks[i].…`), every one async
/// and inside `retention`, and the continuation. `now` anchors the retention horizon.
pub fn validate_park(
    req: &crate::park::ParkRequest,
    now: DateTime<Utc>,
    retention: Retention,
) -> Result<AcceptedPark, ValidationError> {
    park::validate(req, now, retention)
}

/// Check an AG-UI run request: the agent URL (http or https), the thread id, `input` decoded as
/// the caller's part of a `RunAgentInput` (fields named `input.…`) and the extra headers.
pub fn validate_agui_run(req: &crate::agui::AguiRunRequest) -> Result<(), ValidationError> {
    agui::validate(req)
}

/// Check an answer value against the question's format, options and schema.
/// Compiles the question's schema each time; a server answering many keeps [`AnswerRules`].
pub fn validate_answer(interaction: &Interaction, value: &Value) -> Result<(), ValidationError> {
    AnswerRules::for_question(interaction)?.check(interaction, value)
}

/// Check the opaque `params` carried beside an answer: transport context, bounded in depth and
/// size so it cannot be used to store or replay bulk data.
pub fn validate_params(
    params: Option<&serde_json::Map<String, Value>>,
) -> Result<(), ValidationError> {
    match params {
        Some(params) => form::check_value_bounds(
            &Value::Object(params.clone()),
            "params",
            PARAMS_MAX_BYTES,
            ErrorCode::InvalidField,
        ),
        None => Ok(()),
    }
}

/// Check a decline body. The reason is optional free text; only its length is bounded, so an
/// empty text box in a client is not a refusal.
pub fn validate_decline(req: &DeclineRequest) -> Result<(), ValidationError> {
    if let Some(reason) = &req.reason {
        check_max_chars(
            reason,
            "reason",
            DECLINE_REASON_MAX_CHARS,
            ErrorCode::InvalidField,
        )?;
    }
    Ok(())
}

/// A human-readable string that must say something: not blank, at most `max_chars` characters.
fn check_text(
    text: &str,
    field: &str,
    max_chars: usize,
    code: ErrorCode,
) -> Result<(), ValidationError> {
    if text.trim().is_empty() {
        return Err(ValidationError::new(code, field, "must not be blank"));
    }
    check_max_chars(text, field, max_chars, code)
}

fn check_max_chars(
    text: &str,
    field: &str,
    max_chars: usize,
    code: ErrorCode,
) -> Result<(), ValidationError> {
    let chars = text.chars().count();
    check_cap(chars, max_chars, field, code, ("is", "characters long"))
}

/// At most `max_bytes` once serialised (`metadata`, `input`, a schema, a prefill).
fn check_serialised_size(
    value: &impl serde::Serialize,
    field: &str,
    max_bytes: usize,
    code: ErrorCode,
) -> Result<(), ValidationError> {
    // A value that cannot be serialised cannot be stored either: it counts as too large.
    let bytes = serde_json::to_vec(value)
        .map(|v| v.len())
        .unwrap_or(usize::MAX);
    check_cap(bytes, max_bytes, field, code, ("is", "bytes serialised"))
}

/// The one shape of every cap refusal, so each names both numbers alike:
/// `(verb, unit)` say how the amount reads: `("holds", "questions")` gives "holds 51 questions;
/// the limit is 50".
fn check_cap(
    amount: usize,
    max: usize,
    field: &str,
    code: ErrorCode,
    (verb, unit): (&str, &str),
) -> Result<(), ValidationError> {
    if amount > max {
        return Err(ValidationError::new(
            code,
            field,
            format!("{verb} {amount} {unit}; the limit is {max}"),
        ));
    }
    Ok(())
}

/// Refuse `field` when it is `present` where it may not be; `why` says what to send instead.
fn refuse_present(present: bool, field: &str, why: &str) -> Result<(), ValidationError> {
    if present {
        return Err(ValidationError::new(ErrorCode::FieldNotAllowed, field, why));
    }
    Ok(())
}

/// Whether a URL-ish string carries characters that URL parsers silently strip or re-encode
/// (whitespace, controls): refusing them keeps the stored string identical to what renders.
fn has_unsafe_url_chars(url: &str) -> bool {
    url.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// Whether `url` literally begins with `prefix` (ASCII case-insensitive). The URL parser is
/// lenient (`https:host`, `https:\\host` parse as absolute), so an absolute URL is also required
/// to be written as one.
fn starts_with_scheme(url: &str, prefix: &str) -> bool {
    url.get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}
