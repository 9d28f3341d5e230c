//! What the status bar says about the link to the server, and how the driver reports failures.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The truth about the connection, as the status bar shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ConnectionStatus {
    /// The live stream is open; the list is current.
    Online,
    /// A connection (first page or stream) is being made.
    Connecting,
    /// The last attempt failed; the driver tries again at `next_try_at` (RFC 3339).
    /// `attempt` counts the failures since the stream was last open.
    Reconnecting { next_try_at: String, attempt: u32 },
    /// No network; nothing is tried until the driver says the network is back (`Input::Retry`).
    Offline,
    /// The server refused the credentials; nothing is tried until the account signs in again
    /// (`Input::Start`).
    SignedOut,
}

impl ConnectionStatus {
    pub(crate) fn reconnecting(at: DateTime<Utc>, attempt: u32) -> ConnectionStatus {
        ConnectionStatus::Reconnecting {
            next_try_at: at.to_rfc3339_opts(SecondsFormat::Millis, true),
            attempt,
        }
    }
}

/// Why a page fetch or the stream failed, as the driver classifies it. The driver owns the
/// backoff (full jitter) and the timers; this machine only needs to know what to say and
/// what to redo on [`crate::Input::Retry`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// A transient error; the driver will send `Retry` at `retry_at`.
    Transient { retry_at: DateTime<Utc> },
    /// The network is down; the driver sends `Retry` when it is back.
    Offline,
    /// `401`: the token was refused.
    SignedOut,
}
