//! Client-side I/O for the Interactions Inbox. Everything that talks to a server lives here, so
//! the CLI, the desktop app and the tests share one typed API client.
//!
//! - [`api`]: the typed HTTP client, one method per door.
//! - [`stream`]: one SSE connection (keepalive timeout, `retry:`, 401 told apart).
//! - [`backoff`]: capped exponential backoff with full jitter.
//! - [`clock`]: the wall clock the engine reads, which a test can jump.
//! - [`transport`]: which servers get a token, over which route (proxy, loopback, plain http).
//! - [`connection`]: a resuming stream subscription (`inbox tail`).
//! - [`engine`]: the sync engine — one always-true inbox per account.
//! - [`outbox`]: answers kept on disk until the server ruled on them.
//! - everything written to disk is 0700 / 0600 (`inbox_files`).
//! - [`remote_media`]: remote images, video and audio fetched under an SSRF guard.
//! - [`error_code`]: every code an app's command can refuse with ([`CommandCode`]).
//! - [`accounts`], [`keyring`]: the servers followed, and their tokens in the OS keyring.

pub mod accounts;
pub mod api;
pub mod backoff;
pub mod clock;
pub mod connection;
pub mod demo;
pub mod engine;
pub mod error;
pub mod error_code;
pub mod keyring;
pub mod local_discovery;
pub mod outbox;
pub mod remote_media;
pub mod secret;
pub mod stream;
pub mod transport;

pub use accounts::{Account, AccountList};
pub use api::{ApiClient, MediaBody, ParkWait, WaitOutcome, new_idempotency_key};
pub use backoff::{Backoff, BackoffPolicy};
pub use clock::Clock;
pub use engine::{Engine, EngineConfig, EngineError};
pub use error::ClientError;
pub use error_code::{AppCode, CommandCode};
pub use keyring::Keyring;
pub use secret::Token;
pub use transport::{ClientOptions, ProxySetting};
