//! The inbox of one account: every input goes through [`Inbox::handle`], which returns the
//! coalesced changes for the UI and the effects for the driver.

use std::collections::{BTreeSet, HashMap, HashSet};

use chrono::{DateTime, Utc};
use inbox_protocol::{Answer, ErrorCode, Interaction, InteractionPage, Status, StreamEvent};

use crate::board::{Board, BoardEffect};
use crate::card::{Card, Delivery, Outgoing};
use crate::change::{Changes, Counts, Outcome, Snapshot};
use crate::connection::{ConnectionStatus, Failure};
use crate::effect::Effect;
use crate::entry::Entry;
use crate::input::{Input, Verdict};
use crate::order::SortKey;
use crate::paging::{Paging, Purpose, Staging};
use crate::stream_id::{self, SeenEvents};
use crate::tombstone::{Tombstone, Tombstones};

/// How many recent SSE ids are remembered for de-duplication.
const SEEN_EVENTS: usize = 4096;
/// How many card-less final states are remembered (see [`crate::tombstone`]).
const TOMBSTONES: usize = 50_000;

/// The live stream, as far as this machine knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stream {
    Closed,
    Opening,
    Open,
}

/// Where a body came from; decides unread, notifications and who may overwrite a final state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// The first sync's pages.
    Seed,
    /// An `add` frame.
    Live,
    /// A refetch's staged snapshot.
    Refetch,
    /// `GET /api/interactions/{id}` or the answer door: the server's word on one card.
    Authoritative,
    /// The answer door's verdict on an answer this reviewer sent. As authoritative as the
    /// above, and it also brings back a card this run never showed: an answer queued in an
    /// earlier run of the app can be ruled on after a restart, when its question is no longer
    /// among the pending pages, and the reviewer must still see how it went.
    Verdict,
}

impl Origin {
    fn is_authoritative(self) -> bool {
        matches!(self, Origin::Authoritative | Origin::Verdict)
    }
}

/// The inbox of one account. See the crate docs for the flow.
#[derive(Debug, Clone)]
pub struct Inbox {
    account: String,
    /// Boxed: an entry is a few hundred bytes, and a hash table keeps spare slots.
    entries: HashMap<String, Box<Entry>>,
    /// Display order; kept in step with `entries` by [`Inbox::modify`]/`insert`/`remove`.
    order: BTreeSet<SortKey>,
    /// Deadlines of open cards, so `Tick` and `next_deadline` need not scan every card.
    deadlines: BTreeSet<(DateTime<Utc>, String)>,
    counts: Counts,
    tombstones: Tombstones,
    seen: SeenEvents,
    /// Where the stream resumes: the newest SSE id applied, or page 1's `stream_cursor`.
    last_event_id: Option<String>,
    /// Whether `last_event_id` orders incoming ids (false right after a `reset` without id).
    position_trusted: bool,
    status: ConnectionStatus,
    stream: Stream,
    /// Failures since the stream was last open (the `attempt` the status bar shows).
    failures: u32,
    paging: Option<Paging>,
    /// Page 1 of the first sync has arrived, so the stream has a position to open from.
    seeded: bool,
    signed_out: bool,
    /// The latest `Tick`.
    now: Option<DateTime<Utc>>,
    /// The notifications, apart from the cards.
    board: Board,
}

/// What one input touched, turned into an [`Outcome`] at the end.
struct Tx {
    touched: Vec<String>,
    touched_set: HashSet<String>,
    removed: Vec<String>,
    effects: Vec<Effect>,
    status_before: ConnectionStatus,
    /// The notifications changed.
    board_changed: bool,
}

impl Tx {
    fn touch(&mut self, id: &str) {
        if self.touched_set.insert(id.to_owned()) {
            self.touched.push(id.to_owned());
        }
    }
}

impl Inbox {
    /// A fresh inbox for `account` (an opaque label the UI uses to tell inboxes apart).
    pub fn new(account: impl Into<String>) -> Inbox {
        Inbox::resume(account, None)
    }

