//! Property: whatever the interleaving — pages served early or late, answers delivered out of
//! order, frames duplicated, the stream dropped and resumed (or reset when the resume falls out
//! of the retention window), the reviewer's own answer racing somebody else's — the inbox
//! converges to the server's truth: exactly the server's pending set is open, every card shows
//! the server's status, no card ever vanishes and no final card ever reopens.
//!
//! A tiny simulated server plays a fixed script of asks and resolutions; a deterministic PRNG
//! (seeded per run) picks what happens next at every step.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use inbox_protocol::{
    AnsweredEvent, Interaction, InteractionPage, RemovedEvent, RemovedReason, ResetEvent,
    ResetReason, Status, StreamEvent,
};
use serde_json::Value;

use super::fixture::{UiStore, answer_by, at, ia};
use crate::{Delivery, Effect, Failure, Inbox, Input, Verdict};

/// xorshift64*: small, deterministic, good enough to shuffle test schedules.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// One step of the server's script.
#[derive(Clone, Copy)]
enum Op {
    Ask(&'static str, i64),
    Answer(&'static str, &'static str),
    Decline(&'static str, &'static str),
    Remove(&'static str, RemovedReason),
}

const PAGE_LIMIT: usize = 4;
/// Events the server keeps for resumes; small, so that resets happen.
const RETENTION: u64 = 3;
/// The question the reviewer answers from the app, racing alice's script answer.
const CONTESTED: &str = "p08";

/// The simulated server: its interactions and its events stream.
struct World {
    items: BTreeMap<String, Interaction>,
    log: Vec<(u64, StreamEvent)>,
}

impl World {
    fn new() -> World {
        let mut items = BTreeMap::new();
        for n in 0..12 {
            let id = format!("p{n:02}");
            items.insert(id.clone(), ia(&id, n));
        }
        World {
            items,
            log: Vec::new(),
        }
    }

    fn seq(&self) -> u64 {
        self.log.last().map_or(0, |(seq, _)| *seq)
    }

    fn emit(&mut self, event: StreamEvent) {
        let seq = self.seq() + 1;
        self.log.push((seq, event));
    }

    fn apply(&mut self, op: Op) {
        match op {
            Op::Ask(id, minute) => {
                let question = ia(id, minute);
                self.items.insert(id.to_owned(), question.clone());
                self.emit(StreamEvent::Add(question));
            }
            Op::Answer(id, who) => {
                self.resolve(id, Status::Answered, who);
            }
            Op::Decline(id, who) => {
                self.resolve(id, Status::Declined, who);
            }
            Op::Remove(id, reason) => {
                let item = self.items.get_mut(id).expect("scripted id");
                if item.is_pending() {
                    item.status = reason.status();
                    self.emit(StreamEvent::Removed(RemovedEvent {
                        id: id.to_owned(),
                        reason,
                    }));
                }
            }
        }
    }

    /// Single winner: only a pending question can be resolved. True when this call won.
    fn resolve(&mut self, id: &str, status: Status, who: &str) -> bool {
        let item = self.items.get_mut(id).expect("scripted id");
        if !item.is_pending() {
            return false;
        }
        let answer = answer_by(who, Value::Bool(status == Status::Answered));
        item.status = status;
        item.answer = Some(answer.clone());
        self.emit(StreamEvent::Answered(AnsweredEvent {
            id: id.to_owned(),
            status,
            answer,
        }));
        true
    }

    /// Keyset pages of the pending set, newest first; the cursor is the last id served.
    fn page(&self, cursor: Option<&str>) -> InteractionPage {
        let mut pending: Vec<&Interaction> =
            self.items.values().filter(|i| i.is_pending()).collect();
        pending.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
        let after = |i: &&Interaction| match cursor.and_then(|c| self.items.get(c)) {
            Some(last) => (i.created_at, &i.id) < (last.created_at, &last.id),
            None => true,
        };
        let rest: Vec<Interaction> = pending.into_iter().filter(after).cloned().collect();
        let items: Vec<Interaction> = rest.iter().take(PAGE_LIMIT).cloned().collect();
        let next_cursor = (rest.len() > PAGE_LIMIT).then(|| items.last().unwrap().id.clone());
        InteractionPage {
            items,
            next_cursor,
            stream_cursor: self.seq().to_string(),
        }
    }

    fn pending(&self) -> BTreeSet<String> {
        self.items
            .values()
            .filter(|i| i.is_pending())
            .map(|i| i.id.clone())
            .collect()
    }
}

/// A request the client made that the server has not answered yet.
enum Request {
    Page(Option<String>),
    Item(String),
    Answer,
}

/// An open stream connection: the next sequence number to deliver.
struct Connection {
    next: u64,
    reset_first: bool,
    last_sent: Option<(u64, StreamEvent)>,
}

fn script() -> Vec<Op> {
    use Op::*;
    vec![
        Ask("n1", 20),
        Answer("p03", "alice"),
        Ask("n2", 21),
        Remove("p05", RemovedReason::Expired),
        Remove("n1", RemovedReason::Cancelled),
        Decline("p07", "bob"),
        Ask("n3", 22),
        Answer("n2", "carol"),
        Answer(CONTESTED, "alice"),
        Answer("p10", "dave"),
        Ask("n4", 23),
        Remove("p00", RemovedReason::Expired),
        Ask("n5", 24),
        Decline("n3", "erin"),
        Remove("p11", RemovedReason::Pruned),
    ]
}

struct Harness {
    rng: Rng,
    world: World,
    ops: std::vec::IntoIter<Op>,
    inbox: Inbox,
    store: UiStore,
    effects: Vec<Effect>,
    requests: Vec<Request>,
    responses: Vec<Input>,
    connection: Option<Connection>,
    retry_armed: bool,
    answered_from_app: bool,
    /// Ids ever seen final in a batch: they must never show pending again.
    finals: BTreeSet<String>,
    seen: Coverage,
}

/// What the runs went through, so the test can show it explored the hard cases.
#[derive(Debug, Default, Clone, Copy)]
struct Coverage {
    resets: u32,
    drops: u32,
    duplicates: u32,
    item_fetches: u32,
    stale_pages: u32,
    app_won: u32,
    app_lost: u32,
}

impl Harness {
    fn new(seed: u64) -> Harness {
        Harness {
            rng: Rng::new(seed),
            world: World::new(),
            ops: script().into_iter(),
            inbox: Inbox::new("sim"),
            store: UiStore::default(),
            effects: Vec::new(),
            requests: Vec::new(),
            responses: Vec::new(),
            connection: None,
            retry_armed: false,
            answered_from_app: false,
            finals: BTreeSet::new(),
            seen: Coverage::default(),
        }
    }

    fn feed(&mut self, input: Input) {
        let outcome = self.inbox.handle(input);
        assert!(outcome.changes.removed.is_empty(), "a card vanished");
        for card in &outcome.changes.upserted {
            let id = &card.interaction.id;
            if card.interaction.status.is_final() {
                self.finals.insert(id.clone());
            } else {
                assert!(!self.finals.contains(id), "{id} went back to pending");
            }
        }
        self.store.apply(&outcome.changes);
        for effect in outcome.effects {
            match effect {
                // Notifications are the desktop's business; nothing to simulate.
                Effect::Notify { .. }
                | Effect::WithdrawNotification { .. }
                | Effect::MarkNotificationRead { .. }
                | Effect::DismissNotification { .. } => {}
                other => self.effects.push(other),
            }
        }
    }

    /// Start performing the oldest effect the machine asked for.
    fn perform(&mut self) {
        let effect = self.effects.remove(0);
        match effect {
            Effect::FetchPage { cursor } => self.requests.push(Request::Page(cursor)),
            Effect::FetchInteraction { id } => self.requests.push(Request::Item(id)),
            Effect::OpenStream { last_event_id } => self.connect(last_event_id),
            Effect::CloseStream => self.connection = None,
            Effect::Notify { .. }
            | Effect::WithdrawNotification { .. }
            | Effect::MarkNotificationRead { .. }
            | Effect::DismissNotification { .. } => {}
        }
    }

    fn connect(&mut self, last_event_id: Option<String>) {
        let tail = self.world.seq() + 1;
        let oldest_kept = tail.saturating_sub(RETENTION).max(1);
        let (next, reset_first) = match last_event_id.map(|id| id.parse::<u64>().unwrap()) {
            None => (tail, false),
            Some(last) if last + 1 < oldest_kept => (tail, true),
            Some(last) => (last + 1, false),
        };
        self.connection = Some(Connection {
            next,
            reset_first,
            last_sent: None,
        });
        self.feed(Input::StreamOpened);
    }

    /// The server answers one outstanding request from its state right now.
    fn serve(&mut self, index: usize) {
        let response = match self.requests.remove(index) {
            Request::Page(cursor) => Input::PageLoaded {
                page: self.world.page(cursor.as_deref()),
                cursor_requested: cursor,
            },
            Request::Item(id) => {
                self.seen.item_fetches += 1;
                Input::InteractionFetched {
                    interaction: self.world.items[&id].clone(),
                }
            }
            Request::Answer => {
                let verdict = if self.world.resolve(CONTESTED, Status::Answered, "me") {
                    Verdict::Accepted {
                        interaction: self.world.items[CONTESTED].clone(),
                    }
                } else {
                    Verdict::AlreadyAnswered {
                        winner: self.world.items[CONTESTED].clone(),
                    }
                };
                Input::AnswerVerdict {
                    id: CONTESTED.to_owned(),
                    verdict,
                }
            }
        };
        self.responses.push(response);
    }

    /// Deliver the next frame of the open stream, if there is one.
    fn deliver_frame(&mut self) -> bool {
        let Some(conn) = &mut self.connection else {
            return false;
        };
        if conn.reset_first {
            conn.reset_first = false;
            self.seen.resets += 1;
            self.feed(Input::StreamEvent {
                id: None,
                event: StreamEvent::Reset(ResetEvent {
                    reason: ResetReason::AgedOut,
                }),
            });
            return true;
        }
        let Some((seq, event)) = self
            .world
            .log
            .iter()
            .find(|(s, _)| *s == conn.next)
            .cloned()
        else {
            return false;
        };
        conn.next += 1;
        conn.last_sent = Some((seq, event.clone()));
        self.feed(Input::StreamEvent {
            id: Some(seq.to_string()),
            event,
        });
        true
    }

    fn stream_has_frames(&self) -> bool {
        self.connection
            .as_ref()
            .is_some_and(|c| c.reset_first || c.next <= self.world.seq())
    }

    /// One random step. False when nothing was left to do.
    fn step(&mut self) -> bool {
        let mut choices: Vec<u8> = Vec::new();
        if self.ops.len() > 0 {
            choices.extend([0, 0]);
        }
        if !self.effects.is_empty() {
            choices.extend([1, 1]);
        }
        if !self.requests.is_empty() {
            choices.push(2);
        }
        if !self.responses.is_empty() {
            choices.push(3);
        }
        if self.stream_has_frames() {
            choices.extend([4, 4]);
        }
        if self
            .connection
            .as_ref()
            .is_some_and(|c| c.last_sent.is_some())
        {
            choices.push(5);
        }
        if self.connection.is_some() {
            choices.push(6);
        }
        if self.retry_armed {
            choices.push(7);
        }
        if !self.answered_from_app {
            choices.push(8);
        }
        if choices.is_empty() {
            return false;
        }
        match choices[self.rng.below(choices.len())] {
            0 => {
                let op = self.ops.next().unwrap();
                self.world.apply(op);
            }
            1 => self.perform(),
            2 => {
                let i = self.rng.below(self.requests.len());
                self.serve(i);
            }
            3 => {
                let i = self.rng.below(self.responses.len());
                let response = self.responses.remove(i);
                if let Input::PageLoaded { page, .. } = &response
                    && page.stream_cursor != self.world.seq().to_string()
                {
                    self.seen.stale_pages += 1;
                }
                self.feed(response);
            }
            4 => {
                self.deliver_frame();
            }
            5 => {
                // An overlapping delivery: the same frame again, with the same id.
                self.seen.duplicates += 1;
                let (seq, event) = self.connection.as_ref().unwrap().last_sent.clone().unwrap();
                self.feed(Input::StreamEvent {
                    id: Some(seq.to_string()),
                    event,
                });
            }
            6 => {
                self.seen.drops += 1;
                self.connection = None;
                self.retry_armed = true;
                self.feed(Input::StreamDropped {
                    failure: Failure::Transient { retry_at: at(60) },
                });
            }
            7 => {
                self.retry_armed = false;
                self.feed(Input::Retry);
            }
            _ => {
                // The reviewer answers the contested question; the outbox sends it later.
                if self
                    .inbox
                    .card(CONTESTED)
                    .is_some_and(|c| c.local.delivery.is_none())
                {
                    self.answered_from_app = true;
                    self.feed(Input::AnswerQueued {
                        id: CONTESTED.to_owned(),
                        value: Value::Bool(true),
                    });
                    self.feed(Input::AnswerSending {
                        id: CONTESTED.to_owned(),
                    });
                    self.requests.push(Request::Answer);
                } else if self.inbox.card(CONTESTED).is_some() || self.ops.len() == 0 {
                    // Resolved before the reviewer got to it (or never shown): no answer.
                    self.answered_from_app = true;
                }
            }
        }
        true
    }

    /// Let everything in flight finish, with no more faults.
    fn quiesce(&mut self) {
        for _ in 0..10_000 {
            if self.retry_armed {
                self.retry_armed = false;
                self.feed(Input::Retry);
            } else if !self.effects.is_empty() {
                self.perform();
            } else if !self.requests.is_empty() {
                self.serve(0);
            } else if !self.responses.is_empty() {
                let response = self.responses.remove(0);
                self.feed(response);
            } else if !self.deliver_frame() {
                return;
            }
        }
        panic!("did not quiesce");
    }
}

fn run(seed: u64) -> (Vec<(String, Status)>, Coverage) {
    let mut h = Harness::new(seed);
    h.feed(Input::Start);
    for _ in 0..2_000 {
        if !h.step() {
            break;
        }
    }
    while h.ops.len() > 0 {
        let op = h.ops.next().unwrap();
        h.world.apply(op);
    }
    h.quiesce();

    let cards: Vec<_> = h.inbox.cards().collect();
    assert_eq!(h.store.list(), cards, "seed {seed}: UI store drifted");
    let open: BTreeSet<String> = cards
        .iter()
        .filter(|c| c.interaction.status == Status::Pending)
        .map(|c| c.interaction.id.clone())
        .collect();
    assert_eq!(
        open,
        h.world.pending(),
        "seed {seed}: open cards != server's pending set"
    );
    for card in &cards {
        let truth = &h.world.items[&card.interaction.id];
        assert_eq!(
            card.interaction.status, truth.status,
            "seed {seed}: {}",
            truth.id
        );
        assert_eq!(
            card.interaction.answer, truth.answer,
            "seed {seed}: {}",
            truth.id
        );
        assert!(!card.local.expired_locally);
    }
    if let Some(card) = cards.iter().find(|c| c.interaction.id == CONTESTED)
        && card.local.outgoing.is_some()
    {
        let won = h.world.items[CONTESTED]
            .answer
            .as_ref()
            .unwrap()
            .answered_by
            == "me";
        match (&card.local.delivery, won) {
            (Some(Delivery::Accepted), true) => h.seen.app_won += 1,
            (
                Some(Delivery::Rejected {
                    winner: Some(w), ..
                }),
                false,
            ) => {
                assert_eq!(w.answered_by, "alice", "seed {seed}");
                h.seen.app_lost += 1;
            }
            other => panic!("seed {seed}: delivery {other:?}"),
        }
    }
    assert_eq!(h.inbox.counts().queued, 0, "seed {seed}");
    assert_eq!(
        h.inbox.pending_count() as usize,
        h.world.pending().len(),
        "seed {seed}"
    );
    let open = cards
        .into_iter()
        .filter(|c| c.interaction.status == Status::Pending)
        .map(|c| (c.interaction.id, c.interaction.status))
        .collect();
    (open, h.seen)
}

#[test]
fn random_interleavings_converge_to_the_server_truth() {
    let mut lists: HashMap<Vec<(String, Status)>, u64> = HashMap::new();
    let mut runs_with = Coverage::default();
    for seed in 0..400 {
        let (list, seen) = run(seed);
        *lists.entry(list).or_default() += 1;
        runs_with.resets += u32::from(seen.resets > 0);
        runs_with.drops += u32::from(seen.drops > 0);
        runs_with.duplicates += u32::from(seen.duplicates > 0);
        runs_with.item_fetches += u32::from(seen.item_fetches > 0);
        runs_with.stale_pages += u32::from(seen.stale_pages > 0);
        runs_with.app_won += seen.app_won;
        runs_with.app_lost += seen.app_lost;
    }
    // The schedules must actually reach the hard cases, or the property proves little.
    let c = runs_with;
    let all = [
        c.resets,
        c.drops,
        c.duplicates,
        c.item_fetches,
        c.stale_pages,
        c.app_won,
        c.app_lost,
    ];
    assert!(
        all.iter().all(|n| *n >= 5),
        "too few runs reached a hard case: {c:?}"
    );
    // The server's script is fixed, so every interleaving ends with the same open list, in
    // the same order.
    assert_eq!(lists.len(), 1, "different final lists: {lists:?}");
}
