//! The sync engine: one always-true inbox per account, kept from pages and the live stream
//! through drops, restarts and offline answers.
//!
//! Each account runs as one task (`account_task.rs`, started by `account.rs` in an `account`
//! tracing span) that owns its [`inbox_sync::Session`] (the pure state machine: the inbox and
//! every timer), its [`ApiClient`], its SSE connection (`stream_task.rs`) and its
//! [`Outbox`](crate::outbox::Outbox) (`outbox_driver.rs`). The task feeds everything it sees
//! into the machine, performs the work it gets back (fetch a page, open the stream, publish a
//! batch, write the position) and sleeps until the machine's next timeout; it keeps no timer
//! of its own. Nothing else touches the inbox, so there are no locks around it and every
//! change is in one order.
//!
//! What the app sees:
//! - [`Engine::subscribe`]: coalesced [`Changes`] batches (the UI merges them by card id);
//! - [`Engine::statuses`]: the connection status of every account (online, reconnecting with
//!   the next try time, offline, signed out);
//! - [`Engine::notifications`]: when to show and withdraw native notifications;
//! - [`Engine::snapshot`]: the whole list, for a UI that (re)attaches.
//!
//! The state directory holds, per account, the stream position (`cursor.json`) and the outbox
//! (`outbox/`), so a restart resumes the stream and still delivers what was answered offline.

mod account;
mod account_task;
mod command;
mod cursor;
mod delivery;
mod outbox_driver;
mod report;
mod stream_task;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use inbox_protocol::{Status, ValidationError};
use inbox_sync::{Card, Changes, ConnectionStatus, Counts, Delivery, Input, Snapshot};
use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::{broadcast, oneshot, watch};

use crate::accounts::{Account, AccountError};
use crate::api::{ApiClient, MediaBody};
use crate::backoff::BackoffPolicy;
use crate::clock::Clock;
use crate::error::ClientError;
use crate::keyring::{Keyring, KeyringError};
use crate::outbox::{OutboxAction, OutboxEntry, OutboxError};
use crate::secret::Token;
use crate::stream::DEFAULT_KEEPALIVE_TIMEOUT;
use crate::transport::ClientOptions;

use account::AccountHandle;
use command::Command;

/// How the engine behaves; the defaults are what the app uses.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Per-account stream positions and outboxes live under here.
    pub state_dir: PathBuf,
    /// Reconnect pacing (full jitter, capped).
    pub backoff: BackoffPolicy,
    /// Silence after which the stream counts as dead.
    pub keepalive_timeout: Duration,
    /// Items per page request (the server caps it at 500).
    pub page_limit: usize,
    /// Changes are gathered this long before one batch is published.
    pub coalesce_window: Duration,
    /// How each account's server is reached (proxy, plain http).
    pub client: ClientOptions,
    /// The wall clock read for deadlines and retry times (the system's; tests jump it).
    pub clock: Clock,
}

impl EngineConfig {
    pub fn new(state_dir: impl Into<PathBuf>) -> EngineConfig {
        EngineConfig {
            state_dir: state_dir.into(),
            backoff: BackoffPolicy::default(),
            keepalive_timeout: DEFAULT_KEEPALIVE_TIMEOUT,
            page_limit: inbox_protocol::caps::PAGE_LIMIT_MAX,
            coalesce_window: Duration::from_millis(25),
            client: ClientOptions::default(),
            clock: Clock::default(),
        }
    }
}

