//! The account handle: the engine's grip on one account's task, and how that task is
//! opened (its state directory, outbox and stream position) and started in a `tracing` span
//! that names the account, so every line it and its requests log says whose it is.

use std::sync::Arc;

use inbox_sync::{Inbox, Moment, Pacing, Session};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tracing::{Instrument, info_span, warn};

use super::account_task::AccountTask;
use super::command::Command;
use super::cursor::CursorFile;
use super::outbox_driver::OutboxDriver;
use super::stream_task::StreamTask;
use super::{EngineConfig, EngineError, Publisher};
use crate::accounts::Account;
use crate::api::ApiClient;
use crate::outbox::{Outbox, OutboxError};
use crate::secret::Token;

/// Settled outbox entries are kept this long so their verdicts survive restarts.
const VERDICT_RETENTION_DAYS: i64 = 7;

/// The engine's grip on a running account task.
pub(crate) struct AccountHandle {
    pub(crate) account: Account,
    pub(crate) commands: mpsc::Sender<Command>,
    task: JoinHandle<()>,
}

impl AccountHandle {
    /// Stop the task and wait until it has saved its position.
    pub(crate) async fn shutdown(self) {
        let (done, stopped) = oneshot::channel();
        if self.commands.send(Command::Shutdown(done)).await.is_ok() {
            let _ = stopped.await;
        }
        let _ = self.task.await;
    }

    pub(crate) fn abort(&self) {
        self.task.abort();
    }
}

/// Open the account's state and start its task.
pub(crate) fn spawn(
    account: Account,
    token: Token,
    config: Arc<EngineConfig>,
    publisher: Publisher,
) -> Result<AccountHandle, EngineError> {
    let span = info_span!("account", account = %account.id);
    let _entered = span.enter();
    let api = ApiClient::with_options(&account.server_url, token, &config.client)?;
    let dir = config.state_dir.join(&account.id);
    // Created (or narrowed) one level at a time: the outbox below only narrows its own dir.
    for private in [&config.state_dir, &dir] {
        inbox_files::private_dir(private).map_err(|e| OutboxError::Io {
            path: private.clone(),
            source: e,
        })?;
    }
    let mut outbox = Outbox::open(dir.join("outbox"))?;
    let cutoff = config.clock.now() - chrono::Duration::days(VERDICT_RETENTION_DAYS);
    if let Err(e) = outbox.prune_settled(cutoff) {
        warn!(error = %e, "could not prune old outbox verdicts");
    }
    let mut cursor = CursorFile::new(&dir);
    let saved = cursor.load();
    let inbox = Inbox::resume(account.id.clone(), saved.clone());
    let now = Moment {
        at: tokio::time::Instant::now().into_std(),
        wall: config.clock.now(),
    };
    let pacing = Pacing::new(
        config.backoff,
        config.coalesce_window,
        config.keepalive_timeout,
    );
    let session = Session::new(inbox, saved, pacing, rand::random(), now);
    let (commands, command_rx) = mpsc::channel(64);
    let (reports, report_rx) = mpsc::channel(1024);
    let task = AccountTask {
        account: account.clone(),
        api,
        last_status: session.inbox().status().clone(),
        session,
        outbox: OutboxDriver::new(outbox),
        cursor,
        config,
        publisher,
        reports,
        stream: StreamTask::default(),
    };
    drop(_entered);
    let task = tokio::spawn(task.run(command_rx, report_rx).instrument(span));
    Ok(AccountHandle {
        account,
        commands,
        task,
    })
}
