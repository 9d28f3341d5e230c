//! The interactions server: the HTTP doors of the wire contract (`docs/api.md`), the tail-only
//! SSE stream, the expiry sweeper, and the stores behind them (embedded SQLite by default).
//!
//! ```no_run
//! # async fn run() -> Result<(), inbox_server::ServerError> {
//! let config = inbox_server::ServerConfig::new(
//!     "127.0.0.1:8790".parse().unwrap(),
//!     "/tmp/inbox-data".into(),
//! );
//! let server = inbox_server::start(config).await?;
//! println!("listening on {}", server.base_url);
//! server.wait().await
//! # }
//! ```

pub mod agui;
mod auth;
mod body;
mod config;
mod error;
mod extract;
mod hosts;
mod ids;
mod listener;
mod long_poll;
mod outbound;
mod principal;
mod public_doors;
mod routes;
mod server;
mod signature;
mod state;
pub mod store;
mod stream;
mod sweeper;
#[cfg(feature = "test-support")]
pub mod test_support;
mod ticket;
mod tokens_file;
mod validation;
pub mod webhook;

pub use agui::Policy as AguiPolicy;
pub use config::{
    DEFAULT_PARK_RETENTION, RedisConfig, Role, Secret, ServerConfig, TokenSpec, TokenSpecError,
};
pub use listener::ConnectionLimits;
pub use public_doors::{Door, PublicDoors, PublicDoorsError};
pub use server::{DATABASE_FILE, RunningServer, ServerError, start};
pub use state::AppState;
pub use sweeper::Retentions;
pub use webhook::dispatcher::Policy as WebhookPolicy;
pub use webhook::sign as sign_webhook;

/// Every door of the contract on one router, for tests that drive it directly.
pub fn app(state: AppState) -> axum::Router {
    routes::router(state)
}
