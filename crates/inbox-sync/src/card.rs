//! A card: one interaction as the inbox shows it, with what only this app knows about it
//! (read or not, and how the reviewer's own answer is faring).

use inbox_protocol::{Answer, ErrorCode, Interaction, Status};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// One row of the inbox list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Card {
    /// The account (server + principal) this card belongs to; the UI shows several inboxes.
    pub account: String,
    /// The interaction as last learned from the server. `status` is what the UI should show:
    /// it reads `expired` while `expired_locally` is set, even before the server confirms.
    pub interaction: Interaction,
    /// What only this app knows about it; its fields sit beside `interaction` on the wire.
    #[serde(flatten)]
    #[ts(flatten)]
    pub local: Local,
}

/// What only this app knows about a card, kept by the machine (`Entry`) and shown on the card
/// as it is: defined once here.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct Local {
    /// New to the reviewer: arrived live or with the first pages, and not yet opened.
    /// A card that reaches a final status is never unread (nothing is left to do on it).
    pub unread: bool,
    /// How the reviewer's own answer (or decline) from this app is faring, if they gave one.
    pub delivery: Option<Delivery>,
    /// What the reviewer gave, so a queued answer can be shown before the server has it.
    pub outgoing: Option<Outgoing>,
    /// The deadline passed on this machine's clock but the server has not confirmed the expiry
    /// yet (typically while offline). Cleared once the server reports a final status.
    pub expired_locally: bool,
}

impl Card {
    /// The status to show (same as `interaction.status`, spelled out for readers of Rust code).
    pub fn status(&self) -> Status {
        self.interaction.status
    }
}

/// Delivery of the reviewer's answer, from the moment it was made until the server's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Delivery {
    /// Kept in the outbox (e.g. offline); it will be sent when the server is reachable.
    Queued,
    /// The request is on its way.
    Sending,
    /// The server recorded it.
    Accepted,
    /// The server refused it. `code` is what the UI switches on; for `already_answered` the
    /// `winner` is the answer that won ("already answered by alice").
    Rejected {
        code: ErrorCode,
        message: String,
        winner: Option<Answer>,
    },
}

impl Local {
    /// The reviewer's answer (or decline) from this app is still on its way to the server.
    pub fn answer_in_flight(&self) -> bool {
        self.delivery.as_ref().is_some_and(Delivery::is_in_flight)
    }
}

impl Delivery {
    /// Still on its way to the server.
    pub fn is_in_flight(&self) -> bool {
        matches!(self, Delivery::Queued | Delivery::Sending)
    }
}

/// What the reviewer gave from this app.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outgoing {
    /// An answer value (already validated by the driver against the question's format).
    Answer {
        #[ts(type = "unknown")]
        value: Value,
    },
    /// A decline of the whole question.
    Decline { reason: Option<String> },
}
