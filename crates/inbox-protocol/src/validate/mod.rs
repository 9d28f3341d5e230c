//! Ask-time and answer-time validation. Every refusal is a [`ValidationError`] naming the field;
//! callers validate before anything is stored.

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::ask::AskRequest;
use crate::error::ValidationError;
use crate::interaction::Interaction;
use crate::resolve::DeclineRequest;

/// What an accepted ask resolves to, beyond the request itself.
#[derive(Debug, Clone, PartialEq)]
pub struct AcceptedAsk {
    /// The deadline: `now + timeout_s` (sync) or `expiry_at` (async); `None` when unbounded.
    pub expires_at: Option<DateTime<Utc>>,
}

/// Check an ask against every rule of the contract. `now` anchors a sync `timeout_s`.
pub fn validate_ask(req: &AskRequest, now: DateTime<Utc>) -> Result<AcceptedAsk, ValidationError> {
    let _ = (req, now);
    Ok(AcceptedAsk { expires_at: None })
}

/// Check an answer value against the question's format, options and schema.
pub fn validate_answer(interaction: &Interaction, value: &Value) -> Result<(), ValidationError> {
    let _ = (interaction, value);
    Ok(())
}

/// Check a decline body.
pub fn validate_decline(req: &DeclineRequest) -> Result<(), ValidationError> {
    let _ = req;
    Ok(())
}
