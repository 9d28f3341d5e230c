//! The Interactions Inbox wire contract (v1).
//!
//! One definition of every shape that crosses the wire between the interactions server, the
//! sync engine, the CLI and the web UI. TypeScript types for the UI are generated from these
//! definitions (see [`typescript`]) and committed under `ui/src/generated/`.
//!
//! Validation that the contract promises at ask time and at answer time lives in [`validate`];
//! the numeric bounds are the named constants in [`caps`].
//!
//! A struct whose every `Option` field is left out of the JSON when `None` says so once, with
//! `#[serde_with::skip_serializing_none]` and `#[ts(optional_fields)]` (`field?: T` in
//! TypeScript; a field with a `type` override keeps its own `#[ts(optional, …)]`). A missing
//! field reads as `None`. A struct that writes some `None`s as `null` (`Interaction`) marks its
//! omitted fields one by one.

pub mod agui;
pub mod ask;
pub mod caps;
pub mod error;
pub mod event;
pub mod html;
pub mod interaction;
pub mod link;
pub mod media;
pub mod notification;
pub mod page;
pub mod park;
pub mod resolve;
#[cfg(feature = "test-support")]
pub mod test_support;
pub mod typescript;
pub mod validate;
pub mod verifier;

pub use agui::{
    AguiQuestion, AguiRun, AguiRunRequest, AguiRunResponse, AguiRunStatus, AguiToolCall,
    AguiTranscriptItem,
};
pub use ask::AskRequest;
pub use error::{ErrorBody, ErrorCode, ErrorDetail, ValidationError};
pub use event::{AnsweredEvent, RemovedEvent, RemovedReason, ResetEvent, ResetReason, StreamEvent};
pub use interaction::{
    Answer, AnswerFormat, ChoiceOption, FormData, FormPage, Interaction, InteractionKind, Mode,
    Status,
};
pub use link::{LINK_SCHEME, LinkError, open_link, parse_open_link};
pub use media::{MediaItem, MediaKind};
pub use notification::{
    Notification, NotificationPage, NotificationRequest, Submission, SubmissionList, SubmitRequest,
};
pub use page::{InteractionPage, StatusFilter};
pub use park::{
    Continuation, Park, ParkPlace, ParkRequest, ParkResolvedHook, ParkResponse, ParkStatus,
    Resolution, ResolutionStatus,
};
pub use resolve::{AnswerRequest, DeclineRequest, ResolveResponse};
pub use verifier::{SignatureEncoding, Verifier};

/// Paths of the HTTP doors, shared so that server routes and client calls cannot drift apart.
pub mod paths {
    pub const INTERACTIONS: &str = "/api/interactions";
    pub const STREAM: &str = "/api/interactions/stream";
    pub const MEDIA_PREFIX: &str = "/api/interactions/media/";
    pub const CALLBACK_PREFIX: &str = "/api/interactions/callback/";
    /// `POST` parks; `/{id}`, `/{id}/wait`, `/{id}/claim` below it.
    pub const PARKS: &str = "/api/parks";
    /// `POST` (asker) and `GET` (reviewer) notifications; `/{id}`, `/{id}/read`,
    /// `/{id}/dismiss`, `/{id}/submit` and `/{id}/submissions` below it.
    pub const NOTIFICATIONS: &str = "/api/notifications";
    /// `POST` AG-UI runs; `/{id}` and `/{id}/retry` below it.
    pub const AGUI_RUNS: &str = "/api/agui/runs";
    pub const HEALTHZ: &str = "/healthz";
    pub const READYZ: &str = "/readyz";
    /// Header carrying the client's idempotency key on answer and decline.
    pub const IDEMPOTENCY_KEY: &str = "Idempotency-Key";
}
