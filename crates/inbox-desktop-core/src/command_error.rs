//! The error every command returns: the contract's `{code, message, field?}` shape, so the UI
//! switches on `code` exactly as it does for server refusals (`BackendError.from`).

use inbox_client::{ClientError, CommandCode, EngineError};
use serde::Serialize;
use ts_rs::TS;

/// A refused command. `code` is one of [`CommandCode`]: a contract code (`invalid_answer`,
/// `already_answered`, …) or one of the app's own (`unknown_account`, `in_flight`, …).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export_to = "desktop/")]
pub struct CommandError {
    pub code: CommandCode,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub field: Option<String>,
}

impl CommandError {
    pub fn new(code: impl Into<CommandCode>, message: impl Into<String>) -> CommandError {
        CommandError {
            code: code.into(),
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

impl From<ClientError> for CommandError {
    fn from(e: ClientError) -> CommandError {
        let message = match &e {
            // The server's own words, without the status around them.
            ClientError::Api { body, .. } => body.error.message.clone(),
            other => other.to_string(),
        };
        CommandError {
            code: e.command_code(),
            message,
            field: e.field().map(str::to_owned),
        }
    }
}

impl From<EngineError> for CommandError {
    fn from(e: EngineError) -> CommandError {
        match e {
            EngineError::Client(c) => c.into(),
            EngineError::Invalid(v) => CommandError {
                code: v.code.into(),
                message: v.message,
                field: Some(v.field),
            },
            other => CommandError::new(other.code(), other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use inbox_client::AppCode;
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
        let e = CommandError::new(AppCode::UnknownAccount, "no account `x`");
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            serde_json::json!({"code": "unknown_account", "message": "no account `x`"})
        );
    }
}
