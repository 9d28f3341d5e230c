//! A publisher at a fixed rate: one message per tick, each sent from its own task so a slow
//! answer never delays the next tick. Every payload carries `bench-seq=N` and is padded to the
//! same size for every server; the send instant of each sequence number is kept for latency.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use serde_json::json;

use crate::clock::now_us;

/// How a server takes a message.
#[derive(Debug, Clone)]
pub enum PublishDoor {
    /// `POST /api/interactions` (a confirm question), askers taken in turn.
    Inbox { base: String, askers: Vec<String> },
    /// `POST` the body as is (the floor's `/pub`, nchan's publisher location).
    Raw { url: String },
}

pub struct Publisher {
    http: reqwest::Client,
    door: PublishDoor,
    /// Bytes of padding in each message, so every server delivers frames of one size.
    pub padding: usize,
    next_seq: u32,
    sent_at: Arc<Mutex<Vec<u64>>>,
    /// How long each publish request took to be answered (µs), by sequence number.
    answered_in: Arc<Mutex<Vec<u64>>>,
}

impl Publisher {
    pub fn new(door: PublishDoor, padding: usize) -> Publisher {
        Publisher {
            http: reqwest::Client::new(),
            door,
            padding,
            next_seq: 0,
            sent_at: Arc::default(),
            answered_in: Arc::default(),
        }
    }

    /// The sequence number the next message will carry.
    pub fn next_seq(&self) -> u32 {
        self.next_seq
    }

    /// When `seq` was sent (µs on [`crate::clock`]).
    pub fn sent_at(&self, seq: u32) -> Option<u64> {
        self.sent_at.lock().unwrap().get(seq as usize).copied()
    }

    /// How long the publish requests of `range` took to be answered (µs), for those that were.
    pub fn answered_in(&self, range: std::ops::Range<u32>) -> Vec<u64> {
        let answered = self.answered_in.lock().unwrap();
        range
            .filter_map(|seq| answered.get(seq as usize).copied())
            .filter(|&us| us != u64::MAX)
            .collect()
    }

    /// The highest sequence sent at or before `at`, if any.
    pub fn last_sent_by(&self, at: u64) -> Option<u32> {
        let sent = self.sent_at.lock().unwrap();
        sent.iter().rposition(|&t| t <= at).map(|i| i as u32)
    }

    /// Sends `count` messages at `rate` per second; returns the sequence numbers used once
    /// every one was answered.
    pub async fn run(&mut self, rate: u32, count: u32) -> anyhow::Result<std::ops::Range<u32>> {
        let first = self.next_seq;
        let mut tick = tokio::time::interval(Duration::from_secs(1) / rate.max(1));
        let mut sends = Vec::with_capacity(count as usize);
        for _ in 0..count {
            tick.tick().await;
            let seq = self.next_seq;
            self.next_seq += 1;
            let request = self.request(seq);
            let sent_at = self.sent_at.clone();
            let answered_in = self.answered_in.clone();
            sends.push(tokio::spawn(async move {
                let started = now_us();
                record(&sent_at, seq, started);
                let sent = request
                    .send()
                    .await
                    .and_then(|r| r.error_for_status())
                    .with_context(|| format!("publishing message {seq}"))
                    .map(drop);
                if sent.is_ok() {
                    record(&answered_in, seq, now_us().saturating_sub(started));
                }
                sent
            }));
        }
        // A refused publish (e.g. a 503 from an overloaded server) is a finding, not the end
        // of the run: it is reported, and its frame counts as undelivered.
        for send in sends {
            if let Err(e) = send.await? {
                eprintln!("   warning: {e:#}");
            }
        }
        Ok(first..self.next_seq)
    }

    fn request(&self, seq: u32) -> reqwest::RequestBuilder {
        let prompt = format!("bench-seq={seq}; {}", "x".repeat(self.padding));
        match &self.door {
            PublishDoor::Inbox { base, askers } => self
                .http
                .post(format!("{base}/api/interactions"))
                .bearer_auth(&askers[seq as usize % askers.len()])
                .json(&json!({"prompt": prompt, "answer_format": "confirm"})),
            PublishDoor::Raw { url } => self
                .http
                .post(url)
                .header("content-type", "application/json")
                .body(json!({"prompt": prompt}).to_string()),
        }
    }
}

/// `values[seq] = value`, growing the list with `u64::MAX` (nothing recorded) as needed.
fn record(values: &Mutex<Vec<u64>>, seq: u32, value: u64) {
    let mut values = values.lock().unwrap();
    if values.len() <= seq as usize {
        values.resize(seq as usize + 1, u64::MAX);
    }
    values[seq as usize] = value;
}
