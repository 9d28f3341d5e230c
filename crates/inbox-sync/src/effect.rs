//! What the machine asks the driver to do. The driver performs each effect and feeds the
//! outcome back as an [`crate::Input`].

/// One effect, in the order it should be started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// `GET /api/interactions?status=pending&cursor=…`; answer with `PageLoaded`/`PageFailed`
    /// carrying the same `cursor` as `cursor_requested`. At most one is outstanding at a time.
    FetchPage { cursor: Option<String> },
    /// Connect `GET /api/interactions/stream` with `Last-Event-ID: last_event_id` (no header when
    /// `None`); report `StreamOpened`, then each frame, then `StreamDropped`.
    OpenStream { last_event_id: Option<String> },
    /// Disconnect the stream (signed out).
    CloseStream,
    /// `GET /api/interactions/{id}` to learn the final state of a card that left the pending
    /// set while events were lost; answer with `InteractionFetched` or `InteractionGone`.
    /// On a transient failure the driver simply tries again later (the GET is idempotent).
    FetchInteraction { id: String },
    /// A question arrived live: show a native notification (unless focused or do-not-disturb).
    Notify { id: String },
    /// A notified card was resolved or read: withdraw its notification.
    WithdrawNotification { id: String },
    /// `POST /api/notifications/{id}/read`: the reviewer opened a notification here.
    MarkNotificationRead { id: String },
    /// `POST /api/notifications/{id}/dismiss`: the reviewer dismissed it here (it is already
    /// gone from the board; the driver retries a transient failure).
    DismissNotification { id: String },
}
