//! The specification of the inbox as tables: each row is a sequence of inputs, the list the
//! reviewer sees afterwards (`id:status` in display order) and every effect asked of the driver.
//! The runner also merges every change batch into a UI store, one by one and coalesced, and
//! checks that both agree with the machine's own list and counts.

use chrono::Duration;
use inbox_protocol::{ErrorCode, RemovedReason, Status};
use serde_json::Value;

use super::fixture::*;
use crate::{
    Changes, ConnectionStatus, Counts, Delivery, Effect, Failure, Inbox, Input, Outgoing, Verdict,
};

#[derive(Default)]
struct Row {
    name: &'static str,
    /// A persisted stream position handed to `Inbox::resume`.
    resume: Option<&'static str>,
    inputs: Vec<Input>,
    /// `id:status` words in display order.
    list: &'static str,
    /// Every effect of every input, in order.
    effects: Vec<Effect>,
    /// `(pending, unread, queued)` after the last input.
    counts: Option<(u32, u32, u32)>,
    status: Option<ConnectionStatus>,
    /// Ids upserted by the last input alone (`Some("")`: nothing).
    last_batch: Option<&'static str>,
    /// The stream position (last event id) after the last input.
    position: Option<&'static str>,
    /// Further assertions on the final state.
    check: Option<fn(&Inbox)>,
}

fn run(rows: Vec<Row>) {
    for row in rows {
        run_one(row);
    }
}

fn run_one(row: Row) {
    let name = row.name;
    let mut inbox = match row.resume {
        Some(id) => Inbox::resume("work", Some(id.to_owned())),
        None => Inbox::new("work"),
    };
    let mut effects = Vec::new();
    let mut store = UiStore::default();
    let mut batches = Vec::new();
    let mut last = Changes::default();
    for input in row.inputs {
        let outcome = inbox.handle(input);
        assert_eq!(outcome.changes.account, "work", "{name}");
        store.apply(&outcome.changes);
        effects.extend(outcome.effects);
        batches.push(outcome.changes.clone());
        last = outcome.changes;
    }
    assert_eq!(visible(&inbox), row.list, "{name}: visible list");
    assert_eq!(effects, row.effects, "{name}: effects");
    let cards: Vec<_> = inbox.cards().collect();
    assert_eq!(
        store.list(),
        cards,
        "{name}: the UI store drifted from the engine"
    );
    let mut coalesced = UiStore::default();
    coalesced.apply(&Changes::coalesce(batches).unwrap_or_default());
    assert_eq!(coalesced.list(), cards, "{name}: coalesced batches differ");
    assert_eq!(
        last.counts,
        inbox.counts(),
        "{name}: counts of the last batch"
    );
    let recount = cards.iter().fold(Counts::default(), |mut n, c| {
        let in_flight = c
            .local
            .delivery
            .as_ref()
            .is_some_and(Delivery::is_in_flight);
        let answered_here = in_flight || c.local.delivery == Some(Delivery::Accepted);
        n.pending += u32::from(c.interaction.status == Status::Pending && !answered_here);
        n.unread += u32::from(c.local.unread);
        n.queued += u32::from(in_flight);
        n
    });
    assert_eq!(
        recount,
        inbox.counts(),
        "{name}: incremental counts drifted"
    );
    if let Some((pending, unread, queued)) = row.counts {
        let want = Counts {
            pending,
            unread,
            queued,
            notifications_unread: 0,
        };
        assert_eq!(inbox.counts(), want, "{name}: counts");
    }
    if let Some(status) = row.status {
        assert_eq!(*inbox.status(), status, "{name}: status");
    }
    if let Some(ids) = row.last_batch {
        let got: Vec<_> = last
            .upserted
            .iter()
            .map(|c| c.interaction.id.as_str())
            .collect();
        assert_eq!(got.join(" "), ids, "{name}: last batch");
        assert!(last.removed.is_empty(), "{name}: last batch removed cards");
    }
    if let Some(id) = row.position {
        assert_eq!(inbox.last_event_id(), Some(id), "{name}: position");
    }
    if let Some(check) = row.check {
        check(&inbox);
    }
}

