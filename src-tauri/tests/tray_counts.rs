//! One owner for the counts: the tray's number is read from the engine's counts, so through a
//! scripted sequence — questions arriving, an answer delivered, an answer in flight while
//! offline, a question expiring, the network back — the tray (as `tray_count::follow` shows
//! it), the engine's snapshots and the window's snapshot report the same number at every step.
//! A real server on loopback, the real engine behind the app's own `Desk`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

mod support;

use inbox_client::{ApiClient, Token};
use inbox_desktop::desk::{Desk, LAUNCH_ACCOUNT_ID};
use inbox_desktop_core::tray_count;
use inbox_protocol::{AnswerFormat, AskRequest, Interaction, Mode};
use inbox_sync::{Counts, Delivery};
use serde_json::json;
use support::ASKER;

/// What each owner says right now: (tray, engine, window).
async fn numbers(desk: &Desk, tray: &AtomicU32) -> (u32, u32, u32, Counts) {
    let engine: BTreeMap<String, Counts> = desk
        .engine
        .snapshot()
        .await
        .into_iter()
        .map(|s| (s.account, s.counts))
        .collect();
    let window = desk.snapshot().await.counts;
    (
        tray.load(Ordering::SeqCst),
        tray_count::pending_total(&engine),
        tray_count::pending_total(&window),
        engine.get(LAUNCH_ACCOUNT_ID).copied().unwrap_or_default(),
    )
}

/// Wait until the engine counts `pending` (and `queued`) and the tray and the window agree.
async fn step(desk: &Desk, tray: &AtomicU32, what: &str, pending: u32, queued: u32) {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let (shown, engine, window, counts) = numbers(desk, tray).await;
        if (shown, engine, window) == (pending, pending, pending) && counts.queued == queued {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: want {pending} pending and {queued} queued; the tray shows {shown}, the engine \
             counts {engine} ({counts:?}), the window's snapshot {window}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

async fn ask(asker: &ApiClient, prompt: &str, timeout_s: Option<u64>) -> Interaction {
    let mut request = AskRequest::new(prompt, AnswerFormat::Confirm);
    if let Some(seconds) = timeout_s {
        request.mode = Mode::Sync;
        request.timeout_s = Some(seconds);
    }
    asker.ask(&request).await.unwrap()
}

/// Answer `question` through the desk's engine, as the window does, and check how the answer fares.
async fn answer(desk: &Desk, question: &Interaction, value: serde_json::Value, fares: Delivery) {
    let delivery = desk
        .engine
        .answer(LAUNCH_ACCOUNT_ID, &question.id, value, None)
        .await
        .unwrap();
    assert_eq!(delivery, fares, "the answer to {:?}", question.prompt);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tray_number_is_the_engines_count_through_answers_offline_and_expiry() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::server(dir.path(), "build-bot").await;
    let desk = support::open(
        dir.path(),
        &support::following(dir.path(), &server.base_url),
    )
    .await;
    // The tray as the app feeds it, with a recorder in place of the icon.
    let tray = Arc::new(AtomicU32::new(u32::MAX));
    tokio::spawn(tray_count::follow(desk.engine.counts(), {
        let tray = tray.clone();
        move |pending| tray.store(pending, Ordering::SeqCst)
    }));
    step(&desk, &tray, "nothing asked yet", 0, 0).await;

    let asker = ApiClient::new(&server.base_url, Token::new(ASKER)).unwrap();
    let deploy = ask(&asker, "Deploy to staging?", None).await;
    let migrate = ask(&asker, "Run the migration?", None).await;
    step(&desk, &tray, "two questions arrived", 2, 0).await;

    // Online, answered: accepted, no longer waiting.
    answer(&desk, &deploy, json!(true), Delivery::Accepted).await;
    step(&desk, &tray, "one answered", 1, 0).await;

    // Offline: the answer waits in the outbox, and an answer on its way is not waiting.
    desk.engine.set_network(false).await;
    answer(&desk, &migrate, json!(false), Delivery::Queued).await;
    step(&desk, &tray, "an answer in flight offline", 0, 1).await;

    // Back online: the queued answer goes; a question with a short deadline arrives live.
    desk.engine.set_network(true).await;
    step(&desk, &tray, "the queued answer delivered", 0, 0).await;
    let expiring = ask(&asker, "Approve within three seconds?", Some(3)).await;
    step(&desk, &tray, "a question with a deadline arrived", 1, 0).await;

    // Past its deadline it no longer waits, whether the server or the engine's clock says so.
    support::eventually(
        "the question never expired",
        Duration::from_secs(20),
        async || {
            let card = desk
                .engine
                .snapshot_of(LAUNCH_ACCOUNT_ID)
                .await
                .unwrap()
                .cards
                .into_iter()
                .find(|c| c.interaction.id == expiring.id);
            card.is_none_or(|c| {
                c.local.expired_locally || c.interaction.status != inbox_protocol::Status::Pending
            })
        },
    )
    .await;
    step(&desk, &tray, "the question expired", 0, 0).await;

    desk.shutdown().await;
    server.shutdown().await;
}
