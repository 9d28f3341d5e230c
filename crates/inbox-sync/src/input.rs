//! Everything that can happen to an inbox: what the driver saw, what the reviewer did, and
//! what time it is. The machine never reads a clock or a socket; it only sees these.

use chrono::{DateTime, Utc};
use inbox_protocol::{ErrorCode, Interaction, InteractionPage, Notification, StreamEvent};
use serde_json::Value;

use crate::connection::Failure;

/// One input to [`crate::Inbox::handle`].
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// Begin syncing (or begin again after `SignedOut`, with new credentials). The first time
    /// this asks for page 1; later it refetches the pending set and reopens the stream.
    Start,
    /// A `GET /api/interactions` page arrived for the request made with `cursor_requested`
    /// (the `cursor` of the [`crate::Effect::FetchPage`] it answers).
    PageLoaded {
        page: InteractionPage,
        cursor_requested: Option<String>,
    },
    /// The page request made with `cursor_requested` failed.
    PageFailed {
        cursor_requested: Option<String>,
        failure: Failure,
    },
    /// The SSE stream is connected.
    StreamOpened,
    /// One SSE frame: `id` is its SSE `id:` (absent if the server sent none).
    StreamEvent {
        id: Option<String>,
        event: StreamEvent,
    },
    /// The SSE stream ended or could not be opened.
    StreamDropped { failure: Failure },
    /// The driver's retry timer fired, or the network came back: redo whatever failed
    /// (the outstanding page fetch, the stream).
    Retry,
    /// The reviewer asked for a refresh: refetch the pending set and merge it in.
    Refresh,
    /// Local time passed (the machine has no clock): cards whose deadline is at or before
    /// `now` show as expired until the server confirms.
    Tick { now: DateTime<Utc> },
    /// The reviewer opened the card.
    MarkRead { id: String },
    /// The reviewer marked everything read.
    MarkAllRead,
    /// The reviewer cleared a resolved card from the list (pending cards cannot be dismissed).
    Dismiss { id: String },
    /// The reviewer answered; the driver put the answer in its outbox.
    AnswerQueued { id: String, value: Value },
    /// The reviewer declined; the driver put the decline in its outbox.
    DeclineQueued { id: String, reason: Option<String> },
    /// The driver is sending the outbox entry for this card.
    AnswerSending { id: String },
    /// The server's verdict on the answer (or decline) for this card.
    AnswerVerdict { id: String, verdict: Verdict },
    /// `GET /api/interactions/{id}` answered (after [`crate::Effect::FetchInteraction`]).
    InteractionFetched { interaction: Interaction },
    /// `GET /api/interactions/{id}` said `404`: unknown, expired or pruned — the card is over.
    InteractionGone { id: String },
    /// The driver began reading `GET /api/notifications` (it does whenever the stream opens
    /// or resets, and on a refresh).
    NotificationsFetching,
    /// Every page of that read, newest first.
    NotificationsLoaded { items: Vec<Notification> },
    /// The reviewer opened a notification.
    OpenNotification { id: String },
    /// The reviewer dismissed a notification.
    DismissNotification { id: String },
}

/// What the answer (or decline) door said.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// `200`: recorded; the interaction as resolved.
    Accepted { interaction: Interaction },
    /// `409 already_answered`: somebody else was first; the interaction as the winner left it.
    AlreadyAnswered { winner: Interaction },
    /// `404`: expired, cancelled and pruned, or unknown.
    Gone,
    /// Any other refusal (e.g. `400 invalid_answer`); the card stays open for another try.
    Rejected { code: ErrorCode, message: String },
}