    /// A fresh inbox that resumes the stream from `last_event_id` (as persisted by the driver
    /// from [`Inbox::last_event_id`] before the app last quit) if that is newer than the
    /// `stream_cursor` of the first page it reads.
    pub fn resume(account: impl Into<String>, last_event_id: Option<String>) -> Inbox {
        Inbox {
            account: account.into(),
            entries: HashMap::new(),
            order: BTreeSet::new(),
            deadlines: BTreeSet::new(),
            counts: Counts::default(),
            tombstones: Tombstones::new(TOMBSTONES),
            seen: SeenEvents::new(SEEN_EVENTS),
            last_event_id,
            position_trusted: true,
            status: ConnectionStatus::Offline,
            stream: Stream::Closed,
            failures: 0,
            paging: None,
            seeded: false,
            signed_out: false,
            now: None,
            board: Board::default(),
        }
    }

    pub fn account(&self) -> &str {
        &self.account
    }

    /// Every card in display order: open cards first, then newest `created_at` first, ties
    /// broken by the greater id first. The order depends only on each card, never on when it
    /// arrived, so cards arriving never move the others.
    pub fn cards(&self) -> impl Iterator<Item = Card> + '_ {
        self.order
            .iter()
            .filter_map(|key| self.entries.get(key.id()))
            .map(|e| e.card(&self.account))
    }

    /// The ids in display order (cheaper than [`Inbox::cards`]).
    pub fn ids(&self) -> impl Iterator<Item = &str> + '_ {
        self.order.iter().map(SortKey::id)
    }

    pub fn card(&self, id: &str) -> Option<Card> {
        self.entries.get(id).map(|e| e.card(&self.account))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn counts(&self) -> Counts {
        Counts {
            notifications_unread: self.board.unread(),
            ..self.counts
        }
    }

    pub fn pending_count(&self) -> u32 {
        self.counts.pending
    }

    pub fn unread_count(&self) -> u32 {
        self.counts.unread
    }

    pub fn status(&self) -> &ConnectionStatus {
        &self.status
    }

    /// The stream position to persist, so that an app restart resumes from it
    /// (pass it to [`Inbox::resume`]).
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// The earliest deadline of an open card: the driver sends `Tick` then (or earlier).
    pub fn next_deadline(&self) -> Option<DateTime<Utc>> {
        self.deadlines.first().map(|(at, _)| *at)
    }

    /// A refetch or first sync is under way.
    pub fn is_syncing(&self) -> bool {
        self.paging.is_some()
    }

    /// The whole list, for a UI that (re)attaches.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            account: self.account.clone(),
            cards: self.cards().collect(),
            status: self.status.clone(),
            counts: self.counts(),
            notifications: self.board.list(),
        }
    }

    /// Outstanding notifications, newest first.
    pub fn notifications(&self) -> Vec<inbox_protocol::Notification> {
        self.board.list()
    }

    /// Apply one input.
    pub fn handle(&mut self, input: Input) -> Outcome {
        let mut tx = Tx {
            touched: Vec::new(),
            touched_set: HashSet::new(),
            removed: Vec::new(),
            effects: Vec::new(),
            status_before: self.status.clone(),
            board_changed: false,
        };
        match input {
            Input::Start => self.start(&mut tx),
            Input::PageLoaded {
                page,
                cursor_requested,
            } => self.page_loaded(&mut tx, page, cursor_requested),
            Input::PageFailed {
                cursor_requested,
                failure,
            } => self.page_failed(&mut tx, cursor_requested, failure),
            Input::StreamOpened => {
                self.stream = Stream::Open;
                self.failures = 0;
                self.signed_out = false;
                self.status = ConnectionStatus::Online;
            }
            Input::StreamEvent { id, event } => self.stream_event(&mut tx, id, event),
            Input::StreamDropped { failure } => {
                self.stream = Stream::Closed;
                self.fail(&mut tx, failure);
            }
            Input::Retry => self.retry(&mut tx),
            Input::Refresh => self.begin_refetch(&mut tx),
            Input::Tick { now } => self.tick(&mut tx, now),
            Input::MarkRead { id } => {
                self.modify(&mut tx, &id, |e| {
                    std::mem::replace(&mut e.local.unread, false)
                });
            }
            Input::MarkAllRead => {
                // In display order, so the withdrawals come out in a stable order.
                let unread: Vec<String> = self
                    .order
                    .iter()
                    .map(SortKey::id)
                    .filter(|id| self.entries[*id].local.unread)
                    .map(str::to_owned)
                    .collect();
                for id in unread {
                    self.modify(&mut tx, &id, |e| {
                        std::mem::replace(&mut e.local.unread, false)
                    });
                }
            }
            Input::Dismiss { id } => self.dismiss(&mut tx, &id),
            Input::AnswerQueued { id, value } => {
                self.queue(&mut tx, &id, Outgoing::Answer { value })
            }
            Input::DeclineQueued { id, reason } => {
                self.queue(&mut tx, &id, Outgoing::Decline { reason })
            }
            Input::AnswerSending { id } => {
                self.modify(&mut tx, &id, |e| {
                    let changed = e.local.delivery != Some(Delivery::Sending);
                    e.local.delivery = Some(Delivery::Sending);
                    changed
                });
            }
            Input::AnswerVerdict { id, verdict } => self.verdict(&mut tx, &id, verdict),
            Input::InteractionFetched { interaction } => {
                self.learn(&mut tx, interaction, Origin::Authoritative);
            }
            Input::NotificationsFetching => self.board.fetching(),
            Input::NotificationsLoaded { items } => tx.board_changed |= self.board.loaded(items),
            Input::OpenNotification { id } => {
                // No clock here: the latest tick stands in until the server's moment arrives
                // (the first one set is kept, and it is display-only).
                let now = self.now.unwrap_or_else(Utc::now);
                if let Some(effect) = self.board.open(&id, now) {
                    tx.board_changed = true;
                    tx.effects.push(board_effect(effect));
                }
            }
            Input::DismissNotification { id } => {
                if let Some(effect) = self.board.dismiss(&id) {
                    tx.board_changed = true;
                    tx.effects.push(board_effect(effect));
                }
            }
            Input::InteractionGone { id } => {
                self.modify(&mut tx, &id, |e| {
                    if e.interaction.status.is_final() {
                        return false;
                    }
                    // Unknown, expired or pruned look alike; expired is the nearest final state.
                    e.interaction.status = Status::Expired;
                    true
                });
            }
        }
        self.finish(tx)
    }

    // ---- connection -------------------------------------------------------------------

    fn start(&mut self, tx: &mut Tx) {
        self.signed_out = false;
        match &mut self.paging {
            Some(p) => {
                if !p.in_flight {
                    p.in_flight = true;
                    tx.effects.push(Effect::FetchPage {
                        cursor: p.cursor.clone(),
                    });
                }
            }
            None if !self.seeded => {
                self.paging = Some(Paging::seed());
                tx.effects.push(Effect::FetchPage { cursor: None });
            }
            // Started again (signed in again): what we hold may be stale, so refetch.
            None => self.begin_refetch(tx),
        }
        self.open_stream_if_closed(tx);
        self.connecting();
    }

    fn retry(&mut self, tx: &mut Tx) {
        if self.signed_out {
            return;
        }
        if let Some(p) = &mut self.paging
            && !p.in_flight
        {
            p.in_flight = true;
            tx.effects.push(Effect::FetchPage {
                cursor: p.cursor.clone(),
            });
        }
        self.open_stream_if_closed(tx);
        self.connecting();
    }

    /// The stream can only open once page 1 gave it a position (it is tail-only).
    fn open_stream_if_closed(&mut self, tx: &mut Tx) {
        if self.seeded && self.stream == Stream::Closed && !self.signed_out {
            self.stream = Stream::Opening;
            tx.effects.push(Effect::OpenStream {
                last_event_id: self.last_event_id.clone(),
            });
        }
    }

    fn connecting(&mut self) {
        if self.stream != Stream::Open && !self.signed_out {
            self.status = ConnectionStatus::Connecting;
        }
    }

    fn fail(&mut self, tx: &mut Tx, failure: Failure) {
        self.failures += 1;
        match failure {
            Failure::SignedOut => {
                self.signed_out = true;
                self.status = ConnectionStatus::SignedOut;
                if self.stream != Stream::Closed {
                    self.stream = Stream::Closed;
                    tx.effects.push(Effect::CloseStream);
                }
            }
            // Signed out stays signed out until `Start`, whatever else fails meanwhile.
            _ if self.signed_out => {}
            Failure::Transient { retry_at } => {
                self.status = ConnectionStatus::reconnecting(retry_at, self.failures);
            }
            Failure::Offline => self.status = ConnectionStatus::Offline,
        }
    }

    // ---- pages ------------------------------------------------------------------------

    /// The outstanding request, if `cursor_requested` answers it.
    fn outstanding(&mut self, cursor_requested: &Option<String>) -> Option<&mut Paging> {
        self.paging
            .as_mut()
            .filter(|p| p.in_flight && p.cursor == *cursor_requested)
    }

    fn page_loaded(
        &mut self,
        tx: &mut Tx,
        page: InteractionPage,
        cursor_requested: Option<String>,
    ) {
        let Some(p) = self.outstanding(&cursor_requested) else {
            return; // a stale or unexpected answer: ignore it
        };
        if p.restart {
            p.restart = false;
            p.cursor = None;
            tx.effects.push(Effect::FetchPage { cursor: None });
            return;
        }
        let next = page.next_cursor.clone();
        match &mut p.purpose {
            Purpose::Seed => {
                // The next page is asked for first; the page's cards go in afterwards (the
                // borrow of `p` ends here), then the stream opens from page 1's position.
                if let Some(next) = &next {
                    p.cursor = Some(next.clone());
                    tx.effects.push(Effect::FetchPage {
                        cursor: Some(next.clone()),
                    });
                } else {
                    self.paging = None;
                }
                for item in page.items {
                    self.learn(tx, item, Origin::Seed);
                }
                if cursor_requested.is_none() {
                    self.seeded = true;
                    self.last_event_id =
                        stream_id::newest(self.last_event_id.take(), Some(page.stream_cursor));
                    self.open_stream_if_closed(tx);
                }
            }
            Purpose::Refetch(staging) => {
                for item in page.items {
                    staging.stage(item);
                }
                if let Some(next) = &next {
                    p.cursor = Some(next.clone());
                    tx.effects.push(Effect::FetchPage {
                        cursor: Some(next.clone()),
                    });
                } else if let Some(Paging {
                    purpose: Purpose::Refetch(staging),
                    ..
                }) = self.paging.take()
                {
                    self.merge_snapshot(tx, staging);
                }
            }
        }
        self.connecting();
    }

    fn page_failed(&mut self, tx: &mut Tx, cursor_requested: Option<String>, failure: Failure) {
        let Some(p) = self.outstanding(&cursor_requested) else {
            return;
        };
        p.in_flight = false;
        if p.restart {
            p.restart = false;
            p.cursor = None;
        }
        self.fail(tx, failure);
    }

    /// Refetch the pending set into a staging snapshot; merged when the last page arrives.
    fn begin_refetch(&mut self, tx: &mut Tx) {
        match &mut self.paging {
            // One request at a time: let the outstanding one finish, then start over.
            Some(p) if p.in_flight => {
                p.purpose = Purpose::Refetch(Staging::default());
                p.restart = true;
            }
            Some(p) => {
                // The last request failed: start over from page 1 on the next `Retry`.
                p.purpose = Purpose::Refetch(Staging::default());
                p.cursor = None;
            }
            None => {
                self.paging = Some(Paging::refetch());
                tx.effects.push(Effect::FetchPage { cursor: None });
            }
        }
    }

    /// Merge a complete snapshot of the pending set without flicker: cards still pending are
    /// updated in place, new ones are added, and open cards missing from it are asked about
    /// one by one rather than dropped (they were resolved while events were lost).
    fn merge_snapshot(&mut self, tx: &mut Tx, staging: Staging) {
        let Staging {
            items, added_live, ..
        } = staging;
        let snapshot: HashSet<&str> = items.iter().map(|ia| ia.id.as_str()).collect();
        let vanished: Vec<String> = self
            .order
            .iter()
            .map(SortKey::id)
            .filter(|id| !snapshot.contains(id) && !added_live.contains(*id))
            .filter(|id| self.entries[*id].interaction.status == Status::Pending)
            .map(str::to_owned)
            .collect();
        for item in items {
            self.learn(tx, item, Origin::Refetch);
        }
        // Asked again on every refetch while unresolved, so a lost answer is not fatal.
        for id in vanished {
            tx.effects.push(Effect::FetchInteraction { id });
        }
    }

    // ---- stream -----------------------------------------------------------------------

    fn stream_event(&mut self, tx: &mut Tx, id: Option<String>, event: StreamEvent) {
        match event {
            StreamEvent::Reset(_) => self.stream_reset(tx, id),
            StreamEvent::Add(interaction) if self.accept_frame(id.as_deref()) => {
                if let Some(Paging {
                    purpose: Purpose::Refetch(staging),
                    ..
                }) = &mut self.paging
                {
                    staging.added_live.insert(interaction.id.clone());
                }
                self.learn(tx, interaction, Origin::Live);
            }
            StreamEvent::Answered(e) if self.accept_frame(id.as_deref()) => {
                self.resolve(tx, &e.id, e.status, Some(e.answer))
            }
            StreamEvent::Removed(e) if self.accept_frame(id.as_deref()) => {
                self.resolve(tx, &e.id, e.reason.status(), None)
            }
            StreamEvent::NotificationAdded(n) | StreamEvent::NotificationUpdated(n)
                if self.accept_frame(id.as_deref()) =>
            {
                tx.board_changed |= self.board.learn(n);
            }
            StreamEvent::Submitted(s) if self.accept_frame(id.as_deref()) => {
                tx.board_changed |= self.board.submitted(&s);
            }
            _ => {} // a frame already applied
        }
    }

    /// Whether a frame is new, recording its id as the stream position if so. A replayed
    /// frame (an overlapping resume) is applied once.
    fn accept_frame(&mut self, id: Option<&str>) -> bool {
        let Some(id) = id else {
            return true;
        };
        let older = self.position_trusted
            && self
                .last_event_id
                .as_deref()
                .is_some_and(|last| stream_id::is_after(id, last) == Some(false));
        if older || !self.seen.insert(id) {
            return false;
        }
        self.last_event_id = Some(id.to_owned());
        self.position_trusted = true;
        true
    }

    /// The server could not resume from our position and fell back to its tail: refetch.
    /// Its ids may even have started over (a wiped store), so the old position no longer
    /// orders anything: the next id is taken as it comes. A reset is never skipped as a
    /// duplicate: a needless refetch costs a page, a skipped one could cost a card.
    fn stream_reset(&mut self, tx: &mut Tx, id: Option<String>) {
        self.seen = SeenEvents::new(SEEN_EVENTS);
        self.position_trusted = false;
        if let Some(id) = id {
            self.seen.insert(&id);
            self.last_event_id = Some(id);
            self.position_trusted = true;
        }
        self.begin_refetch(tx);
    }

    /// A final state from the stream. The first final state wins; a card we do not hold
    /// yet gets a tombstone so its body, when it arrives, is not shown as pending.
    fn resolve(&mut self, tx: &mut Tx, id: &str, status: Status, answer: Option<Answer>) {
        if !status.is_final() {
            return;
        }
        if self.entries.contains_key(id) {
            self.modify(tx, id, |e| {
                if e.interaction.status.is_final() {
                    return false;
                }
                e.interaction.status = status;
                if answer.is_some() {
                    e.interaction.answer = answer;
                }
                true
            });
        } else {
            self.tombstones.insert(
                id,
                Tombstone {
                    status,
                    answer,
                    dismissed: false,
                },
            );
        }
    }

    /// Take in a body (from a page, an `add`, a fetch or a verdict).
    fn learn(&mut self, tx: &mut Tx, mut interaction: Interaction, origin: Origin) {
        if let Some(t) = self.tombstones.get(&interaction.id) {
            if t.dismissed {
                return;
            }
            if interaction.is_pending() {
                interaction.status = t.status;
                if t.answer.is_some() {
                    interaction.answer = t.answer.clone();
                }
            }
            self.tombstones.remove(&interaction.id);
        }
        let id = interaction.id.clone();
        if self.entries.contains_key(&id) {
            self.modify(tx, &id, |e| {
                let current = &mut e.interaction;
                if *current == interaction {
                    return false;
                }
                // A final status never goes back to pending, and only the server's word on
                // this one card may replace a final state with another.
                if current.status.is_final()
                    && (!interaction.status.is_final() || !origin.is_authoritative())
                {
                    return false;
                }
                *current = interaction;
                true
            });
            return;
        }
        if origin == Origin::Authoritative {
            return; // not a card of ours (dismissed meanwhile): nothing to show
        }
        let mut entry = Entry::new(interaction);
        let open = entry.interaction.is_pending();
        entry.local.expired_locally = open
            && self
                .now
                .zip(entry.interaction.expires_at)
                .is_some_and(|(now, at)| at <= now);
        entry.local.unread = open;
        entry.notified = matches!(origin, Origin::Live | Origin::Refetch) && entry.is_open();
        if entry.notified {
            tx.effects.push(Effect::Notify { id: id.clone() });
        }
        self.insert(tx, entry);
    }

    // ---- local actions ----------------------------------------------------------------

    fn tick(&mut self, tx: &mut Tx, now: DateTime<Utc>) {
        let earlier = self.now.is_some_and(|last| now < last);
        self.now = Some(now);
        if earlier {
            // The clock was set back: a card expired here only by the clock that ran ahead is
            // open again (the server never expired it). Rare, so a scan of every card.
            let reopened: Vec<String> = self
                .entries
                .values()
                .filter(|e| {
                    e.local.expired_locally && e.interaction.expires_at.is_some_and(|at| at > now)
                })
                .map(|e| e.interaction.id.clone())
                .collect();
            for id in reopened {
                self.modify(tx, &id, |e| {
                    e.local.expired_locally = false;
                    true
                });
            }
        }
        let due: Vec<String> = self
            .deadlines
            .iter()
            .take_while(|(at, _)| *at <= now)
            .map(|(_, id)| id.clone())
            .collect();
        for id in due {
            self.modify(tx, &id, |e| {
                !std::mem::replace(&mut e.local.expired_locally, true)
            });
        }
    }

    fn dismiss(&mut self, tx: &mut Tx, id: &str) {
        let Some(entry) = self.entries.get(id) else {
            return;
        };
        if entry.is_open() {
            return;
        }
        let tombstone = Tombstone {
            status: entry.shown_status(),
            answer: entry.interaction.answer.clone(),
            dismissed: true,
        };
        self.tombstones.insert(id, tombstone);
        self.remove(tx, id);
    }

    fn queue(&mut self, tx: &mut Tx, id: &str, outgoing: Outgoing) {
        self.modify(tx, id, |e| {
            e.local.delivery = Some(Delivery::Queued);
            e.local.outgoing = Some(outgoing);
            e.local.unread = false;
            true
        });
    }

    fn verdict(&mut self, tx: &mut Tx, id: &str, verdict: Verdict) {
        let delivery = match verdict {
            Verdict::Accepted { interaction } => {
                self.learn(tx, interaction, Origin::Verdict);
                Delivery::Accepted
            }
            Verdict::AlreadyAnswered { winner } => {
                let message = describe_winner(&winner);
                let answer = winner.answer.clone();
                self.learn(tx, winner, Origin::Verdict);
                Delivery::Rejected {
                    code: ErrorCode::AlreadyAnswered,
                    message,
                    winner: answer,
                }
            }
            Verdict::Gone => {
                self.modify(tx, id, |e| {
                    if e.interaction.status.is_final() {
                        return false;
                    }
                    e.interaction.status = Status::Expired;
                    true
                });
                Delivery::Rejected {
                    code: ErrorCode::NotFound,
                    message: "this question is no longer open (expired, withdrawn or removed)"
                        .to_owned(),
                    winner: None,
                }
            }
            Verdict::Rejected { code, message } => Delivery::Rejected {
                code,
                message,
                winner: None,
            },
        };
        self.modify(tx, id, |e| {
            let changed = e.local.delivery.as_ref() != Some(&delivery);
            e.local.delivery = Some(delivery);
            changed
        });
    }

    // ---- bookkeeping ------------------------------------------------------------------

    /// Change one card through `f` (which says whether it changed anything) and keep the
    /// order, the deadlines, the counts and the notifications in step.
    fn modify(&mut self, tx: &mut Tx, id: &str, f: impl FnOnce(&mut Entry) -> bool) -> bool {
        let Some(entry) = self.entries.get_mut(id) else {
            return false;
        };
        // The sort key is only rebuilt when what it is made of changed (it owns a copy of
        // the id, and most changes, like a read, do not move the card).
        let placement = |e: &Entry| (e.shown_status().is_final(), e.interaction.created_at);
        let (before, deadline, counts) = (placement(entry), entry.deadline(), entry.counts());
        let key = || SortKey::new(before.0, before.1, id);
        if !f(entry) {
            return false;
        }
        if entry.normalise() {
            tx.effects
                .push(Effect::WithdrawNotification { id: id.to_owned() });
        }
        if placement(entry) != before {
            self.order.remove(&key());
            self.order.insert(entry.sort_key());
        }
        let new_deadline = entry.deadline();
        if new_deadline != deadline {
            if let Some(at) = deadline {
                self.deadlines.remove(&(at, id.to_owned()));
            }
            if let Some(at) = new_deadline {
                self.deadlines.insert((at, id.to_owned()));
            }
        }
        self.counts.sub(counts);
        self.counts.add(entry.counts());
        tx.touch(id);
        true
    }

    fn insert(&mut self, tx: &mut Tx, mut entry: Entry) {
        entry.normalise();
        let id = entry.interaction.id.clone();
        self.order.insert(entry.sort_key());
        if let Some(at) = entry.deadline() {
            self.deadlines.insert((at, id.clone()));
        }
        self.counts.add(entry.counts());
        tx.touch(&id);
        self.entries.insert(id, Box::new(entry));
    }

    fn remove(&mut self, tx: &mut Tx, id: &str) {
        let Some(entry) = self.entries.remove(id) else {
            return;
        };
        self.order.remove(&entry.sort_key());
        if let Some(at) = entry.deadline() {
            self.deadlines.remove(&(at, id.to_owned()));
        }
        self.counts.sub(entry.counts());
        if entry.notified {
            tx.effects
                .push(Effect::WithdrawNotification { id: id.to_owned() });
        }
        tx.removed.push(id.to_owned());
    }

    fn finish(&mut self, tx: Tx) -> Outcome {
        let mut upserted: Vec<Card> = tx
            .touched
            .iter()
            .filter_map(|id| self.entries.get(id))
            .map(|e| e.card(&self.account))
            .collect();
        upserted.sort_by(crate::order::compare_cards);
        let removed = tx
            .removed
            .into_iter()
            .filter(|id| !self.entries.contains_key(id))
            .collect();
        let status = (self.status != tx.status_before).then(|| self.status.clone());
        let notifications = tx.board_changed.then(|| self.board.list());
        Outcome {
            changes: Changes {
                account: self.account.clone(),
                upserted,
                removed,
                status,
                counts: self.counts(),
                notifications,
            },
            effects: tx.effects,
        }
    }
}

fn board_effect(effect: BoardEffect) -> Effect {
    match effect {
        BoardEffect::MarkRead(id) => Effect::MarkNotificationRead { id },
        BoardEffect::Dismiss(id) => Effect::DismissNotification { id },
    }
}

/// "already answered by alice": what the reviewer is told when somebody else won.
fn describe_winner(winner: &Interaction) -> String {
    let by = winner.answer.as_ref().map(|a| a.answered_by.as_str());
    match (winner.status, by) {
        (Status::Answered, Some(by)) => format!("already answered by {by}"),
        (Status::Declined, Some(by)) => format!("already declined by {by}"),
        (Status::Expired, _) => "the question already expired".to_owned(),
        (Status::Cancelled, _) => "the asker already withdrew the question".to_owned(),
        _ => "already answered".to_owned(),
    }
}

#[cfg(test)]
mod board_tests;
#[cfg(test)]
mod convergence;
#[cfg(test)]
pub(crate) mod fixture;
#[cfg(test)]
mod tests;
