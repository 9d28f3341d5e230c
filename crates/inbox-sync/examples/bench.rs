//! How fast the inbox engine builds and keeps a list, and how much memory a card costs:
//! `cargo run --release -p inbox-sync --example bench`.
//!
//! Prints, for lists of 10,000 and 100,000 pending questions: the time to build the synced
//! list from pages (including the change batches the UI would receive), the time to merge a
//! full refetch after a `reset`, the stream events applied per second on the full list, and
//! the heap bytes per card (counted by a wrapping global allocator).

use std::alloc::System;
use std::hint::black_box;
use std::time::{Duration, Instant};

use cap::Cap;
use chrono::{TimeZone, Utc};
use inbox_protocol::{
    Answer, AnswerFormat, AnsweredEvent, Interaction, InteractionPage, RemovedEvent, RemovedReason,
    ResetEvent, ResetReason, Status, StreamEvent,
};
use inbox_sync::{Inbox, Input};
use serde_json::{Map, Value, json};

#[global_allocator]
static HEAP: Cap<System> = Cap::new(System, usize::MAX);

const PAGE_SIZE: usize = 100;

/// A question of realistic size: a sentence of prompt, two options, a little metadata.
fn question(n: usize) -> Interaction {
    let mut metadata = Map::new();
    metadata.insert("run_id".into(), json!(format!("run_{:08}", n / 7)));
    metadata.insert("tool_call_id".into(), json!(format!("call_{n:010}")));
    Interaction::builder(format!("ia_{n:012}"))
        .prompt(format!(
            "Deploy build {n} to production? The canary has been green for an hour."
        ))
        .format(AnswerFormat::Select)
        .options(vec![
            inbox_protocol::ChoiceOption {
                value: "yes".into(),
                label: Some("Deploy".into()),
            },
            inbox_protocol::ChoiceOption {
                value: "no".into(),
                label: Some("Hold".into()),
            },
        ])
        .expires_at(Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap())
        .asker("deploy-bot")
        .created_at(Utc.timestamp_opt(1_800_000_000 + n as i64, 0).unwrap())
        .metadata(metadata)
        .build()
}

/// The pending set as the paged door serves it: newest first, `PAGE_SIZE` a page.
fn pages(count: usize, stream_cursor: u64) -> Vec<(Option<String>, InteractionPage)> {
    let items: Vec<Interaction> = (0..count).rev().map(question).collect();
    let chunks: Vec<Vec<Interaction>> = items.chunks(PAGE_SIZE).map(<[_]>::to_vec).collect();
    let last = chunks.len() - 1;
    chunks
        .into_iter()
        .enumerate()
        .map(|(i, items)| {
            let cursor = (i > 0).then(|| format!("page{i}"));
            let page = InteractionPage {
                items,
                next_cursor: (i < last).then(|| format!("page{}", i + 1)),
                stream_cursor: stream_cursor.to_string(),
            };
            (cursor, page)
        })
        .collect()
}

fn feed_pages(inbox: &mut Inbox, pages: Vec<(Option<String>, InteractionPage)>) {
    for (cursor_requested, page) in pages {
        black_box(inbox.handle(Input::PageLoaded {
            page,
            cursor_requested,
        }));
    }
}

/// A live mix: a third new questions, a third answers, a third removals, plus reads.
fn events(count: usize, existing: usize, first_seq: u64) -> Vec<Input> {
    (0..count)
        .map(|i| {
            let seq = first_seq + i as u64;
            let event = match i % 3 {
                0 => StreamEvent::Add(question(existing + i)),
                1 => StreamEvent::Answered(AnsweredEvent {
                    id: format!("ia_{:012}", i % existing),
                    status: Status::Answered,
                    answer: Answer {
                        value: Value::String("yes".into()),
                        answered_by: "alice".into(),
                        answered_at: Utc.timestamp_opt(1_900_000_000, 0).unwrap(),
                        params: None,
                        reason: None,
                    },
                }),
                _ => StreamEvent::Removed(RemovedEvent {
                    id: format!("ia_{:012}", (i * 7) % existing),
                    reason: RemovedReason::Expired,
                }),
            };
            Input::StreamEvent {
                id: Some(seq.to_string()),
                event,
            }
        })
        .collect()
}

fn per_second(count: usize, took: Duration) -> f64 {
    count as f64 / took.as_secs_f64()
}

fn run(count: usize) {
    println!("\n{count} pending questions in pages of {PAGE_SIZE}");

    // Build the synced list from pages; pages are made before the clock starts.
    let before_pages = HEAP.allocated();
    let first = pages(count, 1_000);
    let with_pages = HEAP.allocated();
    let mut inbox = Inbox::new("bench");
    let started = Instant::now();
    black_box(inbox.handle(Input::Start));
    feed_pages(&mut inbox, first);
    black_box(inbox.handle(Input::StreamOpened));
    let took = started.elapsed();
    assert_eq!(inbox.len(), count);
    let with_inbox = HEAP.allocated();
    println!(
        "  build from pages      {:>10.1} ms  ({:.0} items/s)",
        took.as_secs_f64() * 1e3,
        per_second(count, took)
    );
    let page_bytes = (with_pages - before_pages) as f64 / count as f64;
    let card_bytes = (with_inbox - before_pages) as f64 / count as f64;
    println!(
        "  memory per card       {card_bytes:>10.0} B   (the interaction itself as parsed: {page_bytes:.0} B; engine overhead: {:.0} B)",
        card_bytes - page_bytes
    );

    // A reset: the whole pending set refetched, staged and merged without flicker.
    let again = pages(count, 2_000);
    let started = Instant::now();
    black_box(inbox.handle(Input::StreamEvent {
        id: Some("1500".into()),
        event: StreamEvent::Reset(ResetEvent {
            reason: ResetReason::AgedOut,
        }),
    }));
    feed_pages(&mut inbox, again);
    let took = started.elapsed();
    assert!(!inbox.is_syncing());
    println!(
        "  refetch + merge       {:>10.1} ms",
        took.as_secs_f64() * 1e3
    );

    // Live events on the full list.
    let n = (count * 2).max(100_000);
    let live = events(n, count, 3_000);
    let started = Instant::now();
    for input in live {
        black_box(inbox.handle(input));
    }
    let took = started.elapsed();
    println!(
        "  events applied        {:>10.0} /s   ({n} events, list now {} cards)",
        per_second(n, took),
        inbox.len()
    );

    // Reads and a snapshot for a UI that attaches.
    let started = Instant::now();
    let snapshot = inbox.snapshot();
    let took = started.elapsed();
    println!(
        "  snapshot              {:>10.1} ms  ({} cards)",
        took.as_secs_f64() * 1e3,
        snapshot.cards.len()
    );
}

fn main() {
    if cfg!(debug_assertions) {
        println!("(debug build: run with --release for meaningful numbers)");
    }
    run(10_000);
    run(100_000);
}
