//! One suite of store behaviours, written once against `Arc<dyn Store>` and run against both
//! the embedded SQLite store and the Redis store. A behaviour the doors rely on belongs here,
//! so the two stores cannot drift apart.
//!
//! The Redis half needs `INBOX_TEST_REDIS_URL` (see `redis_env`); each test uses its own key
//! prefix, so the whole suite runs in parallel on one Redis.

#[path = "conformance/agui.rs"]
mod agui;
#[path = "conformance/notifications.rs"]
mod notifications;
mod orders;
#[path = "conformance/parks.rs"]
mod parks;
mod redis_env;

use std::collections::HashSet;
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures::future::join_all;
use inbox_protocol::{
    AnswerFormat, Continuation, MediaItem, MediaKind, RemovedEvent, RemovedReason, ResetReason,
    Status, StatusFilter, StreamEvent, Verifier,
};
use inbox_server::store::{
    EventsAfter, IdempotencyClaim, LiveBus, MediaBlob, NewTicket, PageQuery, RedisStore,
    Resolution, ResolveOutcome, SqliteStore, Store, StoreError, StoredEvent, TicketMatch,
};
use inbox_server::test_support::{answer, question};
use serde_json::json;

// ---------------------------------------------------------------------------------------------
// Fixtures

/// A small inline PNG served at `/api/interactions/media/{id}`: the item that names it and
/// the blob the store keeps.
fn png(id: &str) -> (MediaItem, MediaBlob) {
    let item = MediaItem {
        kind: MediaKind::Image,
        url: format!("/api/interactions/media/{id}"),
        caption: None,
        filename: None,
    };
    let blob = MediaBlob {
        id: id.into(),
        content_type: "image/png".into(),
        bytes: vec![1, 2, 3],
    };
    (item, blob)
}

fn claim(key: &str, fingerprint: &str) -> Option<IdempotencyClaim> {
    Some(IdempotencyClaim {
        key: key.into(),
        fingerprint: fingerprint.into(),
    })
}

fn pending(limit: usize, cursor: Option<String>) -> PageQuery {
    PageQuery {
        status: StatusFilter::Pending,
        limit,
        cursor,
    }
}

/// Alice answers `id` with `value`, under `claim` if any: what the store replied.
async fn alice_answers(
    store: &Arc<dyn Store>,
    id: &str,
    value: serde_json::Value,
    claim: Option<IdempotencyClaim>,
) -> ResolveOutcome {
    store
        .resolve(id, answer("alice", value), claim)
        .await
        .unwrap()
}

/// Every event after `cursor`, which must still be covered.
async fn events_since(store: &Arc<dyn Store>, cursor: &str) -> Vec<StoredEvent> {
    match store.events_after(cursor, usize::MAX).await.unwrap() {
        EventsAfter::Events(events) => events,
        EventsAfter::Gap(reason) => panic!("cursor {cursor} should be covered, got gap {reason:?}"),
    }
}