impl Row {
    /// A row of inputs to a new inbox (`then` gives them).
    fn new(name: &'static str) -> Row {
        Row {
            name,
            ..Row::default()
        }
    }

    /// A row that starts a first sync of two pages: page 1 holds `items` and says `p2` is next
    /// (stream position 10); the effects so far are page 1, page 2 and the stream.
    fn paging(name: &'static str, items: Vec<inbox_protocol::Interaction>) -> Row {
        Row {
            name,
            inputs: vec![Input::Start, loaded(None, page(items, Some("p2"), "10"))],
            effects: vec![fetch(None), fetch(Some("p2")), open(Some("10"))],
            ..Row::default()
        }
    }

    /// A row that starts with `seeded(vec![])` (an empty page 1) and its effects.
    fn online(name: &'static str) -> Row {
        Row::seeded(name, vec![])
    }

    /// A row that starts with `seeded(items)` and its effects.
    fn seeded(name: &'static str, items: Vec<inbox_protocol::Interaction>) -> Row {
        Row {
            name,
            inputs: seeded(items),
            effects: seeded_effects(),
            ..Row::default()
        }
    }

    /// A row that starts with `seeded(items)`, then a reset (at `11`) and page 1 asked again.
    fn after_reset(name: &'static str, items: Vec<inbox_protocol::Interaction>) -> Row {
        Row::seeded(name, items)
            .then(vec![reset("11")])
            .asks(vec![fetch(None)])
    }

    fn resume(self, position: &'static str) -> Row {
        Row {
            resume: Some(position),
            ..self
        }
    }

    /// More inputs, after those already in the row.
    fn then(mut self, inputs: Vec<Input>) -> Row {
        self.inputs.extend(inputs);
        self
    }

    fn list(self, list: &'static str) -> Row {
        Row { list, ..self }
    }

    /// More effects expected, after those already in the row.
    fn asks(mut self, effects: Vec<Effect>) -> Row {
        self.effects.extend(effects);
        self
    }

    fn counts(self, pending: u32, unread: u32, queued: u32) -> Row {
        Row {
            counts: Some((pending, unread, queued)),
            ..self
        }
    }

    fn status(self, status: ConnectionStatus) -> Row {
        Row {
            status: Some(status),
            ..self
        }
    }

    fn last_batch(self, ids: &'static str) -> Row {
        Row {
            last_batch: Some(ids),
            ..self
        }
    }

    fn position(self, id: &'static str) -> Row {
        Row {
            position: Some(id),
            ..self
        }
    }

    fn check(self, check: fn(&Inbox)) -> Row {
        Row {
            check: Some(check),
            ..self
        }
    }
}

/// Start, page 1 with `items` at stream position 10, stream open.
fn seeded(items: Vec<inbox_protocol::Interaction>) -> Vec<Input> {
    vec![
        Input::Start,
        loaded(None, page(items, None, "10")),
        Input::StreamOpened,
    ]
}

/// Effects of `seeded`.
fn seeded_effects() -> Vec<Effect> {
    vec![fetch(None), open(Some("10"))]
}

/// A run that finds the position `saved` on disk and page 1 (with `a`) at stream position 10:
/// the stream opens at `from`, which is then the position.
fn resumed(name: &'static str, saved: &'static str, from: &'static str) -> Row {
    Row::new(name)
        .resume(saved)
        .then(vec![
            Input::Start,
            loaded(None, page(vec![ia("a", 1)], None, "10")),
        ])
        .list("a:pending")
        .asks(vec![fetch(None), open(Some(from))])
        .position(from)
}

/// The server took the answer to `id` (made by `who`).
fn accepted(id: &str, who: &str) -> Verdict {
    Verdict::Accepted {
        interaction: answered_by(ia(id, 1), who),
    }
}

/// Somebody else (`who`) answered `id` first.
fn beaten(id: &str, who: &str) -> Verdict {
    Verdict::AlreadyAnswered {
        winner: answered_by(ia(id, 1), who),
    }
}

