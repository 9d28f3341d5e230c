//! Where interactions, answers, idempotency records, events, media and tickets live.
//!
//! The [`Store`] trait is the seam between the doors and persistence. The embedded default is
//! [`SqliteStore`]; [`RedisStore`] lets several workers share one Redis 7 (events as a stream
//! with `XADD`/`XREAD`, single-winner resolution as one Lua script). Both pass the same
//! conformance suite (`tests/conformance.rs`). Cursors are opaque strings at this boundary:
//! SQLite uses a decimal sequence number, Redis the stream id.

pub mod agui;
pub mod notification;
mod page;
pub mod park;
pub mod redis;
pub mod sqlite;
mod transition;

use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use inbox_protocol::{
    AguiRun, Interaction, InteractionPage, Notification, NotificationPage, Park, ResetReason,
    StatusFilter, StreamEvent, Submission, Verifier,
};
use serde_json::{Map, Value};
use tokio::sync::broadcast;

pub use self::agui::{AguiTurn, NewAguiRun, TurnResult};
pub use self::notification::{CreateOutcome, Mark, NewNotification, NewSubmission, SubmitOutcome};
pub use self::park::{ClaimOutcome, Delivery, DeliveryResult, NewPark};
pub use self::redis::RedisStore;
pub use sqlite::SqliteStore;

/// One event as the stream carries it: its cursor (the SSE `id:`) and the event.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEvent {
    pub cursor: String,
    pub event: StreamEvent,
}

impl StoredEvent {
    /// Its SSE frame: `id`, `event`, `data` (the event's JSON), then the blank line. The
    /// cursor, the event name and compact JSON never hold a line break, so each field is one
    /// line. Live events render it once for every stream (`LiveEvent`).
    pub fn sse_frame(&self) -> axum::body::Bytes {
        let (name, data) = (self.event.name(), self.event.data_json());
        let mut text = String::with_capacity(self.cursor.len() + name.len() + data.len() + 24);
        for (field, value) in [
            ("id", self.cursor.as_str()),
            ("event", name),
            ("data", &data),
        ] {
            debug_assert!(
                !value.contains(['\n', '\r']),
                "an SSE {field} holds a line break"
            );
            text.push_str(field);
            text.push_str(": ");
            text.push_str(value);
            text.push('\n');
        }
        text.push('\n');
        axum::body::Bytes::from(text)
    }
}

/// An event as the live bus hands it to every subscriber of this worker: one allocation shared
/// by all of them (the bus clones the `Arc`, not the interaction inside), with its whole SSE
/// frame rendered once at publish. With a thousand streams open, serialising per stream was the
/// largest cost of a delivery; at ten thousand, building and buffering a copy of the frame per
/// stream was the next (docs/benchmarks.md). Every stream now queues the same bytes.
#[derive(Debug, PartialEq)]
pub struct LiveEvent {
    pub stored: StoredEvent,
    /// `stored.sse_frame()`, rendered once.
    pub frame: axum::body::Bytes,
}

impl LiveEvent {
    pub fn new(stored: StoredEvent) -> Arc<LiveEvent> {
        let frame = stored.sse_frame();
        Arc::new(LiveEvent { stored, frame })
    }
}

/// What `Store::subscribe` yields.
pub type LiveBus = broadcast::Receiver<Arc<LiveEvent>>;

/// Bytes submitted inline as `data:image/*`, served later by the public media door.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaBlob {
    pub id: String,
    pub content_type: String,
    pub bytes: Vec<u8>,
}

/// An accepted ask, ready to store: the interaction as clients will see it, its inline media
/// (already rewritten to `/api/interactions/media/<id>` in `interaction.media`) and, for an
/// external question, its callback ticket. Stored in one step, so nothing is half-written.
#[derive(Debug, Clone)]
pub struct NewAsk {
    pub interaction: Interaction,
    /// How many questions its asker may have pending, this one included; the store refuses
    /// the insert past it (`StoreError::PendingLimit`), checked in the same step as the insert.
    pub pending_limit: usize,
    pub media: Vec<MediaBlob>,
    pub ticket: Option<NewTicket>,
}

