//! The engine's badge numbers, recorded for the window: `ui/src/generated/engineCountScript.json`
//! and `ui/src/generated/engineCountShares.json`.
//!
//! The counts (pending, unread, queued, notifications unread) are defined once, by
//! `Entry::counts` and the notification board, and the window only renders them. So that the
//! UI's tests and its in-memory backend never need a rule of their own, this drives the real
//! machine and writes down what it reported:
//! - the script: one account through a scripted day (questions arrive, one is answered while the
//!   answer is in flight, the account goes offline, a deadline passes, answers are confirmed, a
//!   notification arrives and is opened): the snapshot a window attaching at the start reads,
//!   then every change batch with the engine's own counts after it. `ui/src/components/
//!   engineCounts.test.tsx` replays it through the real App and checks the sidebar step by step.
//! - the shares: one card (or notification) in each state the machine can put it in, with that
//!   card's share of the counts; the UI's fake backend sums these instead of guessing.
//!
//! The committed files must be what the engine records now (the test below fails otherwise);
//! refresh them with `scripts/generate-ts.sh` (or `INBOX_WRITE_FIXTURES=1 cargo test -p inbox-sync
//! --test engine_counts`).

use std::path::PathBuf;

use chrono::{DateTime, Duration, TimeZone, Utc};
use inbox_protocol::{
    AnswerFormat, AnsweredEvent, ErrorCode, Interaction, InteractionPage, Notification,
    RemovedEvent, RemovedReason, Status, StreamEvent,
};
use inbox_sync::{Card, Changes, Counts, Failure, Inbox, Input, Snapshot, Verdict};
use serde::Serialize;
use serde_json::{Value, json};

const ACCOUNT: &str = "work";

/// 09:00 on the day of the script; every time is minutes after it.
fn at(minute: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 1, 9, 0, 0).unwrap() + Duration::minutes(minute)
}

/// A pending confirm question created at `minute`, as the server sends it.
fn question(id: &str, minute: i64, prompt: &str) -> Interaction {
    Interaction::builder(id)
        .prompt(prompt)
        .format(AnswerFormat::Confirm)
        .asker("deploy-bot")
        .created_at(at(minute))
        .build()
}

fn expiring(mut interaction: Interaction, minute: i64) -> Interaction {
    interaction.expires_at = Some(at(minute));
    interaction
}

/// The question as the server holds it once the reviewer's answer (or decline) was recorded.
fn resolved(mut interaction: Interaction, status: Status, value: Value) -> Interaction {
    interaction.status = status;
    interaction.answer = Some(
        serde_json::from_value(json!({
            "value": value,
            "answered_by": "you",
            "answered_at": at(30),
            "params": null,
            "reason": null,
        }))
        .expect("a well-formed answer"),
    );
    interaction
}

fn notification(id: &str, minute: i64) -> Notification {
    serde_json::from_value(json!({
        "id": id,
        "asker": "deploy-bot",
        "prompt": "Build 42 is live",
        "body": null,
        "media": [],
        "schema": null,
        "data": null,
        "metadata": {},
        "created_at": at(minute),
        "read_at": null,
        "dismissed_at": null,
        "submissions": 0,
    }))
    .expect("a well-formed notification")
}

fn page(items: Vec<Interaction>) -> Input {
    Input::PageLoaded {
        page: InteractionPage {
            items,
            next_cursor: None,
            stream_cursor: "100".to_owned(),
        },
        cursor_requested: None,
    }
}

fn frame(sse: u32, event: StreamEvent) -> Input {
    Input::StreamEvent {
        id: Some(sse.to_string()),
        event,
    }
}

/// An inbox that finished its first sync with `items` and is online.
fn synced(items: Vec<Interaction>) -> Inbox {
    let mut inbox = Inbox::new(ACCOUNT);
    inbox.handle(Input::Tick { now: at(0) });
    inbox.handle(Input::Start);
    inbox.handle(page(items));
    inbox.handle(Input::StreamOpened);
    inbox
}