/// The driver sends the answer to `id` and the server's verdict comes back.
fn sent(id: &str, verdict: Verdict) -> Vec<Input> {
    vec![
        Input::AnswerSending { id: id.into() },
        verdict_on(id, verdict),
    ]
}

fn verdict_on(id: &str, verdict: Verdict) -> Input {
    Input::AnswerVerdict {
        id: id.into(),
        verdict,
    }
}

/// Page 1 with `b` and `a`, a reset, and the refetch without `b`.
fn vanished(name: &'static str) -> Row {
    Row::after_reset(name, vec![ia("b", 2), ia("a", 1)])
        .then(vec![loaded(None, page(vec![ia("a", 1)], None, "12"))])
}

/// Page 1 with `a`, the stream dropped, then an answer to `a` made offline.
fn queued_offline(name: &'static str) -> Row {
    Row::seeded(name, vec![ia("a", 1)]).then(vec![
        Input::StreamDropped {
            failure: Failure::Offline,
        },
        Input::AnswerQueued {
            id: "a".into(),
            value: Value::Bool(true),
        },
    ])
}

fn delivery_of(inbox: &Inbox, id: &str) -> Option<Delivery> {
    inbox.card(id).expect("card").local.delivery
}

#[test]
fn seeding_from_pages() {
    run(vec![
        Row::seeded(
            "page 1 seeds unread cards and opens the stream at its cursor",
            vec![ia("b", 2), ia("a", 1)],
        )
        .list("b:pending a:pending")
        .counts(2, 2, 0)
        .status(ConnectionStatus::Online),
        Row::paging(
            "further pages are fetched eagerly; an item on two pages shows once",
            vec![ia("d", 4), ia("c", 3)],
        )
        .then(vec![
            loaded(
                Some("p2"),
                page(vec![ia("c", 3), ia("b", 2)], Some("p3"), "11"),
            ),
            loaded(Some("p3"), page(vec![ia("a", 1)], None, "12")),
        ])
        .list("d:pending c:pending b:pending a:pending")
        .asks(vec![fetch(Some("p3"))])
        .counts(4, 4, 0)
        .status(ConnectionStatus::Connecting),
        Row::new("an answer for a request nobody made is ignored")
            .then(vec![
                Input::Start,
                loaded(Some("p9"), page(vec![ia("z", 9)], None, "10")),
                loaded(None, page(vec![ia("a", 1)], Some("p2"), "10")),
                loaded(None, page(vec![ia("y", 9)], None, "10")),
            ])
            .list("a:pending")
            .asks(vec![fetch(None), fetch(Some("p2")), open(Some("10"))]),
        resumed(
            "a persisted position newer than page 1's cursor is where the stream resumes",
            "15",
            "15",
        ),
        resumed(
            "an older persisted position gives way to page 1's cursor",
            "5",
            "10",
        ),
    ]);
}

