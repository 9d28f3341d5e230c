//! The error every command returns: the contract's `{code, message, field?}` shape, so the UI
//! switches on `code` exactly as it does for server refusals (`BackendError.from`).

use inbox_client::{ClientError, EngineError};
use serde::Serialize;
use ts_rs::TS;

/// A refused command. `code` is a contract error code (`invalid_answer`, `already_answered`, …)
/// or one of the app's own: `unknown_account`, `not_open`, `in_flight`, `invalid_url`,
/// `remote_images_blocked` (not allowed yet), `remote_media_refused` (the SSRF guard or the
/// response's type said no), `keyring`, `unavailable`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export_to = "desktop/")]
pub struct CommandError {
    pub code: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub field: Option<String>,
}

impl CommandError {
    pub fn new(code: &str, message: impl Into<String>) -> CommandError {
        CommandError {
            code: code.to_owned(),
            message: message.into(),
            field: None,
        }
    }

    pub fn with_field(mut self, field: &str) -> CommandError {
        self.field = Some(field.to_owned());
        self
    }
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

fn code_name(code: inbox_protocol::ErrorCode) -> String {
    // The serde name is the wire name (`already_answered`); reuse it rather than restate it.
    serde_json::to_value(code)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "backend".to_owned())
}

impl From<ClientError> for CommandError {
    fn from(e: ClientError) -> CommandError {
        match &e {
            ClientError::Api { body, .. } => CommandError {
                code: code_name(body.error.code),
                message: body.error.message.clone(),
                field: body.error.field.clone(),
            },
            ClientError::InvalidUrl { .. } => CommandError::new("invalid_url", e.to_string()),
            _ => CommandError::new("unavailable", e.to_string()),
        }
    }
}

impl From<EngineError> for CommandError {
    fn from(e: EngineError) -> CommandError {
        match e {
            EngineError::Invalid(v) => CommandError {
                code: code_name(v.code),
                message: v.message,
                field: Some(v.field),
            },
            EngineError::Client(c) => c.into(),
            EngineError::UnknownAccount(_) => CommandError::new("unknown_account", e.to_string()),
            EngineError::UnknownCard(_) => CommandError::new("not_found", e.to_string()),
            EngineError::NotOpen { .. } => CommandError::new("not_open", e.to_string()),
            EngineError::InFlight(_) => CommandError::new("in_flight", e.to_string()),
            EngineError::AccountExists(_) => CommandError::new("account_exists", e.to_string()),
            EngineError::Account(_) => CommandError::new("invalid_url", e.to_string()),
            EngineError::Keyring(_) | EngineError::NoToken(_) => {
                CommandError::new("keyring", e.to_string())
            }
            other => CommandError::new("unavailable", other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use inbox_protocol::{ErrorCode, ValidationError};

    #[test]
    fn a_refused_answer_keeps_the_contract_code_and_field() {
        let e: CommandError = EngineError::Invalid(ValidationError::new(
            ErrorCode::InvalidAnswer,
            "answer.count",
            "must be at least 1",
        ))
        .into();
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            serde_json::json!({"code": "invalid_answer", "message": "must be at least 1", "field": "answer.count"})
        );
    }

    #[test]
    fn no_field_is_left_out_of_the_json() {
        let e = CommandError::new("unknown_account", "no account `x`");
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            serde_json::json!({"code": "unknown_account", "message": "no account `x`"})
        );
    }
}