/// Reads every page of `filter` and returns the ids in order.
async fn all_pages(store: &Arc<dyn Store>, filter: StatusFilter, limit: usize) -> Vec<String> {
    let mut ids = Vec::new();
    let mut cursor = None;
    loop {
        let page = store
            .list_page(PageQuery {
                status: filter,
                limit,
                cursor,
            })
            .await
            .unwrap();
        assert!(page.items.len() <= limit);
        ids.extend(page.items.into_iter().map(|ia| ia.id));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return ids,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Behaviours

/// Pages run newest first; reading them while questions arrive and leave never repeats or
/// skips one that stayed pending throughout.
async fn paging_has_no_duplicates_or_gaps(store: Arc<dyn Store>) {
    for i in 0..9 {
        store
            .insert_ask(question(&format!("ia_{i}"), None))
            .await
            .unwrap();
    }
    let tail = store.tail_cursor().await.unwrap();
    let first = store.list_page(pending(4, None)).await.unwrap();
    let ids: Vec<_> = first.items.iter().map(|ia| ia.id.as_str()).collect();
    assert_eq!(ids, ["ia_8", "ia_7", "ia_6", "ia_5"]);
    assert_eq!(
        first.stream_cursor, tail,
        "the page names the stream's tail"
    );

    // While the reader is between pages: a new question arrives, one already seen and one
    // not yet seen are answered.
    store.insert_ask(question("ia_new", None)).await.unwrap();
    alice_answers(&store, "ia_7", json!(true), None).await;
    alice_answers(&store, "ia_2", json!(false), None).await;

    let mut seen: Vec<String> = first.items.iter().map(|ia| ia.id.clone()).collect();
    let mut cursor = first.next_cursor;
    while let Some(c) = cursor {
        let page = store.list_page(pending(4, Some(c))).await.unwrap();
        seen.extend(page.items.iter().map(|ia| ia.id.clone()));
        cursor = page.next_cursor;
    }
    let unique: HashSet<_> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "no duplicates: {seen:?}");
    for stayed in ["ia_8", "ia_6", "ia_5", "ia_4", "ia_3", "ia_1", "ia_0"] {
        assert!(
            seen.iter().any(|id| id == stayed),
            "{stayed} missing from {seen:?}"
        );
    }
    assert!(
        !seen.iter().any(|id| id == "ia_2"),
        "answered before its page was read"
    );

    // Filters and a fresh read.
    assert_eq!(
        all_pages(&store, StatusFilter::Pending, 3).await,
        [
            "ia_new", "ia_8", "ia_6", "ia_5", "ia_4", "ia_3", "ia_1", "ia_0"
        ]
    );
    assert_eq!(
        all_pages(&store, StatusFilter::Answered, 3).await,
        ["ia_7", "ia_2"]
    );
    assert_eq!(all_pages(&store, StatusFilter::All, 4).await.len(), 10);
    assert!(all_pages(&store, StatusFilter::Expired, 4).await.is_empty());
    let exact = store.list_page(pending(8, None)).await.unwrap();
    assert_eq!(exact.items.len(), 8);
    assert_eq!(
        exact.next_cursor, None,
        "a full last page has no next cursor"
    );
    assert!(matches!(
        store.list_page(pending(4, Some("bogus".into()))).await,
        Err(StoreError::InvalidCursor)
    ));
}

/// Many resolutions at once: exactly one wins, every other sees the winner.
async fn resolve_has_a_single_winner(store: Arc<dyn Store>) {
    store.insert_ask(question("ia_race", None)).await.unwrap();
    let since = store.tail_cursor().await.unwrap();
    let attempts = (0..12).map(|i| {
        let store = store.clone();
        async move {
            store
                .resolve(
                    "ia_race",
                    answer(&format!("reviewer{i}"), json!(i % 2 == 0)),
                    None,
                )
                .await
                .unwrap()
        }
    });
    let outcomes = join_all(attempts).await;
    let winners: Vec<_> = outcomes
        .iter()
        .filter_map(|o| match o {
            ResolveOutcome::Resolved(ia) => Some(ia.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(winners.len(), 1, "exactly one winner: {outcomes:?}");
    let winner = &winners[0];
    assert_eq!(winner.status, Status::Answered);
    for outcome in &outcomes {
        match outcome {
            ResolveOutcome::Resolved(_) => {}
            ResolveOutcome::AlreadyFinal(ia) => assert_eq!(ia, winner),
            other => panic!("a loser must see the winner, got {other:?}"),
        }
    }
    assert_eq!(store.get("ia_race").await.unwrap().as_ref(), Some(winner));
    let events = events_since(&store, &since).await;
    assert_eq!(events.len(), 1, "one answered event");
    assert!(
        matches!(&events[0].event, StreamEvent::Answered(e) if e.id == "ia_race" && Some(&e.answer) == winner.answer.as_ref())
    );
    // A withdraw after the answer changes nothing; an unknown id is not found.
    assert!(matches!(
        store.resolve("ia_race", Resolution::Cancel, None).await.unwrap(),
        ResolveOutcome::AlreadyFinal(ref ia) if ia == winner
    ));
    assert_eq!(
        alice_answers(&store, "ia_nope", json!(true), None).await,
        ResolveOutcome::NotFound
    );
}

/// The same key and request again replays the first outcome and writes nothing new.
async fn idempotent_repeat_replays(store: Arc<dyn Store>) {
    store.insert_ask(question("ia_1", None)).await.unwrap();
    let since = store.tail_cursor().await.unwrap();
    let ResolveOutcome::Resolved(first) =
        alice_answers(&store, "ia_1", json!(true), claim("k1", "fp-a")).await
    else {
        panic!("the first call wins");
    };
    for _ in 0..3 {
        let again = alice_answers(&store, "ia_1", json!(true), claim("k1", "fp-a")).await;
        assert_eq!(again, ResolveOutcome::Replayed(first.clone()));
    }
    assert_eq!(
        events_since(&store, &since).await.len(),
        1,
        "replays emit nothing"
    );
    // Without the key, the same request is just late.
    assert_eq!(
        alice_answers(&store, "ia_1", json!(true), None).await,
        ResolveOutcome::AlreadyFinal(first.clone())
    );
    // A decline carrying a key resolves and replays the same way.
    store.insert_ask(question("ia_2", None)).await.unwrap();
    let decline = || Resolution::Decline {
        reason: Some("not now".into()),
        by: "bob".into(),
    };
    let ResolveOutcome::Resolved(declined) = store
        .resolve("ia_2", decline(), claim("k1", "fp-d"))
        .await
        .unwrap()
    else {
        panic!("the decline wins");
    };
    assert_eq!(declined.status, Status::Declined);
    assert_eq!(
        declined.answer.as_ref().and_then(|a| a.reason.as_deref()),
        Some("not now")
    );
    assert_eq!(
        store
            .resolve("ia_2", decline(), claim("k1", "fp-d"))
            .await
            .unwrap(),
        ResolveOutcome::Replayed(declined)
    );
}

/// The same key with a different request is a conflict, before and after it resolved.
async fn idempotency_key_conflicts(store: Arc<dyn Store>) {
    store.insert_ask(question("ia_1", None)).await.unwrap();
    alice_answers(&store, "ia_1", json!(true), claim("k1", "fp-a")).await;
    let since = store.tail_cursor().await.unwrap();
    assert_eq!(
        alice_answers(&store, "ia_1", json!(false), claim("k1", "fp-b")).await,
        ResolveOutcome::IdempotencyConflict
    );
    // Another key on a resolved question is simply late.
    assert!(matches!(
        alice_answers(&store, "ia_1", json!(false), claim("k2", "fp-b")).await,
        ResolveOutcome::AlreadyFinal(_)
    ));
    assert!(events_since(&store, &since).await.is_empty());
    // Keys belong to one interaction: the same key elsewhere is a fresh request.
    store.insert_ask(question("ia_2", None)).await.unwrap();
    assert!(matches!(
        alice_answers(&store, "ia_2", json!(false), claim("k1", "fp-b")).await,
        ResolveOutcome::Resolved(_)
    ));
}

/// Due questions expire once, even with sweepers racing; later ones stay.
async fn expire_due_moves_each_once(store: Arc<dyn Store>) {
    let past = Utc::now() - chrono::Duration::seconds(5);
    let future = Utc::now() + chrono::Duration::hours(1);
    for i in 0..4 {
        store
            .insert_ask(question(&format!("ia_due{i}"), Some(past)))
            .await
            .unwrap();
    }
    // Answered in time; its deadline passes before the sweep, which must leave it alone.
    let soon = Utc::now() + chrono::Duration::milliseconds(300);
    store
        .insert_ask(question("ia_due4", Some(soon)))
        .await
        .unwrap();
    store
        .insert_ask(question("ia_later", Some(future)))
        .await
        .unwrap();
    store.insert_ask(question("ia_never", None)).await.unwrap();
    let answered = alice_answers(&store, "ia_due4", json!(true), None).await;
    assert!(
        matches!(answered, ResolveOutcome::Resolved(_)),
        "{answered:?}"
    );
    tokio::time::sleep(Duration::from_millis(400)).await;
    let since = store.tail_cursor().await.unwrap();

    let sweeps = (0..4).map(|_| {
        let store = store.clone();
        async move { store.expire_due(Utc::now()).await.unwrap() }
    });
    let mut expired: Vec<String> = join_all(sweeps).await.into_iter().flatten().collect();
    expired.sort();
    assert_eq!(expired, ["ia_due0", "ia_due1", "ia_due2", "ia_due3"]);

    let events = events_since(&store, &since).await;
    assert_eq!(events.len(), 4, "one removed event each");
    for event in &events {
        assert!(matches!(
            &event.event,
            StreamEvent::Removed(RemovedEvent {
                reason: RemovedReason::Expired,
                ..
            })
        ));
    }
    for id in ["ia_due0", "ia_due3"] {
        assert_eq!(
            store.get(id).await.unwrap().unwrap().status,
            Status::Expired
        );
    }
    assert_eq!(
        store.get("ia_due4").await.unwrap().unwrap().status,
        Status::Answered
    );
    assert!(store.expire_due(Utc::now()).await.unwrap().is_empty());
    assert_eq!(
        all_pages(&store, StatusFilter::Pending, 10).await,
        ["ia_never", "ia_later"]
    );
    assert_eq!(all_pages(&store, StatusFilter::Expired, 10).await.len(), 4);
    // An expired question can no longer be answered.
    assert!(matches!(
        alice_answers(&store, "ia_due0", json!(true), None).await,
        ResolveOutcome::AlreadyFinal(ref ia) if ia.status == Status::Expired
    ));
}

/// Resume: every event after a covered cursor; a gap for malformed, foreign or aged-out ones.
/// Run with a small retention (see the table at the bottom).
async fn events_after_resumes_or_reports_a_gap(store: Arc<dyn Store>) {
    let start = store.tail_cursor().await.unwrap();
    assert_eq!(events_since(&store, &start).await, vec![], "nothing yet");

    let asked = question("ia_first", None);
    store.insert_ask(asked.clone()).await.unwrap();
    let events = events_since(&store, &start).await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].event, StreamEvent::Add(asked.interaction.clone()));
    let first_cursor = events[0].cursor.clone();
    assert_eq!(store.tail_cursor().await.unwrap(), first_cursor);
    assert!(store.is_after(&first_cursor, &start));
    assert!(!store.is_after(&start, &first_cursor));

    // Enough events to age the first ones out of any bounded window.
    let mut live = store.subscribe();
    let mut cursors = vec![first_cursor.clone()];
    cursors.extend(ask_each(&*store, &mut live, 0..244).await);
    let recent = store.tail_cursor().await.unwrap();
    cursors.extend(ask_each(&*store, &mut live, 244..250).await);
    let tail = store.tail_cursor().await.unwrap();
    assert_eq!(cursors.last(), Some(&tail));
    // Resuming from each cursor: a gap while events after it are gone, then complete
    // backlogs; and the window covers at least `retention` events.
    let mut resumable_from = None;
    for (i, cursor) in cursors.iter().enumerate() {
        match store.events_after(cursor, usize::MAX).await.unwrap() {
            EventsAfter::Gap(reason) => {
                assert_eq!(reason, ResetReason::AgedOut);
                assert_eq!(resumable_from, None, "gaps only before the window, at {i}");
            }
            EventsAfter::Events(events) => {
                resumable_from.get_or_insert(i);
                let got: Vec<_> = events.iter().map(|e| e.cursor.as_str()).collect();
                let want: Vec<_> = cursors[i + 1..].iter().map(String::as_str).collect();
                assert_eq!(got, want, "complete backlog after cursor {i}");
            }
        }
    }
    let window = cursors.len() - 1 - resumable_from.expect("recent cursors resume");
    assert!(
        window >= GAP_TEST_RETENTION,
        "the window holds {window} events, fewer than the retention"
    );
    assert_eq!(
        store.events_after(&tail, usize::MAX).await.unwrap(),
        EventsAfter::Events(vec![])
    );
    for aged in [&start, &first_cursor] {
        assert_eq!(
            store.events_after(aged, usize::MAX).await.unwrap(),
            EventsAfter::Gap(ResetReason::AgedOut),
            "cursor {aged} fell out of the window"
        );
    }
    // The newest few are still covered, complete and in order.
    let recent_events = events_since(&store, &recent).await;
    let ids: Vec<_> = recent_events
        .iter()
        .filter_map(|e| e.event.interaction_id())
        .collect();
    assert_eq!(
        ids,
        ["ia_244", "ia_245", "ia_246", "ia_247", "ia_248", "ia_249"]
    );
    assert_eq!(
        recent_events.last().map(|e| e.cursor.as_str()),
        Some(tail.as_str())
    );
    for pair in recent_events.windows(2) {
        assert!(store.is_after(&pair[1].cursor, &pair[0].cursor));
    }
    // A cursor this stream never issued (past its tail) cannot be resumed either.
    let beyond = if tail.contains('-') {
        "99999999999999-0"
    } else {
        "99999999"
    };
    assert_eq!(
        store.events_after(beyond, usize::MAX).await.unwrap(),
        EventsAfter::Gap(ResetReason::AgedOut)
    );
    for malformed in ["", "abc", "12-x", "-1", "1.5"] {
        assert_eq!(
            store.events_after(malformed, usize::MAX).await.unwrap(),
            EventsAfter::Gap(ResetReason::MalformedId),
            "{malformed:?}"
        );
    }
}

/// Asks `ia_{i}` for each `i` of `range`, one after another; the cursor of each one's event,
/// as heard live.
async fn ask_each(store: &dyn Store, live: &mut LiveBus, range: Range<usize>) -> Vec<String> {
    let mut cursors = Vec::new();
    for i in range {
        store
            .insert_ask(question(&format!("ia_{i}"), None))
            .await
            .unwrap();
        cursors.push(next_event(live).await.cursor);
    }
    cursors
}

async fn next_event(live: &mut LiveBus) -> StoredEvent {
    let live = tokio::time::timeout(Duration::from_secs(10), live.recv())
        .await
        .expect("a live event within 10 s")
        .expect("the live feed stays open");
    // What every stream sends is the event's own frame, rendered once.
    assert_eq!(live.frame, live.stored.sse_frame());
    live.stored.clone()
}

/// Live events reach a subscriber exactly once each, in cursor order, matching what a
/// resume would read — also when several writers race.
async fn live_subscription_is_ordered(store: Arc<dyn Store>) {
    let since = store.tail_cursor().await.unwrap();
    let mut live = store.subscribe();
    let writers = (0..4).map(|w| {
        let store = store.clone();
        async move {
            for i in 0..5 {
                let id = format!("ia_w{w}_{i}");
                store.insert_ask(question(&id, None)).await.unwrap();
                if i % 2 == 0 {
                    alice_answers(&store, &id, json!(true), None).await;
                }
            }
        }
    });
    join_all(writers).await;
    let expected = events_since(&store, &since).await;
    assert_eq!(expected.len(), 4 * (5 + 3));
    let mut received = Vec::new();
    for _ in 0..expected.len() {
        received.push(next_event(&mut live).await);
    }
    assert_eq!(received, expected, "live order is the stream order");
    for pair in received.windows(2) {
        assert!(store.is_after(&pair[1].cursor, &pair[0].cursor));
    }
    // And nothing more arrives.
    assert!(
        tokio::time::timeout(Duration::from_millis(300), live.recv())
            .await
            .is_err()
    );
}

/// Inline media bytes come back exactly; an unknown id is none.
async fn media_round_trips(store: Arc<dyn Store>) {
    let mut ask = question("ia_media", None);
    let bytes: Vec<u8> = (0..=255u8).chain([0, 0, 255]).collect();
    ask.interaction.media = vec![MediaItem {
        kind: MediaKind::Image,
        url: "/api/interactions/media/md_one".into(),
        caption: Some("a chart".into()),
        filename: None,
    }];
    ask.media = vec![
        MediaBlob {
            id: "md_one".into(),
            content_type: "image/png".into(),
            bytes: bytes.clone(),
        },
        MediaBlob {
            id: "md_two".into(),
            content_type: "image/gif".into(),
            bytes: b"GIF89a".to_vec(),
        },
    ];
    store.insert_ask(ask.clone()).await.unwrap();
    let one = store.get_media("md_one").await.unwrap().unwrap();
    assert_eq!(one.content_type, "image/png");
    assert_eq!(one.bytes, bytes);
    assert_eq!(
        store.get_media("md_two").await.unwrap().unwrap().bytes,
        b"GIF89a"
    );
    assert_eq!(store.get_media("md_nope").await.unwrap(), None);
    assert_eq!(
        store.get("ia_media").await.unwrap().unwrap().media,
        ask.interaction.media
    );
}

fn ticket(hash: &str, expires_at: DateTime<Utc>, verifier: Option<Verifier>) -> NewTicket {
    NewTicket {
        hash: hash.into(),
        expires_at,
        verifier,
    }
}

fn in_an_hour() -> DateTime<Utc> {
    Utc::now() + chrono::Duration::hours(1)
}

/// A callback ticket (by its hash) finds its interaction in any status, with its verifier;
/// an unknown one finds nothing.
async fn ticket_finds_its_interaction(store: Arc<dyn Store>) {
    let verifier = Verifier::StandardWebhooks {
        secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".into(),
    };
    let mut ask = question("ia_ext", None);
    ask.interaction.answer_format = AnswerFormat::External;
    ask.ticket = Some(ticket("h_secret", in_an_hour(), Some(verifier.clone())));
    store.insert_ask(ask.clone()).await.unwrap();
    let mut plain = question("ia_plain", None);
    plain.interaction.answer_format = AnswerFormat::External;
    plain.ticket = Some(ticket("h_plain", in_an_hour(), None));
    store.insert_ask(plain).await.unwrap();
    store.insert_ask(question("ia_other", None)).await.unwrap();
    assert_eq!(
        store.ticket_lookup("h_secret", Utc::now()).await.unwrap(),
        Some(TicketMatch {
            interaction: ask.interaction.clone(),
            verifier: Some(verifier.clone()),
        })
    );
    let plain = store.ticket_lookup("h_plain", Utc::now()).await.unwrap();
    assert_eq!(
        plain.map(|m| (m.interaction.id, m.verifier)),
        Some(("ia_plain".into(), None))
    );
    store
        .resolve("ia_ext", answer("callback", json!({"signed": true})), None)
        .await
        .unwrap();
    let found = store
        .ticket_lookup("h_secret", Utc::now())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.interaction.id, "ia_ext");
    assert_eq!(found.interaction.status, Status::Answered);
    assert_eq!(
        store.ticket_lookup("h_unknown", Utc::now()).await.unwrap(),
        None
    );
    assert_eq!(store.get("ia_unknown").await.unwrap(), None);
    store.ping().await.unwrap();
}

/// A page of large questions ends early, within its byte budget, and the pages still cover
/// everything; a resume's backlog can be read in batches.
async fn pages_and_backlogs_are_bounded(store: Arc<dyn Store>) {
    let start = store.tail_cursor().await.unwrap();
    for i in 0..300 {
        let mut ask = question(&format!("ia_big{i:03}"), None);
        ask.interaction.prompt = "p".repeat(8_000);
        ask.interaction.metadata = json!({"blob": "m".repeat(8_000)})
            .as_object()
            .cloned()
            .unwrap();
        store.insert_ask(ask).await.unwrap();
    }
    let first = store.list_page(pending(500, None)).await.unwrap();
    let bytes = serde_json::to_vec(&first.items).unwrap().len();
    assert!(
        bytes <= inbox_protocol::caps::PAGE_MAX_BYTES,
        "a page is {bytes} bytes"
    );
    assert!(first.items.len() < 300 && first.next_cursor.is_some());
    assert_eq!(
        all_pages(&store, StatusFilter::Pending, 500).await.len(),
        300
    );

    let EventsAfter::Events(batch) = store.events_after(&start, 100).await.unwrap() else {
        panic!("the start is covered");
    };
    assert_eq!(batch.len(), 100);
    let EventsAfter::Events(rest) = store.events_after(&batch[99].cursor, 1_000).await.unwrap()
    else {
        panic!("the middle is covered");
    };
    assert_eq!(
        rest.len(),
        200,
        "the second batch starts right after the first"
    );
}

/// An asker's pending questions are capped in the store, under racing asks too; resolving
/// one makes room, and other askers are not affected.
async fn the_pending_limit_holds_per_asker(store: Arc<dyn Store>) {
    let limited = |id: &str, asker: &str, limit: usize| {
        let mut ask = question(id, None);
        ask.interaction.asker = asker.to_owned();
        ask.pending_limit = limit;
        ask
    };
    let racing = (0..10).map(|i| {
        let store = store.clone();
        let ask = limited(&format!("ia_race{i}"), "racer", 5);
        async move { store.insert_ask(ask).await }
    });
    let results = join_all(racing).await;
    let accepted = results.iter().filter(|r| r.is_ok()).count();
    assert_eq!(accepted, 5, "exactly the limit is accepted: {results:?}");
    for refused in results.iter().filter_map(|r| r.as_ref().err()) {
        assert!(
            matches!(refused, StoreError::PendingLimit { limit: 5 }),
            "{refused:?}"
        );
    }
    assert!(
        store
            .insert_ask(limited("ia_other", "someone-else", 5))
            .await
            .is_ok()
    );
    let first = results
        .into_iter()
        .flatten()
        .next()
        .expect("one was accepted");
    store
        .resolve(&first.id, Resolution::Cancel, None)
        .await
        .unwrap();
    assert!(
        store
            .insert_ask(limited("ia_after", "racer", 5))
            .await
            .is_ok(),
        "a withdrawn question makes room"
    );
    assert!(matches!(
        store.insert_ask(limited("ia_over", "racer", 5)).await,
        Err(StoreError::PendingLimit { .. })
    ));
}

/// A park's questions count against their asker's pending limit, all together: a park that
/// would pass it is refused whole, and its settled questions make room again.
async fn parks_count_against_the_pending_limit(store: Arc<dyn Store>) {
    let at = Utc::now() + chrono::Duration::hours(1);
    let limited = |mut park: inbox_server::store::NewPark| {
        for ask in &mut park.asks {
            ask.pending_limit = 4;
        }
        park
    };
    for i in 0..2 {
        let mut ask = question(&format!("ia_lone{i}"), None);
        ask.pending_limit = 4;
        store.insert_ask(ask).await.unwrap();
    }
    let too_big = limited(parks::park_of(
        "pk_big",
        &[at, at, at],
        Continuation::Claim {},
    ));
    assert!(matches!(
        store.insert_park(too_big).await,
        Err(StoreError::PendingLimit { limit: 4 })
    ));
    assert_eq!(
        store.get("pk_big_q0").await.unwrap(),
        None,
        "nothing stored"
    );
    let fits = limited(parks::park_of("pk_fits", &[at, at], Continuation::Claim {}));
    store.insert_park(fits).await.unwrap();
    let mut one_more = question("ia_over", None);
    one_more.pending_limit = 4;
    assert!(matches!(
        store.insert_ask(one_more.clone()).await,
        Err(StoreError::PendingLimit { .. })
    ));
    alice_answers(&store, "pk_fits_q0", json!(true), None).await;
    store.insert_ask(one_more).await.unwrap();
}

/// Resolved questions older than the cut are pruned with their media and idempotency records
/// and announced; pending and newer ones stay.
async fn resolved_questions_are_pruned_with_what_they_kept(store: Arc<dyn Store>) {
    let mut old = question("ia_old", None);
    let (item, blob) = png("md_old");
    old.interaction.media = vec![item];
    old.media = vec![blob];
    store.insert_ask(old).await.unwrap();
    store
        .insert_ask(question("ia_waiting", None))
        .await
        .unwrap();
    alice_answers(&store, "ia_old", json!(true), claim("k1", "f1")).await;
    let before_cut = Utc::now() - chrono::Duration::seconds(60);
    assert!(
        store
            .prune_resolved(before_cut, 100)
            .await
            .unwrap()
            .is_empty(),
        "nothing resolved before the cut"
    );
    let since = store.tail_cursor().await.unwrap();
    let cut = Utc::now() + chrono::Duration::seconds(1);
    assert_eq!(
        store.prune_resolved(cut, 100).await.unwrap(),
        vec!["ia_old".to_owned()]
    );
    assert_eq!(store.get("ia_old").await.unwrap(), None);
    assert_eq!(store.get_media("md_old").await.unwrap(), None);
    assert!(
        store.get("ia_waiting").await.unwrap().is_some(),
        "pending stays"
    );
    let events = events_since(&store, &since).await;
    assert_eq!(events.len(), 1);
    assert_eq!(
        events[0].event,
        StreamEvent::Removed(RemovedEvent {
            id: "ia_old".into(),
            reason: RemovedReason::Pruned,
        })
    );
    // Its idempotency record went too: the same key is not a replay any more, just gone.
    assert_eq!(
        alice_answers(&store, "ia_old", json!(true), claim("k1", "f1")).await,
        ResolveOutcome::NotFound
    );
    assert!(store.prune_resolved(cut, 100).await.unwrap().is_empty());
}

/// Past its deadline a question takes no answer, decline or withdrawal, even before the sweep
/// reaches it: the store itself refuses, under the same lock as the single-winner rule.
async fn nothing_settles_past_the_deadline(store: Arc<dyn Store>) {
    let past = Utc::now() - chrono::Duration::seconds(1);
    store
        .insert_ask(question("ia_late", Some(past)))
        .await
        .unwrap();
    let tail = store.tail_cursor().await.unwrap();
    let attempts = [
        answer("alice", json!(true)),
        Resolution::Decline {
            reason: None,
            by: "alice".into(),
        },
        Resolution::Cancel,
    ];
    for resolution in attempts {
        assert_eq!(
            store
                .resolve(
                    "ia_late",
                    resolution.clone(),
                    claim("k", &format!("{resolution:?}"))
                )
                .await
                .unwrap(),
            ResolveOutcome::PastDeadline,
            "{resolution:?}"
        );
    }
    let still = store.get("ia_late").await.unwrap().unwrap();
    assert_eq!(still.status, Status::Pending, "nothing was changed");
    assert!(
        events_since(&store, &tail).await.is_empty(),
        "nothing was announced"
    );
    // The sweep is what settles it.
    assert_eq!(
        store.expire_due(Utc::now()).await.unwrap(),
        vec!["ia_late".to_owned()]
    );
    let ResolveOutcome::AlreadyFinal(expired) =
        alice_answers(&store, "ia_late", json!(true), None).await
    else {
        panic!("an expired question stays expired");
    };
    assert_eq!(expired.status, Status::Expired);
}

/// A ticket dies at its own expiry, even while its question is still pending, and the sweep
/// prunes it (Redis: the key expires by itself).
async fn ticket_expires_on_its_own_ttl(store: Arc<dyn Store>) {
    let mut ask = question("ia_ext", Some(Utc::now() + chrono::Duration::days(1)));
    ask.interaction.answer_format = AnswerFormat::External;
    let dies = Utc::now() + chrono::Duration::milliseconds(300);
    ask.ticket = Some(ticket("h_short", dies, None));
    store.insert_ask(ask).await.unwrap();
    assert!(
        store
            .ticket_lookup("h_short", Utc::now())
            .await
            .unwrap()
            .is_some()
    );
    // Past its expiry by the caller's clock it is gone at once, sweep or not.
    let later = dies + chrono::Duration::milliseconds(1);
    assert_eq!(store.ticket_lookup("h_short", later).await.unwrap(), None);
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(
        store.expire_due(Utc::now()).await.unwrap().is_empty(),
        "the question is not due"
    );
    assert_eq!(
        store
            .ticket_lookup("h_short", Utc::now() - chrono::Duration::hours(1))
            .await
            .unwrap(),
        None,
        "pruned, not merely hidden"
    );
    assert_eq!(
        store.get("ia_ext").await.unwrap().unwrap().status,
        Status::Pending
    );
}

/// The verifier's secret lives beside the ticket only: no read, page or event carries it.
async fn a_verifier_secret_is_never_read_back(store: Arc<dyn Store>) {
    let secret = "hmac-secret-that-must-not-leak";
    let before = store.tail_cursor().await.unwrap();
    let mut live = store.subscribe();
    let mut ask = question("ia_ext", None);
    ask.interaction.answer_format = AnswerFormat::External;
    ask.ticket = Some(ticket(
        "h_v",
        in_an_hour(),
        Some(Verifier::HmacSha256 {
            header: "X-Sig".into(),
            prefix: None,
            encoding: None,
            secret: secret.into(),
        }),
    ));
    store.insert_ask(ask).await.unwrap();
    let event = next_event(&mut live).await;
    let read = store.get("ia_ext").await.unwrap().unwrap();
    let page = store.list_page(pending(10, None)).await.unwrap();
    let EventsAfter::Events(backlog) = store.events_after(&before, usize::MAX).await.unwrap()
    else {
        panic!("the start of the stream is covered");
    };
    let seen = format!(
        "{} {} {} {}",
        serde_json::to_string(&read).unwrap(),
        serde_json::to_string(&page).unwrap(),
        serde_json::to_string(&event.event).unwrap(),
        backlog
            .iter()
            .map(|e| serde_json::to_string(&e.event).unwrap())
            .collect::<String>()
    );
    assert!(seen.contains("ia_ext"));
    assert!(!seen.contains(secret), "{seen}");
    assert!(!seen.contains("X-Sig"), "{seen}");
}

// ---------------------------------------------------------------------------------------------
// The two stores

/// A store and whatever must outlive it (SQLite's directory).
struct Harness {
    store: Arc<dyn Store>,
    _dir: Option<tempfile::TempDir>,
}

async fn sqlite(retention: usize) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("inbox.sqlite3"), retention).unwrap();
    Harness {
        store: Arc::new(store),
        _dir: Some(dir),
    }
}