#[test]
fn events_and_pages_in_any_order() {
    run(vec![
        Row::paging(
            "event before page: an add lands before page 2 does",
            vec![ia("b", 2)],
        )
        .then(vec![
            Input::StreamOpened,
            add("11", ia("c", 3)),
            loaded(Some("p2"), page(vec![ia("a", 1)], None, "10")),
        ])
        .list("c:pending b:pending a:pending")
        .asks(vec![notify("c")])
        .counts(3, 3, 0),
        Row::paging(
            "page after event: an answer for a card on a page not loaded yet wins",
            vec![ia("c", 3)],
        )
        .then(vec![
            Input::StreamOpened,
            answered("11", "b", "alice"),
            loaded(Some("p2"), page(vec![ia("b", 2), ia("a", 1)], None, "10")),
        ])
        .list("c:pending a:pending b:answered")
        .counts(2, 2, 0)
        .check(|inbox| {
            let b = inbox.card("b").unwrap();
            assert_eq!(b.interaction.answer.unwrap().answered_by, "alice");
            assert!(!b.local.unread);
        }),
        Row::seeded(
            "duplicate events: the same frame twice, then the same add again after a read",
            vec![ia("a", 1)],
        )
        .then(vec![
            add("11", ia("b", 2)),
            add("11", ia("b", 2)),
            Input::MarkRead { id: "b".into() },
            add("12", ia("b", 2)),
            add("9", ia("old", 0)),
        ])
        .list("b:pending a:pending")
        .asks(vec![notify("b"), withdraw("b")])
        .counts(2, 1, 0)
        .last_batch("")
        .position("12"),
        Row::online("answered before add: no phantom pending card, and the add shows it final")
            .then(vec![
                answered("11", "x", "alice"),
                removed("12", "y", RemovedReason::Cancelled),
            ])
            .list("")
            .counts(0, 0, 0),
        Row::online("answered before add, then the add (or a page) carrying it")
            .then(vec![
                answered("11", "x", "alice"),
                add("12", ia("x", 1)),
                removed("13", "y", RemovedReason::Expired),
                Input::Refresh,
                loaded(None, page(vec![ia("y", 2)], None, "13")),
            ])
            .list("y:expired x:answered")
            .asks(vec![fetch(None)])
            .counts(0, 0, 0),
        Row::online("answered elsewhere while the reviewer looks at it: converges, never vanishes")
            .then(vec![
                add("11", ia("a", 1)),
                Input::MarkRead { id: "a".into() },
                answered("12", "a", "alice"),
            ])
            .list("a:answered")
            .asks(vec![notify("a"), withdraw("a")])
            .counts(0, 0, 0)
            .last_batch("a"),
        Row::seeded(
            "every final status converges and stays; a later frame cannot reopen or change it",
            vec![ia("d", 4), ia("c", 3), ia("b", 2), ia("a", 1)],
        )
        .then(vec![
            answered("11", "a", "alice"),
            declined("12", "b", "bob"),
            removed("13", "c", RemovedReason::Expired),
            removed("14", "d", RemovedReason::Cancelled),
            removed("15", "a", RemovedReason::Pruned),
            add("16", ia("b", 2)),
        ])
        .list("d:cancelled c:expired b:declined a:answered")
        .counts(0, 0, 0),
    ]);
}

