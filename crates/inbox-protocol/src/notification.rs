//! Notifications: ask-less messages to the people at the inbox. Creating one returns at once
//! (no ticket, no expiry, nobody waits); one with a `schema` offers a form whose submissions
//! reach its asker whenever they arrive (`GET /api/notifications/{id}/submissions`, the stream).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use crate::interaction::FormData;
use crate::media::MediaItem;

/// What an asker submits to `POST /api/notifications`. Only `prompt` is required;
/// [`crate::validate::validate_notification`] names the field it refuses.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(optional_fields)]
pub struct NotificationRequest {
    /// The title line; plain text.
    pub prompt: String,
    /// Longer plain text shown under the title.
    pub body: Option<String>,
    /// Display-only media, under the same rules as a question's (absent means none).
    pub media: Option<Vec<MediaItem>>,
    /// A form the person may submit whenever they like: a JSON Schema, as on a form question.
    #[ts(optional, type = "Record<string, unknown>")]
    pub schema: Option<Value>,
    /// With `schema` only: prefill and per-send choice lists.
    pub data: Option<FormData>,
    /// Opaque, bounded, display-only.
    #[ts(optional, type = "Record<string, unknown>")]
    pub metadata: Option<Map<String, Value>>,
}

/// A notification as every client sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Notification {
    /// Opaque, URL-safe, unguessable (`nt_` followed by random base32).
    pub id: String,
    /// Principal that sent it.
    pub asker: String,
    /// Plain text, never HTML.
    pub prompt: String,
    pub body: Option<String>,
    pub media: Vec<MediaItem>,
    /// The form it offers, if any.
    #[ts(type = "Record<string, unknown> | null")]
    pub schema: Option<Value>,
    pub data: Option<FormData>,
    #[ts(type = "Record<string, unknown>")]
    pub metadata: Map<String, Value>,
    #[ts(type = "string")]
    pub created_at: DateTime<Utc>,
    /// When a reviewer first opened it; never unset once set.
    #[ts(type = "string | null")]
    pub read_at: Option<DateTime<Utc>>,
    /// When a reviewer dismissed it; final, and it is pruned with the resolved questions.
    #[ts(type = "string | null")]
    pub dismissed_at: Option<DateTime<Utc>>,
    /// Submissions received so far (at most `SUBMISSIONS_PER_NOTIFICATION_MAX`).
    pub submissions: u32,
}

impl Notification {
    /// Whether it offers a form to submit.
    pub fn has_form(&self) -> bool {
        self.schema.is_some()
    }

    /// Whether it still counts against its asker's outstanding cap and shows in the list.
    pub fn is_outstanding(&self) -> bool {
        self.dismissed_at.is_none()
    }

    /// Fold in what another copy knows. Every field that changes only moves one way (read
    /// once, dismissed once, the count only grows), so copies arriving in any order converge.
    pub fn merge(&mut self, other: &Notification) {
        if self.read_at.is_none() {
            self.read_at = other.read_at;
        }
        if self.dismissed_at.is_none() {
            self.dismissed_at = other.dismissed_at;
        }
        self.submissions = self.submissions.max(other.submissions);
    }
}

/// A reviewer's submission of a notification's form: `POST /api/notifications/{id}/submit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct SubmitRequest {
    /// An object valid against the notification's schema (checked like a form answer).
    #[ts(type = "unknown")]
    pub value: Value,
}

/// One submission, as its asker reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Submission {
    /// `sb_` followed by random base32.
    pub id: String,
    pub notification_id: String,
    /// The notification's asker (who may read it).
    pub asker: String,
    #[ts(type = "unknown")]
    pub value: Value,
    /// Principal that submitted.
    pub submitted_by: String,
    #[ts(type = "string")]
    pub submitted_at: DateTime<Utc>,
    /// Its place among the notification's submissions, from 1 (so a copy seen twice is
    /// recognised, and `submissions` on the notification is the highest one).
    pub ordinal: u32,
}

/// `GET /api/notifications/{id}/submissions`: oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct SubmissionList {
    pub items: Vec<Submission>,
}

/// `GET /api/notifications?limit=…&cursor=…`: outstanding (not dismissed) ones, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct NotificationPage {
    pub items: Vec<Notification>,
    /// Pass back as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
    /// The events-stream id at the moment the page was read.
    pub stream_cursor: String,
}