async fn redis(test: &str, retention: usize) -> Option<Harness> {
    let (url, prefix) = redis_env::url_and_prefix(test)?;
    let store = RedisStore::connect(&url, &prefix, retention)
        .await
        .unwrap_or_else(|e| panic!("cannot reach Redis at {url}: {e}"));
    Some(Harness {
        store: Arc::new(store),
        _dir: None,
    })
}

/// Redis only: the resume window starts exactly after the newest trimmed entry (each entry
/// names its predecessor), not at the first retained one, so a client that saw the last
/// trimmed event still resumes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_window_starts_right_after_the_last_trimmed_entry() {
    let Some((url, prefix)) = redis_env::url_and_prefix("redis_window_edge") else {
        return;
    };
    let store = RedisStore::connect(&url, &prefix, 10).await.unwrap();
    let mut live = store.subscribe();
    let cursors = ask_each(&store, &mut live, 0..300).await;
    let mut conn = redis::Client::open(url.as_str())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let first: redis::streams::StreamRangeReply =
        redis::AsyncCommands::xrange_count(&mut conn, format!("{prefix}:events"), "-", "+", 1)
            .await
            .unwrap();
    let first = &first.ids[0].id;
    let at = cursors.iter().position(|c| c == first).unwrap();
    assert!(at >= 2, "something was trimmed");
    let EventsAfter::Events(events) = store
        .events_after(&cursors[at - 1], usize::MAX)
        .await
        .unwrap()
    else {
        panic!("the last trimmed cursor resumes: nothing after it is gone");
    };
    assert_eq!(events.len(), cursors.len() - at);
    assert_eq!(
        store
            .events_after(&cursors[at - 2], usize::MAX)
            .await
            .unwrap(),
        EventsAfter::Gap(ResetReason::AgedOut)
    );
}

