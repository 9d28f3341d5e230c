//! Notification behaviours of the conformance suite: the caps, the ordinals, the idempotency
//! records and the read/dismiss marks are decided in the store, the same on both stores.

use std::sync::Arc;

use chrono::{Duration, Utc};
use futures::future::join_all;
use inbox_protocol::{Notification, StreamEvent, Submission};
use inbox_server::store::{
    CreateOutcome, IdempotencyClaim, Mark, NewNotification, NewSubmission, Store, SubmitOutcome,
};
use serde_json::json;

use super::{events_since, png};

fn notification(id: &str, asker: &str) -> NewNotification {
    NewNotification {
        notification: Notification {
            id: id.to_owned(),
            asker: asker.to_owned(),
            prompt: format!("Weekly report {id}"),
            body: Some("Numbers are in.\nSee below.".into()),
            media: vec![],
            schema: Some(
                json!({"type": "object", "properties": {"ok": {"type": "boolean"},
                "note": {"type": "string", "description": "a \"quoted\" note"}}}),
            ),
            data: None,
            metadata: json!({"run": id}).as_object().cloned().unwrap_or_default(),
            created_at: Utc::now(),
            read_at: None,
            dismissed_at: None,
            submissions: 0,
        },
        media: vec![],
        outstanding_limit: usize::MAX,
    }
}

fn submission(notification_id: &str, id: &str, value: serde_json::Value) -> NewSubmission {
    NewSubmission {
        submission: Submission {
            id: id.to_owned(),
            notification_id: notification_id.to_owned(),
            asker: "deploy-bot".into(),
            value,
            submitted_by: "alice".into(),
            submitted_at: Utc::now(),
            ordinal: 0,
        },
        limit: usize::MAX,
    }
}

fn key(k: &str, fingerprint: &str) -> Option<IdempotencyClaim> {
    Some(IdempotencyClaim {
        key: k.into(),
        fingerprint: fingerprint.into(),
    })
}

/// The events after `cursor`, without their cursors.
async fn stream_events_since(store: &Arc<dyn Store>, cursor: &str) -> Vec<StreamEvent> {
    let events = events_since(store, cursor).await;
    events.into_iter().map(|e| e.event).collect()
}

/// Submits `value` to notification `notification_id` as submission `id`, under no cap.
async fn submit(
    store: &Arc<dyn Store>,
    notification_id: &str,
    id: &str,
    value: serde_json::Value,
    key: Option<IdempotencyClaim>,
) -> SubmitOutcome {
    let new = submission(notification_id, id, value);
    store.submit(notification_id, new, key).await.unwrap()
}

/// What the winners of a race against a cap got (`won` picks it out of a winning outcome);
/// every other outcome must be `at_limit`.
fn race_winners<O: PartialEq + std::fmt::Debug, T>(
    outcomes: &[O],
    won: impl Fn(&O) -> Option<T>,
    at_limit: O,
) -> Vec<T> {
    let (winners, refused): (Vec<_>, Vec<_>) = outcomes.iter().partition(|o| won(o).is_some());
    assert!(
        refused.iter().all(|o| **o == at_limit),
        "every loser is {at_limit:?}: {outcomes:?}"
    );
    winners.into_iter().filter_map(won).collect()
}

/// Stores `new` (with the idempotency `key`, if any), which must be created.
async fn create(
    store: &Arc<dyn Store>,
    new: NewNotification,
    key: Option<IdempotencyClaim>,
) -> Notification {
    match store.insert_notification(new, key).await.unwrap() {
        CreateOutcome::Created(n) => n,
        other => panic!("expected created, got {other:?}"),
    }
}

/// Created, read back the same, listed newest first with paging, announced once.
pub async fn notifications_are_stored_listed_and_announced(store: Arc<dyn Store>) {
    let start = store.tail_cursor().await.unwrap();
    for i in 0..5 {
        let new = notification(&format!("nt_{i}"), "deploy-bot");
        let want = new.notification.clone();
        let got = create(&store, new, None).await;
        assert_eq!(got, want);
        assert_eq!(store.get_notification(&want.id).await.unwrap(), Some(want));
    }
    assert_eq!(store.get_notification("nt_missing").await.unwrap(), None);
    let first = store.list_notifications(2, None).await.unwrap();
    let ids: Vec<_> = first.items.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids, ["nt_4", "nt_3"]);
    let mut seen: Vec<String> = ids.iter().map(|s| (*s).to_owned()).collect();
    let mut cursor = first.next_cursor;
    while let Some(c) = cursor {
        let page = store.list_notifications(2, Some(c)).await.unwrap();
        seen.extend(page.items.iter().map(|n| n.id.clone()));
        cursor = page.next_cursor;
    }
    assert_eq!(seen, ["nt_4", "nt_3", "nt_2", "nt_1", "nt_0"]);
    let added: Vec<_> = events_since(&store, &start)
        .await
        .into_iter()
        .filter_map(|e| match e.event {
            StreamEvent::NotificationAdded(n) => Some(n.id),
            _ => None,
        })
        .collect();
    assert_eq!(added, ["nt_0", "nt_1", "nt_2", "nt_3", "nt_4"]);
    // The page's stream cursor is the tail as the page was read.
    assert_eq!(first.stream_cursor, store.tail_cursor().await.unwrap());
}