/// A callback ticket as stored: only its SHA-256 (`crate::ticket::hash`), so a leaked database
/// does not leak live capabilities; its own expiry; and the verifier bound to the question,
/// kept here and never inside the interaction, so no read shows its secret.
#[derive(Debug, Clone, PartialEq)]
pub struct NewTicket {
    pub hash: String,
    pub expires_at: DateTime<Utc>,
    pub verifier: Option<Verifier>,
}

/// What a live ticket leads to.
#[derive(Debug, Clone, PartialEq)]
pub struct TicketMatch {
    /// The interaction, whatever its status (single use is the status guard's job).
    pub interaction: Interaction,
    pub verifier: Option<Verifier>,
}

/// A ticket's record as the Redis store keeps it (SQLite keeps the same in columns).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct StoredTicket {
    pub interaction_id: String,
    /// Unix milliseconds; checked on lookup as well as enforced by the key's own expiry.
    pub expires_at: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verifier: Option<Verifier>,
}

/// A request for one page of the list door.
#[derive(Debug, Clone)]
pub struct PageQuery {
    pub status: StatusFilter,
    pub limit: usize,
    /// The `next_cursor` of the previous page; `None` for the first page.
    pub cursor: Option<String>,
}

/// How a pending interaction leaves `pending`.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolution {
    Answer {
        value: Value,
        params: Option<Map<String, Value>>,
        by: String,
    },
    Decline {
        reason: Option<String>,
        by: String,
    },
    /// The asker withdrew it.
    Cancel,
}

/// An `Idempotency-Key` and a fingerprint of the request that carried it.
#[derive(Debug, Clone, PartialEq)]
pub struct IdempotencyClaim {
    pub key: String,
    /// Equal fingerprints mean "the same request again".
    pub fingerprint: String,
}

/// What `resolve` did. The store decides only facts; the doors turn them into responses.
#[derive(Debug, Clone, PartialEq)]
pub enum ResolveOutcome {
    /// This call won: the interaction as resolved (an event was emitted).
    Resolved(Interaction),
    /// The same key with the same fingerprint resolved it before: the interaction as it was
    /// resolved then (nothing new was written or emitted).
    Replayed(Interaction),
    /// The key was used before with a different fingerprint.
    IdempotencyConflict,
    /// It was already final when this call arrived: the interaction as it stands.
    AlreadyFinal(Interaction),
    /// Still pending, but its deadline has passed (the sweeper has not reached it yet): for
    /// everyone it is expired, so nothing was changed. Decided in the store, under the same
    /// lock as the single-winner rule, so no answer can slip in after the deadline.
    PastDeadline,
    /// No such interaction.
    NotFound,
}

/// What the stream can deliver after a resume cursor.
#[derive(Debug, Clone, PartialEq)]
pub enum EventsAfter {
    /// Every event after the cursor, oldest first (possibly none).
    Events(Vec<StoredEvent>),
    /// The cursor cannot cover the gap; the client must refetch.
    Gap(ResetReason),
}

/// Inline media as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredMedia {
    pub content_type: String,
    pub bytes: Vec<u8>,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("stored record is unreadable: {0}")]
    Corrupt(#[from] serde_json::Error),
    #[error("invalid page cursor")]
    InvalidCursor,
    #[error("store task failed: {0}")]
    Task(String),
    #[error("store i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error("the asker already has {limit} questions pending")]
    PendingLimit { limit: usize },
}

