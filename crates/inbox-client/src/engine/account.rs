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

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::time::Duration;

    use tracing_subscriber::fmt::MakeWriter;

    use crate::backoff::BackoffPolicy;
    use crate::{Account, Engine, EngineConfig, Keyring, Token};

    /// What the subscriber wrote so far (tracing-subscriber's own `Mutex<Vec<u8>>` writer).
    fn text(captured: &Mutex<Vec<u8>>) -> String {
        String::from_utf8_lossy(&captured.lock().unwrap()).into_owned()
    }

    /// A single-threaded runtime, so the subscriber set for this thread sees every task.
    #[tokio::test]
    async fn every_line_an_account_task_logs_names_the_account() {
        static CAPTURED: Mutex<Vec<u8>> = Mutex::new(Vec::new());
        let subscriber = tracing_subscriber::fmt()
            .with_writer(|| CAPTURED.make_writer())
            .with_ansi(false)
            .with_max_level(tracing::Level::DEBUG)
            .finish();
        let _guard = tracing::subscriber::set_default(subscriber);
        // A port nobody listens on: every page request is refused, and logged.
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let dir = tempfile::tempdir().unwrap();
        let mut config = EngineConfig::new(dir.path());
        config.backoff = BackoffPolicy {
            base: Duration::from_millis(10),
            cap: Duration::from_millis(50),
        };
        let engine = Engine::new(config, Keyring::in_memory().unwrap());
        let account = Account::new("work-7", "Work", format!("http://127.0.0.1:{port}")).unwrap();
        engine
            .add_account(account, Some(Token::new("span-test-token-0123456789")))
            .await
            .unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while text(&CAPTURED).matches("page request failed").count() < 2 {
            assert!(
                tokio::time::Instant::now() < deadline,
                "no retried page request logged:\n{}",
                text(&CAPTURED)
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        engine.shutdown().await;
        let text = text(&CAPTURED);
        assert!(
            text.contains("sync starting") && text.contains("sync stopped"),
            "{text}"
        );
        let engine_lines: Vec<&str> = text
            .lines()
            .filter(|line| line.contains("inbox_client::engine"))
            .collect();
        assert!(engine_lines.len() >= 4, "{text}");
        for line in engine_lines {
            assert!(line.contains("account{account=work-7}"), "{line}");
        }
    }
}
