//! AG-UI runs the server drives (design: `agents.md`, "AG-UI"; reference: `docs/api.md`,
//! "AG-UI runs"). The server is the AG-UI client: it posts `RunAgentInput` to the agent, reads
//! its event stream, turns an interrupt outcome into one park (continuation `agui`) and resumes
//! the run once that park resolves.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

/// What `POST /api/agui/runs` takes.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(optional_fields)]
pub struct AguiRunRequest {
    /// Where the agent listens: `https://…`, or `http://` to any host (an agent is often a
    /// local process); at most [`crate::caps::AGUI_URL_MAX_CHARS`].
    pub agent_url: String,
    /// The AG-UI thread; absent means a fresh one.
    pub thread_id: Option<String>,
    /// The parts of `RunAgentInput` the caller chooses: `messages`, `state`, `context`,
    /// `tools`, `forwardedProps`. `threadId`, `runId` and `resume` are the server's.
    #[ts(type = "Record<string, unknown>")]
    pub input: Map<String, Value>,
    /// Extra request headers for the agent (an API key). Stored as a secret: never returned,
    /// never logged.
    pub headers: Option<BTreeMap<String, String>>,
}

/// Where a run stands. `running → interrupted → running …` until one of the final three.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum AguiRunStatus {
    /// A turn is due or under way (the agent is being called, or called again after a failure).
    Running,
    /// Paused on its park (`park_id`); it stays here until the resume turn has been sent.
    Interrupted,
    /// `RUN_FINISHED` with outcome success.
    Succeeded,
    /// `RUN_ERROR`, a protocol error, an interrupt the server refuses, or the agent unreachable
    /// after every retry (`POST …/retry` runs it again).
    Failed,
    /// `RUN_FINISHED` with outcome cancelled.
    Cancelled,
}

impl AguiRunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            AguiRunStatus::Running => "running",
            AguiRunStatus::Interrupted => "interrupted",
            AguiRunStatus::Succeeded => "succeeded",
            AguiRunStatus::Failed => "failed",
            AguiRunStatus::Cancelled => "cancelled",
        }
    }

    /// Whether nothing more will happen to the run (short of a retry of a failed one).
    pub fn is_final(self) -> bool {
        matches!(
            self,
            AguiRunStatus::Succeeded | AguiRunStatus::Failed | AguiRunStatus::Cancelled
        )
    }
}

/// One entry of a run's transcript, in the order the agent streamed them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AguiTranscriptItem {
    /// A text message (its deltas joined).
    Message {
        message_id: String,
        /// `assistant`, `user`, `system`, … as the agent said.
        role: String,
        text: String,
    },
    /// A tool call and its arguments as streamed (JSON text, possibly partial).
    ToolCall {
        tool_call_id: String,
        name: String,
        arguments: String,
    },
}

/// An AG-UI run as `GET /api/agui/runs/{id}` shows it (the headers are never part of it).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct AguiRun {
    /// `ar_` followed by random base32.
    pub id: String,
    /// The principal that started it; only it may read or retry it.
    pub asker: String,
    pub thread_id: String,
    pub agent_url: String,
    pub status: AguiRunStatus,
    /// The park of the current (or last) interrupt.
    pub park_id: Option<String>,
    pub transcript: Vec<AguiTranscriptItem>,
    /// Why it failed (or, while `running`, why the last attempt to reach the agent failed).
    pub error: Option<String>,
    /// Requests sent to the agent so far that it answered with a whole stream.
    pub turns: u32,
    #[ts(type = "string")]
    pub created_at: DateTime<Utc>,
    #[ts(type = "string")]
    pub updated_at: DateTime<Utc>,
}

/// The body of every AG-UI run door: `{"run": AguiRun}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct AguiRunResponse {
    pub run: AguiRun,
}

/// The metadata key under which a question asked for an interrupt carries its [`AguiQuestion`].
pub const AGUI_METADATA_KEY: &str = "agui";

/// What a question asked for an AG-UI interrupt carries in `metadata.agui`, so a window can show
/// the context (display-only; every string is plain text).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct AguiQuestion {
    pub run_id: String,
    pub interrupt_id: String,
    /// The interrupt's `reason` (`tool_call`, `tool_approval`, …).
    pub reason: String,
    pub tool_call_id: Option<String>,
    /// The tool call being approved, when the interrupt names one the run streamed.
    pub tool_call: Option<AguiToolCall>,
    /// The transcript's last text message when the run paused (shortened to fit).
    pub last_message: Option<String>,
    /// The interrupt's own `metadata`, when it fits.
    #[ts(optional, type = "Record<string, unknown>")]
    pub metadata: Option<Map<String, Value>>,
    /// The property the answer is put under in the resume payload (`approved` for a confirm
    /// without a schema); absent when the answer is the payload itself (a form).
    pub answer_key: Option<String>,
}

/// A tool call as shown beside its approval.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
pub struct AguiToolCall {
    pub name: String,
    /// The arguments as streamed (JSON text; shortened to fit).
    pub arguments: String,
}