#[test]
fn refetch_after_reset() {
    run(vec![
        Row::after_reset(
            "reset mid-page: an event during the refetch is not undone by older page data",
            vec![ia("b", 2), ia("a", 1)],
        )
        .then(vec![
            loaded(None, page(vec![ia("c", 3), ia("b", 2)], Some("r2"), "11")),
            answered("12", "b", "alice"),
            add("13", ia("e", 5)),
            loaded(Some("r2"), page(vec![ia("a", 1)], None, "11")),
        ])
        .list("e:pending c:pending a:pending b:answered")
        .asks(vec![fetch(Some("r2")), notify("e"), notify("c")])
        .counts(3, 3, 0)
        // The merge adds c and touches nothing else: no flicker.
        .last_batch("c"),
        Row::after_reset(
            "cards still pending stay put; a vanished card is asked about, not dropped",
            vec![ia("c", 3), ia("b", 2), ia("a", 1)],
        )
        .then(vec![loaded(
            None,
            page(vec![ia("d", 4), ia("c", 3), ia("a", 1)], None, "12"),
        )])
        .list("d:pending c:pending b:pending a:pending")
        .asks(vec![notify("d"), fetch_one("b")])
        .last_batch("d"),
        vanished("the vanished card's final state arrives: answered")
            .then(vec![Input::InteractionFetched {
                interaction: answered_by(ia("b", 2), "carol"),
            }])
            .list("a:pending b:answered")
            .asks(vec![fetch_one("b")])
            .counts(1, 1, 0),
        vanished("the vanished card is gone (404): expired")
            .then(vec![Input::InteractionGone { id: "b".into() }])
            .list("a:pending b:expired")
            .asks(vec![fetch_one("b")]),
        Row::after_reset(
            "a card added live during the refetch is not mistaken for a vanished one",
            vec![ia("a", 1)],
        )
        .then(vec![
            loaded(None, page(vec![ia("a", 1)], Some("r2"), "11")),
            add("12", ia("n", 9)),
            loaded(Some("r2"), page(vec![], None, "11")),
        ])
        .list("n:pending a:pending")
        .asks(vec![fetch(Some("r2")), notify("n")])
        .last_batch(""),
        Row::after_reset(
            "a second reset while a page is in flight discards it and starts over",
            vec![ia("a", 1)],
        )
        .then(vec![
            reset("12"),
            loaded(None, page(vec![ia("stale", 5)], None, "11")),
            loaded(None, page(vec![ia("a", 1), ia("b", 2)], None, "12")),
        ])
        .list("b:pending a:pending")
        .asks(vec![fetch(None), notify("b")]),
        Row::paging(
            "a reset during the first sync turns it into a staged refetch",
            vec![ia("b", 2)],
        )
        .then(vec![
            Input::StreamOpened,
            reset("11"),
            loaded(Some("p2"), page(vec![ia("a", 1)], None, "10")),
            loaded(None, page(vec![ia("b", 2), ia("a", 1)], None, "11")),
        ])
        .list("b:pending a:pending")
        .asks(vec![fetch(None), notify("a")]),
        Row::seeded(
            "after a reset from a server whose ids started over, smaller ids still apply",
            vec![ia("a", 1)],
        )
        .then(vec![
            reset("1"),
            loaded(None, page(vec![ia("a", 1)], None, "1")),
            add("2", ia("x", 5)),
        ])
        .list("x:pending a:pending")
        .asks(vec![fetch(None), notify("x")])
        .position("2"),
        Row::online("a reset without an id: the next frame's id becomes the position")
            .then(vec![
                Input::StreamEvent {
                    id: None,
                    event: inbox_protocol::StreamEvent::Reset(inbox_protocol::ResetEvent {
                        reason: inbox_protocol::ResetReason::MalformedId,
                    }),
                },
                add("3", ia("x", 5)),
                add("3", ia("x", 5)),
            ])
            .list("x:pending")
            .asks(vec![fetch(None), notify("x")])
            .position("3"),
        Row::online("a reset is never skipped as a duplicate: a repeated one starts over")
            .then(vec![
                reset("11"),
                reset("11"),
                loaded(None, page(vec![], None, "11")),
                loaded(None, page(vec![ia("a", 1)], None, "11")),
            ])
            .list("a:pending")
            .asks(vec![fetch(None), fetch(None), notify("a")]),
        Row::new("a persisted position from before the server's store was wiped recovers")
            .then(vec![
                Input::Start,
                loaded(None, page(vec![ia("a", 1)], None, "3")),
                Input::StreamOpened,
                // The server never issued 500: it falls back to its tail and says so.
                reset("3"),
                loaded(None, page(vec![ia("a", 1)], None, "3")),
                add("4", ia("b", 2)),
            ])
            .resume("500")
            .list("b:pending a:pending")
            .asks(vec![
                fetch(None),
                open(Some("500")),
                fetch(None),
                notify("b"),
            ])
            .position("4"),
        Row::seeded(
            "a dismissed card is not brought back by a stale page",
            vec![ia("a", 1)],
        )
        .then(vec![
            answered("11", "a", "alice"),
            Input::Dismiss { id: "a".into() },
            Input::Refresh,
            loaded(None, page(vec![ia("a", 1)], None, "11")),
        ])
        .list("")
        .asks(vec![fetch(None)]),
        Row::seeded("an open card cannot be dismissed", vec![ia("a", 1)])
            .then(vec![Input::Dismiss { id: "a".into() }])
            .list("a:pending")
            .last_batch(""),
    ]);
}