/// Read and dismiss set their moment once; a repeat changes nothing and emits nothing;
/// dismissed ones leave the list; unknown ones are `None`.
pub async fn read_and_dismiss_are_set_once(store: Arc<dyn Store>) {
    create(&store, notification("nt_m", "deploy-bot"), None).await;
    let before = store.tail_cursor().await.unwrap();
    let t1 = Utc::now();
    let read = store
        .mark_notification("nt_m", Mark::Read, t1)
        .await
        .unwrap()
        .unwrap();
    assert!(read.read_at.is_some() && read.dismissed_at.is_none());
    let again = store
        .mark_notification("nt_m", Mark::Read, t1 + Duration::seconds(5))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again.read_at, read.read_at, "read once");
    let dismissed = store
        .mark_notification("nt_m", Mark::Dismiss, t1 + Duration::seconds(9))
        .await
        .unwrap()
        .unwrap();
    assert!(dismissed.dismissed_at.is_some());
    assert_eq!(dismissed.read_at, read.read_at);
    assert_eq!(
        store.get_notification("nt_m").await.unwrap(),
        Some(dismissed.clone())
    );
    let twice = store
        .mark_notification("nt_m", Mark::Dismiss, t1 + Duration::seconds(20))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(twice, dismissed);
    let updates = stream_events_since(&store, &before).await;
    assert_eq!(
        updates,
        [
            StreamEvent::NotificationUpdated(read),
            StreamEvent::NotificationUpdated(dismissed)
        ],
        "one event per change, none for a repeat"
    );
    assert!(
        store
            .list_notifications(50, None)
            .await
            .unwrap()
            .items
            .is_empty()
    );
    assert_eq!(
        store
            .mark_notification("nt_nope", Mark::Read, t1)
            .await
            .unwrap(),
        None
    );
    // Never read, then dismissed: reading comes with it.
    create(&store, notification("nt_d", "deploy-bot"), None).await;
    let d = store
        .mark_notification("nt_d", Mark::Dismiss, t1)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(d.read_at, d.dismissed_at);
}

/// Submissions get ordinals 1, 2, … in arrival order, count on the notification, replay with
/// their key, conflict with a different request, and stop at the cap — with racing submitters,
/// exactly `limit` win. A dismissed notification takes none.
pub async fn submissions_are_ordered_capped_and_replayed(store: Arc<dyn Store>) {
    create(&store, notification("nt_s", "deploy-bot"), None).await;
    let before = store.tail_cursor().await.unwrap();
    let first = match submit(&store, "nt_s", "sb_1", json!({"ok": true}), key("k1", "f1")).await {
        SubmitOutcome::Submitted(s) => s,
        other => panic!("{other:?}"),
    };
    assert_eq!(first.ordinal, 1);
    assert_eq!(first.value, json!({"ok": true}));
    // The same key again: with the same request it replays the first, with another it conflicts.
    let (same, other) = (json!({"ok": true}), json!({"ok": false}));
    let replay = submit(&store, "nt_s", "sb_1b", same, key("k1", "f1")).await;
    assert_eq!(replay, SubmitOutcome::Replayed(first.clone()));
    let conflict = submit(&store, "nt_s", "sb_1c", other, key("k1", "other")).await;
    assert_eq!(conflict, SubmitOutcome::IdempotencyConflict);
    let events = stream_events_since(&store, &before).await;
    assert_eq!(
        events.len(),
        2,
        "a replay and a conflict emit nothing: {events:?}"
    );
    assert_eq!(events[0], StreamEvent::Submitted(first.clone()));
    match &events[1] {
        StreamEvent::NotificationUpdated(n) => assert_eq!(n.submissions, 1),
        other => panic!("{other:?}"),
    }

    // Racing submitters against a cap of 5 (one already in): exactly four more win.
    let tasks = (0..12).map(|i| {
        let store = store.clone();
        async move {
            let mut new = submission("nt_s", &format!("sb_r{i}"), json!({"note": format!("{i}")}));
            new.limit = 5;
            store.submit("nt_s", new, None).await.unwrap()
        }
    });
    let outcomes = join_all(tasks).await;
    let won = race_winners(
        &outcomes,
        |o| match o {
            SubmitOutcome::Submitted(s) => Some(s.ordinal),
            _ => None,
        },
        SubmitOutcome::AtLimit { limit: 5 },
    );
    assert_eq!(won.len(), 4, "{outcomes:?}");
    let all = store.submissions("nt_s").await.unwrap();
    let ordinals: Vec<u32> = all.iter().map(|s| s.ordinal).collect();
    assert_eq!(
        ordinals,
        [1, 2, 3, 4, 5],
        "oldest first, no gaps, no repeats"
    );
    assert_eq!(all[0], first);
    assert_eq!(
        store
            .get_notification("nt_s")
            .await
            .unwrap()
            .unwrap()
            .submissions,
        5
    );

    store
        .mark_notification("nt_s", Mark::Dismiss, Utc::now())
        .await
        .unwrap();
    assert_eq!(
        submit(&store, "nt_s", "sb_late", json!({}), None).await,
        SubmitOutcome::NotFound
    );
    assert_eq!(
        submit(&store, "nt_none", "sb_x", json!({}), None).await,
        SubmitOutcome::NotFound
    );
    assert!(store.submissions("nt_none").await.unwrap().is_empty());
}