#[derive(Serialize)]
struct Step {
    /// What happened, in the reviewer's words.
    label: &'static str,
    /// The batch the engine emitted for it (what the desktop app forwards to the window).
    changes: Changes,
    /// The engine's own counts after it (what the tray shows).
    counts: Counts,
}

#[derive(Serialize)]
struct Script {
    generated_by: &'static str,
    /// What a window attaching before the first step reads.
    snapshot: Snapshot,
    steps: Vec<Step>,
}

/// One card in one state the machine put it in, and its share of the counts.
#[derive(Serialize)]
struct CardShare {
    label: &'static str,
    card: Card,
    counts: Counts,
}

#[derive(Serialize)]
struct NotificationShare {
    label: &'static str,
    notification: Notification,
    counts: Counts,
}

#[derive(Serialize)]
struct Shares {
    generated_by: &'static str,
    cards: Vec<CardShare>,
    notifications: Vec<NotificationShare>,
}

const GENERATED_BY: &str =
    "cargo test -p inbox-sync --test engine_counts (INBOX_WRITE_FIXTURES=1 writes it)";

fn script() -> Script {
    let deploy = question("ia_deploy", 1, "Deploy build 42 to production?");
    let rotate = expiring(question("ia_rotate", 2, "Rotate the staging keys?"), 20);
    let migrate = question("ia_migrate", 3, "Run the schema migration?");
    let purge = question("ia_purge", 5, "Purge the CDN cache?");

    let mut inbox = synced(vec![deploy.clone(), rotate.clone(), migrate.clone()]);
    let snapshot = inbox.snapshot();
    let mut steps = Vec::new();
    let mut step = |inbox: &mut Inbox, label: &'static str, inputs: Vec<Input>| {
        let batches = inputs.into_iter().map(|input| inbox.handle(input).changes);
        let changes = Changes::coalesce(batches).expect("each step has an input");
        assert_eq!(
            changes.counts,
            inbox.counts(),
            "{label}: a batch carries the absolute counts"
        );
        steps.push(Step {
            label,
            changes,
            counts: inbox.counts(),
        });
    };

    step(
        &mut inbox,
        "a question arrives live",
        vec![frame(101, StreamEvent::Add(purge.clone()))],
    );
    step(
        &mut inbox,
        "the reviewer opens the deploy question",
        vec![Input::MarkRead {
            id: "ia_deploy".into(),
        }],
    );
    step(
        &mut inbox,
        "the reviewer answers it: the answer is in flight",
        vec![
            Input::AnswerQueued {
                id: "ia_deploy".into(),
                value: Value::Bool(true),
            },
            Input::AnswerSending {
                id: "ia_deploy".into(),
            },
        ],
    );
    step(
        &mut inbox,
        "the network goes away",
        vec![Input::StreamDropped {
            failure: Failure::Offline,
        }],
    );
    step(
        &mut inbox,
        "offline, the reviewer declines the migration: queued",
        vec![Input::DeclineQueued {
            id: "ia_migrate".into(),
            reason: Some("not during the freeze".into()),
        }],
    );
    step(
        &mut inbox,
        "the key rotation's deadline passes on this machine",
        vec![Input::Tick { now: at(21) }],
    );
    step(
        &mut inbox,
        "the network is back",
        vec![Input::Retry, Input::StreamOpened],
    );
    step(
        &mut inbox,
        "the server confirms the deploy answer",
        vec![Input::AnswerVerdict {
            id: "ia_deploy".into(),
            verdict: Verdict::Accepted {
                interaction: resolved(deploy, Status::Answered, Value::Bool(true)),
            },
        }],
    );
    step(
        &mut inbox,
        "the server confirms the key rotation expired",
        vec![frame(
            102,
            StreamEvent::Removed(RemovedEvent {
                id: "ia_rotate".into(),
                reason: RemovedReason::Expired,
            }),
        )],
    );
    step(
        &mut inbox,
        "the decline goes out and is confirmed",
        vec![
            Input::AnswerSending {
                id: "ia_migrate".into(),
            },
            Input::AnswerVerdict {
                id: "ia_migrate".into(),
                verdict: Verdict::Accepted {
                    interaction: resolved(migrate, Status::Declined, Value::Null),
                },
            },
        ],
    );
    step(
        &mut inbox,
        "a notification arrives",
        vec![frame(
            103,
            StreamEvent::NotificationAdded(notification("nt_live", 22)),
        )],
    );
    step(
        &mut inbox,
        "somebody else answers the cache purge",
        vec![frame(
            104,
            StreamEvent::Answered(AnsweredEvent {
                id: "ia_purge".into(),
                status: Status::Answered,
                answer: resolved(purge, Status::Answered, Value::Bool(false))
                    .answer
                    .expect("an answer"),
            }),
        )],
    );
    step(
        &mut inbox,
        "the reviewer opens the notification",
        vec![Input::OpenNotification {
            id: "nt_live".into(),
        }],
    );
    Script {
        generated_by: GENERATED_BY,
        snapshot,
        steps,
    }
}

