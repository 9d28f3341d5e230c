//! What the desktop app decides without a window: pure logic, tested as plain functions, with
//! no Tauri in its dependencies (`src-tauri` is the glue that carries it out).
//!
//! - [`command_error`]: the `{code, message, field?}` every command refuses with;
//! - [`notices`]: which desktop notifications to show and withdraw, and their body markup;
//! - [`tray_count`]: the tray's number, read from the engine's counts; [`tray_badge`]: the
//!   icon with that number drawn on;
//! - [`urls`]: which server, browser and account-id URLs the app accepts;
//! - [`media`]: which media URLs the window may load, the remote-media allowances, `data:` URLs.

pub mod command_error;
pub mod media;
pub mod notices;
pub mod tray_badge;
pub mod tray_count;
pub mod urls;

pub use command_error::CommandError;
