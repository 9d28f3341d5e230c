//! Notifications: the request is held to the ask rules (prompt, media, form schema and prefill,
//! metadata — one set of rules, so the two doors cannot drift) plus the `body` bound; a
//! submission is held to the answer rules of a form question with the same schema.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::{AnswerRules, check_max_chars, refuse_present};
use crate::ask::AskRequest;
use crate::caps::NOTIFICATION_BODY_MAX_CHARS;
use crate::error::{ErrorCode, ValidationError};
use crate::interaction::{AnswerFormat, Interaction, InteractionKind};
use crate::notification::{Notification, NotificationRequest};

/// The field a submission refusal names when the value as a whole is at fault.
const VALUE: &str = "value";

pub(super) fn validate(
    req: &NotificationRequest,
    now: DateTime<Utc>,
) -> Result<(), ValidationError> {
    if let Some(body) = &req.body {
        check_max_chars(
            body,
            "body",
            NOTIFICATION_BODY_MAX_CHARS,
            ErrorCode::InvalidField,
        )?;
    }
    refuse_present(
        req.data.is_some() && req.schema.is_none(),
        "data",
        "prefills a form, so it needs `schema`",
    )?;
    let as_ask = AskRequest {
        kind: InteractionKind::Notification,
        prompt: req.prompt.clone(),
        answer_format: if req.schema.is_some() {
            AnswerFormat::Form
        } else {
            AnswerFormat::Text
        },
        schema: req.schema.clone(),
        data: req.data.clone(),
        media: req.media.clone(),
        metadata: req.metadata.clone(),
        ..AskRequest::default()
    };
    super::ask::validate(&as_ask, now).map(|_| ())
}

impl AnswerRules {
    /// The rules a submission of `notification`'s form is checked against: those of a form
    /// question with its schema and prefill. `no_form` when it offers none.
    pub fn for_notification(notification: &Notification) -> Result<AnswerRules, ValidationError> {
        AnswerRules::for_question(&form_question(notification)?)
    }

    /// Check a submission value; the whole value is named `value`, a property by its path.
    pub fn check_submission(
        &self,
        notification: &Notification,
        value: &Value,
    ) -> Result<(), ValidationError> {
        self.check(&form_question(notification)?, value)
            .map_err(|mut e| {
                if e.field == "answer" {
                    e.field = VALUE.to_owned();
                }
                e
            })
    }
}

/// The form question whose answers a notification's submissions must look like.
fn form_question(notification: &Notification) -> Result<Interaction, ValidationError> {
    if !notification.has_form() {
        return Err(ValidationError::new(
            ErrorCode::NoForm,
            VALUE,
            "this notification offers no form to submit",
        ));
    }
    Ok(Interaction {
        kind: InteractionKind::Notification,
        schema: notification.schema.clone(),
        data: notification.data.clone(),
        ..Interaction::pending(
            notification.id.clone(),
            notification.prompt.clone(),
            AnswerFormat::Form,
            notification.asker.clone(),
            notification.created_at,
        )
    })
}
