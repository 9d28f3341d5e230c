//! The sync engine against the real server on loopback: big lists, faults of every kind,
//! offline answers, races between reviewers, refused tokens.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::*;
use inbox_client::Token;
use inbox_client::connection::{LinkState, Subscription, Update};
use inbox_client::engine::{EngineError, NotificationKind};
use inbox_client::outbox::RecordedVerdict;
use inbox_protocol::{AnswerRequest, ErrorCode, Status};
use inbox_sync::{ConnectionStatus, Delivery};
use inbox_test_net::fault_proxy::{Mode, Proxy};
use serde_json::json;

const CONVERGE: Duration = Duration::from_secs(30);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_pending_questions_sync_and_equal_the_servers_truth() {
    let dir = tempfile::tempdir().unwrap();
    seed_pending(&dir, 10_000, 20_000).await;
    let server = TestServer::start_in(dir, 20_000).await;
    let state = tempfile::tempdir().unwrap();
    let engine = engine(state.path());
    add_account(&engine, "work", &server.url(), ALICE).await;
    // Questions asked while the first pages are still loading arrive live.
    let bot = server.api(BOT);
    for i in 0..20 {
        ask(&bot, &format!("live question {i}")).await;
    }
    let pending = converge(&engine, "work", &server.api(ALICE), CONVERGE).await;
    assert_eq!(pending, 10_020);
    let snapshot = engine.snapshot_of("work").await.unwrap();
    assert_eq!(snapshot.counts.pending, 10_020);
    assert_eq!(snapshot.status, ConnectionStatus::Online);
    engine.shutdown().await;
}

