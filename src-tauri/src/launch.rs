//! How the app was started: command-line flags, with environment fallbacks for tests.

use std::path::PathBuf;

/// The Interactions Inbox desktop app.
#[derive(Debug, Clone, Default, clap::Parser)]
#[command(name = "inbox-desktop", version, about)]
pub struct LaunchOptions {
    /// Keep everything (settings, accounts, local server data, sync state) in this directory
    /// instead of the per-user app data dir. An app with its own data dir is its own instance.
    #[arg(long, env = "INBOX_DESKTOP_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// Local mode: listen on this loopback port (the next free one if taken). Default: the port
    /// of the last run, else 8790 — where `inbox` looks when told nothing.
    #[arg(long, env = "INBOX_DESKTOP_LOCAL_PORT")]
    pub local_port: Option<u16>,
    /// In local mode, also ask the demo questions (one of every format, with media).
    #[arg(long)]
    pub demo: bool,
    /// Follow this server for this run (with --token), instead of the saved accounts.
    #[arg(long, env = "INBOX_URL", requires = "token")]
    pub url: Option<String>,
    /// Reviewer token for --url; kept in memory only.
    #[arg(long, env = "INBOX_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Sidebar label for --url.
    #[arg(long, default_value = "Server")]
    pub label: String,
    /// An `inbox://open/<id>` link: the window opens on that question. The desktop entry starts
    /// the app this way for a clicked link; a running app is handed the link instead.
    pub link: Option<String>,
}
