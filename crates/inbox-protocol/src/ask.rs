//! The ask request: what an asker submits to `POST /api/interactions`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use crate::interaction::{AnswerFormat, ChoiceOption, FormData, FormPage, InteractionKind, Mode};
use crate::media::MediaItem;
use crate::verifier::Verifier;

/// Every field but `prompt` and `answer_format` is optional; [`crate::validate::validate_ask`]
/// decides which combinations are allowed and names the field it refuses.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct AskRequest {
    #[serde(default)]
    pub kind: InteractionKind,
    pub prompt: String,
    pub answer_format: AnswerFormat,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub options: Option<Vec<ChoiceOption>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Record<string, unknown>")]
    pub schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub data: Option<FormData>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub pages: Option<Vec<FormPage>>,
    /// `external`: a URL template; a literal `{callback_url}` is replaced by the minted callback URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub link: Option<String>,
    /// Absent means no media; an empty list is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub media: Option<Vec<MediaItem>>,
    #[serde(default)]
    pub mode: Mode,
    /// Sync only: seconds until the question expires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub timeout_s: Option<u64>,
    /// Async only (and required there): an RFC 3339 moment with an explicit offset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub expiry_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Record<string, unknown>")]
    pub metadata: Option<Map<String, Value>>,
    /// `external` only: how the callback door checks a provider's signature. Stored beside the
    /// ticket, never shown back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub verifier: Option<Verifier>,
}

impl AskRequest {
    /// A minimal question of the given format; callers fill in the rest.
    pub fn new(prompt: impl Into<String>, answer_format: AnswerFormat) -> Self {
        AskRequest {
            prompt: prompt.into(),
            answer_format,
            ..AskRequest::default()
        }
    }
}