/// Small enough that the gap test ages events out.
const GAP_TEST_RETENTION: usize = 20;

/// `behaviour => retention`: one test per store per behaviour.
macro_rules! conformance {
    ($($behaviour:ident => $retention:expr),* $(,)?) => {
        mod sqlite_store {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $behaviour() {
                    let harness = super::sqlite($retention).await;
                    super::$behaviour(harness.store.clone()).await;
                }
            )*
        }
        mod redis_store {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $behaviour() {
                    let Some(harness) = super::redis(stringify!($behaviour), $retention).await
                    else {
                        return;
                    };
                    super::$behaviour(harness.store.clone()).await;
                }
            )*
        }
    };
}

use agui::finished_agui_runs_are_pruned_after_the_retention;
use notifications::{
    a_notification_create_replays_by_key, dismissed_notifications_are_pruned_with_what_they_kept,
    notifications_are_stored_listed_and_announced, read_and_dismiss_are_set_once,
    submissions_are_ordered_capped_and_replayed, the_outstanding_limit_holds_per_asker,
};
use parks::{
    a_park_is_stored_whole_or_not_at_all, a_park_resolves_once_in_every_order,
    a_webhook_resume_is_leased_to_one_dispatcher, concurrent_claims_have_one_winner,
    settled_parks_are_pruned_after_their_retention, sibling_races_resolve_a_park_once,
};

