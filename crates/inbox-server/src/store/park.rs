//! What both stores share about parks: the record a new park is stored from, what a claim
//! decided, the resolution a settled question contributes, and how a stored park is read back.
//!
//! The one rule both stores implement the same way: the resolution of a park's question is
//! recorded **in the same transaction (SQLite) or Lua script (Redis) that settles the
//! question**, and the step that records the last one moves the park `parked → resolved`.
//! Whoever's write that is, is decided by the store's own atomicity, once.

use std::collections::HashMap;

use chrono::{DateTime, TimeZone, Utc};
use inbox_protocol::{Interaction, Park, ParkStatus, Resolution, ResolutionStatus, Status};

use super::{NewAsk, StoreError};

/// A park ready to store with all its questions: all of it is written, or none.
#[derive(Debug, Clone)]
pub struct NewPark {
    /// Status `parked`, no resolutions yet.
    pub park: Park,
    /// Each question, its `park_id` set to the park's id, in `park.interactions` order.
    pub asks: Vec<NewAsk>,
}

/// What `claim_park` did.
#[derive(Debug, Clone, PartialEq)]
pub enum ClaimOutcome {
    /// This call took the resume: the park, now `resumed`.
    Claimed(Park),
    /// The same key and fingerprint took it before: the park as it stands.
    Replayed(Park),
    /// Somebody (another key, or none) took it before.
    AlreadyClaimed(Park),
    /// Still `parked`: questions remain.
    NotResolved(Park),
    /// It resumes by another continuation (a webhook).
    NotClaimable(Park),
    NotFound,
}

/// The slot a question that has left `pending` contributes to its park; `None` while pending.
pub(crate) fn resolution_of(ia: &Interaction) -> Option<Resolution> {
    let answer = ia.answer.as_ref();
    let status = match ia.status {
        Status::Pending => return None,
        Status::Expired => return Some(Resolution::expired(&ia.id)),
        Status::Answered => ResolutionStatus::Answered,
        Status::Declined => ResolutionStatus::Declined,
        Status::Cancelled => ResolutionStatus::Cancelled,
    };
    Some(Resolution {
        interaction_id: ia.id.clone(),
        status,
        value: answer
            .filter(|_| status == ResolutionStatus::Answered)
            .map(|a| a.value.clone()),
        params: answer.and_then(|a| a.params.clone()),
        answered_by: answer.map(|a| a.answered_by.clone()),
        reason: answer.and_then(|a| a.reason.clone()),
        expired: None,
    })
}

/// The parts a stored park is kept in, whichever store holds them.
pub(crate) struct StoredPark<'a> {
    /// The park as created (JSON): everything that never changes.
    pub body: &'a str,
    pub status: &'a str,
    /// Recorded resolutions by interaction id, as JSON.
    pub resolutions: HashMap<String, String>,
    pub resolved_at: Option<i64>,
    pub resumed_at: Option<i64>,
}

impl StoredPark<'_> {
    /// The park as the doors show it: resolutions in the order the questions were asked.
    pub fn assemble(self) -> Result<Park, StoreError> {
        let mut park: Park = serde_json::from_str(self.body)?;
        park.status = ParkStatus::parse(self.status)
            .ok_or_else(|| StoreError::Task(format!("park {} has an unknown status", park.id)))?;
        let mut resolutions = self.resolutions;
        park.resolutions = park
            .interactions
            .iter()
            .filter_map(|id| resolutions.remove(id))
            .map(|json| serde_json::from_str(&json))
            .collect::<Result<_, _>>()?;
        park.resolved_at = self.resolved_at.and_then(from_millis);
        park.resumed_at = self.resumed_at.and_then(from_millis);
        Ok(park)
    }
}

fn from_millis(ms: i64) -> Option<DateTime<Utc>> {
    Utc.timestamp_millis_opt(ms).single()
}

/// A due webhook delivery, leased to one dispatcher until `lease` is returned or runs out.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    /// The park as it stands (status `resolved`), with every resolution.
    pub park: Park,
    /// The park's one delivery id (`webhook-id`): the same on every attempt, on every worker.
    pub delivery_id: String,
    pub url: String,
    /// Attempts made before this one.
    pub attempts: u32,
    /// Proves this dispatcher still holds the lease when it reports back.
    pub lease: String,
}

/// How a leased delivery ended.
#[derive(Debug, Clone, PartialEq)]
pub enum DeliveryResult {
    /// A 2xx: the park is `resumed`.
    Delivered,
    /// Try again at `at`.
    Retry { at: DateTime<Utc>, error: String },
    /// Given up: the park is `failed` (its asker may ask for it again).
    Failed { error: String },
}

/// The one delivery id of a park: derived from the park id, so no worker, restart or retry can
/// ever mint a second one.
pub(crate) fn delivery_id(park_id: &str) -> String {
    format!("msg_{park_id}")
}
