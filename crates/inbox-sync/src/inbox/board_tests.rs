//! The notifications board as tables: each row is a sequence of inputs, the outstanding
//! notifications afterwards (`id` or `id*` when unread, with `:n` submissions when any, newest
//! first) and every notification effect asked of the driver. The runner also folds every
//! batch into a UI copy, one by one and coalesced, and checks both match the machine.

use inbox_protocol::{Notification, StreamEvent, Submission};
use serde_json::json;

use super::fixture::*;
use crate::{Changes, Effect, Inbox, Input};

fn nt(id: &str, minute: i64) -> Notification {
    Notification {
        id: id.to_owned(),
        asker: "deploy-bot".into(),
        prompt: format!("Note {id}"),
        body: None,
        media: vec![],
        schema: Some(json!({"type": "object", "properties": {"ok": {"type": "boolean"}}})),
        data: None,
        metadata: Default::default(),
        created_at: at(minute),
        read_at: None,
        dismissed_at: None,
        submissions: 0,
    }
}

fn read(mut n: Notification, minute: i64) -> Notification {
    n.read_at = Some(at(minute));
    n
}

fn dismissed(mut n: Notification, minute: i64) -> Notification {
    n.read_at.get_or_insert(at(minute));
    n.dismissed_at = Some(at(minute));
    n
}

fn added(sse: &str, n: Notification) -> Input {
    event(sse, StreamEvent::NotificationAdded(n))
}

fn updated(sse: &str, n: Notification) -> Input {
    event(sse, StreamEvent::NotificationUpdated(n))
}

fn submitted(sse: &str, id: &str, ordinal: u32) -> Input {
    event(
        sse,
        StreamEvent::Submitted(Submission {
            id: format!("sb_{ordinal}"),
            notification_id: id.to_owned(),
            asker: "deploy-bot".into(),
            value: json!({"ok": true}),
            submitted_by: "alice".into(),
            submitted_at: at(30),
            ordinal,
        }),
    )
}

/// The reviewer opens notification `id` in the window.
fn open(id: &str) -> Input {
    Input::OpenNotification { id: id.into() }
}

/// The reviewer dismisses notification `id` in the window.
fn dismiss(id: &str) -> Input {
    Input::DismissNotification { id: id.into() }
}

fn loaded_list(items: Vec<Notification>) -> Input {
    Input::NotificationsLoaded { items }
}

fn shown(list: &[Notification]) -> String {
    list.iter()
        .map(|n| {
            let mut word = n.id.clone();
            if n.read_at.is_none() {
                word.push('*');
            }
            if n.submissions > 0 {
                word.push_str(&format!(":{}", n.submissions));
            }
            word
        })
        .collect::<Vec<_>>()
        .join(" ")
}

struct Row {
    name: &'static str,
    inputs: Vec<Input>,
    board: &'static str,
    /// Only the notification effects (the card effects have their own tables).
    effects: Vec<Effect>,
}

fn run(row: Row) {
    let name = row.name;
    let mut inbox = Inbox::new("work");
    let mut ui: Vec<Notification> = Vec::new();
    let mut batches = Vec::new();
    let mut effects = Vec::new();
    for input in row.inputs {
        let outcome = inbox.handle(input);
        if let Some(list) = &outcome.changes.notifications {
            ui = list.clone();
        }
        effects.extend(outcome.effects.into_iter().filter(|e| {
            matches!(
                e,
                Effect::MarkNotificationRead { .. } | Effect::DismissNotification { .. }
            )
        }));
        batches.push(outcome.changes);
    }
    let list = inbox.notifications();
    assert_eq!(shown(&list), row.board, "{name}: board");
    assert_eq!(effects, row.effects, "{name}: effects");
    assert_eq!(ui, list, "{name}: the UI copy drifted");
    let coalesced = Changes::coalesce(batches).unwrap_or_default();
    assert_eq!(
        coalesced.notifications.unwrap_or_default(),
        list,
        "{name}: coalesced"
    );
    let unread = u32::try_from(list.iter().filter(|n| n.read_at.is_none()).count()).unwrap();
    assert_eq!(inbox.counts().notifications_unread, unread, "{name}: count");
    assert_eq!(inbox.snapshot().notifications, list, "{name}: snapshot");
}