#[test]
fn connection_and_expiry() {
    let in_five = at(5);
    run(vec![
        Row::seeded(
            "expiry while offline shows expired locally until the server confirms",
            vec![expiring(ia("a", 1), 5), ia("b", 2)],
        )
        .then(vec![
            Input::StreamDropped {
                failure: Failure::Offline,
            },
            Input::Tick { now: at(4) },
            Input::Tick { now: at(6) },
        ])
        .list("b:pending a:expired")
        .counts(1, 1, 0)
        .status(ConnectionStatus::Offline)
        .check(|inbox| {
            assert!(inbox.card("a").unwrap().local.expired_locally);
            assert_eq!(inbox.next_deadline(), None);
        }),
        Row::seeded(
            "the local expiry survives a stale page and is confirmed by the server",
            vec![expiring(ia("a", 1), 5)],
        )
        .then(vec![
            Input::StreamDropped {
                failure: Failure::Offline,
            },
            Input::Tick { now: at(6) },
            Input::Retry,
            Input::StreamOpened,
            Input::Refresh,
            loaded(None, page(vec![expiring(ia("a", 1), 5)], None, "10")),
            removed("11", "a", RemovedReason::Expired),
        ])
        .list("a:expired")
        .asks(vec![open(Some("10")), fetch(None)])
        .status(ConnectionStatus::Online)
        .check(|inbox| assert!(!inbox.card("a").unwrap().local.expired_locally)),
        Row::seeded(
            "a clock set back reopens a card it had expired here, and it expires again later",
            vec![expiring(ia("a", 1), 5), ia("b", 2)],
        )
        .then(vec![
            // The clock runs hours ahead, then is corrected.
            Input::Tick { now: at(300) },
            Input::Tick { now: at(3) },
        ])
        .list("b:pending a:pending")
        // Its local expiry marked it read; reopening does not make it unread again.
        .counts(2, 1, 0)
        .check(|inbox| {
            assert!(!inbox.card("a").unwrap().local.expired_locally);
            assert_eq!(inbox.next_deadline(), Some(at(5)));
            let mut again = inbox.clone();
            again.handle(Input::Tick { now: at(6) });
            assert!(again.card("a").unwrap().local.expired_locally);
        }),
        Row::online("a question arriving after its deadline passed here shows expired at once")
            .then(vec![
                Input::Tick { now: at(9) },
                add("11", expiring(ia("a", 1), 5)),
            ])
            .list("a:expired")
            .counts(0, 0, 0),
        Row::online("a drop says when the next try is, and the retry resumes from the last id")
            .then(vec![
                add("11", ia("a", 1)),
                Input::StreamDropped {
                    failure: Failure::Transient { retry_at: in_five },
                },
                Input::StreamDropped {
                    failure: Failure::Transient {
                        retry_at: in_five + Duration::seconds(2),
                    },
                },
                Input::Retry,
            ])
            .list("a:pending")
            .asks(vec![notify("a"), open(Some("11"))])
            .status(ConnectionStatus::Connecting),
        Row::online("reconnecting counts the attempts and tells when the next one is")
            .then(vec![
                Input::StreamDropped {
                    failure: Failure::Transient { retry_at: in_five },
                },
                Input::Retry,
                Input::StreamDropped {
                    failure: Failure::Transient { retry_at: in_five },
                },
            ])
            .list("")
            .asks(vec![open(Some("10"))])
            .status(ConnectionStatus::Reconnecting {
                next_try_at: "2026-11-29T10:05:00.000Z".into(),
                attempt: 2,
            }),
        Row::new("a failed first page is retried with the same cursor")
            .then(vec![
                Input::Start,
                Input::PageFailed {
                    cursor_requested: None,
                    failure: Failure::Offline,
                },
                Input::Retry,
                loaded(None, page(vec![ia("a", 1)], None, "10")),
            ])
            .list("a:pending")
            .asks(vec![fetch(None), fetch(None), open(Some("10"))])
            .status(ConnectionStatus::Connecting),
        Row::seeded(
            "signed out closes the stream and nothing is retried until Start",
            vec![ia("a", 1)],
        )
        .then(vec![
            Input::Refresh,
            Input::PageFailed {
                cursor_requested: None,
                failure: Failure::SignedOut,
            },
            Input::Retry,
            Input::StreamDropped {
                failure: Failure::Offline,
            },
        ])
        .list("a:pending")
        .asks(vec![fetch(None), Effect::CloseStream])
        .status(ConnectionStatus::SignedOut),
        Row::seeded(
            "signing in again refetches and reopens the stream",
            vec![ia("a", 1)],
        )
        .then(vec![
            Input::StreamDropped {
                failure: Failure::SignedOut,
            },
            Input::Start,
            loaded(None, page(vec![ia("a", 1)], None, "12")),
            Input::StreamOpened,
        ])
        .list("a:pending")
        .asks(vec![fetch(None), open(Some("10"))])
        .status(ConnectionStatus::Online),
    ]);
}

