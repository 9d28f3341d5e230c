//! Property fuzzing of the outbox file reader: a directory holding real entries beside whatever
//! a crash, a disk error or another program left there (half-written files, junk, entries under
//! the wrong name, foreign files). The properties: opening never fails or panics, every real
//! entry comes back exactly as written, no unreadable `*.json` is left to be read again (it is
//! set aside as `*.corrupt`), and opening twice gives the same outbox.
//!
//! `INBOX_PROPTEST_CASES=N` runs N cases instead of the bounded CI count.

use std::fs;

use inbox_client::outbox::{Outbox, OutboxAction};
use inbox_protocol::test_support::proptest_config;
use proptest::prelude::*;
use serde_json::{Value, json};

/// What a stray file holds.
#[derive(Debug, Clone)]
enum Content {
    Bytes(Vec<u8>),
    /// A real entry's JSON cut short, as a torn write would leave it.
    Truncated(usize),
    /// A real entry's JSON under another file name.
    Misnamed,
    /// A real entry's JSON with one top-level field replaced.
    Tampered(&'static str, Value),
}

fn content() -> impl Strategy<Value = Content> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..200).prop_map(Content::Bytes),
        Just(Content::Bytes(b"{}".to_vec())),
        Just(Content::Bytes(b"null".to_vec())),
        (0usize..400).prop_map(Content::Truncated),
        Just(Content::Misnamed),
        (
            prop::sample::select(
                &[
                    "key",
                    "interaction_id",
                    "action",
                    "queued_at",
                    "attempts",
                    "verdict"
                ][..]
            ),
            prop_oneof![
                Just(Value::Null),
                Just(json!(-1)),
                Just(json!("x")),
                Just(json!({"kind": "pigeon"})),
                Just(json!({"verdict": "accepted"})),
                Just(json!(u64::MAX)),
            ],
        )
            .prop_map(|(f, v)| Content::Tampered(f, v)),
    ]
}

fn file_name() -> impl Strategy<Value = String> {
    (
        "[a-zA-Z0-9_.-]{0,12}",
        prop::sample::select(&[".json", ".tmp", ".corrupt", ".json.tmp", "", ".JSON"][..]),
    )
        .prop_map(|(stem, suffix)| format!("{stem}{suffix}"))
        // `.` and `..` are the directory itself.
        .prop_filter("a file name", |n| !n.is_empty() && n != "." && n != "..")
}

fn action() -> impl Strategy<Value = OutboxAction> {
    prop_oneof![
        any::<bool>().prop_map(|b| OutboxAction::Answer {
            value: json!(b),
            params: None
        }),
        ".{0,20}".prop_map(|s| OutboxAction::Answer {
            value: json!(s),
            params: None
        }),
        prop::option::of(".{0,20}").prop_map(|reason| OutboxAction::Decline { reason }),
    ]
}

proptest! {
    #![proptest_config(proptest_config(128))]

    #[test]
    fn the_outbox_reader_keeps_every_real_entry_whatever_lies_beside_it(
        actions in prop::collection::vec(action(), 0..5),
        strays in prop::collection::vec((file_name(), content()), 0..8),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut outbox = Outbox::open(dir.path()).unwrap();
        let mut written = Vec::new();
        for (i, action) in actions.into_iter().enumerate() {
            written.push(outbox.enqueue(&format!("ia_{i}"), action).unwrap());
        }
        drop(outbox);
        let sample = written.first().map(|e| serde_json::to_vec(e).unwrap()).unwrap_or_else(|| {
            br#"{"key":"k","interaction_id":"ia","action":{"kind":"decline"},"queued_at":"2026-01-01T00:00:00Z","attempts":0,"verdict":null}"#.to_vec()
        });
        for (name, content) in &strays {
            let path = dir.path().join(name);
            // A stray never replaces a real entry's file: that would be a lost entry by
            // construction, not by the reader.
            if written.iter().any(|e| format!("{}.json", e.key) == *name) || path.exists() {
                continue;
            }
            let bytes = match content {
                Content::Bytes(b) => b.clone(),
                Content::Truncated(n) => sample[..(*n).min(sample.len())].to_vec(),
                Content::Misnamed => sample.clone(),
                Content::Tampered(field, value) => {
                    let mut v: Value = serde_json::from_slice(&sample).unwrap();
                    v[*field] = value.clone();
                    serde_json::to_vec(&v).unwrap()
                }
            };
            fs::write(&path, bytes).unwrap();
        }

        let first = Outbox::open(dir.path()).unwrap();
        for entry in &written {
            prop_assert_eq!(first.get(&entry.key), Some(entry), "a real entry was lost or changed");
        }
        // Whatever is still named `*.json` was read as an entry; nothing unreadable is left
        // to trip the next start, and nothing `.tmp` survives.
        for item in fs::read_dir(dir.path()).unwrap() {
            let name = item.unwrap().file_name().into_string().unwrap();
            if let Some(key) = name.strip_suffix(".json") {
                prop_assert!(first.get(key).is_some(), "{name} is neither loaded nor set aside");
            }
            prop_assert!(!name.ends_with(".tmp"), "{name} survived");
        }
        let keys: Vec<String> = first.entries().iter().map(|e| e.key.clone()).collect();
        drop(first);
        let second = Outbox::open(dir.path()).unwrap();
        let again: Vec<String> = second.entries().iter().map(|e| e.key.clone()).collect();
        prop_assert_eq!(keys, again, "opening twice read different outboxes");
    }
}
