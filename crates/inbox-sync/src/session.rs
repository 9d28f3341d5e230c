//! One account's sync in time: the [`Inbox`] plus every deadline its driver waits on.
//!
//! The inbox says what the list is; the session says *when* things happen: when to try the
//! server again after a failure (reconnect backoff), when to try the outbox again, when to
//! ask again for cards whose fetch failed, when to retry a notification's dismissal, when a
//! silent stream counts as dead, when a card's deadline passes, when to write the stream
//! position, and when to publish the gathered changes. It is shaped like quinn-proto's connection: the driver tells it what
//! happened with the [`Moment`] it happened at, sleeps until [`Session::poll_timeout`], calls
//! [`Session::handle_timeout`], and performs what [`Session::poll_work`] hands out. No clock is
//! read and no entropy drawn here (the jitter comes from a generator the driver seeds), so
//! every timer is a table test (`session/tests.rs`).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use rand::SeedableRng;
use rand::rngs::StdRng;

use crate::backoff::{Backoff, BackoffPolicy};
use crate::change::{Changes, Outcome};
use crate::connection::{ConnectionStatus, Failure};
use crate::effect::Effect;
use crate::inbox::Inbox;
use crate::input::Input;

/// A point in time on both clocks: `at` (monotonic) paces the timers, so a wall clock set
/// forwards or back never stalls a reconnect; `wall` is what card deadlines and the retry
/// time shown in the status bar are measured in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Moment {
    pub at: Instant,
    pub wall: DateTime<Utc>,
}

/// How long each timer waits. [`Pacing::new`] gives what the app uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pacing {
    /// Pages and stream share one backoff: they fail together when the server is away.
    pub reconnect: BackoffPolicy,
    /// After a send that did not reach the server (or an outbox that could not be written).
    pub outbox: BackoffPolicy,
    /// Asking again for cards whose fetch failed.
    pub fetch: BackoffPolicy,
    /// Telling the server again of a dismissed notification.
    pub dismissal: BackoffPolicy,
    /// Tries of a dismissal the server did not take (it is already gone on this machine).
    pub dismissal_attempts: u32,
    /// Silence after which the stream counts as dead (connecting included): the server sends
    /// a keepalive at least every 15 s, so a half-open socket is not waited on forever.
    pub keepalive: Duration,
    /// Changes are gathered this long before one batch is published.
    pub coalesce: Duration,
    /// How long a position change waits before it is written (a crash loses at most this
    /// much, which costs a slightly longer replay, never an event).
    pub persist: Duration,
    /// The wall clock is read at least this often, deadline due or not: a clock set back
    /// (which no timer notices) reopens the cards it had expired within this long.
    pub clock_check: Duration,
}

impl Pacing {
    /// The app's pacing from its reconnect policy, coalescing window and keepalive timeout.
    pub fn new(reconnect: BackoffPolicy, coalesce: Duration, keepalive: Duration) -> Pacing {
        Pacing {
            reconnect,
            outbox: reconnect,
            // A fetch that failed while the stream stayed up is not urgent: at least 1 s.
            fetch: BackoffPolicy {
                base: reconnect.base.max(Duration::from_secs(1)),
                cap: reconnect.cap,
            },
            dismissal: reconnect,
            dismissal_attempts: 6,
            keepalive,
            coalesce,
            persist: Duration::from_secs(1),
            clock_check: Duration::from_secs(5),
        }
    }
}

/// What the session asks of its driver, in the order it should be done.
#[derive(Debug, Clone, PartialEq)]
pub enum Work {
    /// Perform an effect of the inbox (or of a timer: a refetch, a dismissal retried).
    Effect(Effect),
    /// Publish this coalesced batch to the UI.
    Publish(Changes),
    /// Write this stream position to disk, then report how it went
    /// ([`Session::position_saved`]).
    SavePosition(Option<String>),
    /// Send the oldest undelivered outbox entry now, if [`Session::can_send`].
    DeliverOutbox,
}

/// A dismissal the server did not take yet.
#[derive(Debug, Clone)]
struct Dismissal {
    /// Tries made so far.
    attempts: u32,
    backoff: Backoff,
    /// When to try again (`None` while a try is on its way).
    due: Option<Instant>,
}

#[derive(Debug, Clone, Default)]
struct Timers {
    /// The `Retry` the inbox was promised, and the wall-clock time it was told.
    retry: Option<(Instant, DateTime<Utc>)>,
    flush: Option<Instant>,
    persist: Option<Instant>,
    outbox: Option<Instant>,
    fetch: Option<Instant>,
    clock: Option<Instant>,
    /// The stream (open or opening) counts as dead if nothing arrives before this.
    silence: Option<Instant>,
}

