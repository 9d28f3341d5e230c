//! The interaction object: one question (or notification) and, once resolved, its answer.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use crate::media::MediaItem;
use crate::park::ParkPlace;

/// A question a person is asked, as every client sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Interaction {
    /// Opaque, URL-safe, unguessable (`ia_` followed by random base32).
    pub id: String,
    pub kind: InteractionKind,
    /// Plain text, never HTML.
    pub prompt: String,
    pub answer_format: AnswerFormat,
    /// `select`: the choices. `text`: suggested replies (they constrain nothing).
    pub options: Vec<ChoiceOption>,
    /// `form`: the JSON Schema of the answer. `external`: an optional schema for the callback payload.
    #[ts(type = "Record<string, unknown> | null")]
    pub schema: Option<Value>,
    /// `form` only: per-send prefill and choice lists.
    pub data: Option<FormData>,
    /// `form` only: the steps of the form, in order.
    pub pages: Option<Vec<FormPage>>,
    /// `external` only: where the person acts (with `{callback_url}` already substituted).
    pub link: Option<String>,
    /// Display-only media shown above the answer controls.
    pub media: Vec<MediaItem>,
    pub mode: Mode,
    /// When the question stops mattering (a sync timeout or an async `expiry_at`).
    #[ts(type = "string | null")]
    pub expires_at: Option<DateTime<Utc>>,
    pub status: Status,
    /// Principal that asked.
    pub asker: String,
    #[ts(type = "string")]
    pub created_at: DateTime<Utc>,
    /// Set once the question is answered or declined.
    pub answer: Option<Answer>,
    /// Opaque, bounded, display-only (run id, tool_call_id, reason...).
    #[ts(type = "Record<string, unknown>")]
    pub metadata: Map<String, Value>,
    /// The park this question belongs to (every async question is in one); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub park_id: Option<String>,
    /// With `park_id`: how big the park is and where this question sits in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub park: Option<ParkPlace>,
}

impl Interaction {
    /// A pending sync question `id` with its prompt and format and nothing else: no options,
    /// schema, link, media, deadline, answer, metadata or park. The one place every field is
    /// written out; callers set what their question carries on top (`..Interaction::pending`).
    pub fn pending(
        id: impl Into<String>,
        prompt: impl Into<String>,
        answer_format: AnswerFormat,
        asker: impl Into<String>,
        created_at: DateTime<Utc>,
    ) -> Interaction {
        Interaction {
            id: id.into(),
            kind: InteractionKind::Question,
            prompt: prompt.into(),
            answer_format,
            options: Vec::new(),
            schema: None,
            data: None,
            pages: None,
            link: None,
            media: Vec::new(),
            mode: Mode::Sync,
            expires_at: None,
            status: Status::Pending,
            asker: asker.into(),
            created_at,
            answer: None,
            metadata: Map::new(),
            park_id: None,
            park: None,
        }
    }

    /// Whether the question can still be answered.
    pub fn is_pending(&self) -> bool {
        self.status == Status::Pending
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum InteractionKind {
    /// The asker waits for the answer.
    #[default]
    Question,
    /// Ask-less: a submission is welcome whenever it arrives; nobody blocks on it.
    Notification,
}

/// The five answer formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum AnswerFormat {
    /// Free text; answer is a string.
    #[default]
    Text,
    /// Yes/no; answer is a boolean.
    Confirm,
    /// One of `options`; answer is the chosen option's `value`.
    Select,
    /// An object valid against `schema`.
    Form,
    /// The person acts on another site, which delivers the answer through the callback door.
    External,
}

impl AnswerFormat {
    pub const ALL: [AnswerFormat; 5] = [
        AnswerFormat::Text,
        AnswerFormat::Confirm,
        AnswerFormat::Select,
        AnswerFormat::Form,
        AnswerFormat::External,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AnswerFormat::Text => "text",
            AnswerFormat::Confirm => "confirm",
            AnswerFormat::Select => "select",
            AnswerFormat::Form => "form",
            AnswerFormat::External => "external",
        }
    }
}

/// The wait discipline of the asker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The caller blocks until answered or timed out.
    #[default]
    Sync,
    /// The caller parks; a deadline (`expiry_at`) is required.
    Async,
}

/// Lifecycle of an interaction. Everything but `pending` is final.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pending,
    /// A reviewer (or the external site) answered.
    Answered,
    /// A reviewer said no to the whole question.
    Declined,
    /// Its deadline passed unanswered.
    Expired,
    /// The asker withdrew it.
    Cancelled,
}

impl Status {
    pub const ALL: [Status; 5] = [
        Status::Pending,
        Status::Answered,
        Status::Declined,
        Status::Expired,
        Status::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Answered => "answered",
            Status::Declined => "declined",
            Status::Expired => "expired",
            Status::Cancelled => "cancelled",
        }
    }

    pub fn parse(s: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|st| st.as_str() == s)
    }

    pub fn is_final(self) -> bool {
        self != Status::Pending
    }
}

/// A choice: what the answer carries (`value`) and what is shown in its place (`label`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ChoiceOption {
    pub value: String,
    #[serde(default)]
    pub label: Option<String>,
}

impl ChoiceOption {
    /// The text to show: the label, or the value when no label is given.
    pub fn display(&self) -> &str {
        self.label.as_deref().unwrap_or(&self.value)
    }
}

/// Per-send overlay on a form's schema.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
pub struct FormData {
    /// Prefill of top-level properties, keyed by property name.
    #[serde(default)]
    #[ts(type = "Record<string, unknown>")]
    pub values: Map<String, Value>,
    /// Per-send choice lists replacing a string property's `enum`, keyed by property name.
    #[serde(default)]
    pub options: std::collections::BTreeMap<String, Vec<ChoiceOption>>,
}

/// One step of a multi-page form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FormPage {
    pub title: String,
    /// Top-level property names this page groups.
    pub fields: Vec<String>,
}

/// How a question was resolved by a person (answered or declined).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Answer {
    /// The typed answer; `null` when declined.
    #[ts(type = "unknown")]
    pub value: Value,
    /// Principal that answered (or `callback` for an external answer).
    pub answered_by: String,
    #[ts(type = "string")]
    pub answered_at: DateTime<Utc>,
    /// Opaque channel enrichment carried beside the answer.
    #[ts(type = "Record<string, unknown> | null")]
    pub params: Option<Map<String, Value>>,
    /// Why the question was declined, when the reviewer said.
    pub reason: Option<String>,
}
