//! Notifications in the store: what the doors hand over and what the store decides. The caps
//! (outstanding per asker, submissions per notification) and the idempotency records are
//! checked in the same transaction / script as the write, so racing requests cannot pass them.

use inbox_protocol::{Notification, Submission};

use super::MediaBlob;

/// An accepted notification, ready to store, with its inline media (already rewritten to
/// `/api/interactions/media/<id>` in `notification.media`).
#[derive(Debug, Clone)]
pub struct NewNotification {
    pub notification: Notification,
    pub media: Vec<MediaBlob>,
    /// How many notifications its asker may have outstanding, this one included.
    pub outstanding_limit: usize,
}

/// A validated submission, ready to store.
#[derive(Debug, Clone)]
pub struct NewSubmission {
    /// `ordinal` is filled in by the store (its place among the notification's submissions).
    pub submission: Submission,
    /// How many submissions the notification may hold, this one included.
    pub limit: usize,
}

/// What `insert_notification` did.
#[derive(Debug, Clone, PartialEq)]
pub enum CreateOutcome {
    /// Stored; `notification_added` was emitted.
    Created(Notification),
    /// The same asker, key and fingerprint created it before: that notification as it is now.
    Replayed(Notification),
    /// The asker used the key before for a different request.
    IdempotencyConflict,
    /// The asker already has `limit` notifications outstanding.
    AtLimit { limit: usize },
}

/// What `submit` did.
#[derive(Debug, Clone, PartialEq)]
pub enum SubmitOutcome {
    /// Stored; `submitted` and `notification_updated` were emitted.
    Submitted(Submission),
    /// The same key and fingerprint submitted before: that submission.
    Replayed(Submission),
    IdempotencyConflict,
    /// The notification already holds `limit` submissions.
    AtLimit {
        limit: usize,
    },
    /// Unknown, pruned or dismissed.
    NotFound,
}

/// A reviewer's mark on a notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Read,
    Dismiss,
}

impl Mark {
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Read => "read",
            Mark::Dismiss => "dismiss",
        }
    }
}

/// The JSON a notification is stored as, split where its changing fields begin: serde writes
/// fields in declaration order and `read_at`, `dismissed_at`, `submissions` come last, so the
/// Redis scripts can rebuild the whole JSON from this head and the three fields without
/// parsing user JSON in Lua.
pub(crate) fn head_json(notification: &Notification) -> Result<String, serde_json::Error> {
    let fresh = Notification {
        read_at: None,
        dismissed_at: None,
        submissions: 0,
        ..notification.clone()
    };
    let json = serde_json::to_string(&fresh)?;
    let tail = r#","read_at":null,"dismissed_at":null,"submissions":0}"#;
    Ok(json
        .strip_suffix(tail)
        .map(str::to_owned)
        // The field order is fixed by the struct; a mismatch is a programming error caught
        // by the conformance suite (every read would fail to parse).
        .unwrap_or(json))
}

/// The whole JSON from [`head_json`] and the changing fields (each JSON text, `null` if unset).
pub(crate) fn assemble_json(head: &str, read_at: &str, dismissed_at: &str, count: u32) -> String {
    format!(r#"{head},"read_at":{read_at},"dismissed_at":{dismissed_at},"submissions":{count}}}"#)
}

/// A submission's JSON before the store gives it its `ordinal` (the last field).
pub(crate) fn submission_head_json(submission: &Submission) -> Result<String, serde_json::Error> {
    let json = serde_json::to_string(&Submission {
        ordinal: 0,
        ..submission.clone()
    })?;
    Ok(json
        .strip_suffix(r#","ordinal":0}"#)
        .map(str::to_owned)
        .unwrap_or(json))
}
