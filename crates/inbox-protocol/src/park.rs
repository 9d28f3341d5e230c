//! Parks: async questions asked together, and what the server does once, when the last of
//! them resolves (design: `parks.md`; reference: `docs/api.md`, "Parks").

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use crate::ask::AskRequest;

/// What `POST /api/parks` takes.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(optional_fields)]
pub struct ParkRequest {
    /// The questions, each `mode: "async"` with its own `expiry_at`; at least one, at most
    /// [`crate::caps::PARK_MAX_ASKS`].
    pub asks: Vec<AskRequest>,
    /// How the run gets its answers back; absent means `{"kind": "claim"}`.
    pub continuation: Option<Continuation>,
    /// Display-only (run id, thread id, agent name); bounded like an ask's metadata.
    #[ts(optional, type = "Record<string, unknown>")]
    pub metadata: Option<Map<String, Value>>,
}

/// How a resolved park resumes its run. Tagged by `kind`, so a new kind (`agui`) is one more
/// variant and an old client reading a new kind fails loudly rather than guessing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Continuation {
    /// Nothing is pushed: the asker long-polls `…/wait` and takes the resume with `…/claim`.
    /// (A struct variant, so an extra field on it is refused like on the others.)
    Claim {},
    /// The server POSTs `{"type": "park.resolved", "park": Park}` to `url`, signed.
    Webhook {
        /// `https://…`, or `http://` to a loopback address.
        url: String,
    },
    /// The server's AG-UI driver resumes run `run_id` (set by the driver only; an asker's
    /// `POST /api/parks` cannot choose it).
    Agui { run_id: String },
}

impl Default for Continuation {
    fn default() -> Self {
        Continuation::Claim {}
    }
}

impl Continuation {
    pub fn kind(&self) -> &'static str {
        match self {
            Continuation::Claim {} => "claim",
            Continuation::Webhook { .. } => "webhook",
            Continuation::Agui { .. } => "agui",
        }
    }
}

/// Where a park stands. `parked → resolved` happens once, when the last question resolves;
/// `resolved → resumed` once, when the claim is taken (or the webhook delivered);
/// `resolved → failed` when delivery gave up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ParkStatus {
    Parked,
    Resolved,
    Resumed,
    Failed,
}

impl ParkStatus {
    pub const ALL: [ParkStatus; 4] = [
        ParkStatus::Parked,
        ParkStatus::Resolved,
        ParkStatus::Resumed,
        ParkStatus::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ParkStatus::Parked => "parked",
            ParkStatus::Resolved => "resolved",
            ParkStatus::Resumed => "resumed",
            ParkStatus::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<ParkStatus> {
        ParkStatus::ALL.into_iter().find(|st| st.as_str() == s)
    }
}

/// A park as every door shows it.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct Park {
    /// `pk_` followed by random base32.
    pub id: String,
    /// The principal that parked; the resume runs under this identity.
    pub asker: String,
    #[ts(type = "string")]
    pub created_at: DateTime<Utc>,
    pub status: ParkStatus,
    /// The park's questions, in the order they were asked.
    pub interactions: Vec<String>,
    /// One per question that has resolved so far, in the order of `interactions`.
    pub resolutions: Vec<Resolution>,
    pub continuation: Continuation,
    /// Display-only, as given (`{}` when none).
    #[serde(default)]
    #[ts(type = "Record<string, unknown>")]
    pub metadata: Map<String, Value>,
    /// When the park moved to `resolved` (its last question resolved).
    #[ts(optional, type = "string")]
    pub resolved_at: Option<DateTime<Utc>>,
    /// When the resume was taken (claim) or delivered (webhook).
    #[ts(optional, type = "string")]
    pub resumed_at: Option<DateTime<Utc>>,
    /// Webhook: delivery attempts so far.
    pub attempts: Option<u32>,
    /// Webhook: why the last attempt failed.
    pub last_error: Option<String>,
}

impl Park {
    /// Whether every question has resolved (the park has left `parked`).
    pub fn is_resolved(&self) -> bool {
        self.status != ParkStatus::Parked
    }
}

/// Where a question sits in its park, stamped on the interaction when the park is created, so a
/// client can draw the park as one group ("3 from deploy-bot · run r-17") from the questions
/// alone, without reading the park (only its asker may).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct ParkPlace {
    /// How many questions the park holds.
    pub size: u32,
    /// This question's position among them, from 0, in the order they were asked.
    pub index: u32,
    /// The run that parked, when the park's metadata names one (see [`ParkPlace::run_of`]).
    pub run: Option<String>,
}