/// An asker's outstanding notifications stop at its limit (racing creates included); other
/// askers are not affected; dismissing one makes room.
pub async fn the_outstanding_limit_holds_per_asker(store: Arc<dyn Store>) {
    let limited = |id: String, asker: &'static str| {
        let mut new = notification(&id, asker);
        new.outstanding_limit = 3;
        new
    };
    let tasks = (0..8).map(|i| {
        let store = store.clone();
        let new = limited(format!("nt_l{i}"), "deploy-bot");
        async move { store.insert_notification(new, None).await.unwrap() }
    });
    let outcomes = join_all(tasks).await;
    let winners = race_winners(
        &outcomes,
        |o| match o {
            CreateOutcome::Created(n) => Some(n.id.clone()),
            _ => None,
        },
        CreateOutcome::AtLimit { limit: 3 },
    );
    assert_eq!(winners.len(), 3, "{outcomes:?}");
    create(&store, limited("nt_other".into(), "other-bot"), None).await;
    store
        .mark_notification(&winners[0], Mark::Dismiss, Utc::now())
        .await
        .unwrap();
    create(&store, limited("nt_room".into(), "deploy-bot"), None).await;
    assert_eq!(
        store
            .insert_notification(limited("nt_full".into(), "deploy-bot"), None)
            .await
            .unwrap(),
        CreateOutcome::AtLimit { limit: 3 }
    );
}

/// The same asker, key and fingerprint replay the notification created (as it is now, nothing
/// new stored or emitted); a different fingerprint conflicts; another asker's same key is its
/// own.
pub async fn a_notification_create_replays_by_key(store: Arc<dyn Store>) {
    let first = create(
        &store,
        notification("nt_k1", "deploy-bot"),
        key("same", "f"),
    )
    .await;
    store
        .mark_notification("nt_k1", Mark::Read, Utc::now())
        .await
        .unwrap();
    let before = store.tail_cursor().await.unwrap();
    let replay = store
        .insert_notification(notification("nt_k2", "deploy-bot"), key("same", "f"))
        .await
        .unwrap();
    match replay {
        CreateOutcome::Replayed(n) => {
            assert_eq!(n.id, first.id);
            assert!(n.read_at.is_some(), "as it is now");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(store.get_notification("nt_k2").await.unwrap(), None);
    assert_eq!(
        store
            .insert_notification(notification("nt_k3", "deploy-bot"), key("same", "g"))
            .await
            .unwrap(),
        CreateOutcome::IdempotencyConflict
    );
    assert!(events_since(&store, &before).await.is_empty());
    create(&store, notification("nt_k4", "other-bot"), key("same", "f")).await;
}

/// Dismissed notifications older than the horizon go with their media and submissions; the
/// outstanding and the recently dismissed stay.
pub async fn dismissed_notifications_are_pruned_with_what_they_kept(store: Arc<dyn Store>) {
    let mut with_media = notification("nt_p", "deploy-bot");
    let (item, blob) = png("md_nt_p");
    with_media.notification.media = vec![item];
    with_media.media = vec![blob];
    for new in [
        with_media,
        notification("nt_keep", "deploy-bot"),
        notification("nt_recent", "deploy-bot"),
    ] {
        create(&store, new, None).await;
    }
    submit(&store, "nt_p", "sb_p", json!({"ok": true}), key("kp", "f")).await;
    let long_ago = Utc::now() - Duration::days(40);
    store
        .mark_notification("nt_p", Mark::Dismiss, long_ago)
        .await
        .unwrap();
    store
        .mark_notification("nt_recent", Mark::Dismiss, Utc::now())
        .await
        .unwrap();
    assert!(store.get_media("md_nt_p").await.unwrap().is_some());
    let horizon = Utc::now() - Duration::days(30);
    assert_eq!(store.prune_dismissed(horizon, 100).await.unwrap(), ["nt_p"]);
    assert_eq!(store.get_notification("nt_p").await.unwrap(), None);
    assert!(store.get_media("md_nt_p").await.unwrap().is_none());
    assert!(store.submissions("nt_p").await.unwrap().is_empty());
    assert!(store.get_notification("nt_keep").await.unwrap().is_some());
    assert!(store.get_notification("nt_recent").await.unwrap().is_some());
    assert!(
        store
            .prune_dismissed(horizon, 100)
            .await
            .unwrap()
            .is_empty()
    );
}
