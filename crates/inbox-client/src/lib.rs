//! Client-side I/O for the Interactions Inbox. Everything that talks to a server lives here, so
//! the CLI, the desktop app and the tests share one typed API client.

pub mod api;
pub mod demo;
pub mod error;
pub mod secret;

pub use api::{ApiClient, MediaBody, WaitOutcome, new_idempotency_key};
pub use error::ClientError;
pub use secret::Token;