/// A one-card inbox brought into a state by real inputs, and that card's share of the counts.
fn card_share(label: &'static str, interaction: Interaction, then: Vec<Input>) -> CardShare {
    let id = interaction.id.clone();
    let mut inbox = synced(vec![interaction]);
    for input in then {
        inbox.handle(input);
    }
    CardShare {
        label,
        card: inbox.card(&id).expect("the card is still listed"),
        counts: inbox.counts(),
    }
}

fn card_shares() -> Vec<CardShare> {
    let q = || question("ia_one", 1, "Ship it?");
    let id = || "ia_one".to_owned();
    let answered = || resolved(q(), Status::Answered, Value::Bool(true));
    let declined = || resolved(q(), Status::Declined, Value::Null);
    let queue = || Input::AnswerQueued {
        id: id(),
        value: Value::Bool(true),
    };
    let verdict = |verdict| Input::AnswerVerdict { id: id(), verdict };
    let removed = |sse, reason| frame(sse, StreamEvent::Removed(RemovedEvent { id: id(), reason }));
    vec![
        card_share("new, not yet opened", q(), vec![]),
        card_share("opened", q(), vec![Input::MarkRead { id: id() }]),
        card_share("answer queued", q(), vec![queue()]),
        card_share(
            "decline queued",
            q(),
            vec![Input::DeclineQueued {
                id: id(),
                reason: None,
            }],
        ),
        card_share(
            "answer being sent",
            q(),
            vec![queue(), Input::AnswerSending { id: id() }],
        ),
        card_share(
            "answer accepted",
            q(),
            vec![
                queue(),
                verdict(Verdict::Accepted {
                    interaction: answered(),
                }),
            ],
        ),
        card_share(
            "decline accepted",
            q(),
            vec![
                Input::DeclineQueued {
                    id: id(),
                    reason: None,
                },
                verdict(Verdict::Accepted {
                    interaction: declined(),
                }),
            ],
        ),
        card_share(
            "answer refused, open for another try",
            q(),
            vec![
                queue(),
                verdict(Verdict::Rejected {
                    code: ErrorCode::InvalidAnswer,
                    message: "not a boolean".into(),
                }),
            ],
        ),
        card_share(
            "somebody else was first",
            q(),
            vec![
                queue(),
                verdict(Verdict::AlreadyAnswered { winner: answered() }),
            ],
        ),
        card_share(
            "somebody else declined first",
            q(),
            vec![
                queue(),
                verdict(Verdict::AlreadyAnswered { winner: declined() }),
            ],
        ),
        card_share(
            "the asker withdrew it first",
            q(),
            vec![
                queue(),
                verdict(Verdict::AlreadyAnswered {
                    winner: Interaction {
                        status: Status::Cancelled,
                        ..q()
                    },
                }),
            ],
        ),
        card_share(
            "answered elsewhere",
            q(),
            vec![frame(
                101,
                StreamEvent::Answered(AnsweredEvent {
                    id: id(),
                    status: Status::Answered,
                    answer: answered().answer.expect("an answer"),
                }),
            )],
        ),
        card_share(
            "declined elsewhere",
            q(),
            vec![frame(
                101,
                StreamEvent::Answered(AnsweredEvent {
                    id: id(),
                    status: Status::Declined,
                    answer: declined().answer.expect("an answer"),
                }),
            )],
        ),
        card_share(
            "expired on this machine's clock",
            expiring(q(), 10),
            vec![Input::Tick { now: at(11) }],
        ),
        card_share("expired", q(), vec![removed(101, RemovedReason::Expired)]),
        card_share(
            "withdrawn by the asker",
            q(),
            vec![removed(101, RemovedReason::Cancelled)],
        ),
        card_share(
            "answered while gone",
            q(),
            vec![queue(), verdict(Verdict::Gone)],
        ),
    ]
}