impl ParkPlace {
    /// The metadata keys a run is named by, in the order they are looked for.
    pub const RUN_KEYS: [&'static str; 3] = ["run_id", "run", "thread_id"];

    /// The run a park's metadata names: the first of [`ParkPlace::RUN_KEYS`] holding a string.
    pub fn run_of(metadata: Option<&Map<String, Value>>) -> Option<String> {
        let metadata = metadata?;
        Self::RUN_KEYS
            .iter()
            .find_map(|k| metadata.get(*k).and_then(Value::as_str))
            .map(str::to_owned)
    }
}

/// How one question of a park resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ResolutionStatus {
    Answered,
    Declined,
    /// Its `expiry_at` passed unanswered: the slot carries the expired marker.
    Expired,
    /// Its asker withdrew it.
    Cancelled,
}

/// One question's contribution to the resume.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct Resolution {
    pub interaction_id: String,
    pub status: ResolutionStatus,
    /// The typed answer (answered only).
    #[ts(optional, type = "unknown")]
    pub value: Option<Value>,
    #[ts(optional, type = "Record<string, unknown>")]
    pub params: Option<Map<String, Value>>,
    /// Who answered or declined.
    pub answered_by: Option<String>,
    /// Why it was declined, when the reviewer said.
    pub reason: Option<String>,
    /// The reserved expired marker: `true` exactly when the question expired, so the run takes
    /// its expiry branch instead of reading an answer. Absent otherwise.
    pub expired: Option<bool>,
}

impl Resolution {
    /// The slot an expired question contributes: no value, the reserved marker.
    pub fn expired(interaction_id: impl Into<String>) -> Self {
        Resolution {
            interaction_id: interaction_id.into(),
            status: ResolutionStatus::Expired,
            value: None,
            params: None,
            answered_by: None,
            reason: None,
            expired: Some(true),
        }
    }

    /// Whether this slot carries the reserved expired marker.
    pub fn is_expired(&self) -> bool {
        self.expired == Some(true)
    }
}

/// The body of every park door: `{"park": Park}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ParkResponse {
    pub park: Park,
}

/// The body a webhook continuation POSTs: `{"type": "park.resolved", "park": Park}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ParkResolvedHook {
    /// Always `park.resolved`.
    #[serde(rename = "type")]
    pub kind: String,
    pub park: Park,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn continuations_are_tagged_by_kind() {
        assert_eq!(
            serde_json::to_value(Continuation::Claim {}).unwrap(),
            json!({"kind": "claim"})
        );
        let hook: Continuation =
            serde_json::from_value(json!({"kind": "webhook", "url": "https://x.test/h"})).unwrap();
        assert_eq!(
            hook,
            Continuation::Webhook {
                url: "https://x.test/h".into()
            }
        );
        for bad in [
            json!({"kind": "agui"}),
            json!({"kind": "agui", "run_id": "ar_1", "url": "https://x.test"}),
            json!({"kind": "webhook"}),
            json!({"url": "https://x.test"}),
            json!({"kind": "claim", "url": "https://x.test"}),
        ] {
            assert!(
                serde_json::from_value::<Continuation>(bad.clone()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_park_place_names_the_run_from_the_first_run_key() {
        let meta = json!({"thread_id": "t-1", "run_id": "r-17"});
        assert_eq!(ParkPlace::run_of(meta.as_object()).as_deref(), Some("r-17"));
        let meta = json!({"run_id": 17, "thread_id": "t-1"});
        assert_eq!(ParkPlace::run_of(meta.as_object()).as_deref(), Some("t-1"));
        assert_eq!(ParkPlace::run_of(None), None);
        let place = ParkPlace {
            size: 3,
            index: 1,
            run: None,
        };
        assert_eq!(
            serde_json::to_value(place).unwrap(),
            json!({"size": 3, "index": 1})
        );
    }

    #[test]
    fn the_expired_marker_is_present_only_on_an_expired_slot() {
        assert_eq!(
            serde_json::to_value(Resolution::expired("ia_1")).unwrap(),
            json!({"interaction_id": "ia_1", "status": "expired", "expired": true})
        );
        let answered: Resolution = serde_json::from_value(
            json!({"interaction_id": "ia_2", "status": "answered", "value": true}),
        )
        .unwrap();
        assert!(!answered.is_expired());
    }
}
