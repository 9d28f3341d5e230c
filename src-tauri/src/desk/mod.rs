//! The app's state behind every command: thin glue over the sync engine, a file per job.
//!
//! - [`startup`]: which mode a run starts in (a `--url` server, local mode, the saved accounts);
//! - [`accounts`]: adding, renaming, testing and removing accounts;
//! - [`media_gate`]: loading media for the window, and the reviewer's remote-media allowances;
//! - [`preferences`]: the Settings view's preferences and Do not disturb;
//! - [`snapshot`]: everything the window draws, assembled from the engine.
//!
//! Syncing, answering, the outbox, the accounts, their counts and their tokens are the engine's
//! (`inbox-client`): the desk keeps no copy of them. The tray reads its number from
//! [`Engine::counts`] (see `inbox_desktop_core::tray_count`); tokens reach the keyring only
//! through the engine.

mod accounts;
mod media_gate;
mod preferences;
mod snapshot;
mod startup;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use inbox_client::Engine;

use crate::local_server::LocalServer;
use crate::notifications::Presence;
use crate::settings::SettingsFile;

pub use accounts::MAX_LABEL_CHARS;
pub use startup::LAUNCH_ACCOUNT_ID;

use media_gate::MediaGate;

pub struct Desk {
    pub engine: Engine,
    pub presence: Arc<Presence>,
    data_dir: PathBuf,
    local: tokio::sync::Mutex<Option<LocalServer>>,
    /// The local server's account is being synced (local mode).
    follows_local: bool,
    local_hint: Option<String>,
    /// Accounts are saved to `accounts.json` unless this run follows a `--url` server.
    saves_accounts: bool,
    settings: Mutex<SettingsFile>,
    media: MediaGate,
    logs_dir: Option<PathBuf>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Desk {
    /// Where the log files go (set once logging to a file started).
    pub fn set_logs_dir(&mut self, dir: PathBuf) {
        self.logs_dir = Some(dir);
    }

    pub fn logs_dir(&self) -> Option<&Path> {
        self.logs_dir.as_deref()
    }

    /// Stop syncing (positions saved) and the local server.
    pub async fn shutdown(&self) {
        self.engine.shutdown().await;
        if let Some(server) = self.local.lock().await.take() {
            server.shutdown().await;
        }
    }
}