#[test]
fn the_board_follows_the_stream_the_list_and_the_reviewer() {
    let rows = vec![
        Row {
            name: "live adds show newest first, unread",
            inputs: vec![added("1", nt("nt_a", 1)), added("2", nt("nt_b", 2))],
            board: "nt_b* nt_a*",
            effects: vec![],
        },
        Row {
            name: "a list read seeds the board",
            inputs: vec![
                Input::NotificationsFetching,
                loaded_list(vec![read(nt("nt_b", 2), 3), nt("nt_a", 1)]),
            ],
            board: "nt_b nt_a*",
            effects: vec![],
        },
        Row {
            name: "opening marks read here at once and tells the server once",
            inputs: vec![added("1", nt("nt_a", 1)), open("nt_a"), open("nt_a")],
            board: "nt_a",
            effects: vec![Effect::MarkNotificationRead { id: "nt_a".into() }],
        },
        Row {
            name: "opening one already read elsewhere asks nothing",
            inputs: vec![
                added("1", nt("nt_a", 1)),
                updated("2", read(nt("nt_a", 1), 4)),
                open("nt_a"),
            ],
            board: "nt_a",
            effects: vec![],
        },
        Row {
            name: "dismissing removes it here at once and tells the server",
            inputs: vec![
                added("1", nt("nt_a", 1)),
                added("2", nt("nt_b", 2)),
                dismiss("nt_a"),
                dismiss("nt_a"),
            ],
            board: "nt_b*",
            effects: vec![Effect::DismissNotification { id: "nt_a".into() }],
        },
        Row {
            name: "dismissed in another window: the update removes it",
            inputs: vec![
                added("1", nt("nt_a", 1)),
                updated("2", dismissed(nt("nt_a", 1), 5)),
            ],
            board: "",
            effects: vec![],
        },
        Row {
            name: "a list read before a dismissal cannot bring it back",
            inputs: vec![
                added("1", nt("nt_a", 1)),
                Input::NotificationsFetching,
                updated("2", dismissed(nt("nt_a", 1), 5)),
                loaded_list(vec![nt("nt_a", 1)]),
            ],
            board: "",
            effects: vec![],
        },
        Row {
            name: "one added live while the list is read is kept though the list lacks it",
            inputs: vec![
                Input::NotificationsFetching,
                added("1", nt("nt_new", 9)),
                loaded_list(vec![nt("nt_a", 1)]),
            ],
            board: "nt_new* nt_a*",
            effects: vec![],
        },
        Row {
            name: "one held but absent from a later list is gone (dismissed while offline)",
            inputs: vec![
                added("1", nt("nt_a", 1)),
                added("2", nt("nt_b", 2)),
                Input::NotificationsFetching,
                loaded_list(vec![nt("nt_b", 2)]),
            ],
            board: "nt_b*",
            effects: vec![],
        },
        Row {
            name: "submissions count up to the highest ordinal, in any order, seen twice",
            inputs: vec![
                added("1", nt("nt_a", 1)),
                submitted("2", "nt_a", 2),
                submitted("3", "nt_a", 1),
                submitted("2", "nt_a", 2),
            ],
            board: "nt_a*:2",
            effects: vec![],
        },
        Row {
            name: "an older copy never undoes a read or lowers the count",
            inputs: vec![
                added("1", nt("nt_a", 1)),
                updated("2", {
                    let mut n = read(nt("nt_a", 1), 3);
                    n.submissions = 3;
                    n
                }),
                Input::NotificationsFetching,
                loaded_list(vec![nt("nt_a", 1)]),
            ],
            board: "nt_a:3",
            effects: vec![],
        },
        Row {
            name: "a replayed add frame is applied once",
            inputs: vec![added("5", nt("nt_a", 1)), added("5", nt("nt_a", 1))],
            board: "nt_a*",
            effects: vec![],
        },
    ];
    for row in rows {
        run(row);
    }
}

#[test]
fn notifications_never_become_cards() {
    let mut inbox = Inbox::new("work");
    inbox.handle(added("1", nt("nt_a", 1)));
    assert!(inbox.is_empty(), "cards are questions only");
    assert_eq!(inbox.counts().pending, 0);
    assert_eq!(inbox.counts().notifications_unread, 1);
}
