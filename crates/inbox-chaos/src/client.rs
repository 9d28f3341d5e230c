//! One reviewer's app: an `inbox-client` [`Engine`] exactly as the desktop runs it, behind its
//! own proxy, in its own tokio runtime — so killing it (dropping the runtime mid-flight, with no
//! shutdown) is as abrupt as killing the app, and restarting it reads only what it persisted
//! (stream position, outbox).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, anyhow};
use inbox_client::backoff::BackoffPolicy;
use inbox_client::outbox::OutboxEntry;
use inbox_client::{Account, Clock, Engine, EngineConfig, Keyring, Token};
use inbox_protocol::Status;
use inbox_sync::Delivery;
use inbox_test_net::fault_proxy::Proxy;
use serde_json::Value;

use crate::cluster::reviewer_token;

pub const ACCOUNT: &str = "chaos";

/// The longest one engine call may take. An app whose call to its engine does not return is a
/// frozen app: counted, reported, and the campaign goes on.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// Engine calls that did not return within [`CALL_TIMEOUT`], with what they were.
pub static HUNG: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

async fn within<T>(
    what: &str,
    index: usize,
    call: tokio::task::JoinHandle<Result<T, inbox_client::EngineError>>,
) -> anyhow::Result<T> {
    match tokio::time::timeout(CALL_TIMEOUT, call).await {
        Ok(joined) => Ok(joined??),
        Err(_) => {
            eprintln!("chaos: reviewer {index}: {what} did not return in {CALL_TIMEOUT:?}");
            HUNG.lock().unwrap().push(format!(
                "reviewer {index}: {what} did not return in {CALL_TIMEOUT:?}"
            ));
            Err(anyhow!("reviewer {index}: {what} hung"))
        }
    }
}

pub struct Reviewer {
    pub index: usize,
    pub proxy: Proxy,
    /// This app's machine clock: it outlives a restart of the app, as a machine's would.
    pub clock: Clock,
    state_dir: PathBuf,
    runtime: Option<tokio::runtime::Runtime>,
    engine: Option<Engine>,
}

impl Reviewer {
    pub async fn start(index: usize, proxy: Proxy, state_dir: PathBuf) -> anyhow::Result<Reviewer> {
        let mut reviewer = Reviewer {
            index,
            proxy,
            clock: Clock::default(),
            state_dir,
            runtime: None,
            engine: None,
        };
        reviewer.boot().await?;
        Ok(reviewer)
    }

    async fn boot(&mut self) -> anyhow::Result<()> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()?;
        let mut config = EngineConfig::new(&self.state_dir);
        // Faster than the app's pacing so a campaign of faults fits in minutes; the shape
        // (full jitter, capped) is the app's.
        config.backoff = BackoffPolicy {
            base: Duration::from_millis(100),
            cap: Duration::from_secs(1),
        };
        // Past the server's 15 s keepalive, so only a real stall counts as silence.
        config.keepalive_timeout = Duration::from_secs(20);
        config.clock = self.clock.clone();
        let token = Token::new(reviewer_token(self.index));
        let url = self.proxy.url();
        let engine = runtime
            .spawn(async move {
                let engine = Engine::new(config, Keyring::in_memory()?);
                let account = Account::new(ACCOUNT, "Chaos", url)?;
                engine.add_account(account, Some(token)).await?;
                anyhow::Ok(engine)
            })
            .await
            .context("engine task")??;
        self.runtime = Some(runtime);
        self.engine = Some(engine);
        Ok(())
    }

    /// The app dies: every task stops where it is, nothing is flushed.
    pub fn kill(&mut self) {
        self.engine = None;
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }

    pub async fn restart(&mut self) -> anyhow::Result<()> {
        self.kill();
        self.boot().await
    }

    fn spawn<T: Send + 'static>(
        &self,
        f: impl FnOnce(Engine) -> std::pin::Pin<Box<dyn Future<Output = T> + Send>>,
    ) -> anyhow::Result<tokio::task::JoinHandle<T>> {
        let (Some(runtime), Some(engine)) = (&self.runtime, &self.engine) else {
            return Err(anyhow!("reviewer {} is down", self.index));
        };
        Ok(runtime.spawn(f(engine.clone())))
    }

    /// Ids of the pending cards in this app's list.
    pub async fn pending(&self) -> anyhow::Result<BTreeSet<String>> {
        let call = self.spawn(|e| Box::pin(async move { e.snapshot_of(ACCOUNT).await }))?;
        let snapshot = within("snapshot", self.index, call).await?;
        Ok(snapshot
            .cards
            .into_iter()
            .filter(|c| c.interaction.status == Status::Pending)
            .map(|c| c.interaction.id)
            .collect())
    }

    /// Answer through the engine (validated, kept in the outbox, sent with a key). `Ok` means
    /// the app acknowledged the answer to the reviewer: from here on it must not be lost.
    pub async fn answer(&self, id: &str, value: Value) -> anyhow::Result<Delivery> {
        let id = id.to_owned();
        let call = self
            .spawn(move |e| Box::pin(async move { e.answer(ACCOUNT, &id, value, None).await }))?;
        within("answer", self.index, call).await
    }

    pub async fn outbox(&self) -> anyhow::Result<Vec<OutboxEntry>> {
        let call = self.spawn(|e| Box::pin(async move { e.outbox(ACCOUNT).await }))?;
        within("outbox", self.index, call).await
    }
}

impl Drop for Reviewer {
    fn drop(&mut self) {
        self.kill();
    }
}