/// Redis only: two workers (two stores on one prefix) settle the siblings of each park at the
/// same moment; across both, each park moves exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_two_workers_resolve_a_park_once() {
    let Some((url, prefix)) = redis_env::url_and_prefix("redis_two_workers_park") else {
        return;
    };
    let a: Arc<dyn Store> = Arc::new(RedisStore::connect(&url, &prefix, 1000).await.unwrap());
    let b: Arc<dyn Store> = Arc::new(RedisStore::connect(&url, &prefix, 1000).await.unwrap());
    let (mut heard_a, mut heard_b) = (a.subscribe_parks(), b.subscribe_parks());
    const PARKS: usize = 20;
    let later = Utc::now() + chrono::Duration::hours(1);
    for p in 0..PARKS {
        let park = parks::park_of(
            &format!("pk_w{p}"),
            &[later, later],
            inbox_protocol::Continuation::Claim {},
        );
        a.insert_park(park).await.unwrap();
    }
    let mut tasks = Vec::new();
    for p in 0..PARKS {
        for (q, store) in [(0, a.clone()), (1, b.clone())] {
            tasks.push(tokio::spawn(async move {
                alice_answers(&store, &format!("pk_w{p}_q{q}"), json!(true), None).await
            }));
        }
    }
    for task in tasks {
        assert!(matches!(task.await.unwrap(), ResolveOutcome::Resolved(_)));
    }
    let mut moved = Vec::new();
    for rx in [&mut heard_a, &mut heard_b] {
        while let Ok(park) = rx.try_recv() {
            moved.push(park.id);
        }
    }
    moved.sort();
    let mut want: Vec<_> = (0..PARKS).map(|p| format!("pk_w{p}")).collect();
    want.sort();
    assert_eq!(moved, want, "each park moved once, on one worker");
    for p in 0..PARKS {
        let park = b.get_park(&format!("pk_w{p}")).await.unwrap().unwrap();
        assert_eq!(park.resolutions.len(), 2);
    }
}

