//! What the app asks of an account's task (through its [`super::account::AccountHandle`]).

use inbox_sync::{Delivery, Input, Snapshot};
use tokio::sync::oneshot;

use super::EngineError;
use crate::api::ApiClient;
use crate::outbox::{OutboxAction, OutboxEntry};
use crate::secret::Token;

pub(crate) enum Command {
    Snapshot(oneshot::Sender<Snapshot>),
    Act {
        id: String,
        action: OutboxAction,
        reply: oneshot::Sender<Result<Delivery, EngineError>>,
    },
    /// MarkRead, MarkAllRead, Dismiss, Refresh (checked by the engine).
    Input(Box<Input>),
    Network {
        online: bool,
    },
    SignIn {
        token: Token,
    },
    Client(oneshot::Sender<ApiClient>),
    Outbox(oneshot::Sender<Vec<OutboxEntry>>),
    Shutdown(oneshot::Sender<()>),
}
