//! How an interaction leaves `pending`, and the stream event that announces it. Both stores
//! call these, so an answer, a decline, a withdrawal and an expiry look the same whichever
//! store holds the data; the stores only differ in how they make the change atomic.

use chrono::{DateTime, Utc};
use inbox_protocol::{
    Answer, AnsweredEvent, Interaction, RemovedEvent, RemovedReason, Status, StreamEvent,
};

use super::Resolution;

/// The interaction as `resolution` leaves it, and the event that announces it.
pub(crate) fn resolve(
    mut ia: Interaction,
    resolution: Resolution,
    now: DateTime<Utc>,
) -> (Interaction, StreamEvent) {
    let (status, answer) = match resolution {
        Resolution::Answer { value, params, by } => (
            Status::Answered,
            Answer {
                value,
                answered_by: by,
                answered_at: now,
                params,
                reason: None,
            },
        ),
        Resolution::Decline { reason, by } => (
            Status::Declined,
            Answer {
                value: serde_json::Value::Null,
                answered_by: by,
                answered_at: now,
                params: None,
                reason,
            },
        ),
        Resolution::Cancel => return remove(ia, RemovedReason::Cancelled),
    };
    ia.status = status;
    ia.answer = Some(answer.clone());
    let event = StreamEvent::Answered(AnsweredEvent {
        id: ia.id.clone(),
        status,
        answer,
    });
    (ia, event)
}

/// The interaction leaving the inbox without an answer (cancelled or expired).
pub(crate) fn remove(mut ia: Interaction, reason: RemovedReason) -> (Interaction, StreamEvent) {
    ia.status = reason.status();
    let event = StreamEvent::Removed(RemovedEvent {
        id: ia.id.clone(),
        reason,
    });
    (ia, event)
}
