//! The app's log: what it writes to stderr, also into rolling daily files in `logs/` of its data
//! dir (kept a week), so a reviewer can send it when something goes wrong ("Open logs folder"
//! in Settings). It holds ids, accounts, URLs and outcomes — never a token (tokens are
//! `inbox_client::Token`, whose Debug is redacted and which has no Display, and no code logs
//! a secret) and never an answer's value or text (commands log which question, not what was
//! said). `tests/logs.rs` answers through the app and scans the files for both.

use std::path::{Path, PathBuf};

use tracing_appender::non_blocking::WorkerGuard;
use tracing_appender::rolling::{Builder, Rotation};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, fmt};

use crate::launch::LaunchOptions;

/// File names are `inbox-desktop.<date>.log`.
pub const FILE_PREFIX: &str = "inbox-desktop";
/// Daily files kept before the oldest is removed.
pub const MAX_FILES: usize = 7;
/// The app's identifier (`tauri.conf.json`): the name of its data dir.
const IDENTIFIER: &str = "dev.interactions.inbox";

/// Where the log files go: `<data-dir>/logs` with `--data-dir`, else the per-user app data
/// dir's (`$XDG_DATA_HOME/dev.interactions.inbox/logs`, the dir Tauri gives the app).
pub fn logs_dir(options: &LaunchOptions) -> Option<PathBuf> {
    if let Some(dir) = &options.data_dir {
        return Some(dir.join("logs"));
    }
    let data_home = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(data_home.join(IDENTIFIER).join("logs"))
}

/// Log to stderr and, when `dir` can be made, to rolling files in it. Keep the guard alive
/// for the run: dropping it flushes what is still queued. Returns the dir actually used.
pub fn init(dir: Option<&Path>) -> (Option<PathBuf>, Option<WorkerGuard>) {
    let filter =
        || EnvFilter::try_from_default_env().unwrap_or_else(|_| "info,tao=warn,wry=warn".into());
    let stderr = fmt::layer().with_writer(std::io::stderr);
    let appender = dir.and_then(|dir| {
        inbox_files::private_dir(dir).ok()?;
        Builder::new()
            .rotation(Rotation::DAILY)
            .filename_prefix(FILE_PREFIX)
            .filename_suffix("log")
            .max_log_files(MAX_FILES)
            .build(dir)
            .ok()
            .map(|a| (dir.to_owned(), a))
    });
    match appender {
        Some((dir, appender)) => {
            let (writer, guard) = tracing_appender::non_blocking(appender);
            let file = fmt::layer().with_ansi(false).with_writer(writer);
            let _ = tracing_subscriber::registry()
                .with(filter())
                .with(stderr)
                .with(file)
                .try_init();
            (Some(dir), Some(guard))
        }
        None => {
            let _ = tracing_subscriber::registry()
                .with(filter())
                .with(stderr)
                .try_init();
            (None, None)
        }
    }
}