conformance! {
    finished_agui_runs_are_pruned_after_the_retention => 1000,
    notifications_are_stored_listed_and_announced => 1000,
    read_and_dismiss_are_set_once => 1000,
    submissions_are_ordered_capped_and_replayed => 1000,
    the_outstanding_limit_holds_per_asker => 1000,
    a_notification_create_replays_by_key => 1000,
    dismissed_notifications_are_pruned_with_what_they_kept => 1000,
    a_park_resolves_once_in_every_order => 1000,
    a_park_is_stored_whole_or_not_at_all => 1000,
    concurrent_claims_have_one_winner => 1000,
    sibling_races_resolve_a_park_once => 1000,
    a_webhook_resume_is_leased_to_one_dispatcher => 1000,
    settled_parks_are_pruned_after_their_retention => 1000,
    paging_has_no_duplicates_or_gaps => 1000,
    resolve_has_a_single_winner => 1000,
    idempotent_repeat_replays => 1000,
    idempotency_key_conflicts => 1000,
    expire_due_moves_each_once => 1000,
    events_after_resumes_or_reports_a_gap => crate::GAP_TEST_RETENTION,
    live_subscription_is_ordered => 1000,
    media_round_trips => 1000,
    ticket_finds_its_interaction => 1000,
    nothing_settles_past_the_deadline => 1000,
    pages_and_backlogs_are_bounded => 1000,
    the_pending_limit_holds_per_asker => 1000,
    parks_count_against_the_pending_limit => 1000,
    resolved_questions_are_pruned_with_what_they_kept => 1000,
    ticket_expires_on_its_own_ttl => 1000,
    a_verifier_secret_is_never_read_back => 1000,
}