#[test]
fn answers_and_their_delivery() {
    run(vec![
        queued_offline("an answer made offline shows queued and leaves the tray count")
            .list("a:pending")
            .counts(0, 0, 1)
            .check(|inbox| {
                let a = inbox.card("a").unwrap();
                assert_eq!(a.local.delivery, Some(Delivery::Queued));
                assert_eq!(
                    a.local.outgoing,
                    Some(Outgoing::Answer {
                        value: Value::Bool(true)
                    })
                );
            }),
        queued_offline("queued → sending → accepted")
            .then(vec![Input::Retry, Input::StreamOpened])
            .then(sent("a", accepted("a", "me")))
            .list("a:answered")
            .asks(vec![open(Some("10"))])
            .counts(0, 0, 0)
            .check(|inbox| assert_eq!(delivery_of(inbox, "a"), Some(Delivery::Accepted))),
        queued_offline("queued → already answered: the winner is recorded and shown")
            .then(vec![
                Input::Retry,
                Input::StreamOpened,
                answered("11", "a", "alice"),
            ])
            .then(sent("a", beaten("a", "alice")))
            .list("a:answered")
            .asks(vec![open(Some("10"))])
            .counts(0, 0, 0)
            .check(|inbox| {
                let a = inbox.card("a").unwrap();
                let Some(Delivery::Rejected {
                    code,
                    message,
                    winner,
                }) = a.local.delivery
                else {
                    panic!("not rejected: {:?}", a.local.delivery);
                };
                assert_eq!(code, ErrorCode::AlreadyAnswered);
                assert_eq!(message, "already answered by alice");
                assert_eq!(winner.unwrap().answered_by, "alice");
                assert_eq!(a.interaction.answer.unwrap().answered_by, "alice");
            }),
        queued_offline("queued → gone: the question expired meanwhile")
            .then(sent("a", Verdict::Gone))
            .list("a:expired")
            .counts(0, 0, 0)
            .check(|inbox| {
                let Some(Delivery::Rejected { code, winner, .. }) = delivery_of(inbox, "a") else {
                    panic!("not rejected");
                };
                assert_eq!(code, ErrorCode::NotFound);
                assert_eq!(winner, None);
            }),
        Row::seeded(
            "an invalid answer is refused and the card stays open for another try",
            vec![ia("a", 1)],
        )
        .then(vec![Input::DeclineQueued {
            id: "a".into(),
            reason: Some("not now".into()),
        }])
        .then(sent(
            "a",
            Verdict::Rejected {
                code: ErrorCode::InvalidAnswer,
                message: "expected a boolean".into(),
            },
        ))
        .list("a:pending")
        .counts(1, 0, 0),
        Row::online("a verdict on an answer queued in an earlier run brings its card back")
            .then(vec![verdict_on("earlier", accepted("earlier", "me"))])
            .list("earlier:answered")
            .counts(0, 0, 0)
            .last_batch("earlier")
            .check(|inbox| {
                let card = inbox.card("earlier").unwrap();
                assert_eq!(card.local.delivery, Some(Delivery::Accepted));
                assert!(!card.local.unread, "a resolved card is not unread");
            }),
        Row::online("…and when somebody else was first, the winner shows on it")
            .then(vec![verdict_on("earlier", beaten("earlier", "alice"))])
            .list("earlier:answered")
            .check(
                |inbox| match &inbox.card("earlier").unwrap().local.delivery {
                    Some(Delivery::Rejected { code, winner, .. }) => {
                        assert_eq!(*code, ErrorCode::AlreadyAnswered);
                        assert_eq!(winner.as_ref().unwrap().answered_by, "alice");
                    }
                    other => panic!("expected the winner on the card, got {other:?}"),
                },
            ),
        Row::online("a verdict without a body for a card that is not there changes nothing")
            .then(vec![verdict_on("ghost", Verdict::Gone)])
            .list("")
            .last_batch(""),
    ]);
}

