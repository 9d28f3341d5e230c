//! What both stores share about AG-UI runs: the record a run is stored from, a leased turn
//! (one request to the agent), and how a turn ends.
//!
//! A run has a durable turn queue of its own, built like the webhook delivery queue: a row (a
//! sorted-set member on Redis) per run that is due, a lease that moves its due time past the
//! lease's end (so a dead worker's turn comes due again), and a token checked when the turn is
//! reported. A run is queued when it is created, by the very step that resolves its park (the
//! settling transaction or script, like a webhook park's delivery), and by a retry. Reporting a
//! turn writes the run, opens its next park (all questions or none) and marks the park it
//! resumed as `resumed`, in one atomic step under the lease: that step, not the driver, decides
//! that a park is resumed once.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use inbox_protocol::{AguiRun, Park};
use serde_json::{Map, Value};

use super::NewPark;

/// A run ready to store: the run (status `running`), its input and its secret headers, which
/// are kept apart from the run so no read can show them.
#[derive(Debug, Clone)]
pub struct NewAguiRun {
    pub run: AguiRun,
    pub input: Map<String, Value>,
    pub headers: BTreeMap<String, String>,
}

/// A due turn, leased to one driver until it is reported or the lease runs out.
#[derive(Clone)]
pub struct AguiTurn {
    pub run: AguiRun,
    pub input: Map<String, Value>,
    pub headers: BTreeMap<String, String>,
    /// The run's park, when it has resolved and not been resumed yet: this turn resumes it.
    pub resume: Option<Park>,
    /// Failed attempts at this turn so far.
    pub attempts: u32,
    /// Proves this driver still holds the lease when it reports back.
    pub lease: String,
}

impl std::fmt::Debug for AguiTurn {
    // The headers are secrets: a debug print of a turn must not show them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AguiTurn")
            .field("run", &self.run.id)
            .field("headers", &self.headers.len())
            .field("resume", &self.resume.as_ref().map(|p| &p.id))
            .field("attempts", &self.attempts)
            .finish_non_exhaustive()
    }
}

/// How a leased turn ended.
#[derive(Debug, Clone)]
pub enum TurnResult {
    /// The agent paused: the run (status `interrupted`, `park_id` = the new park) and the park
    /// to open with it.
    Interrupted { run: AguiRun, park: Box<NewPark> },
    /// The run is final (succeeded, failed or cancelled). `reached`: the agent answered this
    /// turn, so a park it carried is resumed (an unreachable agent never saw the resume).
    Finished { run: AguiRun, reached: bool },
    /// Try again at `at` (the run carries the attempt's error).
    Retry { run: AguiRun, at: DateTime<Utc> },
}

impl TurnResult {
    pub fn run(&self) -> &AguiRun {
        match self {
            TurnResult::Interrupted { run, .. }
            | TurnResult::Finished { run, .. }
            | TurnResult::Retry { run, .. } => run,
        }
    }

    /// The park the finished turn resumed (marked `resumed` in the same step), if any.
    pub(crate) fn resumed_park<'a>(&self, turn: &'a AguiTurn) -> Option<&'a str> {
        let reached = match self {
            TurnResult::Interrupted { .. } => true,
            TurnResult::Finished { reached, .. } => *reached,
            TurnResult::Retry { .. } => false,
        };
        turn.resume
            .as_ref()
            .filter(|_| reached)
            .map(|p| p.id.as_str())
    }
}