/// Show or withdraw a native notification.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Notification {
    pub account: String,
    #[serde(flatten)]
    pub kind: NotificationKind,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum NotificationKind {
    /// A question arrived live (the app skips it when focused or in do-not-disturb).
    Show { card: Box<Card> },
    /// The card was resolved or read: take its notification down.
    Withdraw { id: String },
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("no account `{0}`")]
    UnknownAccount(String),
    #[error("account `{0}` is already syncing")]
    AccountExists(String),
    #[error("no token for account `{0}` in the keyring")]
    NoToken(String),
    #[error("no question `{0}` in this inbox")]
    UnknownCard(String),
    #[error("question `{id}` is {} and can no longer be answered", status.as_str())]
    NotOpen { id: String, status: Status },
    #[error("an answer to `{0}` is already on its way")]
    InFlight(String),
    /// The answer does not fit the question; nothing was queued.
    #[error("invalid answer: {0}")]
    Invalid(#[from] ValidationError),
    #[error(transparent)]
    Account(#[from] AccountError),
    #[error(transparent)]
    Keyring(#[from] KeyringError),
    #[error(transparent)]
    Outbox(#[from] OutboxError),
    #[error(transparent)]
    Client(#[from] ClientError),
    #[error("this kind of input is not accepted from the app")]
    NotAnAppInput,
    #[error("the account's sync task has stopped")]
    Stopped,
}

impl EngineError {
    // `code()` is in `crate::error_code`, beside the list it maps onto.

    /// The field at fault, when the answer was refused locally.
    pub fn field(&self) -> Option<&str> {
        match self {
            EngineError::Invalid(e) => Some(&e.field),
            EngineError::Client(e) => e.field(),
            _ => None,
        }
    }
}

/// Where the account tasks publish; cloned into each.
#[derive(Clone)]
pub(crate) struct Publisher {
    changes: broadcast::Sender<Changes>,
    statuses: watch::Sender<BTreeMap<String, ConnectionStatus>>,
    /// Every account's latest counts, as its last batch carried them.
    counts: watch::Sender<BTreeMap<String, Counts>>,
    notifications: broadcast::Sender<Notification>,
}

impl Publisher {
    pub(crate) fn changes(&self, batch: Changes) {
        // Counts are absolute per account, so the latest batch's are the account's counts.
        self.counts.send_if_modified(|all| {
            all.insert(batch.account.clone(), batch.counts) != Some(batch.counts)
        });
        // No subscriber is fine: the UI takes a snapshot when it attaches.
        let _ = self.changes.send(batch);
    }

    pub(crate) fn status(&self, account: &str, status: ConnectionStatus) {
        self.statuses.send_modify(|all| {
            all.insert(account.to_owned(), status);
        });
    }

    /// The account stopped: its status and counts are no longer reported.
    fn forget(&self, account: &str) {
        self.statuses.send_modify(|all| {
            all.remove(account);
        });
        self.counts
            .send_if_modified(|all| all.remove(account).is_some());
    }

    pub(crate) fn notification(&self, notification: Notification) {
        let _ = self.notifications.send(notification);
    }
}

/// The sync engine for every account of one app. Cheap to clone; all clones are one engine.
#[derive(Clone)]
pub struct Engine {
    shared: Arc<Shared>,
}

struct Shared {
    config: Arc<EngineConfig>,
    keyring: Keyring,
    accounts: Mutex<HashMap<String, AccountHandle>>,
    publisher: Publisher,
}

impl Engine {
    /// An engine with no accounts yet. Call from within a tokio runtime.
    pub fn new(config: EngineConfig, keyring: Keyring) -> Engine {
        let (changes, _) = broadcast::channel(1024);
        let (statuses, _) = watch::channel(BTreeMap::new());
        let (counts, _) = watch::channel(BTreeMap::new());
        let (notifications, _) = broadcast::channel(256);
        Engine {
            shared: Arc::new(Shared {
                config: Arc::new(config),
                keyring,
                accounts: Mutex::new(HashMap::new()),
                publisher: Publisher {
                    changes,
                    statuses,
                    counts,
                    notifications,
                },
            }),
        }
    }

    /// Start syncing every account whose token is in the keyring. Accounts that cannot start
    /// are returned with the reason; the others run regardless.
    pub async fn start(
        &self,
        accounts: impl IntoIterator<Item = Account>,
    ) -> Vec<(String, EngineError)> {
        let mut failures = Vec::new();
        for account in accounts {
            let id = account.id.clone();
            if let Err(e) = self.add_account(account, None).await {
                failures.push((id, e));
            }
        }
        failures
    }

    /// Start syncing `account`. With a `token`, it is stored in the keyring first; without,
    /// the keyring's token for the account is used.
    pub async fn add_account(
        &self,
        account: Account,
        token: Option<Token>,
    ) -> Result<(), EngineError> {
        account.check()?;
        if self.lock().contains_key(&account.id) {
            return Err(EngineError::AccountExists(account.id));
        }
        let token = match token {
            Some(token) => {
                self.keyring_call({
                    let (id, token) = (account.id.clone(), token.clone());
                    move |k| k.save(&id, &token)
                })
                .await?;
                token
            }
            None => {
                let id = account.id.clone();
                self.keyring_call(move |k| k.load(&id))
                    .await?
                    .ok_or_else(|| EngineError::NoToken(account.id.clone()))?
            }
        };
        self.run(account, token)
    }

    /// Start syncing `account` with a token for this run only: it is never written to the
    /// keyring (the local server's token lives in its own tokens file; a `--url` server's came
    /// with the command line).
    pub async fn add_session_account(
        &self,
        account: Account,
        token: Token,
    ) -> Result<(), EngineError> {
        account.check()?;
        if self.lock().contains_key(&account.id) {
            return Err(EngineError::AccountExists(account.id));
        }
        self.run(account, token)
    }

    fn run(&self, account: Account, token: Token) -> Result<(), EngineError> {
        let handle = account::spawn(
            account,
            token,
            self.shared.config.clone(),
            self.shared.publisher.clone(),
        )?;
        let mut accounts = self.lock();
        if accounts.contains_key(&handle.account.id) {
            // Lost a race with another add of the same id: stop the task just made.
            handle.abort();
            return Err(EngineError::AccountExists(handle.account.id.clone()));
        }
        accounts.insert(handle.account.id.clone(), handle);
        Ok(())
    }

    /// Stop syncing `id` and forget its token. Its state directory (stream position, outbox)
    /// is kept: answers not yet delivered are delivered if the account is added again.
    pub async fn remove_account(&self, id: &str) -> Result<(), EngineError> {
        let handle = self
            .lock()
            .remove(id)
            .ok_or_else(|| EngineError::UnknownAccount(id.to_owned()))?;
        handle.shutdown().await;
        self.shared.publisher.forget(id);
        let id = id.to_owned();
        self.keyring_call(move |k| k.forget(&id)).await?;
        Ok(())
    }

    /// Give a signed-out account a new token (stored in the keyring) and sync again.
    pub async fn sign_in(&self, id: &str, token: Token) -> Result<(), EngineError> {
        let commands = self.commands(id)?;
        self.keyring_call({
            let (id, token) = (id.to_owned(), token.clone());
            move |k| k.save(&id, &token)
        })
        .await?;
        commands
            .send(Command::SignIn { token })
            .await
            .map_err(|_| EngineError::Stopped)
    }

    /// Give an account another display label (what [`Engine::accounts`] reports from now on;
    /// the label plays no part in syncing).
    pub fn relabel(&self, id: &str, label: &str) -> Result<(), EngineError> {
        let mut accounts = self.lock();
        let handle = accounts
            .get_mut(id)
            .ok_or_else(|| EngineError::UnknownAccount(id.to_owned()))?;
        handle.account.label = label.to_owned();
        Ok(())
    }

    /// The account's API client, signed in with its token (one request of the caller's own,
    /// e.g. a connection test; syncing does not go through it).
    pub async fn client(&self, account: &str) -> Result<ApiClient, EngineError> {
        self.ask(account, Command::Client).await
    }

    /// The accounts being synced.
    pub fn accounts(&self) -> Vec<Account> {
        let mut all: Vec<Account> = self.lock().values().map(|h| h.account.clone()).collect();
        all.sort_by(|a, b| a.id.cmp(&b.id));
        all
    }

    /// Coalesced change batches of every account, from now on. A receiver that lags behind
    /// (`RecvError::Lagged`) should take a [`Engine::snapshot`] and carry on.
    pub fn subscribe(&self) -> broadcast::Receiver<Changes> {
        self.shared.publisher.changes.subscribe()
    }

    /// The connection status of every account, by account id.
    pub fn statuses(&self) -> watch::Receiver<BTreeMap<String, ConnectionStatus>> {
        self.shared.publisher.statuses.subscribe()
    }

    /// Every running account's counts, by account id (the same numbers as the latest batch and
    /// snapshot of each: the tray shows these rather than keeping counts of its own).
    pub fn counts(&self) -> watch::Receiver<BTreeMap<String, Counts>> {
        self.shared.publisher.counts.subscribe()
    }

    /// Native notifications to show and withdraw.
    pub fn notifications(&self) -> broadcast::Receiver<Notification> {
        self.shared.publisher.notifications.subscribe()
    }

    /// Every account's whole list, statuses and counts.
    pub async fn snapshot(&self) -> Vec<Snapshot> {
        let senders: Vec<_> = {
            let accounts = self.lock();
            let mut ids: Vec<&String> = accounts.keys().collect();
            ids.sort();
            ids.into_iter()
                .map(|id| accounts[id].commands.clone())
                .collect()
        };
        let mut all = Vec::with_capacity(senders.len());
        for commands in senders {
            let (reply, answer) = oneshot::channel();
            if commands.send(Command::Snapshot(reply)).await.is_ok()
                && let Ok(snapshot) = answer.await
            {
                all.push(snapshot);
            }
        }
        all
    }

    /// One account's whole list.
    pub async fn snapshot_of(&self, account: &str) -> Result<Snapshot, EngineError> {
        self.ask(account, Command::Snapshot).await
    }

    /// Answer a question: validated here against its format, options and schema, kept in the
    /// durable outbox, and sent with an idempotency key (now if online, else on reconnect).
    /// Returns how the delivery stands: `accepted` or `rejected` once the server ruled,
    /// `queued` while it cannot be reached (at once, also when this answer was waiting behind
    /// another's send that failed).
    pub async fn answer(
        &self,
        account: &str,
        id: &str,
        value: Value,
        params: Option<Map<String, Value>>,
    ) -> Result<Delivery, EngineError> {
        let action = OutboxAction::Answer { value, params };
        self.act(account, id, action).await
    }

    /// Decline a question as a whole (with an optional reason), like an answer.
    pub async fn decline(
        &self,
        account: &str,
        id: &str,
        reason: Option<String>,
    ) -> Result<Delivery, EngineError> {
        self.act(account, id, OutboxAction::Decline { reason })
            .await
    }

    async fn act(
        &self,
        account: &str,
        id: &str,
        action: OutboxAction,
    ) -> Result<Delivery, EngineError> {
        let id = id.to_owned();
        self.ask(account, |reply| Command::Act { id, action, reply })
            .await?
    }

    pub async fn mark_read(&self, account: &str, id: &str) -> Result<(), EngineError> {
        self.input(account, Input::MarkRead { id: id.to_owned() })
            .await
    }

    pub async fn mark_all_read(&self, account: &str) -> Result<(), EngineError> {
        self.input(account, Input::MarkAllRead).await
    }

    /// Clear a resolved card from the list.
    pub async fn dismiss(&self, account: &str, id: &str) -> Result<(), EngineError> {
        self.input(account, Input::Dismiss { id: id.to_owned() })
            .await
    }

    /// The reviewer opened a notification: read here at once, and the server is told.
    pub async fn open_notification(&self, account: &str, id: &str) -> Result<(), EngineError> {
        self.input(account, Input::OpenNotification { id: id.to_owned() })
            .await
    }

    /// The reviewer dismissed a notification: gone here at once, and the server is told
    /// (retried while it cannot be reached).
    pub async fn dismiss_notification(&self, account: &str, id: &str) -> Result<(), EngineError> {
        self.input(account, Input::DismissNotification { id: id.to_owned() })
            .await
    }

    /// Submit a notification's form. Sent at once (a submission is welcome whenever it
    /// arrives, so it is not kept in the outbox); the server checks it against the schema and a
    /// refusal names the field ([`EngineError::field`]). The board learns the new count from
    /// the stream.
    pub async fn submit_notification(
        &self,
        account: &str,
        id: &str,
        value: Value,
    ) -> Result<inbox_protocol::Submission, EngineError> {
        let api: ApiClient = self.ask(account, Command::Client).await?;
        let key = crate::api::new_idempotency_key();
        Ok(api
            .submit_notification(id, &inbox_protocol::SubmitRequest { value }, &key)
            .await?)
    }

    /// Refetch the pending list and merge it in (the reviewer asked).
    pub async fn refresh(&self, account: &str) -> Result<(), EngineError> {
        self.input(account, Input::Refresh).await
    }

    /// The operating system says the network went away or came back. Offline, nothing is
    /// tried (and the status says so); back online, everything is tried at once.
    pub async fn set_network(&self, online: bool) {
        let senders: Vec<_> = self.lock().values().map(|h| h.commands.clone()).collect();
        for commands in senders {
            let _ = commands.send(Command::Network { online }).await;
        }
    }

    /// Bytes of a same-origin media reference (`/api/interactions/media/<id>`), fetched with
    /// the account's credentials so the UI never needs them.
    pub async fn media(&self, account: &str, reference: &str) -> Result<MediaBody, EngineError> {
        let api: ApiClient = self.ask(account, Command::Client).await?;
        Ok(api.media(reference).await?)
    }

    /// The account's outbox entries (delivered ones keep their verdict for a while).
    pub async fn outbox(&self, account: &str) -> Result<Vec<OutboxEntry>, EngineError> {
        self.ask(account, Command::Outbox).await
    }

    /// Stop every account (stream positions are saved; the outbox is on disk already).
    pub async fn shutdown(&self) {
        let handles: Vec<AccountHandle> = self.lock().drain().map(|(_, h)| h).collect();
        for handle in handles {
            let id = handle.account.id.clone();
            handle.shutdown().await;
            self.shared.publisher.forget(&id);
        }
    }

    async fn input(&self, account: &str, input: Input) -> Result<(), EngineError> {
        if !matches!(
            input,
            Input::MarkRead { .. }
                | Input::MarkAllRead
                | Input::Dismiss { .. }
                | Input::Refresh
                | Input::OpenNotification { .. }
                | Input::DismissNotification { .. }
        ) {
            return Err(EngineError::NotAnAppInput);
        }
        self.commands(account)?
            .send(Command::Input(Box::new(input)))
            .await
            .map_err(|_| EngineError::Stopped)
    }

    /// Send a command that replies, and wait for the reply.
    async fn ask<T>(
        &self,
        account: &str,
        command: impl FnOnce(oneshot::Sender<T>) -> Command,
    ) -> Result<T, EngineError> {
        let commands = self.commands(account)?;
        let (reply, answer) = oneshot::channel();
        commands
            .send(command(reply))
            .await
            .map_err(|_| EngineError::Stopped)?;
        answer.await.map_err(|_| EngineError::Stopped)
    }

    fn commands(&self, account: &str) -> Result<tokio::sync::mpsc::Sender<Command>, EngineError> {
        self.lock()
            .get(account)
            .map(|h| h.commands.clone())
            .ok_or_else(|| EngineError::UnknownAccount(account.to_owned()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, AccountHandle>> {
        // A panic while holding this lock leaves the map itself consistent; keep going.
        self.shared
            .accounts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Keyring calls block (D-Bus); run them off the async threads.
    async fn keyring_call<T: Send + 'static>(
        &self,
        call: impl FnOnce(&Keyring) -> Result<T, KeyringError> + Send + 'static,
    ) -> Result<T, EngineError> {
        let keyring = self.shared.keyring.clone();
        tokio::task::spawn_blocking(move || call(&keyring))
            .await
            .map_err(|_| EngineError::Stopped)?
            .map_err(EngineError::from)
    }
}
