//! The SSE stream over real HTTP: frames and ids, resume after a drop, reset on ids that cannot
//! be honoured, keepalive, expiry, and a restart on the same data dir.

mod common;

use std::time::Duration;

use common::{
    ASKER, Frame, REVIEWER, Sse, TestServer, assert_refused, start, start_in, start_listening,
    start_with,
};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const QUIET: Duration = Duration::from_millis(400);

fn assert_increasing(frames: &[Frame]) {
    for pair in frames.windows(2) {
        assert!(
            pair[0].seq() < pair[1].seq(),
            "ids must increase: {frames:?}"
        );
    }
}

async fn stream_cursor(server: &TestServer) -> String {
    let page = server.page("status=all").await;
    page["stream_cursor"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn add_answered_and_removed_frames_carry_increasing_ids() {
    let (server, _dir) = start().await;
    let early = server.ask_confirm("before the connect").await;
    let mut stream = Sse::connect(&server, None).await;

    let a = server.ask_confirm("first").await;
    let add = stream.expect_frame().await;
    assert_eq!(add.event, "add");
    assert_eq!(add.data["id"], a);
    assert_eq!(add.data["status"], "pending");
    assert_eq!(add.data["prompt"], "first");

    assert_eq!(server.answer(&a, json!(true), None).await.0, StatusCode::OK);
    let answered = stream.expect_frame().await;
    assert_eq!(answered.event, "answered");
    assert_eq!(answered.data["id"], a);
    assert_eq!(answered.data["status"], "answered");
    assert_eq!(answered.data["answer"]["value"], true);
    assert_eq!(answered.data["answer"]["answered_by"], "alice");

    let b = server.ask_confirm("second").await;
    assert_eq!(stream.expect_frame().await.event, "add");
    assert_eq!(server.withdraw(&b, ASKER).await.0, StatusCode::OK);
    let removed = stream.expect_frame().await;
    assert_eq!(removed.event, "removed");
    assert_eq!(removed.data, json!({"id": b, "reason": "cancelled"}));

    let (status, _) = server.decline(&early, json!({}), None).await;
    assert_eq!(status, StatusCode::OK);
    let declined = stream.expect_frame().await;
    assert_eq!(declined.event, "answered");
    assert_eq!(declined.data["status"], "declined");

    // Tail-only: the ask made before the connect was never replayed.
    assert_increasing(&[add, answered, removed, declined.clone()]);
    assert_eq!(
        declined.id.as_deref(),
        Some(stream_cursor(&server).await.as_str())
    );
    stream.expect_quiet(QUIET).await;
    server.shutdown().await;
}

#[tokio::test]
async fn a_resume_delivers_exactly_the_missed_events_then_the_tail() {
    let (server, _dir, mut stream) = start_listening().await;
    let a = server.ask_confirm("a").await;
    let seen = stream.expect_frame().await;
    drop(stream);

    // While disconnected: a's answer and two new asks.
    server.answer(&a, json!(false), None).await;
    let b = server.ask_confirm("b").await;
    let c = server.ask_confirm("c").await;

    // Everything after `seen`, oldest first; grows as each round adds a live ask.
    let mut expected = vec![
        ("answered".to_owned(), json!(a)),
        ("add".to_owned(), json!(b)),
        ("add".to_owned(), json!(c)),
    ];
    for by_query in [false, true] {
        let mut resumed = if by_query {
            let path = format!(
                "/api/interactions/stream?last_event_id={}",
                seen.id.as_deref().unwrap()
            );
            Sse::open(server.request(Method::GET, &path, Some(REVIEWER))).await
        } else {
            Sse::connect(&server, seen.id.as_deref()).await
        };
        let mut missed = Vec::new();
        for _ in 0..expected.len() {
            missed.push(resumed.expect_frame().await);
        }
        let got: Vec<(String, Value)> = missed
            .iter()
            .map(|f| (f.event.clone(), f.data["id"].clone()))
            .collect();
        assert_eq!(got, expected);
        assert_eq!(missed[0].seq(), seen.seq() + 1, "nothing skipped");
        assert_increasing(&missed);
        // Then the live tail, with nothing repeated in between.
        let d = server.ask_confirm(&format!("d {by_query}")).await;
        let live = resumed.expect_frame().await;
        assert_eq!((live.event.as_str(), &live.data["id"]), ("add", &json!(d)));
        assert_eq!(live.seq(), missed.last().unwrap().seq() + 1);
        resumed.expect_quiet(QUIET).await;
        expected.push(("add".to_owned(), json!(d)));
    }
    server.shutdown().await;
}

#[tokio::test]
async fn a_resume_racing_new_events_has_no_gap_and_no_duplicate() {
    let (server, _dir) = start().await;
    let first = server.ask_confirm("seed").await;
    let _ = first;
    let from = stream_cursor(&server).await;
    // Asks land while the resume is being set up; every one must arrive exactly once.
    let asking = async {
        let mut ids = Vec::new();
        for i in 0..40 {
            ids.push(server.ask_confirm(&format!("burst {i}")).await);
        }
        ids
    };
    let connecting = async {
        tokio::time::sleep(Duration::from_millis(20)).await;
        Sse::connect(&server, Some(&from)).await
    };
    let (asked, mut stream) = tokio::join!(asking, connecting);
    let mut frames = Vec::new();
    for _ in 0..40 {
        frames.push(stream.expect_frame().await);
    }
    let got: Vec<&str> = frames
        .iter()
        .map(|f| f.data["id"].as_str().unwrap())
        .collect();
    assert_eq!(got, asked.iter().map(String::as_str).collect::<Vec<_>>());
    assert_increasing(&frames);
    stream.expect_quiet(QUIET).await;
    server.shutdown().await;
}

#[tokio::test]
async fn an_id_that_cannot_be_honoured_yields_a_reset_then_the_tail() {
    let (server, _dir) = start_with(|c| c.events_retention = 5).await;
    for i in 0..10 {
        server.ask_confirm(&format!("q{i}")).await;
    }
    let tail = stream_cursor(&server).await;
    assert_eq!(tail, "10");
    for (id, reason) in [
        ("not-a-number", "malformed_id"),
        ("-3", "malformed_id"),
        ("1", "aged_out"),
        ("99999", "aged_out"),
    ] {
        let mut stream = Sse::connect(&server, Some(id)).await;
        let reset = stream.expect_frame().await;
        assert_eq!(reset.event, "reset", "{id}");
        assert_eq!(reset.data, json!({ "reason": reason }), "{id}");
        assert_eq!(
            reset.id.as_deref(),
            Some(stream_cursor(&server).await.as_str())
        );
        let fresh = server.ask_confirm(&format!("after reset {id}")).await;
        let next = stream.expect_frame().await;
        assert_eq!(
            (next.event.as_str(), next.data["id"].as_str()),
            ("add", Some(fresh.as_str()))
        );
        assert_eq!(next.seq(), reset.seq() + 1);
        stream.expect_quiet(QUIET).await;
    }
    // The newest ids are still inside the window.
    let window_start = stream_cursor(&server).await.parse::<u64>().unwrap() - 5;
    let mut stream = Sse::connect(&server, Some(&window_start.to_string())).await;
    assert_eq!(stream.expect_frame().await.event, "add");
    server.shutdown().await;
}

#[tokio::test]
async fn idle_streams_get_keepalive_comments() {
    let (server, _dir) = start_with(|c| c.keepalive = Duration::from_millis(200)).await;
    let mut stream = Sse::connect(&server, None).await;
    let block = stream.next_block(Duration::from_secs(2)).await;
    assert_eq!(block, Some(common::Block::Comment("keepalive".into())));
    server.shutdown().await;
}

#[tokio::test]
async fn an_asker_stream_gets_keepalives_while_events_it_may_not_see_flow() {
    let (server, _dir) = start_with(|c| c.keepalive = Duration::from_millis(300)).await;
    let mut asker =
        Sse::open(server.request(Method::GET, "/api/interactions/stream", Some(ASKER))).await;
    // Questions arrive every 100 ms, faster than the keepalive: none is for an asker's stream
    // (it sees only its own notifications' submissions), so it must still hear the comment.
    let asking = async {
        for i in 0..15 {
            server
                .ask(json!({"prompt": format!("q{i}"), "answer_format": "confirm"}))
                .await;
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let (_, block) = tokio::join!(asking, asker.next_block(Duration::from_millis(1_400)));
    assert_eq!(block, Some(common::Block::Comment("keepalive".into())));
    server.shutdown().await;
}

#[tokio::test]
async fn expiry_emits_removed_and_closes_the_question() {
    let (server, _dir, mut stream) = start_listening().await;
    let ia = server
        .ask(json!({"prompt": "quick?", "answer_format": "confirm", "timeout_s": 1}))
        .await;
    let id = ia["id"].as_str().unwrap();
    assert!(ia["expires_at"].is_string());
    assert_eq!(stream.expect_frame().await.event, "add");
    let removed = stream
        .next_frame(Duration::from_secs(4))
        .await
        .expect("expired in time");
    assert_eq!(removed.event, "removed");
    assert_eq!(removed.data, json!({"id": id, "reason": "expired"}));
    let (_, read) = server.read(id).await;
    assert_eq!(read["status"], "expired");
    assert_refused(
        &server.answer(id, json!(true), None).await,
        StatusCode::NOT_FOUND,
        "not_found",
        "expired answers are the uniform 404",
    );
    server.shutdown().await;
}

#[tokio::test]
async fn a_restart_on_the_same_data_dir_keeps_data_and_resume() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_in(dir.path(), |_| {}).await;
    let a = server.ask_confirm("survives").await;
    let after_a = stream_cursor(&server).await;
    let b = server.ask_confirm("also survives").await;
    let key_reply = server.answer(&b, json!(true), Some("restart-key")).await;
    assert_eq!(key_reply.0, StatusCode::OK);
    let mut open = Sse::connect(&server, None).await;
    server.shutdown().await;
    // The stream ends with the server instead of holding the shutdown (ended, not timed out).
    assert!(open.ends_within(Duration::from_secs(2)).await);

    let server = start_in(dir.path(), |_| {}).await;
    let (_, pending) = server.get_json("/api/interactions", Some(REVIEWER)).await;
    assert_eq!(pending["items"][0]["id"], a);
    assert_eq!(pending["items"].as_array().unwrap().len(), 1);
    // Resume from before the restart: exactly what came after.
    let mut stream = Sse::connect(&server, Some(&after_a)).await;
    let missed = [stream.expect_frame().await, stream.expect_frame().await];
    assert_eq!(
        (missed[0].event.as_str(), &missed[0].data["id"]),
        ("add", &json!(b))
    );
    assert_eq!(
        (missed[1].event.as_str(), &missed[1].data["id"]),
        ("answered", &json!(b))
    );
    // Ids keep counting up, and the idempotency record survived.
    let c = server.ask_confirm("after restart").await;
    let live = stream.expect_frame().await;
    assert_eq!(live.data["id"], c);
    assert_eq!(live.seq(), missed[1].seq() + 1);
    let replay = server.answer(&b, json!(true), Some("restart-key")).await;
    assert_eq!(replay, key_reply);
    server.shutdown().await;
}

/// A client that stops reading while thousands of events pass overflows the live bus; its
/// stream must catch up from the store with every event once, in order.
#[tokio::test]
async fn a_stream_that_cannot_keep_up_gets_a_reset_and_is_closed() {
    use std::sync::Arc;

    use inbox_protocol::{AnswerFormat, Interaction};
    use inbox_server::store::{NewAsk, SqliteStore, Store};

    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(&dir.path().join("inbox.sqlite3"), 100_000).unwrap());
    let state = inbox_server::AppState::new(store.clone(), common::tokens(), "http://127.0.0.1");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, inbox_server::app(state)).await });

    let http = reqwest::Client::new();
    let mut stream = Sse::open(
        http.get(format!("{base}/api/interactions/stream"))
            .bearer_auth(common::REVIEWER),
    )
    .await;
    // Big frames fill the socket buffers, so the sender blocks and the live bus (4096 per
    // subscriber) overflows while the rest is published.
    const EVENTS: usize = 8_000;
    for i in 0..EVENTS {
        let interaction = Interaction::builder(format!("ia_{i:05}"))
            .prompt("x".repeat(4_000))
            .format(AnswerFormat::Text)
            .asker("deploy-bot")
            .build();
        store.insert_ask(NewAsk::plain(interaction)).await.unwrap();
    }
    // Everything it was sent arrives in order, then a `reset` (refetch), then the end: the
    // server buffered a bounded amount for it, not the 8 000 events.
    let mut delivered = 0u64;
    let reset = loop {
        let frame = stream.expect_frame().await;
        if frame.event == "reset" {
            break frame;
        }
        assert_eq!(frame.event, "add");
        delivered += 1;
        assert_eq!(
            frame.seq(),
            delivered,
            "every event once, in order, until the reset"
        );
    };
    assert_eq!(reset.data["reason"], "lagged");
    assert!(
        delivered < EVENTS as u64,
        "the subscriber fell behind, so not everything was delivered"
    );
    assert!(
        stream.ends_within(Duration::from_secs(5)).await,
        "the server closed the stream after the reset"
    );
}

/// A resume far behind the tail is read from the store in batches and still delivers every
/// event after the id, in order, exactly once.
#[tokio::test]
async fn a_long_resume_delivers_every_event_in_batches() {
    let (server, _dir, mut tail) = start_listening().await;
    let first = server.ask_confirm("first").await;
    let first_frame = tail.expect_frame().await;
    assert_eq!(first_frame.data["id"], first.as_str());
    let from = first_frame.id.clone().unwrap();
    let mut ids = Vec::new();
    for i in 0..250 {
        ids.push(server.ask_confirm(&format!("q{i}")).await);
    }
    let mut resumed = Sse::connect(&server, Some(&from)).await;
    for id in &ids {
        let frame = resumed.expect_frame().await;
        assert_eq!(frame.event, "add");
        assert_eq!(frame.data["id"], id.as_str());
    }
    resumed.expect_quiet(QUIET).await;
    server.shutdown().await;
}