fn notification_shares() -> Vec<NotificationShare> {
    let share = |label, open: bool| {
        let mut inbox = synced(vec![]);
        inbox.handle(frame(
            101,
            StreamEvent::NotificationAdded(notification("nt_one", 1)),
        ));
        if open {
            inbox.handle(Input::OpenNotification {
                id: "nt_one".into(),
            });
        }
        NotificationShare {
            label,
            notification: inbox.notifications().remove(0),
            counts: inbox.counts(),
        }
    };
    vec![share("not yet opened", false), share("opened", true)]
}

fn pretty(value: &impl Serialize) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("serialise the recording");
    text.push('\n');
    text
}

/// Each committed file under `ui/src/generated/` and what the engine records for it now.
fn recordings() -> Vec<(&'static str, String)> {
    let shares = Shares {
        generated_by: GENERATED_BY,
        cards: card_shares(),
        notifications: notification_shares(),
    };
    vec![
        ("engineCountScript.json", pretty(&script())),
        ("engineCountShares.json", pretty(&shares)),
    ]
}

#[test]
fn pending_leaves_out_answers_in_flight_and_local_expiry() {
    let script = script();
    let counts = |label: &str| {
        script
            .steps
            .iter()
            .find(|s| s.label == label)
            .unwrap_or_else(|| panic!("no step {label}"))
            .counts
    };
    assert_eq!(script.snapshot.counts.pending, 3);
    assert_eq!(counts("a question arrives live").pending, 4);
    let sending = counts("the reviewer answers it: the answer is in flight");
    assert_eq!((sending.pending, sending.queued), (3, 1));
    let queued = counts("offline, the reviewer declines the migration: queued");
    assert_eq!((queued.pending, queued.queued), (2, 2));
    assert_eq!(
        counts("the key rotation's deadline passes on this machine").pending,
        1
    );
    let confirmed = counts("the decline goes out and is confirmed");
    assert_eq!((confirmed.pending, confirmed.queued), (1, 0));
    let last = script.steps.last().expect("steps").counts;
    assert_eq!((last.pending, last.unread, last.queued), (0, 0, 0));
    assert_eq!(
        counts("a notification arrives").notifications_unread,
        1,
        "the notification counts until it is opened"
    );
    assert_eq!(last.notifications_unread, 0);
}

#[test]
fn every_card_share_is_a_distinct_state() {
    let shares = card_shares();
    for (i, a) in shares.iter().enumerate() {
        for b in &shares[i + 1..] {
            assert_ne!(
                a.card, b.card,
                "{} and {} are the same card",
                a.label, b.label
            );
        }
    }
}

#[test]
fn committed_recordings_are_fresh() {
    // Read at run time, not baked in with `env!`: the build dir is shared between checkouts, and
    // a test binary built from another checkout of the same sources is reused as it is, with that
    // checkout's path inside (seen: a recording "stale" only because its path did not exist here).
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").expect("run by cargo");
    let dir = PathBuf::from(manifest).join("../../ui/src/generated");
    let write = std::env::var_os("INBOX_WRITE_FIXTURES").is_some();
    for (name, fresh) in recordings() {
        let path = dir.join(name);
        if write {
            std::fs::write(&path, &fresh).expect("write the recording");
            continue;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == fresh,
            "ui/src/generated/{name} is stale: run \
             `INBOX_WRITE_FIXTURES=1 cargo test -p inbox-sync --test engine_counts`"
        );
    }
}