/// One account's inbox and its timers. See the module docs.
#[derive(Debug, Clone)]
pub struct Session {
    inbox: Inbox,
    pacing: Pacing,
    rng: StdRng,
    /// The latest moment the driver told (maps wall-clock deadlines onto the monotonic clock).
    now: Moment,
    network_up: bool,
    reconnect: Backoff,
    outbox_backoff: Backoff,
    fetch_backoff: Backoff,
    timers: Timers,
    /// Cards to ask about again (their fetch failed).
    unfetched: BTreeSet<String>,
    dismissals: BTreeMap<String, Dismissal>,
    /// Changes gathered since the last publish.
    gathered: Option<Changes>,
    /// The position known to be on disk.
    saved: Option<String>,
    /// The position handed out to be written, until the driver says how that went.
    saving: Option<Option<String>>,
    work: VecDeque<Work>,
}

impl Session {
    /// A session over `inbox`, whose stream position `saved` is what the driver has on disk.
    /// `seed` seeds the jitter (the driver passes a random one; tests a fixed one).
    pub fn new(
        inbox: Inbox,
        saved: Option<String>,
        pacing: Pacing,
        seed: u64,
        now: Moment,
    ) -> Session {
        Session {
            inbox,
            reconnect: Backoff::new(pacing.reconnect),
            outbox_backoff: Backoff::new(pacing.outbox),
            fetch_backoff: Backoff::new(pacing.fetch),
            pacing,
            rng: StdRng::seed_from_u64(seed),
            now,
            network_up: true,
            timers: Timers::default(),
            unfetched: BTreeSet::new(),
            dismissals: BTreeMap::new(),
            gathered: None,
            saved,
            saving: None,
            work: VecDeque::new(),
        }
    }

    pub fn inbox(&self) -> &Inbox {
        &self.inbox
    }

    /// The next piece of work for the driver, oldest first.
    pub fn poll_work(&mut self) -> Option<Work> {
        self.work.pop_front()
    }