/// Asks, answers (as another reviewer) and withdraws directly at the server until stopped.
fn spawn_churn(server_url: String, stop: Arc<AtomicBool>) -> tokio::task::JoinHandle<usize> {
    tokio::spawn(async move {
        let bot = inbox_client::ApiClient::new(&server_url, Token::new(BOT)).unwrap();
        let bob = inbox_client::ApiClient::new(&server_url, Token::new(BOB)).unwrap();
        let mut asked = Vec::new();
        let mut done = 0;
        let mut i = 0usize;
        while !stop.load(Ordering::SeqCst) {
            i += 1;
            let result = match i % 4 {
                0 if !asked.is_empty() => {
                    let id: String = asked.remove(0);
                    let body = AnswerRequest {
                        answer: json!(true),
                        params: None,
                    };
                    bob.answer(&id, &body, &inbox_client::new_idempotency_key())
                        .await
                        .map(|_| ())
                }
                2 if asked.len() > 1 => {
                    let id = asked.remove(1);
                    bot.withdraw(&id).await.map(|_| ())
                }
                _ => bot
                    .ask(&inbox_protocol::AskRequest::new(
                        format!("churn {i}"),
                        inbox_protocol::AnswerFormat::Confirm,
                    ))
                    .await
                    .map(|ia| asked.push(ia.id)),
            };
            // The server may be down for a while on purpose; that is part of the test.
            if result.is_ok() {
                done += 1;
            }
            tokio::time::sleep(Duration::from_millis(15)).await;
        }
        done
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_stays_true_through_cuts_restarts_refusals_and_silence() {
    let mut server = TestServer::start().await;
    let bot = server.api(BOT);
    for i in 0..50 {
        ask(&bot, &format!("before {i}")).await;
    }
    let proxy = Proxy::start(vec![server.addr]).await.unwrap();
    let state = tempfile::tempdir().unwrap();
    let engine = engine(state.path());
    add_account(&engine, "work", &proxy.url(), ALICE).await;
    let alice = server.api(ALICE);
    converge(&engine, "work", &alice, CONVERGE).await;

    // Each fault while the server keeps changing; after each, the lists must be equal.
    let faults = ["cut", "restart", "refuse", "silence", "cut"];
    for fault in faults {
        let stop = Arc::new(AtomicBool::new(false));
        let churn = spawn_churn(server.url(), stop.clone());
        tokio::time::sleep(Duration::from_millis(300)).await;
        match fault {
            "cut" => proxy.cut_all(),
            "restart" => server.restart().await,
            "refuse" => {
                proxy.set_mode(Mode::Refuse);
                wait_status(&engine, "work", Duration::from_secs(5), |s| {
                    matches!(s, ConnectionStatus::Reconnecting { .. })
                })
                .await;
                tokio::time::sleep(Duration::from_millis(800)).await;
                proxy.set_mode(Mode::Forward);
            }
            "silence" => {
                proxy.set_mode(Mode::Stall);
                // Nothing is refused or closed: only the keepalive timeout can notice.
                let status = wait_status(&engine, "work", Duration::from_secs(6), |s| {
                    matches!(s, ConnectionStatus::Reconnecting { .. })
                })
                .await;
                let ConnectionStatus::Reconnecting { next_try_at, .. } = status else {
                    unreachable!()
                };
                assert!(chrono::DateTime::parse_from_rfc3339(&next_try_at).is_ok());
                proxy.set_mode(Mode::Forward);
                proxy.cut_all();
            }
            _ => unreachable!(),
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        stop.store(true, Ordering::SeqCst);
        let changes = churn.await.unwrap();
        assert!(changes > 0, "{fault}: the server changed meanwhile");
        let pending = converge(&engine, "work", &alice, CONVERGE).await;
        wait_status(&engine, "work", Duration::from_secs(10), |s| {
            *s == ConnectionStatus::Online
        })
        .await;
        eprintln!("after {fault}: {pending} pending, equal to the server");
    }
    engine.shutdown().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gap_beyond_the_servers_retention_is_recovered_by_refetching() {
    let mut server = TestServer::start_with_retention(5).await;
    let bot = server.api(BOT);
    let mut early = Vec::new();
    for i in 0..10 {
        early.push(ask(&bot, &format!("early {i}")).await.id);
    }
    let proxy = Proxy::start(vec![server.addr]).await.unwrap();
    let state = tempfile::tempdir().unwrap();
    let engine = engine(state.path());
    add_account(&engine, "work", &proxy.url(), ALICE).await;
    let alice = server.api(ALICE);
    converge(&engine, "work", &alice, CONVERGE).await;
    wait_status(&engine, "work", Duration::from_secs(5), |s| {
        *s == ConnectionStatus::Online
    })
    .await;

    // Away for longer than the server remembers: 3 answered elsewhere, 20 new questions.
    proxy.set_mode(Mode::Refuse);
    proxy.cut_all();
    let bob = server.api(BOB);
    for id in &early[..3] {
        let body = AnswerRequest {
            answer: json!(false),
            params: None,
        };
        bob.answer(id, &body, &inbox_client::new_idempotency_key())
            .await
            .unwrap();
    }
    for i in 0..20 {
        ask(&bot, &format!("while away {i}")).await;
    }
    proxy.set_mode(Mode::Forward);

    let pending = converge(&engine, "work", &alice, CONVERGE).await;
    assert_eq!(pending, 27);
    let snapshot = engine.snapshot_of("work").await.unwrap();
    for id in &early[..3] {
        let card = snapshot
            .cards
            .iter()
            .find(|c| &c.interaction.id == id)
            .expect("a card answered while away is kept, not dropped");
        assert_eq!(card.interaction.status, Status::Answered);
        assert_eq!(card.interaction.answer.as_ref().unwrap().answered_by, "bob");
    }
    engine.shutdown().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_made_offline_survives_a_crash_and_is_delivered_exactly_once() {
    let mut server = TestServer::start().await;
    let bot = server.api(BOT);
    let question = ask(&bot, "Deploy build 42?").await;
    let state = tempfile::tempdir().unwrap();
    let keyring = inbox_client::Keyring::in_memory().unwrap();
    let engine = engine_with_keyring(state.path(), keyring.clone());
    add_account(&engine, "work", &server.url(), ALICE).await;
    let alice = server.api(ALICE);
    converge(&engine, "work", &alice, CONVERGE).await;

    // Offline: the server is gone.
    server.stop().await;
    wait_status(&engine, "work", Duration::from_secs(5), |s| {
        matches!(s, ConnectionStatus::Reconnecting { .. })
    })
    .await;
    // Validated locally before anything is queued.
    let refused = engine
        .answer("work", &question.id, json!("yes please"), None)
        .await;
    let refused = refused.unwrap_err();
    assert!(matches!(refused, EngineError::Invalid(_)), "{refused:?}");
    assert_eq!(
        (refused.code().as_str(), refused.field()),
        ("invalid_answer", Some("answer"))
    );
    assert!(
        engine.outbox("work").await.unwrap().is_empty(),
        "nothing queued"
    );
    let delivery = engine
        .answer("work", &question.id, json!(true), None)
        .await
        .unwrap();
    assert_eq!(delivery, Delivery::Queued);
    let queued = engine.outbox("work").await.unwrap();
    assert_eq!(queued.len(), 1);
    let key = queued[0].key.clone();
    assert!(
        state
            .path()
            .join("work/outbox")
            .join(format!("{key}.json"))
            .exists()
    );

    // The app dies; a new one starts on the same state dir and keyring.
    engine.shutdown().await;
    drop(engine);
    let cursor = std::fs::read_to_string(state.path().join("work/cursor.json")).unwrap();
    assert!(cursor.contains("last_event_id"), "{cursor}");
    let engine = engine_with_keyring(state.path(), keyring);
    let failures = engine.start([account("work", &server.url())]).await;
    assert!(
        failures.is_empty(),
        "token comes from the keyring: {failures:?}"
    );
    server.restart().await;

    // Delivered on reconnect, with the key minted before the crash.
    eventually("never delivered", CONVERGE, async || {
        let entries = engine.outbox("work").await.unwrap();
        match &entries[0].verdict {
            Some(RecordedVerdict::Accepted { interaction }) => {
                assert_eq!(entries[0].key, key);
                assert_eq!(interaction.status, Status::Answered);
                Ok(())
            }
            other => Err(other.clone()),
        }
    })
    .await;
    converge(&engine, "work", &alice, CONVERGE).await;
    let card = card_of(&engine, "work", &question.id).await;
    assert_eq!(card.local.delivery, Some(Delivery::Accepted));
    assert_eq!(card.interaction.status, Status::Answered);

    // The server holds one answer, recorded under that key: the same key replays it, a
    // different key is a second answer and is refused.
    let stored = alice.get(&question.id).await.unwrap();
    let answer = stored.answer.unwrap();
    assert_eq!(
        (answer.value, answer.answered_by.as_str()),
        (json!(true), "alice")
    );
    let body = AnswerRequest {
        answer: json!(true),
        params: None,
    };
    let replay = alice.answer(&question.id, &body, &key).await.unwrap();
    assert_eq!(
        replay.interaction.answer.unwrap().answered_at,
        answer.answered_at
    );
    let second = alice
        .answer(&question.id, &body, &inbox_client::new_idempotency_key())
        .await
        .unwrap_err();
    assert_eq!(second.code(), Some(ErrorCode::AlreadyAnswered));
    engine.shutdown().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_reviewers_answer_one_question_and_the_loser_sees_who_won() {
    let mut server = TestServer::start().await;
    let question = ask(&server.api(BOT), "Ship it?").await;
    let bobs_link = Proxy::start(vec![server.addr]).await.unwrap();
    let state = tempfile::tempdir().unwrap();
    let engine = engine(state.path());
    // Two accounts in one engine: two principals, each with its own token in the keyring.
    add_account(&engine, "alice", &server.url(), ALICE).await;
    add_account(&engine, "bob", &bobs_link.url(), BOB).await;
    converge(&engine, "alice", &server.api(ALICE), CONVERGE).await;
    converge(&engine, "bob", &server.api(BOB), CONVERGE).await;

    // Bob answers while his link is down; Alice answers meanwhile and wins.
    bobs_link.set_mode(Mode::Refuse);
    bobs_link.cut_all();
    wait_status(&engine, "bob", Duration::from_secs(5), |s| {
        matches!(s, ConnectionStatus::Reconnecting { .. })
    })
    .await;
    let bobs = engine
        .answer("bob", &question.id, json!(false), None)
        .await
        .unwrap();
    assert_eq!(bobs, Delivery::Queued);
    let alices = engine
        .answer("alice", &question.id, json!(true), None)
        .await
        .unwrap();
    assert_eq!(alices, Delivery::Accepted);
    bobs_link.set_mode(Mode::Forward);

    let card = eventually("no verdict", CONVERGE, async || {
        let card = card_of(&engine, "bob", &question.id).await;
        if matches!(card.local.delivery, Some(Delivery::Rejected { .. })) {
            Ok(card)
        } else {
            Err(card)
        }
    })
    .await;
    let Some(Delivery::Rejected {
        code,
        winner,
        message,
    }) = card.local.delivery
    else {
        unreachable!()
    };
    assert_eq!(code, ErrorCode::AlreadyAnswered);
    assert_eq!(winner.unwrap().answered_by, "alice");
    assert!(message.contains("alice"), "{message}");
    assert_eq!(card.interaction.status, Status::Answered);
    assert_eq!(card.interaction.answer.unwrap().value, json!(true));
    let stored = server.api(BOB).get(&question.id).await.unwrap();
    assert_eq!(stored.answer.unwrap().answered_by, "alice");
    engine.shutdown().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_token_signs_out_without_retrying_and_a_new_one_signs_back_in() {
    let mut server = TestServer::start().await;
    ask(&server.api(BOT), "Anyone there?").await;
    let proxy = Proxy::start(vec![server.addr]).await.unwrap();
    let state = tempfile::tempdir().unwrap();
    let engine = engine(state.path());
    engine
        .add_account(
            account("work", &proxy.url()),
            Some(Token::new("not-a-token")),
        )
        .await
        .unwrap();
    wait_status(&engine, "work", Duration::from_secs(5), |s| {
        *s == ConnectionStatus::SignedOut
    })
    .await;
    let connections = proxy.accepted();
    // With a 100 ms backoff base, a retrying client would make dozens of connections here.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(proxy.accepted(), connections, "no request after signed out");
    assert_eq!(
        engine.statuses().borrow().get("work"),
        Some(&ConnectionStatus::SignedOut)
    );

    engine.sign_in("work", Token::new(ALICE)).await.unwrap();
    wait_status(&engine, "work", Duration::from_secs(10), |s| {
        *s == ConnectionStatus::Online
    })
    .await;
    converge(&engine, "work", &server.api(ALICE), CONVERGE).await;
    engine.shutdown().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_demo_format_syncs_notifies_and_serves_its_media_through_the_account() {
    let mut server = TestServer::start().await;
    let state = tempfile::tempdir().unwrap();
    let engine = engine(state.path());
    let mut notifications = engine.notifications();
    add_account(&engine, "work", &server.url(), ALICE).await;
    wait_status(&engine, "work", Duration::from_secs(5), |s| {
        *s == ConnectionStatus::Online
    })
    .await;
    let bot = server.api(BOT);
    let mut asked = Vec::new();
    for question in inbox_client::demo::demo_questions() {
        asked.push(bot.ask(&question).await.unwrap());
    }
    let park = bot
        .park(&inbox_client::demo::demo_park(chrono::Utc::now()))
        .await
        .unwrap();
    for id in &park.interactions {
        asked.push(bot.get(id).await.unwrap());
    }
    converge(&engine, "work", &server.api(ALICE), CONVERGE).await;

    // The park's questions reach the engine knowing their park and their place in it.
    let cards = engine.snapshot_of("work").await.unwrap().cards;
    for (n, id) in park.interactions.iter().enumerate() {
        let card = cards
            .iter()
            .find(|c| &c.interaction.id == id)
            .expect("each parked question is a card");
        assert_eq!(card.interaction.park_id.as_deref(), Some(park.id.as_str()));
        let place = card
            .interaction
            .park
            .as_ref()
            .expect("its place in the park");
        assert_eq!((place.size, place.index), (3, n as u32));
        assert_eq!(place.run.as_deref(), Some("r-17"));
    }

    // Each live question asks for a notification.
    let mut shown = std::collections::BTreeSet::new();
    while shown.len() < asked.len() {
        let n = tokio::time::timeout(Duration::from_secs(5), notifications.recv())
            .await
            .expect("a notification per live question")
            .unwrap();
        if let NotificationKind::Show { card } = n.kind {
            assert_eq!(n.account, "work");
            shown.insert(card.interaction.id.clone());
        }
    }
    assert_eq!(shown.len(), asked.len());

    // Inline images are served by reference; the engine fetches them with the account.
    let reference = asked
        .iter()
        .flat_map(|ia| ia.media.iter())
        .find(|m| m.url.starts_with(inbox_protocol::paths::MEDIA_PREFIX))
        .expect("a demo question carries an inline image")
        .url
        .clone();
    let media = engine.media("work", &reference).await.unwrap();
    assert_eq!(media.content_type, "image/png");
    assert!(media.bytes.starts_with(b"\x89PNG"));

    // Reading a card withdraws its notification.
    engine.mark_read("work", &asked[0].id).await.unwrap();
    loop {
        let n = tokio::time::timeout(Duration::from_secs(5), notifications.recv())
            .await
            .expect("the read card's notification is withdrawn")
            .unwrap();
        if n.kind
            == (NotificationKind::Withdraw {
                id: asked[0].id.clone(),
            })
        {
            break;
        }
    }
    engine.shutdown().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tail_subscription_resumes_after_cuts_with_no_gap_and_no_duplicate() {
    let mut server = TestServer::start().await;
    let proxy = Proxy::start(vec![server.addr]).await.unwrap();
    let reviewer = inbox_client::ApiClient::new(&proxy.url(), Token::new(ALICE)).unwrap();
    let mut subscription = Subscription::new(
        reviewer,
        None,
        inbox_client::BackoffPolicy {
            base: Duration::from_millis(50),
            cap: Duration::from_millis(500),
        },
        Duration::from_secs(2),
    );
    // Wait until the stream is open before asking (it is tail-only).
    loop {
        match subscription.next().await.unwrap() {
            Update::Link(LinkState::Online) => break,
            Update::Link(_) => {}
            Update::Event(e) => panic!("no event expected yet: {e:?}"),
        }
    }
    let asker = tokio::spawn({
        let url = server.url();
        async move {
            let bot = inbox_client::ApiClient::new(&url, Token::new(BOT)).unwrap();
            let mut ids = Vec::new();
            for i in 0..40 {
                ids.push(ask(&bot, &format!("tail {i}")).await.id);
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            ids
        }
    });
    let mut seen_ids: Vec<String> = Vec::new();
    let mut added: Vec<String> = Vec::new();
    let mut reconnects = 0;
    while added.len() < 40 {
        if added.len() == 10 || added.len() == 25 {
            proxy.cut_all();
        }
        let update = tokio::time::timeout(Duration::from_secs(10), subscription.next())
            .await
            .expect("the tail keeps going")
            .unwrap();
        match update {
            Update::Event(event) => {
                let id = event.id.clone().expect("every frame has an id");
                assert!(!seen_ids.contains(&id), "frame {id} delivered twice");
                seen_ids.push(id);
                if let inbox_protocol::StreamEvent::Add(ia) = event.parse().unwrap() {
                    added.push(ia.id);
                }
            }
            Update::Link(LinkState::Reconnecting { .. }) => reconnects += 1,
            Update::Link(_) => {}
        }
    }
    let asked = asker.await.unwrap();
    assert_eq!(added, asked, "every question, in order, once");
    assert!(reconnects >= 2, "the cuts were noticed ({reconnects})");
    assert_eq!(
        subscription.last_event_id(),
        seen_ids.last().map(String::as_str)
    );
    server.stop().await;
}

/// Polls the engine's snapshot until `pred` holds for its notifications (or fails after 10 s).
async fn wait_board(
    engine: &inbox_client::Engine,
    what: &str,
    pred: impl Fn(&[inbox_protocol::Notification]) -> bool,
) -> Vec<inbox_protocol::Notification> {
    eventually(what, Duration::from_secs(10), async || {
        let board = engine.snapshot_of("work").await.unwrap().notifications;
        if pred(&board) { Ok(board) } else { Err(board) }
    })
    .await
}

/// Notifications reach the engine from the list (sent before it started) and live; opening
/// marks them read at the server, a submission reaches the asker's submissions door (a bad one
/// is refused naming the field), and dismissing clears it everywhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_sync_and_the_reviewers_acts_reach_the_server() {
    let server = TestServer::start().await;
    let bot = server.api(BOT);
    let demo = inbox_client::demo::demo_notifications();
    let before = bot.notify(&demo[0], None).await.unwrap();
    let state = tempfile::tempdir().unwrap();
    let engine = engine(state.path());
    add_account(&engine, "work", &server.url(), ALICE).await;
    wait_board(&engine, "the listed one", |b| {
        b.iter().any(|n| n.id == before.id)
    })
    .await;
    let form = bot.notify(&demo[1], None).await.unwrap();
    let board = wait_board(&engine, "the live one", |b| b.len() == 2).await;
    assert_eq!(board[0].id, form.id, "newest first");
    assert_eq!(
        engine
            .snapshot_of("work")
            .await
            .unwrap()
            .counts
            .notifications_unread,
        2
    );
    assert_eq!(engine.snapshot_of("work").await.unwrap().counts.pending, 0);

    engine.open_notification("work", &form.id).await.unwrap();
    let alice = server.api(ALICE);
    let at_server = async |read: fn(&inbox_protocol::Notification) -> bool| {
        let n = alice.get_notification(&form.id).await.unwrap();
        if read(&n) { Ok(()) } else { Err(n) }
    };
    let within = Duration::from_secs(10);
    eventually("read reached the server", within, async || {
        at_server(|n| n.read_at.is_some()).await
    })
    .await;

    let refused = engine
        .submit_notification("work", &form.id, json!({"rating": 0}))
        .await
        .unwrap_err();
    assert_eq!(refused.code().as_str(), "invalid_answer");
    assert_eq!(refused.field(), Some("rating"));
    let submission = engine
        .submit_notification("work", &form.id, json!({"rating": 5, "comment": "smooth"}))
        .await
        .unwrap();
    assert_eq!(submission.ordinal, 1);
    assert_eq!(bot.submissions(&form.id).await.unwrap(), vec![submission]);
    wait_board(&engine, "the count", |b| {
        b.iter().any(|n| n.id == form.id && n.submissions == 1)
    })
    .await;

    engine.dismiss_notification("work", &form.id).await.unwrap();
    wait_board(&engine, "dismissed here", |b| b.len() == 1).await;
    eventually("dismissal reached the server", within, async || {
        at_server(|n| n.dismissed_at.is_some()).await
    })
    .await;
    engine.shutdown().await;
}

/// An answer given while another is on its way is told `queued` as soon as that send fails
/// and the link is down, not when the link comes back: before, its caller waited for the
/// server (a frozen answer button while offline; found by the fault campaign, seed 1000,
/// fault 20, "client killed with a full outbox"). Both are then delivered exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_queued_behind_a_failing_send_returns_while_the_link_is_down() {
    let server = TestServer::start().await;
    let bot = server.api(BOT);
    let first = ask(&bot, "First?").await;
    let second = ask(&bot, "Second?").await;
    let proxy = Proxy::start(vec![server.addr]).await.unwrap();
    let state = tempfile::tempdir().unwrap();
    let mut config = inbox_client::EngineConfig::new(state.path());
    config.backoff = inbox_client::backoff::BackoffPolicy {
        base: Duration::from_millis(100),
        cap: Duration::from_secs(1),
    };
    // Long enough that only the refusal below takes the link down, not the stall's silence.
    config.keepalive_timeout = Duration::from_secs(30);
    let engine = inbox_client::Engine::new(config, inbox_client::Keyring::in_memory().unwrap());
    add_account(&engine, "work", &proxy.url(), ALICE).await;
    let alice = server.api(ALICE);
    converge(&engine, "work", &alice, CONVERGE).await;

    // The link goes silent: the first answer's request hangs on it.
    proxy.set_mode(Mode::Stall);
    let first_call = tokio::spawn({
        let (engine, id) = (engine.clone(), first.id.clone());
        async move { engine.answer("work", &id, json!(true), None).await }
    });
    wait_outbox(&engine, |entries| {
        entries
            .iter()
            .any(|e| e.interaction_id == first.id && e.attempts >= 1)
    })
    .await;
    // The second is kept behind it (one send at a time).
    let second_call = tokio::spawn({
        let (engine, id) = (engine.clone(), second.id.clone());
        async move { engine.answer("work", &id, json!(false), None).await }
    });
    wait_outbox(&engine, |entries| entries.len() == 2).await;

    // The link goes down for good: the first send fails, the stream drops.
    proxy.set_mode(Mode::Refuse);
    let within = Duration::from_secs(10);
    let first_delivery = tokio::time::timeout(within, first_call)
        .await
        .expect("the first answer returns once its send failed")
        .unwrap()
        .unwrap();
    assert_eq!(first_delivery, Delivery::Queued);
    let second_delivery = tokio::time::timeout(within, second_call)
        .await
        .expect("the second answer returns while the link is down")
        .unwrap()
        .unwrap();
    assert_eq!(second_delivery, Delivery::Queued);
    for id in [&first.id, &second.id] {
        assert_eq!(alice.get(id).await.unwrap().status, Status::Pending);
    }

    // Back online: each lands once, by alice, with the value given.
    proxy.set_mode(Mode::Forward);
    let entries = wait_outbox(&engine, |entries| {
        entries
            .iter()
            .all(|e| matches!(e.verdict, Some(RecordedVerdict::Accepted { .. })))
    })
    .await;
    assert_eq!(entries.len(), 2);
    for (id, value) in [(&first.id, json!(true)), (&second.id, json!(false))] {
        let answer = alice.get(id).await.unwrap().answer.unwrap();
        assert_eq!(
            (answer.value, answer.answered_by.as_str()),
            (value, "alice")
        );
    }
    converge(&engine, "work", &alice, CONVERGE).await;
    engine.shutdown().await;
}

/// Wait (up to [`CONVERGE`]) until the outbox of `work` satisfies `want`; return it.
async fn wait_outbox(
    engine: &inbox_client::Engine,
    want: impl Fn(&[inbox_client::outbox::OutboxEntry]) -> bool,
) -> Vec<inbox_client::outbox::OutboxEntry> {
    eventually("outbox never matched", CONVERGE, async || {
        let entries = engine.outbox("work").await.unwrap();
        if want(&entries) {
            Ok(entries)
        } else {
            Err(entries)
        }
    })
    .await
}

/// The app's clock runs hours ahead, then is set right: a question the server still holds
/// open shows expired meanwhile, and open (and answerable) again once the clock is back —
/// before, it stayed expired on this app for good (found by the fault campaign's clock jump).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clock_set_back_reopens_a_question_expired_only_by_this_apps_clock() {
    let server = TestServer::start().await;
    let bot = server.api(BOT);
    let mut ask_body = inbox_protocol::AskRequest::new(
        "Ship it before the window closes?",
        inbox_protocol::AnswerFormat::Confirm,
    );
    ask_body.mode = inbox_protocol::Mode::Async;
    ask_body.expiry_at = Some((chrono::Utc::now() + chrono::Duration::hours(2)).to_rfc3339());
    let question = bot.ask(&ask_body).await.unwrap();
    let state = tempfile::tempdir().unwrap();
    let clock = inbox_client::Clock::default();
    let mut config = inbox_client::EngineConfig::new(state.path());
    config.clock = clock.clone();
    let engine = inbox_client::Engine::new(config, inbox_client::Keyring::in_memory().unwrap());
    add_account(&engine, "work", &server.url(), ALICE).await;
    let alice = server.api(ALICE);
    converge(&engine, "work", &alice, CONVERGE).await;

    clock.jump(chrono::Duration::hours(3));
    let showing = async |want: (Status, bool)| {
        let card = card_of(&engine, "work", &question.id).await;
        let now = (card.interaction.status, card.local.expired_locally);
        if now == want { Ok(()) } else { Err(now) }
    };
    let within = Duration::from_secs(10);
    eventually("never expired here", within, async || {
        showing((Status::Expired, true)).await
    })
    .await;
    let refused = engine
        .answer("work", &question.id, json!(true), None)
        .await
        .unwrap_err();
    assert_eq!(refused.code().as_str(), "not_open");

    // Set right: within the engine's clock check (5 s) the card is open again.
    clock.jump(chrono::Duration::hours(-3));
    let still = "still expired on this app while the server holds it open";
    eventually(still, within, async || {
        showing((Status::Pending, false)).await
    })
    .await;
    converge(&engine, "work", &alice, CONVERGE).await;
    let delivery = engine
        .answer("work", &question.id, json!(true), None)
        .await
        .unwrap();
    assert_eq!(delivery, Delivery::Accepted);
    assert_eq!(
        alice.get(&question.id).await.unwrap().status,
        Status::Answered
    );
    engine.shutdown().await;
}