#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// Store an accepted ask (with its media and ticket) and emit `add`.
    async fn insert_ask(&self, ask: NewAsk) -> Result<Interaction, StoreError>;

    async fn get(&self, id: &str) -> Result<Option<Interaction>, StoreError>;

    /// One page, newest first, and the stream cursor read atomically with it.
    async fn list_page(&self, query: PageQuery) -> Result<InteractionPage, StoreError>;

    /// Move a pending interaction to its final state — exactly one caller wins, and none once
    /// its deadline has passed. With a claim, the same key and fingerprint replay the earlier
    /// outcome. Emits `answered` or `removed`.
    async fn resolve(
        &self,
        id: &str,
        resolution: Resolution,
        claim: Option<IdempotencyClaim>,
    ) -> Result<ResolveOutcome, StoreError>;

    /// Expire every pending interaction whose deadline is at or before `now`; emits
    /// `removed{expired}` for each and returns their ids. Also prunes callback tickets past
    /// their own expiry (Redis lets them expire by themselves).
    async fn expire_due(&self, now: DateTime<Utc>) -> Result<Vec<String>, StoreError>;

    /// Delete up to `limit` questions that left `pending` at or before `before`, with their
    /// media, tickets and idempotency records; emits `removed{pruned}` for each and returns
    /// their ids.
    async fn prune_resolved(
        &self,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError>;

    /// The first `limit` retained events after `cursor` (callers page through a long backlog
    /// in batches rather than hold it whole), or a gap when the cursor cannot cover it.
    async fn events_after(&self, cursor: &str, limit: usize) -> Result<EventsAfter, StoreError>;

    /// The cursor of the newest event (the "tail end").
    async fn tail_cursor(&self) -> Result<String, StoreError>;

    /// Whether `cursor` comes after `reference` in this store's event order.
    fn is_after(&self, cursor: &str, reference: &str) -> bool;

    async fn get_media(&self, id: &str) -> Result<Option<StoredMedia>, StoreError>;

    /// The interaction (and verifier) of the ticket whose hash is `ticket_hash`, while the
    /// ticket has not passed its own expiry at `now`; `None` for an unknown, expired or pruned
    /// ticket alike.
    async fn ticket_lookup(
        &self,
        ticket_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<TicketMatch>, StoreError>;

    /// Live events from now on, in cursor order. Subscribe before reading a backlog and
    /// dedupe by cursor, and nothing falls in between. A lagging receiver sees
    /// `RecvError::Lagged` and should re-read from the store.
    fn subscribe(&self) -> LiveBus;

    /// Whether the store answers at all (`/readyz`).
    async fn ping(&self) -> Result<(), StoreError>;

    // Parks (`park.rs`). `resolve` and `expire_due` record each settled question of a park on
    // it in the same atomic step, and move the park to `resolved` with its last one.

    /// Store a park and all its questions in one step (emitting `add` for each), or nothing.
    async fn insert_park(&self, park: NewPark) -> Result<Park, StoreError>;

    async fn get_park(&self, id: &str) -> Result<Option<Park>, StoreError>;

    /// Take a resolved park's resume: the first claim wins and moves it to `resumed`; with the
    /// same key and fingerprint a later call replays. Decided atomically in the store.
    async fn claim_park(
        &self,
        id: &str,
        claim: Option<IdempotencyClaim>,
        now: DateTime<Utc>,
    ) -> Result<ClaimOutcome, StoreError>;

    /// Parks this store instance moved to `resolved`, each exactly once, from now on (another
    /// Redis worker's transitions are heard through the events of the questions instead).
    fn subscribe_parks(&self) -> broadcast::Receiver<Park>;

    /// Lease the next due webhook delivery for `lease` (its due time moves past the lease, so
    /// a dispatcher that dies lets another take it over once the lease runs out).
    async fn lease_delivery(
        &self,
        now: DateTime<Utc>,
        lease: std::time::Duration,
    ) -> Result<Option<Delivery>, StoreError>;

    /// Report how a leased delivery went; `false` (nothing changed) when the lease was lost.
    async fn finish_delivery(
        &self,
        delivery: &Delivery,
        result: DeliveryResult,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Queue a `failed` webhook park for delivery again (attempts start over); `false` when
    /// the park is not `failed`.
    async fn redeliver_park(&self, id: &str, now: DateTime<Utc>) -> Result<bool, StoreError>;

    // Notifications (`notification.rs`; `sqlite/notification.rs`, `redis/notification.rs`).

    /// Store a notification (with its media) and emit `notification_added`, unless its asker
    /// is at the outstanding limit. A claim is scoped to the asker: the same key and
    /// fingerprint replay the notification created then.
    async fn insert_notification(
        &self,
        new: NewNotification,
        claim: Option<IdempotencyClaim>,
    ) -> Result<CreateOutcome, StoreError>;

    async fn get_notification(&self, id: &str) -> Result<Option<Notification>, StoreError>;

    /// Outstanding (not dismissed) notifications, newest first, `limit` at most after
    /// `cursor`, with the stream cursor read atomically with the page.
    async fn list_notifications(
        &self,
        limit: usize,
        cursor: Option<String>,
    ) -> Result<NotificationPage, StoreError>;

    /// Set `read_at` or `dismissed_at` once (a repeat changes nothing and emits nothing);
    /// emits `notification_updated` when it changed. `None` for an unknown one.
    async fn mark_notification(
        &self,
        id: &str,
        mark: Mark,
        now: DateTime<Utc>,
    ) -> Result<Option<Notification>, StoreError>;

    /// Store a submission of an outstanding notification, under its cap, giving it the next
    /// ordinal; emits `submitted` and `notification_updated`. A claim is scoped to the
    /// notification.
    async fn submit(
        &self,
        id: &str,
        new: NewSubmission,
        claim: Option<IdempotencyClaim>,
    ) -> Result<SubmitOutcome, StoreError>;

    /// Every submission of a notification, oldest first (at most its cap).
    async fn submissions(&self, id: &str) -> Result<Vec<Submission>, StoreError>;

    /// Delete up to `limit` notifications dismissed at or before `before`, with their media,
    /// submissions and idempotency records; returns their ids (no event: clients dropped
    /// them when they were dismissed).
    async fn prune_dismissed(
        &self,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError>;

    /// Delete up to `limit` parks that left `parked` and whose last step (resolved, or
    /// resumed when it was) is at or before `before`, with their resolutions, queued delivery
    /// and lease; a park whose webhook resume is still queued is kept. Returns their ids. Their
    /// questions are pruned on their own retention (`prune_resolved`).
    async fn prune_parks(
        &self,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError>;

    // AG-UI runs (`agui.rs`). The step that resolves an `agui` park queues its run's turn.

    /// Store a run and queue its first turn, due now.
    async fn insert_agui_run(&self, new: NewAguiRun, now: DateTime<Utc>) -> Result<(), StoreError>;

    async fn get_agui_run(&self, id: &str) -> Result<Option<AguiRun>, StoreError>;

    /// Lease the next due turn for `lease` (its due time moves past the lease's end).
    async fn lease_agui_turn(
        &self,
        now: DateTime<Utc>,
        lease: std::time::Duration,
    ) -> Result<Option<AguiTurn>, StoreError>;

    /// Report a leased turn in one atomic step: the run written, its new park opened (all or
    /// nothing; `PendingLimit` refuses it and changes nothing), the resumed park marked
    /// `resumed`, the turn dequeued (or queued again for a retry). `false` (nothing changed)
    /// when the lease was lost.
    async fn finish_agui_turn(
        &self,
        turn: &AguiTurn,
        result: TurnResult,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Write a leased turn's run as it streams (its transcript so far), while the lease is
    /// held; `false` (nothing changed) when it is not. The turn stays leased.
    async fn progress_agui_turn(&self, turn: &AguiTurn, run: &AguiRun) -> Result<bool, StoreError>;

    /// A `failed` run back to `running`, its error cleared and its turn queued again (it
    /// resumes its park if that resolved and was never resumed); `None` when it is not `failed`
    /// (or unknown). Returns the run as it now stands.
    async fn retry_agui_run(
        &self,
        id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<AguiRun>, StoreError>;

    /// Delete up to `limit` runs that ended (`succeeded`, `failed`, `cancelled`) at or before
    /// `before`, with their input and stored headers; returns their ids. A run queued again
    /// meanwhile (a retry) is kept.
    async fn prune_finished_agui_runs(
        &self,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use inbox_protocol::{RemovedEvent, RemovedReason};

    #[test]
    fn a_frame_is_one_line_per_field_and_a_blank_line_and_is_rendered_once_for_the_bus() {
        let stored = StoredEvent {
            cursor: "42".into(),
            event: StreamEvent::Removed(RemovedEvent {
                id: "ia_1".into(),
                reason: RemovedReason::Expired,
            }),
        };
        let text = String::from_utf8(stored.sse_frame().to_vec()).unwrap();
        assert_eq!(
            text,
            format!(
                "id: 42\nevent: removed\ndata: {}\n\n",
                stored.event.data_json()
            )
        );
        let live = LiveEvent::new(stored.clone());
        assert_eq!(live.frame, stored.sse_frame());
    }
}
