//! Frames of the SSE stream (`GET /api/interactions/stream`).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::interaction::{Answer, Interaction, Status};
use crate::notification::{Notification, Submission};

/// One event of the stream. On the wire the variant is the SSE `event:` name and the payload
/// is the JSON `data:`; the SSE `id:` is the events-stream cursor carried beside it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "event", content = "data", rename_all = "snake_case")]
// `add` carries a whole interaction; boxing it would only add an allocation per event, and
// events are short-lived.
#[allow(clippy::large_enum_variant)]
pub enum StreamEvent {
    /// A new pending interaction.
    Add(Interaction),
    /// Answered or declined.
    Answered(AnsweredEvent),
    /// Expired, cancelled or pruned.
    Removed(RemovedEvent),
    /// The requested resume could not be honoured: refetch the paged list now.
    Reset(ResetEvent),
    /// A new notification.
    NotificationAdded(Notification),
    /// A notification was read, dismissed or submitted: the whole notification as it now is.
    NotificationUpdated(Notification),
    /// A submission of a notification's form (askers see these, for their own notifications only).
    Submitted(Submission),
}

impl StreamEvent {
    /// The SSE `event:` name.
    pub fn name(&self) -> &'static str {
        match self {
            StreamEvent::Add(_) => "add",
            StreamEvent::Answered(_) => "answered",
            StreamEvent::Removed(_) => "removed",
            StreamEvent::Reset(_) => "reset",
            StreamEvent::NotificationAdded(_) => "notification_added",
            StreamEvent::NotificationUpdated(_) => "notification_updated",
            StreamEvent::Submitted(_) => "submitted",
        }
    }

    /// The SSE `data:` payload as JSON text.
    pub fn data_json(&self) -> String {
        let result = match self {
            StreamEvent::Add(x) => serde_json::to_string(x),
            StreamEvent::Answered(x) => serde_json::to_string(x),
            StreamEvent::Removed(x) => serde_json::to_string(x),
            StreamEvent::Reset(x) => serde_json::to_string(x),
            StreamEvent::NotificationAdded(x) | StreamEvent::NotificationUpdated(x) => {
                serde_json::to_string(x)
            }
            StreamEvent::Submitted(x) => serde_json::to_string(x),
        };
        // These types hold only JSON-safe data, so serialisation cannot fail.
        result.unwrap_or_else(|_| "{}".to_owned())
    }

    /// Rebuild an event from its SSE `event:` name and `data:` text.
    pub fn from_sse(name: &str, data: &str) -> Result<StreamEvent, serde_json::Error> {
        Ok(match name {
            "add" => StreamEvent::Add(serde_json::from_str(data)?),
            "answered" => StreamEvent::Answered(serde_json::from_str(data)?),
            "removed" => StreamEvent::Removed(serde_json::from_str(data)?),
            "reset" => StreamEvent::Reset(serde_json::from_str(data)?),
            "notification_added" => StreamEvent::NotificationAdded(serde_json::from_str(data)?),
            "notification_updated" => StreamEvent::NotificationUpdated(serde_json::from_str(data)?),
            "submitted" => StreamEvent::Submitted(serde_json::from_str(data)?),
            other => {
                return Err(serde::de::Error::custom(format!(
                    "unknown event name `{other}`"
                )));
            }
        })
    }

    /// The interaction this event is about (none for `reset` and the notification events).
    pub fn interaction_id(&self) -> Option<&str> {
        match self {
            StreamEvent::Add(ia) => Some(&ia.id),
            StreamEvent::Answered(e) => Some(&e.id),
            StreamEvent::Removed(e) => Some(&e.id),
            StreamEvent::Reset(_)
            | StreamEvent::NotificationAdded(_)
            | StreamEvent::NotificationUpdated(_)
            | StreamEvent::Submitted(_) => None,
        }
    }

    /// Whether an asker named `asker` may see this event on the stream: only the submissions
    /// of their own notifications (reviewers see every event).
    pub fn visible_to_asker(&self, asker: &str) -> bool {
        matches!(self, StreamEvent::Submitted(s) if s.asker == asker)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct AnsweredEvent {
    pub id: String,
    /// `answered` or `declined`.
    pub status: Status,
    pub answer: Answer,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RemovedEvent {
    pub id: String,
    pub reason: RemovedReason,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RemovedReason {
    Expired,
    Cancelled,
    Pruned,
}

impl RemovedReason {
    /// The final status a card takes when removed for this reason.
    pub fn status(self) -> Status {
        match self {
            RemovedReason::Expired => Status::Expired,
            RemovedReason::Cancelled => Status::Cancelled,
            // A pruned record is gone from the server; the nearest final state is expired.
            RemovedReason::Pruned => Status::Expired,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ResetEvent {
    pub reason: ResetReason,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ResetReason {
    /// The `Last-Event-ID` could not be parsed.
    MalformedId,
    /// The id is older than the bounded retention window (or from another stream).
    AgedOut,
    /// The connection fell too far behind the live events and is being closed; reconnect
    /// after refetching the list.
    Lagged,
}
