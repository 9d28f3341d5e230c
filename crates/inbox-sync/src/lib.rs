//! The inbox as a pure function of what arrived.
//!
//! `inbox-sync` is the synchronous, I/O-free heart of the desktop app. A driver (the
//! `inbox-client` crate) performs requests and feeds what it saw into [`Inbox::handle`] as an
//! [`Input`]; each input returns an [`Outcome`]: one coalesced [`Changes`] batch for the UI and
//! the [`Effect`]s the driver performs next. No clock is read here: time arrives as
//! [`Input::Tick`]. Every ordering of inputs can therefore be tested directly (see the tables in
//! `inbox/tests.rs` and the random interleavings in `inbox/convergence.rs`).
//!
//! # The flow
//! - `Start` → `FetchPage { cursor: None }`.
//! - Page 1 arrives → its cards show at once (unread), its `stream_cursor` becomes the stream
//!   position (or the id given to [`Inbox::resume`], if newer) → `OpenStream`. Further pages are
//!   fetched **eagerly**, one at a time, until `next_cursor` is `null`: the tray count and the
//!   gap reconciliation both need the whole pending set, and pending sets are small.
//! - Stream frames apply as they come, in any order relative to pages: a final status never
//!   goes back to pending; an `answered`/`removed` frame for a card not yet known leaves a
//!   tombstone so its body, arriving later on a page, shows final instead of pending. Frames are
//!   de-duplicated by SSE id (and are idempotent by interaction id anyway).
//! - Cards are never dropped because the server resolved them: they converge to `answered`,
//!   `declined`, `expired` or `cancelled` and stay, sorted below the open ones, until the
//!   reviewer dismisses them ([`Input::Dismiss`]).
//! - `reset` (or `Refresh`, or `Start` again) → the pending pages are refetched into a staging
//!   snapshot; when complete it is merged without flicker. Open cards absent from the snapshot
//!   are kept and asked about one by one (`FetchInteraction`).
//! - Drops: `StreamDropped`/`PageFailed` carry a [`Failure`] (when the retry comes), then
//!   `Retry`; the machine redoes what failed and the stream resumes from
//!   [`Inbox::last_event_id`], which is persisted so a restart resumes too.
//! - Answers: `AnswerQueued` (outbox) → `AnswerSending` → `AnswerVerdict`; the card's
//!   [`Delivery`] tells the reviewer how it went, including who won when somebody was first.
//!
//! # Time: the [`Session`]
//! The inbox reads no clock. [`Session`] wraps it with every timer its driver would otherwise
//! keep (reconnect backoff with full jitter, outbox and card-fetch retries, dismissal retries,
//! card deadlines, the clock check, position writes, change coalescing), in the manner of
//! quinn-proto: the driver tells it what happened and when ([`Moment`]), sleeps until
//! [`Session::poll_timeout`], calls [`Session::handle_timeout`], and performs each
//! [`Work`] from [`Session::poll_work`]. The jitter is drawn from a generator the driver seeds,
//! so the timers are table tests too (`session/tests.rs`).
//!
//! # A driver in miniature
//! ```
//! use inbox_protocol::InteractionPage;
//! use inbox_sync::{ConnectionStatus, Effect, Inbox, Input};
//!
//! let mut inbox = Inbox::new("work");
//! let outcome = inbox.handle(Input::Start);
//! assert_eq!(outcome.effects, [Effect::FetchPage { cursor: None }]);
//!
//! // ... the driver performs the request and reports what came back:
//! let page = InteractionPage { items: vec![], next_cursor: None, stream_cursor: "41".into() };
//! let outcome = inbox.handle(Input::PageLoaded { page, cursor_requested: None });
//! assert_eq!(outcome.effects, [Effect::OpenStream { last_event_id: Some("41".into()) }]);
//!
//! let outcome = inbox.handle(Input::StreamOpened);
//! assert_eq!(outcome.changes.status, Some(ConnectionStatus::Online));
//! // Send `outcome.changes` to the UI (or merge several with `Changes::merge` first),
//! // and persist `inbox.last_event_id()` now and then.
//! assert_eq!(inbox.last_event_id(), Some("41"));
//! ```

pub mod backoff;
mod board;
mod card;
mod change;
mod connection;
mod effect;
mod entry;
mod inbox;
mod input;
mod order;
mod paging;
mod session;
pub mod stream_id;
mod tombstone;
pub mod typescript;

pub use card::{Card, Delivery, Local, Outgoing};
pub use change::{Changes, Counts, Outcome, Snapshot};
pub use connection::{ConnectionStatus, Failure};
pub use effect::Effect;
pub use inbox::Inbox;
pub use input::{Input, Verdict};
pub use session::{Moment, Pacing, Session, Work};
