//! Bodies of the answer and decline doors, and their success response.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use crate::interaction::{Interaction, Status};

/// `POST /api/interactions/{id}/answer`
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(optional_fields)]
pub struct AnswerRequest {
    #[ts(type = "unknown")]
    pub answer: Value,
    #[ts(optional, type = "Record<string, unknown>")]
    pub params: Option<Map<String, Value>>,
}

/// `POST /api/interactions/{id}/decline`
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(optional_fields)]
pub struct DeclineRequest {
    pub reason: Option<String>,
}

/// `200` from the answer and decline doors (and the same body again for a repeated
/// `Idempotency-Key`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ResolveResponse {
    pub status: Status,
    pub interaction: Interaction,
}
