//! Errors of the client: the server's own error body when it sent one, transport failures otherwise.

use inbox_protocol::{ErrorBody, ErrorCode};

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server answered with an error body; `code` is what callers switch on.
    #[error("server refused ({status}): {} [{}]{}", body.error.message, body.error.code,
        body.error.field.as_deref().map(|f| format!(" field `{f}`")).unwrap_or_default())]
    Api { status: u16, body: ErrorBody },
    /// The server answered with a status and a body that is not the contract's error body.
    #[error("server answered {status} without an error body")]
    UnexpectedStatus { status: u16 },
    /// Could not reach the server, or the connection broke.
    #[error("could not reach the server: {0}")]
    Transport(#[source] reqwest::Error),
    /// The server's success body did not decode as the contract says.
    #[error("could not decode the server's response: {0}")]
    Decode(#[source] reqwest::Error),
    /// A paged listing handed back a cursor it had already given: following it would never end.
    #[error("the server repeated the page cursor `{cursor}`: its listing does not move on")]
    RepeatedCursor { cursor: String },
    /// The configured server URL is not usable.
    #[error("invalid server URL `{url}`: {reason}")]
    InvalidUrl { url: String, reason: String },
    /// Plain `http://` to another machine: the token would cross the network in the clear.
    #[error(
        "refusing to send the token over plain http to `{host}`: use https, or pass \
         --allow-insecure-http (INBOX_ALLOW_INSECURE_HTTP=1) if that network is trusted"
    )]
    InsecureHttp { host: String },
    /// The proxy named by the environment (`source`, e.g. `$HTTPS_PROXY`) is not usable.
    #[error("invalid proxy in {source_name}: {reason}")]
    InvalidProxy { source_name: String, reason: String },
}

impl ClientError {
    /// The contract error code, when the server sent one.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            ClientError::Api { body, .. } => Some(body.error.code),
            _ => None,
        }
    }

    /// The field the server named, when it refused the request over one.
    pub fn field(&self) -> Option<&str> {
        match self {
            ClientError::Api { body, .. } => body.error.field.as_deref(),
            _ => None,
        }
    }

    /// The HTTP status, when the server answered at all.
    pub fn status(&self) -> Option<u16> {
        match self {
            ClientError::Api { status, .. } | ClientError::UnexpectedStatus { status } => {
                Some(*status)
            }
            _ => None,
        }
    }

    /// True when the server could not be reached (worth retrying later, e.g. from the outbox).
    pub fn is_transport(&self) -> bool {
        matches!(self, ClientError::Transport(_))
    }
}
