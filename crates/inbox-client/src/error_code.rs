//! The one list of codes an app's command can refuse with, and the one mapping from the
//! engine's and the client's errors onto it. The UI switches on these (`BackendError.code`),
//! never on a message; the TypeScript type is generated from here, so a switch on a code this
//! file does not name fails the UI's type check.
//!
//! A code is either the contract's own ([`ErrorCode`], as the server or the local validation
//! refused) or one of the app's ([`AppCode`]). The contract's list is not restated here: the
//! wire name of a contract code is the same whichever side refused.

use inbox_protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::engine::EngineError;
use crate::error::ClientError;

/// Every code a command can return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(untagged)]
#[ts(export_to = "desktop/")]
pub enum CommandCode {
    /// A contract code: the server refused, or the engine's validation did before sending.
    Contract(ErrorCode),
    /// The app's own refusals, which no server sends.
    App(AppCode),
}

/// The app's own refusals (the contract's codes are in [`ErrorCode`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export_to = "desktop/")]
pub enum AppCode {
    /// No account with that id is being synced.
    UnknownAccount,
    /// An account with that id is already being synced.
    AccountExists,
    /// The question is no longer open (answered, declined, expired, withdrawn).
    NotOpen,
    /// An answer to the question is already on its way.
    InFlight,
    /// A server, link or media URL the app will not use.
    InvalidUrl,
    /// Remote media loads only after the reviewer allowed it for the question or its asker.
    RemoteImagesBlocked,
    /// The remote media guard said no (not public, redirected, wrong type).
    RemoteMediaRefused,
    /// The OS keyring could not store or give the account's token.
    Keyring,
    /// The local server's account stays while no other account is set up.
    LocalAccount,
    /// A text the Settings view sent is longer than allowed.
    TooLong,
    /// A Do-not-disturb time is not `HH:MM`.
    InvalidTime,
}

impl CommandCode {
    /// The wire name (`already_answered`, `in_flight`): what the UI receives.
    pub fn as_str(self) -> &'static str {
        match self {
            CommandCode::Contract(code) => code.as_str(),
            CommandCode::App(code) => code.as_str(),
        }
    }
}

impl AppCode {
    /// Every app code, for tests that go through the whole list.
    pub const ALL: [AppCode; 11] = [
        AppCode::UnknownAccount,
        AppCode::AccountExists,
        AppCode::NotOpen,
        AppCode::InFlight,
        AppCode::InvalidUrl,
        AppCode::RemoteImagesBlocked,
        AppCode::RemoteMediaRefused,
        AppCode::Keyring,
        AppCode::LocalAccount,
        AppCode::TooLong,
        AppCode::InvalidTime,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AppCode::UnknownAccount => "unknown_account",
            AppCode::AccountExists => "account_exists",
            AppCode::NotOpen => "not_open",
            AppCode::InFlight => "in_flight",
            AppCode::InvalidUrl => "invalid_url",
            AppCode::RemoteImagesBlocked => "remote_images_blocked",
            AppCode::RemoteMediaRefused => "remote_media_refused",
            AppCode::Keyring => "keyring",
            AppCode::LocalAccount => "local_account",
            AppCode::TooLong => "too_long",
            AppCode::InvalidTime => "invalid_time",
        }
    }
}

inbox_protocol::display_as_str!(CommandCode);

impl From<ErrorCode> for CommandCode {
    fn from(code: ErrorCode) -> CommandCode {
        CommandCode::Contract(code)
    }
}

impl From<AppCode> for CommandCode {
    fn from(code: AppCode) -> CommandCode {
        CommandCode::App(code)
    }
}

impl PartialEq<AppCode> for CommandCode {
    fn eq(&self, other: &AppCode) -> bool {
        *self == CommandCode::App(*other)
    }
}

impl PartialEq<ErrorCode> for CommandCode {
    fn eq(&self, other: &ErrorCode) -> bool {
        *self == CommandCode::Contract(*other)
    }
}

impl ClientError {
    /// The code a command refused over this error returns: the server's own when it sent one;
    /// a URL the client would not use; otherwise the server counts as unavailable.
    pub fn command_code(&self) -> CommandCode {
        match self {
            ClientError::Api { body, .. } => body.error.code.into(),
            ClientError::InvalidUrl { .. } => AppCode::InvalidUrl.into(),
            _ => ErrorCode::Unavailable.into(),
        }
    }
}

impl EngineError {
    /// The code the UI switches on (never the message text). Refusals that came from the
    /// contract carry the contract's own code (`invalid_answer`, `already_answered`, ...).
    pub fn code(&self) -> CommandCode {
        match self {
            EngineError::Invalid(e) => e.code.into(),
            EngineError::Client(e) => e.command_code(),
            EngineError::UnknownAccount(_) => AppCode::UnknownAccount.into(),
            EngineError::UnknownCard(_) => ErrorCode::NotFound.into(),
            EngineError::NotOpen { .. } => AppCode::NotOpen.into(),
            EngineError::InFlight(_) => AppCode::InFlight.into(),
            EngineError::AccountExists(_) => AppCode::AccountExists.into(),
            EngineError::Account(_) => AppCode::InvalidUrl.into(),
            EngineError::Keyring(_) | EngineError::NoToken(_) => AppCode::Keyring.into(),
            EngineError::Outbox(_) | EngineError::NotAnAppInput | EngineError::Stopped => {
                ErrorCode::Unavailable.into()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_is_its_bare_wire_name_whichever_list_it_is_on() {
        for code in AppCode::ALL {
            let wire = serde_json::to_value(CommandCode::from(code)).unwrap();
            assert_eq!(wire, serde_json::json!(code.as_str()));
            let back: CommandCode = serde_json::from_value(wire).unwrap();
            assert_eq!(back, CommandCode::App(code));
        }
        let contract = CommandCode::from(ErrorCode::AlreadyAnswered);
        assert_eq!(
            serde_json::to_value(contract).unwrap(),
            serde_json::json!("already_answered")
        );
        assert_eq!(contract.as_str(), "already_answered");
    }

    #[test]
    fn no_app_code_shadows_a_contract_code() {
        // Otherwise one wire name would mean two things, and reading it back would pick the
        // contract's.
        for code in AppCode::ALL {
            let as_contract: Result<ErrorCode, _> =
                serde_json::from_value(serde_json::json!(code.as_str()));
            assert!(as_contract.is_err(), "{} is a contract code", code.as_str());
        }
    }

    #[test]
    fn engine_refusals_map_to_the_codes_the_ui_switches_on() {
        let cases = [
            (
                EngineError::UnknownAccount("x".into()),
                CommandCode::App(AppCode::UnknownAccount),
            ),
            (
                EngineError::UnknownCard("ia_1".into()),
                CommandCode::Contract(ErrorCode::NotFound),
            ),
            (
                EngineError::InFlight("ia_1".into()),
                CommandCode::App(AppCode::InFlight),
            ),
            (
                EngineError::NoToken("x".into()),
                CommandCode::App(AppCode::Keyring),
            ),
            (
                EngineError::Stopped,
                CommandCode::Contract(ErrorCode::Unavailable),
            ),
            (
                EngineError::Invalid(inbox_protocol::ValidationError::new(
                    ErrorCode::InvalidAnswer,
                    "answer",
                    "no",
                )),
                CommandCode::Contract(ErrorCode::InvalidAnswer),
            ),
        ];
        for (error, code) in cases {
            assert_eq!(error.code(), code, "{error}");
        }
    }
}
