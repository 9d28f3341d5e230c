//! Park behaviours of the conformance suite: "the last one resolved" is decided once, in the
//! store, whatever the order, the surface or the worker.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use futures::future::join_all;
use inbox_protocol::{Continuation, Interaction, Mode, Park, ParkStatus, ResolutionStatus, Status};
use inbox_server::store::{ClaimOutcome, IdempotencyClaim, NewPark, ResolveOutcome, Store};
use serde_json::json;
use tokio::sync::broadcast;

use super::orders::every_order;
use super::{alice_answers, answer, question};

/// A park of `n` questions `{park}_q{i}`, each async with the given deadline.
pub fn park_of(id: &str, deadlines: &[DateTime<Utc>], continuation: Continuation) -> NewPark {
    let asks: Vec<_> = deadlines
        .iter()
        .enumerate()
        .map(|(i, at)| {
            let mut ask = question(&format!("{id}_q{i}"), Some(*at));
            ask.interaction.mode = Mode::Async;
            ask.interaction.park_id = Some(id.to_owned());
            ask
        })
        .collect();
    NewPark {
        park: Park {
            id: id.to_owned(),
            asker: "deploy-bot".into(),
            created_at: Utc::now(),
            status: ParkStatus::Parked,
            interactions: asks.iter().map(|a| a.interaction.id.clone()).collect(),
            resolutions: vec![],
            continuation,
            metadata: json!({"run": "r-17"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            resolved_at: None,
            resumed_at: None,
            attempts: None,
            last_error: None,
        },
        asks,
    }
}

/// Every park transition heard so far for `id` (the store publishes before `resolve` returns).
fn transitions(rx: &mut broadcast::Receiver<Park>, id: &str) -> Vec<Park> {
    let mut seen = Vec::new();
    while let Ok(park) = rx.try_recv() {
        if park.id == id {
            seen.push(park);
        }
    }
    seen
}

/// Asserts that no webhook resume is due now, `why` naming the moment.
async fn nothing_due(store: &Arc<dyn Store>, lease: std::time::Duration, why: &str) {
    let due = store.lease_delivery(Utc::now(), lease).await.unwrap();
    assert!(due.is_none(), "{why}");
}

/// A claim of park `id` now, without an idempotency key.
async fn claim_now(store: &Arc<dyn Store>, id: &str) -> ClaimOutcome {
    store.claim_park(id, None, Utc::now()).await.unwrap()
}

fn in_minutes(m: i64) -> DateTime<Utc> {
    Utc::now() + Duration::minutes(m)
}

#[derive(Clone, Copy, Debug)]
enum Step {
    Answer,
    Decline,
    Expire,
}

/// A park of three resolved in every order, one question answered, one declined and one
/// expired: never a transition on a partial set, exactly one with the last, carrying all three
/// in the order asked (the expired one with the marker).
pub async fn a_park_resolves_once_in_every_order(store: Arc<dyn Store>) {
    use Step::{Answer, Decline, Expire};
    let orders = every_order([Answer, Decline, Expire]);
    assert_eq!(orders.len(), 6, "{orders:?}");
    for (n, order) in orders.iter().enumerate() {
        let id = format!("pk_order{n}");
        // q0 is answered, q1 declined, q2 expires: its deadline is the only one a sweep at
        // +10 minutes reaches.
        let new = park_of(
            &id,
            &[in_minutes(120), in_minutes(120), in_minutes(5)],
            Continuation::Claim {},
        );
        let ids = new.park.interactions.clone();
        let mut rx = store.subscribe_parks();
        store.insert_park(new).await.unwrap();
        for (done, step) in order.iter().enumerate() {
            let parked = store.get_park(&id).await.unwrap().unwrap();
            assert_eq!(parked.status, ParkStatus::Parked, "{order:?} after {done}");
            assert_eq!(parked.resolutions.len(), done, "{order:?}");
            assert!(
                matches!(claim_now(&store, &id).await, ClaimOutcome::NotResolved(_)),
                "no resume on a partial set"
            );
            assert!(
                transitions(&mut rx, &id).is_empty(),
                "{order:?} after {done}"
            );
            match step {
                Answer => {
                    let out = alice_answers(&store, &ids[0], json!(true), None).await;
                    assert!(matches!(out, ResolveOutcome::Resolved(_)), "{out:?}");
                }
                Decline => {
                    let out = store
                        .resolve(
                            &ids[1],
                            inbox_server::store::Resolution::Decline {
                                reason: Some("not today".into()),
                                by: "bob".into(),
                            },
                            None,
                        )
                        .await
                        .unwrap();
                    assert!(matches!(out, ResolveOutcome::Resolved(_)), "{out:?}");
                }
                Expire => {
                    let expired = store.expire_due(in_minutes(10)).await.unwrap();
                    assert_eq!(expired, [ids[2].clone()]);
                }
            }
        }
        let moved = transitions(&mut rx, &id);
        assert_eq!(moved.len(), 1, "{order:?}: exactly one transition");
        let park = store.get_park(&id).await.unwrap().unwrap();
        assert_eq!(moved[0], park);
        assert_eq!(park.status, ParkStatus::Resolved);
        assert!(park.resolved_at.is_some());
        let slots: Vec<_> = park
            .resolutions
            .iter()
            .map(|r| (r.interaction_id.as_str(), r.status))
            .collect();
        assert_eq!(
            slots,
            [
                (ids[0].as_str(), ResolutionStatus::Answered),
                (ids[1].as_str(), ResolutionStatus::Declined),
                (ids[2].as_str(), ResolutionStatus::Expired),
            ],
            "{order:?}"
        );
        assert_eq!(park.resolutions[0].value, Some(json!(true)));
        assert_eq!(park.resolutions[0].answered_by.as_deref(), Some("alice"));
        assert!(!park.resolutions[0].is_expired());
        assert_eq!(park.resolutions[1].reason.as_deref(), Some("not today"));
        assert_eq!(park.resolutions[1].value, None);
        assert!(park.resolutions[2].is_expired(), "the reserved marker");
        assert_eq!(park.resolutions[2].value, None);
        // Nothing after the last moves it again.
        store.expire_due(in_minutes(10)).await.unwrap();
        assert!(transitions(&mut rx, &id).is_empty());
    }
}

/// All of a park's questions are stored, or none: a clash on one id stores nothing.
pub async fn a_park_is_stored_whole_or_not_at_all(store: Arc<dyn Store>) {
    store
        .insert_ask(question("pk_clash_q1", None))
        .await
        .unwrap();
    let new = park_of(
        "pk_clash",
        &[in_minutes(60), in_minutes(60), in_minutes(60)],
        Continuation::Claim {},
    );
    assert!(store.insert_park(new).await.is_err());
    assert!(store.get_park("pk_clash").await.unwrap().is_none());
    for id in ["pk_clash_q0", "pk_clash_q2"] {
        assert!(
            store.get(id).await.unwrap().is_none(),
            "{id} must not be stored"
        );
    }
    // The clashing id is still the lone question it was.
    let lone = store.get("pk_clash_q1").await.unwrap().unwrap();
    assert_eq!(lone.park_id, None);

    let stored = store
        .insert_park(park_of(
            "pk_whole",
            &[in_minutes(60)],
            Continuation::Claim {},
        ))
        .await
        .unwrap();
    let read = store.get_park("pk_whole").await.unwrap().unwrap();
    assert_eq!(read, stored);
    let ia: Interaction = store.get("pk_whole_q0").await.unwrap().unwrap();
    assert_eq!(ia.park_id.as_deref(), Some("pk_whole"));
    assert_eq!(ia.status, Status::Pending);
}

/// Eight claims at once on a resolved park: exactly one takes it; the winner's key replays.
pub async fn concurrent_claims_have_one_winner(store: Arc<dyn Store>) {
    let new = park_of(
        "pk_claim",
        &[in_minutes(60), in_minutes(60)],
        Continuation::Claim {},
    );
    let ids = new.park.interactions.clone();
    store.insert_park(new).await.unwrap();
    for id in &ids {
        alice_answers(&store, id, json!(true), None).await;
    }
    let claims = (0..8).map(|i| {
        let store = store.clone();
        async move {
            let claim = IdempotencyClaim {
                key: format!("key-{i}"),
                fingerprint: "claim\ndeploy-bot\nnull".into(),
            };
            (
                i,
                store
                    .claim_park("pk_claim", Some(claim), Utc::now())
                    .await
                    .unwrap(),
            )
        }
    });
    let outcomes = join_all(claims).await;
    let winners: Vec<_> = outcomes
        .iter()
        .filter(|(_, o)| matches!(o, ClaimOutcome::Claimed(_)))
        .collect();
    assert_eq!(winners.len(), 1, "{outcomes:?}");
    let (winner, ClaimOutcome::Claimed(taken)) = winners[0] else {
        unreachable!()
    };
    assert_eq!(taken.status, ParkStatus::Resumed);
    assert!(taken.resumed_at.is_some());
    assert_eq!(taken.resolutions.len(), 2);
    for (_, outcome) in &outcomes {
        assert!(
            matches!(
                outcome,
                ClaimOutcome::Claimed(_) | ClaimOutcome::AlreadyClaimed(_)
            ),
            "{outcome:?}"
        );
    }
    let again = IdempotencyClaim {
        key: format!("key-{winner}"),
        fingerprint: "claim\ndeploy-bot\nnull".into(),
    };
    assert_eq!(
        store
            .claim_park("pk_claim", Some(again), Utc::now())
            .await
            .unwrap(),
        ClaimOutcome::Replayed(taken.clone())
    );
    assert!(matches!(
        claim_now(&store, "pk_claim").await,
        ClaimOutcome::AlreadyClaimed(_)
    ));
    assert_eq!(claim_now(&store, "pk_nope").await, ClaimOutcome::NotFound);
    let hook = park_of(
        "pk_hook",
        &[in_minutes(60)],
        Continuation::Webhook {
            url: "https://hooks.example.org/r".into(),
        },
    );
    store.insert_park(hook).await.unwrap();
    assert!(matches!(
        claim_now(&store, "pk_hook").await,
        ClaimOutcome::NotClaimable(_)
    ));
}

/// Siblings settled at the same moment on different tasks (answers, and an answer racing the
/// expiry sweep): every park moves exactly once, with every resolution on it.
pub async fn sibling_races_resolve_a_park_once(store: Arc<dyn Store>) {
    const PARKS: usize = 12;
    let mut rx = store.subscribe_parks();
    for p in 0..PARKS {
        let deadlines = [
            in_minutes(60),
            in_minutes(60),
            Utc::now() - Duration::seconds(1),
        ];
        store
            .insert_park(park_of(
                &format!("pk_race{p}"),
                &deadlines,
                Continuation::Claim {},
            ))
            .await
            .unwrap();
    }
    let mut tasks = Vec::new();
    for p in 0..PARKS {
        for q in 0..2 {
            let store = store.clone();
            tasks.push(tokio::spawn(async move {
                store
                    .resolve(
                        &format!("pk_race{p}_q{q}"),
                        answer(&format!("reviewer{q}"), json!(q == 0)),
                        None,
                    )
                    .await
                    .unwrap()
            }));
        }
    }
    // Two sweepers race the answers for the third question of every park.
    for _ in 0..2 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            store.expire_due(Utc::now()).await.unwrap();
            ResolveOutcome::NotFound
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let mut moved = Vec::new();
    while let Ok(park) = rx.try_recv() {
        moved.push(park);
    }
    moved.sort_by(|a, b| a.id.cmp(&b.id));
    let ids: Vec<_> = moved.iter().map(|p| p.id.clone()).collect();
    let mut want: Vec<_> = (0..PARKS).map(|p| format!("pk_race{p}")).collect();
    want.sort();
    assert_eq!(ids, want, "each park moved exactly once");
    for park in &moved {
        assert_eq!(park.resolutions.len(), 3, "{park:?}");
        assert!(park.resolutions[2].is_expired());
        let stored = store.get_park(&park.id).await.unwrap().unwrap();
        assert_eq!(stored.status, ParkStatus::Resolved);
    }
}

/// The resume queue: a resolved webhook park is queued once; eight dispatchers leasing at once
/// get it once; a lease that runs out lets another take it with the same delivery id, and the
/// first one's late report changes nothing.
pub async fn a_webhook_resume_is_leased_to_one_dispatcher(store: Arc<dyn Store>) {
    use inbox_server::store::DeliveryResult;
    let hook = Continuation::Webhook {
        url: "https://hooks.example.org/r".into(),
    };
    let new = park_of("pk_queue", &[in_minutes(60), in_minutes(60)], hook);
    let ids = new.park.interactions.clone();
    store.insert_park(new).await.unwrap();
    let lease = std::time::Duration::from_millis(300);
    alice_answers(&store, &ids[0], json!(true), None).await;
    nothing_due(&store, lease, "nothing is due on a partial set").await;
    store
        .resolve(&ids[1], answer("bob", json!(false)), None)
        .await
        .unwrap();
    let racers = (0..8).map(|_| {
        let store = store.clone();
        async move { store.lease_delivery(Utc::now(), lease).await.unwrap() }
    });
    let leased: Vec<_> = join_all(racers).await.into_iter().flatten().collect();
    assert_eq!(leased.len(), 1, "one dispatcher holds it");
    let first = leased[0].clone();
    assert_eq!(first.park.id, "pk_queue");
    assert_eq!(first.park.status, ParkStatus::Resolved);
    assert_eq!(first.park.resolutions.len(), 2);
    assert_eq!(first.attempts, 0);

    // The holder goes quiet; once the lease runs out another dispatcher takes over.
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    let second = store
        .lease_delivery(Utc::now(), lease)
        .await
        .unwrap()
        .expect("due again after the lease ran out");
    assert_eq!(second.delivery_id, first.delivery_id, "never a second id");
    assert_ne!(second.lease, first.lease);
    assert!(
        !store
            .finish_delivery(&first, DeliveryResult::Delivered, Utc::now())
            .await
            .unwrap(),
        "a lost lease reports nothing"
    );
    let retry_at = Utc::now() + Duration::milliseconds(100);
    assert!(
        store
            .finish_delivery(
                &second,
                DeliveryResult::Retry {
                    at: retry_at,
                    error: "the receiver answered 500".into()
                },
                Utc::now()
            )
            .await
            .unwrap()
    );
    let waiting = store.get_park("pk_queue").await.unwrap().unwrap();
    assert_eq!(waiting.status, ParkStatus::Resolved);
    assert_eq!(waiting.attempts, Some(1));
    assert_eq!(
        waiting.last_error.as_deref(),
        Some("the receiver answered 500")
    );
    nothing_due(&store, lease, "not yet due").await;
    tokio::time::sleep(std::time::Duration::from_millis(150)).await;
    let third = store
        .lease_delivery(Utc::now(), lease)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (third.delivery_id.as_str(), third.attempts),
        (first.delivery_id.as_str(), 1)
    );
    assert!(
        store
            .finish_delivery(&third, DeliveryResult::Delivered, Utc::now())
            .await
            .unwrap()
    );
    let done = store.get_park("pk_queue").await.unwrap().unwrap();
    assert_eq!(done.status, ParkStatus::Resumed);
    assert_eq!(done.attempts, Some(2));
    assert!(done.resumed_at.is_some());
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    nothing_due(&store, lease, "delivered once").await;
    assert!(!store.redeliver_park("pk_queue", Utc::now()).await.unwrap());
}

/// Parks that have left `parked` are pruned once their last step is older than the cut-off,
/// with their resolutions; one still parked, or whose webhook resume is still queued, is kept
/// until that is over. Their questions stay (they have a retention of their own).
pub async fn settled_parks_are_pruned_after_their_retention(store: Arc<dyn Store>) {
    use inbox_server::store::DeliveryResult;
    let later = in_minutes(60);
    let hook = Continuation::Webhook {
        url: "https://hooks.example.org/p".into(),
    };
    for (id, continuation) in [
        ("pk_prune_claimed", Continuation::Claim {}),
        ("pk_prune_unclaimed", Continuation::Claim {}),
        ("pk_prune_parked", Continuation::Claim {}),
        ("pk_prune_hook", hook),
    ] {
        store
            .insert_park(park_of(id, &[later, later], continuation))
            .await
            .unwrap();
    }
    let settle = |id: &'static str, n: usize| {
        let store = store.clone();
        async move {
            for q in 0..n {
                let out = alice_answers(&store, &format!("{id}_q{q}"), json!(true), None).await;
                assert!(matches!(out, ResolveOutcome::Resolved(_)), "{out:?}");
            }
        }
    };
    settle("pk_prune_claimed", 2).await;
    settle("pk_prune_unclaimed", 2).await;
    settle("pk_prune_parked", 1).await;
    settle("pk_prune_hook", 2).await;
    assert!(matches!(
        claim_now(&store, "pk_prune_claimed").await,
        ClaimOutcome::Claimed(_)
    ));

    // Settled moments ago: a cut-off an hour back reaches none of them.
    let none = store
        .prune_parks(Utc::now() - Duration::hours(1), 100)
        .await
        .unwrap();
    assert!(none.is_empty(), "{none:?}");

    let cut = Utc::now() + Duration::seconds(1);
    let mut pruned = store.prune_parks(cut, 100).await.unwrap();
    pruned.sort();
    assert_eq!(pruned, ["pk_prune_claimed", "pk_prune_unclaimed"]);
    for gone in &pruned {
        assert!(store.get_park(gone).await.unwrap().is_none(), "{gone}");
        assert!(
            matches!(claim_now(&store, gone).await, ClaimOutcome::NotFound),
            "{gone}: nothing left to claim"
        );
        // The questions are still there, on their own retention.
        assert!(store.get(&format!("{gone}_q0")).await.unwrap().is_some());
    }
    assert_eq!(
        store
            .get_park("pk_prune_parked")
            .await
            .unwrap()
            .unwrap()
            .status,
        ParkStatus::Parked
    );
    let queued = store.get_park("pk_prune_hook").await.unwrap().unwrap();
    assert_eq!(
        queued.status,
        ParkStatus::Resolved,
        "its resume is still due"
    );

    // Once delivered, the webhook park goes too; a second run finds nothing more.
    let delivery = store
        .lease_delivery(Utc::now(), std::time::Duration::from_secs(30))
        .await
        .unwrap()
        .expect("the webhook resume is due");
    assert_eq!(delivery.park.id, "pk_prune_hook");
    assert!(
        store
            .finish_delivery(&delivery, DeliveryResult::Delivered, Utc::now())
            .await
            .unwrap()
    );
    let later_cut = Utc::now() + Duration::seconds(1);
    assert_eq!(
        store.prune_parks(later_cut, 100).await.unwrap(),
        ["pk_prune_hook"]
    );
    assert!(store.get_park("pk_prune_hook").await.unwrap().is_none());
    assert!(store.prune_parks(later_cut, 100).await.unwrap().is_empty());
    assert!(store.get_park("pk_prune_parked").await.unwrap().is_some());
}
