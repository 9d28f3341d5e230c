//! The ask request: what an asker submits to `POST /api/interactions`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use crate::interaction::{AnswerFormat, ChoiceOption, FormData, FormPage, InteractionKind, Mode};
use crate::media::MediaItem;
use crate::verifier::Verifier;

/// Every field but `prompt` and `answer_format` is optional; [`crate::validate::validate_ask`]
/// decides which combinations are allowed and names the field it refuses.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(optional_fields)]
pub struct AskRequest {
    #[serde(default)]
    pub kind: InteractionKind,
    pub prompt: String,
    pub answer_format: AnswerFormat,
    pub options: Option<Vec<ChoiceOption>>,
    #[ts(optional, type = "Record<string, unknown>")]
    pub schema: Option<Value>,
    pub data: Option<FormData>,
    pub pages: Option<Vec<FormPage>>,
    /// `external`: a URL template; a literal `{callback_url}` is replaced by the minted callback URL.
    pub link: Option<String>,
    /// Absent means no media; an empty list is refused.
    pub media: Option<Vec<MediaItem>>,
    #[serde(default)]
    pub mode: Mode,
    /// Sync only: seconds until the question expires.
    pub timeout_s: Option<u64>,
    /// Async only (and required there): an RFC 3339 moment with an explicit offset.
    pub expiry_at: Option<String>,
    #[ts(optional, type = "Record<string, unknown>")]
    pub metadata: Option<Map<String, Value>>,
    /// `external` only: how the callback door checks a provider's signature. Stored beside the
    /// ticket, never shown back.
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
