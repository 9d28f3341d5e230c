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
    /// Further assertions on the final state.
    check: Option<fn(&Inbox)>,
}

fn run(row: Row) {
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
        let in_flight = c.delivery.as_ref().is_some_and(Delivery::is_in_flight);
        let answered_here = in_flight || c.delivery == Some(Delivery::Accepted);
        n.pending += u32::from(c.interaction.status == Status::Pending && !answered_here);
        n.unread += u32::from(c.unread);
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
    if let Some(check) = row.check {
        check(&inbox);
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

fn then(mut first: Vec<Input>, more: Vec<Input>) -> Vec<Input> {
    first.extend(more);
    first
}

/// Effects of `seeded`.
fn seeded_effects() -> Vec<Effect> {
    vec![fetch(None), open(Some("10"))]
}

fn with(mut first: Vec<Effect>, more: Vec<Effect>) -> Vec<Effect> {
    first.extend(more);
    first
}

fn delivery_of(inbox: &Inbox, id: &str) -> Option<Delivery> {
    inbox.card(id).expect("card").delivery
}

#[test]
fn seeding_from_pages() {
    let rows = vec![
        Row {
            name: "page 1 seeds unread cards and opens the stream at its cursor",
            inputs: seeded(vec![ia("b", 2), ia("a", 1)]),
            list: "b:pending a:pending",
            effects: seeded_effects(),
            counts: Some((2, 2, 0)),
            status: Some(ConnectionStatus::Online),
            ..Row::default()
        },
        Row {
            name: "further pages are fetched eagerly; an item on two pages shows once",
            inputs: vec![
                Input::Start,
                loaded(None, page(vec![ia("d", 4), ia("c", 3)], Some("p2"), "10")),
                loaded(
                    Some("p2"),
                    page(vec![ia("c", 3), ia("b", 2)], Some("p3"), "11"),
                ),
                loaded(Some("p3"), page(vec![ia("a", 1)], None, "12")),
            ],
            list: "d:pending c:pending b:pending a:pending",
            effects: vec![
                fetch(None),
                fetch(Some("p2")),
                open(Some("10")),
                fetch(Some("p3")),
            ],
            counts: Some((4, 4, 0)),
            status: Some(ConnectionStatus::Connecting),
            ..Row::default()
        },
        Row {
            name: "an answer for a request nobody made is ignored",
            inputs: vec![
                Input::Start,
                loaded(Some("p9"), page(vec![ia("z", 9)], None, "10")),
                loaded(None, page(vec![ia("a", 1)], Some("p2"), "10")),
                loaded(None, page(vec![ia("y", 9)], None, "10")),
            ],
            list: "a:pending",
            effects: vec![fetch(None), fetch(Some("p2")), open(Some("10"))],
            ..Row::default()
        },
        Row {
            name: "a persisted position newer than page 1's cursor is where the stream resumes",
            resume: Some("15"),
            inputs: vec![
                Input::Start,
                loaded(None, page(vec![ia("a", 1)], None, "10")),
            ],
            list: "a:pending",
            effects: vec![fetch(None), open(Some("15"))],
            check: Some(|inbox| assert_eq!(inbox.last_event_id(), Some("15"))),
            ..Row::default()
        },
        Row {
            name: "an older persisted position gives way to page 1's cursor",
            resume: Some("5"),
            inputs: vec![
                Input::Start,
                loaded(None, page(vec![ia("a", 1)], None, "10")),
            ],
            list: "a:pending",
            effects: vec![fetch(None), open(Some("10"))],
            check: Some(|inbox| assert_eq!(inbox.last_event_id(), Some("10"))),
            ..Row::default()
        },
    ];
    rows.into_iter().for_each(run);
}

#[test]
fn events_and_pages_in_any_order() {
    let rows = vec![
        Row {
            name: "event before page: an add lands before page 2 does",
            inputs: vec![
                Input::Start,
                loaded(None, page(vec![ia("b", 2)], Some("p2"), "10")),
                Input::StreamOpened,
                add("11", ia("c", 3)),
                loaded(Some("p2"), page(vec![ia("a", 1)], None, "10")),
            ],
            list: "c:pending b:pending a:pending",
            effects: vec![
                fetch(None),
                fetch(Some("p2")),
                open(Some("10")),
                notify("c"),
            ],
            counts: Some((3, 3, 0)),
            ..Row::default()
        },
        Row {
            name: "page after event: an answer for a card on a page not loaded yet wins",
            inputs: vec![
                Input::Start,
                loaded(None, page(vec![ia("c", 3)], Some("p2"), "10")),
                Input::StreamOpened,
                answered("11", "b", "alice"),
                loaded(Some("p2"), page(vec![ia("b", 2), ia("a", 1)], None, "10")),
            ],
            list: "c:pending a:pending b:answered",
            effects: vec![fetch(None), fetch(Some("p2")), open(Some("10"))],
            counts: Some((2, 2, 0)),
            check: Some(|inbox| {
                let b = inbox.card("b").unwrap();
                assert_eq!(b.interaction.answer.unwrap().answered_by, "alice");
                assert!(!b.unread);
            }),
            ..Row::default()
        },
        Row {
            name: "duplicate events: the same frame twice, then the same add again after a read",
            inputs: then(
                seeded(vec![ia("a", 1)]),
                vec![
                    add("11", ia("b", 2)),
                    add("11", ia("b", 2)),
                    Input::MarkRead { id: "b".into() },
                    add("12", ia("b", 2)),
                    add("9", ia("old", 0)),
                ],
            ),
            list: "b:pending a:pending",
            effects: with(seeded_effects(), vec![notify("b"), withdraw("b")]),
            counts: Some((2, 1, 0)),
            last_batch: Some(""),
            check: Some(|inbox| assert_eq!(inbox.last_event_id(), Some("12"))),
            ..Row::default()
        },
        Row {
            name: "answered before add: no phantom pending card, and the add shows it final",
            inputs: then(
                seeded(vec![]),
                vec![
                    answered("11", "x", "alice"),
                    removed("12", "y", RemovedReason::Cancelled),
                ],
            ),
            list: "",
            effects: seeded_effects(),
            counts: Some((0, 0, 0)),
            ..Row::default()
        },
        Row {
            name: "answered before add, then the add (or a page) carrying it",
            inputs: then(
                seeded(vec![]),
                vec![
                    answered("11", "x", "alice"),
                    add("12", ia("x", 1)),
                    removed("13", "y", RemovedReason::Expired),
                    Input::Refresh,
                    loaded(None, page(vec![ia("y", 2)], None, "13")),
                ],
            ),
            list: "y:expired x:answered",
            effects: with(seeded_effects(), vec![fetch(None)]),
            counts: Some((0, 0, 0)),
            ..Row::default()
        },
        Row {
            name: "answered elsewhere while the reviewer looks at it: converges, never vanishes",
            inputs: then(
                seeded(vec![]),
                vec![
                    add("11", ia("a", 1)),
                    Input::MarkRead { id: "a".into() },
                    answered("12", "a", "alice"),
                ],
            ),
            list: "a:answered",
            effects: with(seeded_effects(), vec![notify("a"), withdraw("a")]),
            counts: Some((0, 0, 0)),
            last_batch: Some("a"),
            ..Row::default()
        },
        Row {
            name: "every final status converges and stays; a later frame cannot reopen or change it",
            inputs: then(
                seeded(vec![ia("d", 4), ia("c", 3), ia("b", 2), ia("a", 1)]),
                vec![
                    answered("11", "a", "alice"),
                    declined("12", "b", "bob"),
                    removed("13", "c", RemovedReason::Expired),
                    removed("14", "d", RemovedReason::Cancelled),
                    removed("15", "a", RemovedReason::Pruned),
                    add("16", ia("b", 2)),
                ],
            ),
            list: "d:cancelled c:expired b:declined a:answered",
            effects: seeded_effects(),
            counts: Some((0, 0, 0)),
            ..Row::default()
        },
    ];
    rows.into_iter().for_each(run);
}

#[test]
fn refetch_after_reset() {
    let rows = vec![
        Row {
            name: "reset mid-page: an event during the refetch is not undone by older page data",
            inputs: then(
                seeded(vec![ia("b", 2), ia("a", 1)]),
                vec![
                    reset("11"),
                    loaded(None, page(vec![ia("c", 3), ia("b", 2)], Some("r2"), "11")),
                    answered("12", "b", "alice"),
                    add("13", ia("e", 5)),
                    loaded(Some("r2"), page(vec![ia("a", 1)], None, "11")),
                ],
            ),
            list: "e:pending c:pending a:pending b:answered",
            effects: with(
                seeded_effects(),
                vec![fetch(None), fetch(Some("r2")), notify("e"), notify("c")],
            ),
            counts: Some((3, 3, 0)),
            // The merge adds c and touches nothing else: no flicker.
            last_batch: Some("c"),
            ..Row::default()
        },
        Row {
            name: "cards still pending stay put; a vanished card is asked about, not dropped",
            inputs: then(
                seeded(vec![ia("c", 3), ia("b", 2), ia("a", 1)]),
                vec![
                    reset("11"),
                    loaded(
                        None,
                        page(vec![ia("d", 4), ia("c", 3), ia("a", 1)], None, "12"),
                    ),
                ],
            ),
            list: "d:pending c:pending b:pending a:pending",
            effects: with(
                seeded_effects(),
                vec![fetch(None), notify("d"), fetch_one("b")],
            ),
            last_batch: Some("d"),
            ..Row::default()
        },
        Row {
            name: "the vanished card's final state arrives: answered",
            inputs: then(
                seeded(vec![ia("b", 2), ia("a", 1)]),
                vec![
                    reset("11"),
                    loaded(None, page(vec![ia("a", 1)], None, "12")),
                    Input::InteractionFetched {
                        interaction: answered_by(ia("b", 2), "carol"),
                    },
                ],
            ),
            list: "a:pending b:answered",
            effects: with(seeded_effects(), vec![fetch(None), fetch_one("b")]),
            counts: Some((1, 1, 0)),
            ..Row::default()
        },
        Row {
            name: "the vanished card is gone (404): expired",
            inputs: then(
                seeded(vec![ia("b", 2), ia("a", 1)]),
                vec![
                    reset("11"),
                    loaded(None, page(vec![ia("a", 1)], None, "12")),
                    Input::InteractionGone { id: "b".into() },
                ],
            ),
            list: "a:pending b:expired",
            effects: with(seeded_effects(), vec![fetch(None), fetch_one("b")]),
            ..Row::default()
        },
        Row {
            name: "a card added live during the refetch is not mistaken for a vanished one",
            inputs: then(
                seeded(vec![ia("a", 1)]),
                vec![
                    reset("11"),
                    loaded(None, page(vec![ia("a", 1)], Some("r2"), "11")),
                    add("12", ia("n", 9)),
                    loaded(Some("r2"), page(vec![], None, "11")),
                ],
            ),
            list: "n:pending a:pending",
            effects: with(
                seeded_effects(),
                vec![fetch(None), fetch(Some("r2")), notify("n")],
            ),
            last_batch: Some(""),
            ..Row::default()
        },
        Row {
            name: "a second reset while a page is in flight discards it and starts over",
            inputs: then(
                seeded(vec![ia("a", 1)]),
                vec![
                    reset("11"),
                    reset("12"),
                    loaded(None, page(vec![ia("stale", 5)], None, "11")),
                    loaded(None, page(vec![ia("a", 1), ia("b", 2)], None, "12")),
                ],
            ),
            list: "b:pending a:pending",
            effects: with(
                seeded_effects(),
                vec![fetch(None), fetch(None), notify("b")],
            ),
            ..Row::default()
        },
        Row {
            name: "a reset during the first sync turns it into a staged refetch",
            inputs: vec![
                Input::Start,
                loaded(None, page(vec![ia("b", 2)], Some("p2"), "10")),
                Input::StreamOpened,
                reset("11"),
                loaded(Some("p2"), page(vec![ia("a", 1)], None, "10")),
                loaded(None, page(vec![ia("b", 2), ia("a", 1)], None, "11")),
            ],
            list: "b:pending a:pending",
            effects: vec![
                fetch(None),
                fetch(Some("p2")),
                open(Some("10")),
                fetch(None),
                notify("a"),
            ],
            ..Row::default()
        },
        Row {
            name: "after a reset from a server whose ids started over, smaller ids still apply",
            inputs: then(
                seeded(vec![ia("a", 1)]),
                vec![
                    reset("1"),
                    loaded(None, page(vec![ia("a", 1)], None, "1")),
                    add("2", ia("x", 5)),
                ],
            ),
            list: "x:pending a:pending",
            effects: with(seeded_effects(), vec![fetch(None), notify("x")]),
            check: Some(|inbox| assert_eq!(inbox.last_event_id(), Some("2"))),
            ..Row::default()
        },
        Row {
            name: "a reset without an id: the next frame's id becomes the position",
            inputs: then(
                seeded(vec![]),
                vec![
                    Input::StreamEvent {
                        id: None,
                        event: inbox_protocol::StreamEvent::Reset(inbox_protocol::ResetEvent {
                            reason: inbox_protocol::ResetReason::MalformedId,
                        }),
                    },
                    add("3", ia("x", 5)),
                    add("3", ia("x", 5)),
                ],
            ),
            list: "x:pending",
            effects: with(seeded_effects(), vec![fetch(None), notify("x")]),
            check: Some(|inbox| assert_eq!(inbox.last_event_id(), Some("3"))),
            ..Row::default()
        },
        Row {
            name: "a reset is never skipped as a duplicate: a repeated one starts over",
            inputs: then(
                seeded(vec![]),
                vec![
                    reset("11"),
                    reset("11"),
                    loaded(None, page(vec![], None, "11")),
                    loaded(None, page(vec![ia("a", 1)], None, "11")),
                ],
            ),
            list: "a:pending",
            effects: with(
                seeded_effects(),
                vec![fetch(None), fetch(None), notify("a")],
            ),
            ..Row::default()
        },
        Row {
            name: "a persisted position from before the server's store was wiped recovers",
            resume: Some("500"),
            inputs: vec![
                Input::Start,
                loaded(None, page(vec![ia("a", 1)], None, "3")),
                Input::StreamOpened,
                // The server never issued 500: it falls back to its tail and says so.
                reset("3"),
                loaded(None, page(vec![ia("a", 1)], None, "3")),
                add("4", ia("b", 2)),
            ],
            list: "b:pending a:pending",
            effects: vec![fetch(None), open(Some("500")), fetch(None), notify("b")],
            check: Some(|inbox| assert_eq!(inbox.last_event_id(), Some("4"))),
            ..Row::default()
        },
        Row {
            name: "a dismissed card is not brought back by a stale page",
            inputs: then(
                seeded(vec![ia("a", 1)]),
                vec![
                    answered("11", "a", "alice"),
                    Input::Dismiss { id: "a".into() },
                    Input::Refresh,
                    loaded(None, page(vec![ia("a", 1)], None, "11")),
                ],
            ),
            list: "",
            effects: with(seeded_effects(), vec![fetch(None)]),
            ..Row::default()
        },
        Row {
            name: "an open card cannot be dismissed",
            inputs: then(
                seeded(vec![ia("a", 1)]),
                vec![Input::Dismiss { id: "a".into() }],
            ),
            list: "a:pending",
            effects: seeded_effects(),
            last_batch: Some(""),
            ..Row::default()
        },
    ];
    rows.into_iter().for_each(run);
}

#[test]
fn connection_and_expiry() {
    let in_five = at(5);
    let rows = vec![
        Row {
            name: "expiry while offline shows expired locally until the server confirms",
            inputs: then(
                seeded(vec![expiring(ia("a", 1), 5), ia("b", 2)]),
                vec![
                    Input::StreamDropped {
                        failure: Failure::Offline,
                    },
                    Input::Tick { now: at(4) },
                    Input::Tick { now: at(6) },
                ],
            ),
            list: "b:pending a:expired",
            effects: seeded_effects(),
            counts: Some((1, 1, 0)),
            status: Some(ConnectionStatus::Offline),
            check: Some(|inbox| {
                assert!(inbox.card("a").unwrap().expired_locally);
                assert_eq!(inbox.next_deadline(), None);
            }),
            ..Row::default()
        },
        Row {
            name: "the local expiry survives a stale page and is confirmed by the server",
            inputs: then(
                seeded(vec![expiring(ia("a", 1), 5)]),
                vec![
                    Input::StreamDropped {
                        failure: Failure::Offline,
                    },
                    Input::Tick { now: at(6) },
                    Input::Retry,
                    Input::StreamOpened,
                    Input::Refresh,
                    loaded(None, page(vec![expiring(ia("a", 1), 5)], None, "10")),
                    removed("11", "a", RemovedReason::Expired),
                ],
            ),
            list: "a:expired",
            effects: with(seeded_effects(), vec![open(Some("10")), fetch(None)]),
            status: Some(ConnectionStatus::Online),
            check: Some(|inbox| assert!(!inbox.card("a").unwrap().expired_locally)),
            ..Row::default()
        },
        Row {
            name: "a clock set back reopens a card it had expired here, and it expires again later",
            inputs: then(
                seeded(vec![expiring(ia("a", 1), 5), ia("b", 2)]),
                vec![
                    // The clock runs hours ahead, then is corrected.
                    Input::Tick { now: at(300) },
                    Input::Tick { now: at(3) },
                ],
            ),
            list: "b:pending a:pending",
            effects: seeded_effects(),
            // Its local expiry marked it read; reopening does not make it unread again.
            counts: Some((2, 1, 0)),
            check: Some(|inbox| {
                assert!(!inbox.card("a").unwrap().expired_locally);
                assert_eq!(inbox.next_deadline(), Some(at(5)));
                let mut again = inbox.clone();
                again.handle(Input::Tick { now: at(6) });
                assert!(again.card("a").unwrap().expired_locally);
            }),
            ..Row::default()
        },
        Row {
            name: "a question arriving after its deadline passed here shows expired at once",
            inputs: then(
                seeded(vec![]),
                vec![
                    Input::Tick { now: at(9) },
                    add("11", expiring(ia("a", 1), 5)),
                ],
            ),
            list: "a:expired",
            effects: seeded_effects(),
            counts: Some((0, 0, 0)),
            ..Row::default()
        },
        Row {
            name: "a drop says when the next try is, and the retry resumes from the last id",
            inputs: then(
                seeded(vec![]),
                vec![
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
                ],
            ),
            list: "a:pending",
            effects: with(seeded_effects(), vec![notify("a"), open(Some("11"))]),
            status: Some(ConnectionStatus::Connecting),
            ..Row::default()
        },
        Row {
            name: "reconnecting counts the attempts and tells when the next one is",
            inputs: then(
                seeded(vec![]),
                vec![
                    Input::StreamDropped {
                        failure: Failure::Transient { retry_at: in_five },
                    },
                    Input::Retry,
                    Input::StreamDropped {
                        failure: Failure::Transient { retry_at: in_five },
                    },
                ],
            ),
            list: "",
            effects: with(seeded_effects(), vec![open(Some("10"))]),
            status: Some(ConnectionStatus::Reconnecting {
                next_try_at: "2026-11-29T10:05:00.000Z".into(),
                attempt: 2,
            }),
            ..Row::default()
        },
        Row {
            name: "a failed first page is retried with the same cursor",
            inputs: vec![
                Input::Start,
                Input::PageFailed {
                    cursor_requested: None,
                    failure: Failure::Offline,
                },
                Input::Retry,
                loaded(None, page(vec![ia("a", 1)], None, "10")),
            ],
            list: "a:pending",
            effects: vec![fetch(None), fetch(None), open(Some("10"))],
            status: Some(ConnectionStatus::Connecting),
            ..Row::default()
        },
        Row {
            name: "signed out closes the stream and nothing is retried until Start",
            inputs: then(
                seeded(vec![ia("a", 1)]),
                vec![
                    Input::Refresh,
                    Input::PageFailed {
                        cursor_requested: None,
                        failure: Failure::SignedOut,
                    },
                    Input::Retry,
                    Input::StreamDropped {
                        failure: Failure::Offline,
                    },
                ],
            ),
            list: "a:pending",
            effects: with(seeded_effects(), vec![fetch(None), Effect::CloseStream]),
            status: Some(ConnectionStatus::SignedOut),
            ..Row::default()
        },
        Row {
            name: "signing in again refetches and reopens the stream",
            inputs: then(
                seeded(vec![ia("a", 1)]),
                vec![
                    Input::StreamDropped {
                        failure: Failure::SignedOut,
                    },
                    Input::Start,
                    loaded(None, page(vec![ia("a", 1)], None, "12")),
                    Input::StreamOpened,
                ],
            ),
            list: "a:pending",
            effects: with(seeded_effects(), vec![fetch(None), open(Some("10"))]),
            status: Some(ConnectionStatus::Online),
            ..Row::default()
        },
    ];
    rows.into_iter().for_each(run);
}

#[test]
fn answers_and_their_delivery() {
    let queued_offline = || {
        then(
            seeded(vec![ia("a", 1)]),
            vec![
                Input::StreamDropped {
                    failure: Failure::Offline,
                },
                Input::AnswerQueued {
                    id: "a".into(),
                    value: Value::Bool(true),
                },
            ],
        )
    };
    let rows = vec![
        Row {
            name: "an answer made offline shows queued and leaves the tray count",
            inputs: queued_offline(),
            list: "a:pending",
            effects: seeded_effects(),
            counts: Some((0, 0, 1)),
            check: Some(|inbox| {
                let a = inbox.card("a").unwrap();
                assert_eq!(a.delivery, Some(Delivery::Queued));
                assert_eq!(
                    a.outgoing,
                    Some(Outgoing::Answer {
                        value: Value::Bool(true)
                    })
                );
            }),
            ..Row::default()
        },
        Row {
            name: "queued → sending → accepted",
            inputs: then(
                queued_offline(),
                vec![
                    Input::Retry,
                    Input::StreamOpened,
                    Input::AnswerSending { id: "a".into() },
                    Input::AnswerVerdict {
                        id: "a".into(),
                        verdict: Verdict::Accepted {
                            interaction: answered_by(ia("a", 1), "me"),
                        },
                    },
                ],
            ),
            list: "a:answered",
            effects: with(seeded_effects(), vec![open(Some("10"))]),
            counts: Some((0, 0, 0)),
            check: Some(|inbox| assert_eq!(delivery_of(inbox, "a"), Some(Delivery::Accepted))),
            ..Row::default()
        },
        Row {
            name: "queued → already answered: the winner is recorded and shown",
            inputs: then(
                queued_offline(),
                vec![
                    Input::Retry,
                    Input::StreamOpened,
                    answered("11", "a", "alice"),
                    Input::AnswerSending { id: "a".into() },
                    Input::AnswerVerdict {
                        id: "a".into(),
                        verdict: Verdict::AlreadyAnswered {
                            winner: answered_by(ia("a", 1), "alice"),
                        },
                    },
                ],
            ),
            list: "a:answered",
            effects: with(seeded_effects(), vec![open(Some("10"))]),
            counts: Some((0, 0, 0)),
            check: Some(|inbox| {
                let a = inbox.card("a").unwrap();
                let Some(Delivery::Rejected {
                    code,
                    message,
                    winner,
                }) = a.delivery
                else {
                    panic!("not rejected: {:?}", a.delivery);
                };
                assert_eq!(code, ErrorCode::AlreadyAnswered);
                assert_eq!(message, "already answered by alice");
                assert_eq!(winner.unwrap().answered_by, "alice");
                assert_eq!(a.interaction.answer.unwrap().answered_by, "alice");
            }),
            ..Row::default()
        },
        Row {
            name: "queued → gone: the question expired meanwhile",
            inputs: then(
                queued_offline(),
                vec![
                    Input::AnswerSending { id: "a".into() },
                    Input::AnswerVerdict {
                        id: "a".into(),
                        verdict: Verdict::Gone,
                    },
                ],
            ),
            list: "a:expired",
            effects: seeded_effects(),
            counts: Some((0, 0, 0)),
            check: Some(|inbox| {
                let Some(Delivery::Rejected { code, winner, .. }) = delivery_of(inbox, "a") else {
                    panic!("not rejected");
                };
                assert_eq!(code, ErrorCode::NotFound);
                assert_eq!(winner, None);
            }),
            ..Row::default()
        },
        Row {
            name: "an invalid answer is refused and the card stays open for another try",
            inputs: then(
                seeded(vec![ia("a", 1)]),
                vec![
                    Input::DeclineQueued {
                        id: "a".into(),
                        reason: Some("not now".into()),
                    },
                    Input::AnswerSending { id: "a".into() },
                    Input::AnswerVerdict {
                        id: "a".into(),
                        verdict: Verdict::Rejected {
                            code: ErrorCode::InvalidAnswer,
                            message: "expected a boolean".into(),
                        },
                    },
                ],
            ),
            list: "a:pending",
            effects: seeded_effects(),
            counts: Some((1, 0, 0)),
            ..Row::default()
        },
        Row {
            name: "a verdict on an answer queued in an earlier run brings its card back",
            inputs: then(
                seeded(vec![]),
                vec![Input::AnswerVerdict {
                    id: "earlier".into(),
                    verdict: Verdict::Accepted {
                        interaction: answered_by(ia("earlier", 1), "me"),
                    },
                }],
            ),
            list: "earlier:answered",
            effects: seeded_effects(),
            counts: Some((0, 0, 0)),
            last_batch: Some("earlier"),
            check: Some(|inbox| {
                let card = inbox.card("earlier").unwrap();
                assert_eq!(card.delivery, Some(Delivery::Accepted));
                assert!(!card.unread, "a resolved card is not unread");
            }),
            ..Row::default()
        },
        Row {
            name: "…and when somebody else was first, the winner shows on it",
            inputs: then(
                seeded(vec![]),
                vec![Input::AnswerVerdict {
                    id: "earlier".into(),
                    verdict: Verdict::AlreadyAnswered {
                        winner: answered_by(ia("earlier", 1), "alice"),
                    },
                }],
            ),
            list: "earlier:answered",
            effects: seeded_effects(),
            check: Some(|inbox| match &inbox.card("earlier").unwrap().delivery {
                Some(Delivery::Rejected { code, winner, .. }) => {
                    assert_eq!(*code, ErrorCode::AlreadyAnswered);
                    assert_eq!(winner.as_ref().unwrap().answered_by, "alice");
                }
                other => panic!("expected the winner on the card, got {other:?}"),
            }),
            ..Row::default()
        },
        Row {
            name: "a verdict without a body for a card that is not there changes nothing",
            inputs: then(
                seeded(vec![]),
                vec![Input::AnswerVerdict {
                    id: "ghost".into(),
                    verdict: Verdict::Gone,
                }],
            ),
            list: "",
            effects: seeded_effects(),
            last_batch: Some(""),
            ..Row::default()
        },
    ];
    rows.into_iter().for_each(run);
}

#[test]
fn ordering_and_unread() {
    let rows = vec![
        Row {
            name: "a late arrival slots into its place; open cards first, newest first",
            inputs: then(
                seeded(vec![ia("c", 3), ia("a", 1)]),
                vec![
                    add("11", ia("b", 2)),
                    answered("12", "c", "alice"),
                    add("13", ia("z", 0)),
                ],
            ),
            list: "b:pending a:pending z:pending c:answered",
            effects: with(seeded_effects(), vec![notify("b"), notify("z")]),
            ..Row::default()
        },
        Row {
            name: "equal created_at: the greater id first, whatever the arrival order",
            inputs: then(
                seeded(vec![ia("m", 1)]),
                vec![add("11", ia("z", 1)), add("12", ia("a", 1))],
            ),
            list: "z:pending m:pending a:pending",
            effects: with(seeded_effects(), vec![notify("z"), notify("a")]),
            ..Row::default()
        },
        Row {
            name: "unread: seeded and live cards are unread; read, resolve and mark all clear it",
            inputs: then(
                seeded(vec![ia("b", 2), ia("a", 1)]),
                vec![
                    add("11", ia("c", 3)),
                    Input::MarkRead { id: "a".into() },
                    Input::MarkRead { id: "a".into() },
                    answered("12", "b", "alice"),
                ],
            ),
            list: "c:pending a:pending b:answered",
            effects: with(seeded_effects(), vec![notify("c")]),
            counts: Some((2, 1, 0)),
            ..Row::default()
        },
        Row {
            name: "mark all read withdraws live notifications",
            inputs: then(
                seeded(vec![ia("a", 1)]),
                vec![add("11", ia("c", 3)), Input::MarkAllRead],
            ),
            list: "c:pending a:pending",
            effects: with(seeded_effects(), vec![notify("c"), withdraw("c")]),
            counts: Some((2, 0, 0)),
            ..Row::default()
        },
    ];
    rows.into_iter().for_each(run);
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
    assert!(!merged.upserted[0].unread);
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
