//! Test set-up only (the `test-support` feature, which this crate's tests and the engine suites
//! enable as a dev-dependency and production builds never do): a store-level ask that skips
//! what only the doors add, and the question and answer the store suites are written with, so
//! the unit tests of a store and the conformance suite share one fixture.

use chrono::{DateTime, Utc};
use inbox_protocol::{AnswerFormat, Interaction};
use serde_json::{Value, json};

use crate::store::{NewAsk, Resolution};

impl NewAsk {
    /// `interaction` stored as it is: no pending cap, no media, no ticket. How a test fills a
    /// store directly, past the ask door.
    pub fn plain(interaction: Interaction) -> NewAsk {
        NewAsk {
            interaction,
            pending_limit: usize::MAX,
            media: vec![],
            ticket: None,
        }
    }
}

/// The confirm question `id` ("Deploy {id}?", metadata `{"run": id}`) of `deploy-bot`, due at
/// `expires_at`.
pub fn question(id: &str, expires_at: Option<DateTime<Utc>>) -> NewAsk {
    NewAsk::plain(
        Interaction::builder(id)
            .prompt(format!("Deploy {id}?"))
            .format(AnswerFormat::Confirm)
            .expires_at(expires_at)
            .asker("deploy-bot")
            .metadata(json!({"run": id}).as_object().cloned().unwrap_or_default())
            .build(),
    )
}

/// `by` answers `value`, with no params.
pub fn answer(by: &str, value: Value) -> Resolution {
    Resolution::Answer {
        value,
        params: None,
        by: by.into(),
    }
}