#[test]
fn ordering_and_unread() {
    run(vec![
        Row::seeded(
            "a late arrival slots into its place; open cards first, newest first",
            vec![ia("c", 3), ia("a", 1)],
        )
        .then(vec![
            add("11", ia("b", 2)),
            answered("12", "c", "alice"),
            add("13", ia("z", 0)),
        ])
        .list("b:pending a:pending z:pending c:answered")
        .asks(vec![notify("b"), notify("z")]),
        Row::seeded(
            "equal created_at: the greater id first, whatever the arrival order",
            vec![ia("m", 1)],
        )
        .then(vec![add("11", ia("z", 1)), add("12", ia("a", 1))])
        .list("z:pending m:pending a:pending")
        .asks(vec![notify("z"), notify("a")]),
        Row::seeded(
            "unread: seeded and live cards are unread; read, resolve and mark all clear it",
            vec![ia("b", 2), ia("a", 1)],
        )
        .then(vec![
            add("11", ia("c", 3)),
            Input::MarkRead { id: "a".into() },
            Input::MarkRead { id: "a".into() },
            answered("12", "b", "alice"),
        ])
        .list("c:pending a:pending b:answered")
        .asks(vec![notify("c")])
        .counts(2, 1, 0),
        Row::seeded(
            "mark all read withdraws live notifications",
            vec![ia("a", 1)],
        )
        .then(vec![add("11", ia("c", 3)), Input::MarkAllRead])
        .list("c:pending a:pending")
        .asks(vec![notify("c"), withdraw("c")])
        .counts(2, 0, 0),
    ]);
}

#[test]
fn merging_batches_keeps_the_latest_version_of_each_card() {
    let mut inbox = Inbox::new("work");
    let batches: Vec<Changes> = seeded(vec![ia("a", 1)])
        .into_iter()
        .chain([
            add("11", ia("b", 2)),
            Input::MarkRead { id: "b".into() },
            answered("12", "a", "alice"),
        ])
        .map(|input| inbox.handle(input).changes)
        .collect();
    let merged = Changes::coalesce(batches).unwrap();
    let ids: Vec<_> = merged
        .upserted
        .iter()
        .map(|c| c.interaction.id.as_str())
        .collect();
    assert_eq!(ids, ["b", "a"]);
    assert!(!merged.upserted[0].local.unread);
    assert_eq!(merged.upserted[1].interaction.status, Status::Answered);
    assert_eq!(merged.status, Some(ConnectionStatus::Online));
    assert_eq!(merged.counts, inbox.counts());

    // A removal cancels an earlier upsert, and an upsert cancels an earlier removal.
    let card = inbox.card("a").unwrap();
    let mut first = Changes {
        account: "work".into(),
        upserted: vec![card.clone()],
        ..Changes::default()
    };
    first.merge(Changes {
        account: "work".into(),
        removed: vec!["a".into()],
        ..Changes::default()
    });
    assert!(first.upserted.is_empty());
    assert_eq!(first.removed, ["a"]);
    first.merge(Changes {
        account: "work".into(),
        upserted: vec![card],
        ..Changes::default()
    });
    assert!(first.removed.is_empty());
    assert_eq!(first.upserted.len(), 1);
}

#[test]
fn wire_shapes_of_the_ui_types() {
    let rejected = Delivery::Rejected {
        code: ErrorCode::AlreadyAnswered,
        message: "already answered by alice".into(),
        winner: None,
    };
    assert_eq!(
        serde_json::to_value(&rejected).unwrap(),
        serde_json::json!({"state": "rejected", "code": "already_answered",
            "message": "already answered by alice", "winner": null})
    );
    assert_eq!(
        serde_json::to_value(Delivery::Queued).unwrap(),
        serde_json::json!({"state": "queued"})
    );
    assert_eq!(
        serde_json::to_value(ConnectionStatus::SignedOut).unwrap(),
        serde_json::json!({"state": "signed_out"})
    );
    assert_eq!(
        serde_json::to_value(ConnectionStatus::reconnecting(at(1), 3)).unwrap(),
        serde_json::json!({"state": "reconnecting", "next_try_at": "2026-11-29T10:01:00.000Z",
            "attempt": 3})
    );
}
