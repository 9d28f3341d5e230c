//! The shapes the window receives from commands and events, and the arguments it sends.
//! TypeScript for each is generated into `ui/src/generated/desktop/` (see [`crate::bindings`]).

use std::collections::BTreeMap;

use inbox_sync::{Card, ConnectionStatus, Counts};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use crate::settings::Preferences;

/// Event: a batch of changes for one account (`inbox_sync::Changes`).
pub const CHANGES_EVENT: &str = "inbox://changes";
/// Event: open this question (a notification or the tray was clicked).
pub const OPEN_EVENT: &str = "inbox://open";
/// Do not disturb changed outside the window (from the tray menu); payload: `true` when on.
pub const DO_NOT_DISTURB_EVENT: &str = "inbox://do-not-disturb";

/// One account as the sidebar shows it. Never carries its token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export_to = "desktop/")]
pub struct AccountView {
    pub id: String,
    pub label: String,
    pub url: String,
    /// The server this app runs in-process (local mode).
    pub local: bool,
}

/// `inbox_snapshot`: everything the window needs to draw itself from scratch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export_to = "desktop/")]
pub struct InboxSnapshot {
    pub accounts: Vec<AccountView>,
    /// Every account's cards, each list in display order.
    pub cards: Vec<Card>,
    pub connections: BTreeMap<String, ConnectionStatus>,
    pub counts: BTreeMap<String, Counts>,
    /// Every account's outstanding notifications, newest first.
    pub notifications: BTreeMap<String, Vec<inbox_protocol::Notification>>,
    /// The `inbox ask …` command line for the empty state (local mode only). It names the
    /// tokens file that holds the asker token; it never contains a token itself.
    pub local_hint: Option<String>,
    /// Do not disturb is on (set from the window or the tray; remembered across restarts).
    pub do_not_disturb: bool,
}

/// `inbox://open`
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export_to = "desktop/")]
pub struct OpenRequest {
    pub account: String,
    pub id: String,
}

/// `answer_interaction` arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export_to = "desktop/")]
pub struct AnswerArgs {
    pub account: String,
    pub id: String,
    #[ts(type = "unknown")]
    pub value: Value,
    #[ts(optional, type = "Record<string, unknown>")]
    pub params: Option<Map<String, Value>>,
}

/// `submit_notification` arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export_to = "desktop/")]
pub struct SubmitArgs {
    pub account: String,
    pub id: String,
    #[ts(type = "unknown")]
    pub value: Value,
}

/// `decline_interaction` arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export_to = "desktop/")]
pub struct DeclineArgs {
    pub account: String,
    pub id: String,
    #[ts(optional)]
    pub reason: Option<String>,
}

/// `allow_remote_images` arguments: allow for one question (`id`), or for everything one asker
/// sends (`sender`) on that account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export_to = "desktop/")]
pub struct RemoteImagesArgs {
    pub account: String,
    #[ts(optional)]
    pub id: Option<String>,
    #[ts(optional)]
    pub sender: Option<String>,
}

/// `add_account` arguments. The token goes straight to the keyring.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export_to = "desktop/")]
pub struct NewAccount {
    pub url: String,
    pub token: String,
    pub label: String,
}

/// An asker whose remote media the reviewer allowed for good on one account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export_to = "desktop/")]
pub struct RemoteSender {
    pub account: String,
    pub sender: String,
}

/// A question whose remote media the reviewer allowed (for this run of the app).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export_to = "desktop/")]
pub struct RemoteQuestion {
    pub account: String,
    pub id: String,
}

/// `settings` (and every command that changes one): the settings as the app keeps them.
/// The window draws from this and holds no allowance of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export_to = "desktop/")]
pub struct SettingsView {
    pub preferences: Preferences,
    pub remote_senders: Vec<RemoteSender>,
    pub remote_questions: Vec<RemoteQuestion>,
    /// Starting at login is on; `null` where the app cannot tell (no autostart support).
    pub autostart: Option<bool>,
    /// Where the log files are; `null` when the app logs to stderr only.
    pub logs_dir: Option<String>,
}