    /// The earliest moment a timer wants [`Session::handle_timeout`] (card deadlines
    /// included); `None`: nothing is timed.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let deadline = self.inbox.next_deadline().map(|at| self.instant_of(at));
        let dismissal = self.dismissals.values().filter_map(|d| d.due).min();
        [
            self.timers.retry.map(|(at, _)| at),
            self.timers.flush,
            self.timers.persist,
            self.timers.outbox,
            self.timers.fetch,
            self.timers.clock,
            self.timers.silence,
            dismissal,
            deadline,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Fire every timer due at `now`.
    pub fn handle_timeout(&mut self, now: Moment) {
        self.now = now;
        let at = now.at;
        let due = |t: &mut Option<Instant>| t.take_if(|t| *t <= at).is_some();
        if due(&mut self.timers.silence) {
            // Not even a keepalive: the socket is half-open. Drop it and reconnect.
            self.close_stream();
            let failure = self.failure(false);
            self.feed(Input::StreamDropped { failure });
        }
        if self.timers.retry.is_some_and(|(t, _)| t <= at) {
            self.timers.retry = None;
            if self.network_up {
                self.feed(Input::Retry);
            }
        }
        let clock_check = due(&mut self.timers.clock);
        if clock_check {
            self.timers.clock = Some(at + self.pacing.clock_check);
        }
        if clock_check || self.inbox.next_deadline().is_some_and(|d| d <= now.wall) {
            self.feed(Input::Tick { now: now.wall });
        }
        if due(&mut self.timers.outbox) {
            self.work.push_back(Work::DeliverOutbox);
        }
        if due(&mut self.timers.fetch) {
            self.refetch_cards();
        }
        for (id, dismissal) in &mut self.dismissals {
            if dismissal.due.take_if(|t| *t <= at).is_some() {
                dismissal.attempts += 1;
                self.work
                    .push_back(Work::Effect(Effect::DismissNotification { id: id.clone() }));
            }
        }
        if due(&mut self.timers.persist) {
            let position = self.inbox.last_event_id().map(str::to_owned);
            self.saving = Some(position.clone());
            self.work.push_back(Work::SavePosition(position));
        }
        if due(&mut self.timers.flush) {
            self.flush();
        }
        self.settle();
    }

    /// Begin syncing: the first clock reading, then `Start`.
    pub fn start(&mut self, now: Moment) {
        self.now = now;
        self.feed(Input::Tick { now: now.wall });
        self.timers.clock = Some(now.at + self.pacing.clock_check);
        self.feed(Input::Start);
        self.settle();
    }

    /// Feed one input that needs no timing of its own (pages, frames, fetched cards, what
    /// the reviewer did). Failures and the connection's ups and downs go through the methods
    /// below, which time what they promise.
    pub fn handle(&mut self, now: Moment, input: Input) {
        self.now = now;
        self.feed(input);
        self.settle();
    }

    /// The stream is connected: the reconnect backoff starts over, and whatever waited for
    /// the server (the outbox, cards whose fetch failed) is tried at once.
    pub fn stream_opened(&mut self, now: Moment) {
        self.now = now;
        self.reconnect.reset();
        self.timers.retry = None;
        self.stream_alive(now);
        self.feed(Input::StreamOpened);
        self.timers.outbox = None;
        self.work.push_back(Work::DeliverOutbox);
        self.refetch_cards();
        self.settle();
    }

    /// Something arrived on the stream (a frame, a keepalive, a hint): it is alive.
    pub fn stream_alive(&mut self, now: Moment) {
        self.now = now;
        if self.timers.silence.is_some() {
            self.timers.silence = Some(now.at + self.pacing.keepalive);
        }
    }

    /// The stream ended or could not be opened (`unauthorized`: the token was refused).
    pub fn stream_closed(&mut self, now: Moment, unauthorized: bool) {
        self.now = now;
        self.timers.silence = None;
        let failure = self.failure(unauthorized);
        self.feed(Input::StreamDropped { failure });
        self.settle();
    }

    /// The page request made with `cursor_requested` failed.
    pub fn page_failed(
        &mut self,
        now: Moment,
        cursor_requested: Option<String>,
        unauthorized: bool,
    ) {
        self.now = now;
        let failure = self.failure(unauthorized);
        self.feed(Input::PageFailed {
            cursor_requested,
            failure,
        });
        self.settle();
    }

    /// The server asked for a slower reconnect pace (SSE `retry:`).
    pub fn server_retry(&mut self, retry: Duration) {
        self.reconnect.honour_server_retry(retry);
    }

    /// The server refused the token (on any request): close the stream and try nothing
    /// until [`Session::signed_in`].
    pub fn signed_out(&mut self, now: Moment) {
        self.now = now;
        self.close_stream();
        self.timers.retry = None;
        self.feed(Input::StreamDropped {
            failure: Failure::SignedOut,
        });
        self.settle();
    }

    /// The account has a new token: sync again from a fresh backoff.
    pub fn signed_in(&mut self, now: Moment) {
        self.now = now;
        self.reconnect.reset();
        self.feed(Input::Start);
        self.settle();
    }

    /// Whether the operating system last said the network is up.
    pub fn network_up(&self) -> bool {
        self.network_up
    }

    /// The network went away (nothing is tried, the stream is closed) or came back
    /// (everything is tried at once). Repeating the current state does nothing.
    pub fn network(&mut self, now: Moment, online: bool) {
        if online == self.network_up {
            return;
        }
        self.now = now;
        self.network_up = online;
        self.timers.retry = None;
        if online {
            self.reconnect.reset();
            self.feed(Input::Retry);
        } else {
            self.close_stream();
            self.feed(Input::StreamDropped {
                failure: Failure::Offline,
            });
        }
        self.settle();
    }

    /// `GET /api/interactions/{id}` failed (`unauthorized`: the token was refused). The card
    /// is asked about again: after a backoff, or when the stream next opens.
    pub fn fetch_failed(&mut self, now: Moment, id: String, unauthorized: bool) {
        self.now = now;
        self.unfetched.insert(id);
        if unauthorized {
            self.signed_out(now);
            return;
        }
        if self.timers.fetch.is_none() {
            let delay = self.fetch_backoff.next_delay_with(&mut self.rng);
            self.timers.fetch = Some(now.at + delay);
        }
        self.settle();
    }

    /// Whether answers may be sent: the network is up, the stream is open and no refetch
    /// is under way (a verdict must land on a list that is current).
    pub fn can_send(&self) -> bool {
        self.network_up
            && *self.inbox.status() == ConnectionStatus::Online
            && !self.inbox.is_syncing()
    }

    /// A failed send is waiting out its backoff: the outbox is not tried before
    /// [`Work::DeliverOutbox`] (or the stream opening again), except for a new answer.
    pub fn outbox_paused(&self) -> bool {
        self.timers.outbox.is_some()
    }

    /// An outbox entry did not reach the server (or the outbox could not be written): try
    /// the outbox again after a backoff.
    pub fn outbox_failed(&mut self, now: Moment) {
        self.now = now;
        let delay = self.outbox_backoff.next_delay_with(&mut self.rng);
        self.timers.outbox = Some(now.at + delay);
        self.settle();
    }

    /// The server ruled on an outbox entry: the next failure backs off from the start.
    pub fn outbox_delivered(&mut self) {
        self.outbox_backoff.reset();
    }

    /// The server did not take a dismissal. Returns `false` once it has been tried
    /// [`Pacing::dismissal_attempts`] times: it is given up (it is gone here all the same).
    pub fn dismissal_failed(&mut self, now: Moment, id: &str) -> bool {
        self.now = now;
        let dismissal = self.dismissals.entry(id.to_owned()).or_insert(Dismissal {
            attempts: 1,
            backoff: Backoff::new(self.pacing.dismissal),
            due: None,
        });
        if dismissal.attempts >= self.pacing.dismissal_attempts {
            self.dismissals.remove(id);
            return false;
        }
        let delay = dismissal.backoff.next_delay_with(&mut self.rng);
        dismissal.due = Some(now.at + delay);
        true
    }

    /// The server took the dismissal (or no longer knows the notification).
    pub fn dismissal_settled(&mut self, id: &str) {
        self.dismissals.remove(id);
    }

    /// The driver wrote the position of the last [`Work::SavePosition`] (`saved`), or could
    /// not: then it is asked for again a little later.
    pub fn position_saved(&mut self, saved: bool) {
        if let Some(position) = self.saving.take()
            && saved
        {
            self.saved = position;
        }
        self.settle();
    }

    /// The changes gathered and not yet published (the driver publishes them when it stops).
    pub fn take_changes(&mut self) -> Option<Changes> {
        self.timers.flush = None;
        self.gathered.take()
    }

    // ---- inside -----------------------------------------------------------------------

    /// Feed the inbox; gather its changes (the first starts the coalescing window) and queue
    /// its effects.
    fn feed(&mut self, input: Input) {
        let Outcome { changes, effects } = self.inbox.handle(input);
        if !changes.is_empty() {
            match &mut self.gathered {
                Some(gathered) => gathered.merge(changes),
                None => self.gathered = Some(changes),
            }
            if self.timers.flush.is_none() {
                self.timers.flush = Some(self.now.at + self.pacing.coalesce);
            }
        }
        for effect in effects {
            match effect {
                Effect::OpenStream { .. } => {
                    self.timers.silence = Some(self.now.at + self.pacing.keepalive)
                }
                Effect::CloseStream => self.timers.silence = None,
                _ => {}
            }
            self.work.push_back(Work::Effect(effect));
        }
    }

    /// Close the stream on the machine's own account (offline, signed out, silent).
    fn close_stream(&mut self) {
        self.timers.silence = None;
        self.work.push_back(Work::Effect(Effect::CloseStream));
    }

    /// After any input: a position not yet on disk is written a little later.
    fn settle(&mut self) {
        if self.timers.persist.is_none()
            && self.saving.is_none()
            && self.inbox.last_event_id() != self.saved.as_deref()
        {
            self.timers.persist = Some(self.now.at + self.pacing.persist);
        }
    }

    /// How a failure is reported to the inbox, arming the retry it promises.
    fn failure(&mut self, unauthorized: bool) -> Failure {
        if unauthorized {
            // No timer: a refused token is not retried until the account signs in again.
            self.timers.retry = None;
            return Failure::SignedOut;
        }
        if !self.network_up {
            return Failure::Offline;
        }
        let retry_at = match self.timers.retry {
            // Pages and stream failing together share the one retry already promised.
            Some((_, at)) => at,
            None => {
                let delay = self.reconnect.next_delay_with(&mut self.rng);
                let at = self.now.wall + chrono::Duration::from_std(delay).unwrap_or_default();
                self.timers.retry = Some((self.now.at + delay, at));
                at
            }
        };
        Failure::Transient { retry_at }
    }

    fn refetch_cards(&mut self) {
        self.timers.fetch = None;
        for id in std::mem::take(&mut self.unfetched) {
            self.work
                .push_back(Work::Effect(Effect::FetchInteraction { id }));
        }
    }

    fn flush(&mut self) {
        self.timers.flush = None;
        if let Some(batch) = self.gathered.take() {
            self.work.push_back(Work::Publish(batch));
        }
    }

    /// A wall-clock time on the monotonic clock, as of the latest moment told.
    fn instant_of(&self, wall: DateTime<Utc>) -> Instant {
        let wait = (wall - self.now.wall).to_std().unwrap_or_default();
        self.now.at + wait
    }
}

#[cfg(test)]
mod tests;
