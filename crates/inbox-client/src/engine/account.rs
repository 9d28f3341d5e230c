//! The task that syncs one account: the only owner of its inbox, stream, outbox and timers.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use inbox_protocol::caps::PAGE_LIMIT_MAX;
use inbox_protocol::validate::{validate_answer, validate_decline};
use inbox_protocol::{
    DeclineRequest, ErrorCode, Interaction, InteractionPage, Notification, StatusFilter,
    StreamEvent,
};
use inbox_sync::{
    Changes, ConnectionStatus, Delivery, Effect, Failure, Inbox, Input, Outcome, Snapshot,
};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tracing::{debug, error, info, warn};

use super::cursor::CursorFile;
use super::delivery::{self, SendOutcome};
use super::{
    EngineConfig, EngineError, Notification as NativeNotification, NotificationKind, Publisher,
};
use crate::accounts::Account;
use crate::api::ApiClient;
use crate::backoff::{Backoff, BackoffPolicy};
use crate::error::ClientError;
use crate::outbox::{Outbox, OutboxAction, OutboxEntry, OutboxError};
use crate::secret::Token;
use crate::stream::{SseConnection, StreamEnd, StreamSignal};

/// Messages handled in one go before changes are looked at again (keeps commands responsive
/// while a burst of frames is applied).
const DRAIN: usize = 512;
/// How long a position change waits before it is written (a crash loses at most this much,
/// which costs a slightly longer replay, never an event).
const PERSIST_DELAY: Duration = Duration::from_secs(1);
/// Settled outbox entries are kept this long so their verdicts survive restarts.
const VERDICT_RETENTION_DAYS: i64 = 7;
/// The wall clock is read at least this often, deadline due or not: a clock set back (which
/// no timer notices) reopens the cards it had expired here within this long.
const CLOCK_CHECK: Duration = Duration::from_secs(5);

/// What the app asks of an account.
pub(crate) enum Command {
    Snapshot(oneshot::Sender<Snapshot>),
    Act {
        id: String,
        action: OutboxAction,
        reply: oneshot::Sender<Result<Delivery, EngineError>>,
    },
    /// MarkRead, MarkAllRead, Dismiss, Refresh (checked by the engine).
    Input(Box<Input>),
    Network {
        online: bool,
    },
    SignIn {
        token: Token,
    },
    Client(oneshot::Sender<ApiClient>),
    Outbox(oneshot::Sender<Vec<OutboxEntry>>),
    Shutdown(oneshot::Sender<()>),
}

/// What the task's own requests report back.
enum Internal {
    Page {
        cursor: Option<String>,
        result: Result<InteractionPage, ClientError>,
    },
    Stream {
        generation: u64,
        signal: StreamSignal,
    },
    Fetched {
        id: String,
        result: Result<Box<Interaction>, ClientError>,
    },
    Sent {
        key: String,
        outcome: SendOutcome,
    },
    /// Every page of a notifications list read.
    Notifications {
        result: Result<Vec<Notification>, ClientError>,
    },
}

/// Pages of the notifications list read at most in one go (each `PAGE_LIMIT_MAX` long): far
/// beyond what the per-asker cap lets a few askers fill, and a bound all the same.
const NOTIFICATION_PAGES_MAX: usize = 20;
/// Tries of a dismissal the server did not take (it is already gone on this machine).
const DISMISS_ATTEMPTS: u32 = 6;

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
        warn!(account = %account.id, error = %e, "could not prune old outbox verdicts");
    }
    let mut cursor = CursorFile::new(&dir);
    let inbox = Inbox::resume(account.id.clone(), cursor.load());
    let (commands, command_rx) = mpsc::channel(64);
    let (internal_tx, internal_rx) = mpsc::channel(1024);
    let task = AccountTask {
        account: account.clone(),
        api,
        last_status: inbox.status().clone(),
        inbox,
        outbox,
        cursor,
        publisher,
        backoff: Backoff::new(config.backoff),
        outbox_backoff: Backoff::new(config.backoff),
        fetch_backoff: Backoff::new(BackoffPolicy {
            base: config.backoff.base.max(Duration::from_secs(1)),
            cap: config.backoff.cap,
        }),
        config,
        internal_tx,
        stream: None,
        generation: 0,
        network_up: true,
        sending: None,
        waiters: HashMap::new(),
        shown: HashMap::new(),
        unfetched: BTreeSet::new(),
        pending: None,
        timers: Timers::default(),
    };
    let task = tokio::spawn(task.run(command_rx, internal_rx));
    Ok(AccountHandle {
        account,
        commands,
        task,
    })
}

#[derive(Default)]
struct Timers {
    /// The `Retry` the machine was promised (and the wall-clock time it was told).
    retry: Option<(Instant, DateTime<Utc>)>,
    /// Publish the gathered changes.
    flush: Option<Instant>,
    /// Write the stream position.
    persist: Option<Instant>,
    /// Try the outbox again after a transient failure.
    outbox: Option<Instant>,
    /// Ask again for interactions whose fetch failed.
    fetch: Option<Instant>,
    /// Read the wall clock again ([`CLOCK_CHECK`]).
    clock: Option<Instant>,
}

struct AccountTask {
    account: Account,
    api: ApiClient,
    inbox: Inbox,
    outbox: Outbox,
    cursor: CursorFile,
    config: Arc<EngineConfig>,
    publisher: Publisher,
    /// Pages and stream share one backoff: they fail together when the server is away.
    backoff: Backoff,
    outbox_backoff: Backoff,
    fetch_backoff: Backoff,
    internal_tx: mpsc::Sender<Internal>,
    stream: Option<JoinHandle<()>>,
    /// Signals of older connections are ignored.
    generation: u64,
    network_up: bool,
    /// The outbox entry being sent (one at a time, oldest first).
    sending: Option<String>,
    /// `answer`/`decline` callers waiting for the first outcome of their entry.
    waiters: HashMap<String, oneshot::Sender<Result<Delivery, EngineError>>>,
    /// Outbox entries already shown on their card: key → whether the verdict was shown too.
    shown: HashMap<String, bool>,
    unfetched: BTreeSet<String>,
    /// Changes gathered since the last publish.
    pending: Option<Changes>,
    last_status: ConnectionStatus,
    timers: Timers,
}

impl AccountTask {
    async fn run(
        mut self,
        mut commands: mpsc::Receiver<Command>,
        mut internal: mpsc::Receiver<Internal>,
    ) {
        info!(account = %self.account.id, "sync starting");
        self.apply(Input::Tick {
            now: self.config.clock.now(),
        });
        self.timers.clock = Some(Instant::now() + CLOCK_CHECK);
        self.apply(Input::Start);
        loop {
            let wake = self.next_wake();
            tokio::select! {
                biased;
                command = commands.recv() => match command {
                    None => break,
                    Some(Command::Shutdown(done)) => {
                        self.stop();
                        let _ = done.send(());
                        return;
                    }
                    Some(command) => {
                        self.command(command);
                        self.after_work();
                    }
                },
                Some(message) = internal.recv() => {
                    self.internal(message);
                    for _ in 0..DRAIN {
                        match internal.try_recv() {
                            Ok(message) => self.internal(message),
                            Err(_) => break,
                        }
                    }
                    self.after_work();
                }
                _ = sleep_until(wake), if wake.is_some() => {
                    self.timers_due();
                    self.after_work();
                }
            }
        }
        self.stop();
    }

    // ---- the machine ------------------------------------------------------------------

    /// Feed one input to the inbox; gather its changes and perform its effects.
    fn apply(&mut self, input: Input) {
        let Outcome { changes, effects } = self.inbox.handle(input);
        if !changes.is_empty() {
            match &mut self.pending {
                Some(gathered) => gathered.merge(changes),
                None => self.pending = Some(changes),
            }
            if self.timers.flush.is_none() {
                self.timers.flush = Some(Instant::now() + self.config.coalesce_window);
            }
        }
        let status = self.inbox.status().clone();
        if status != self.last_status {
            debug!(account = %self.account.id, ?status, "connection status");
            self.publisher.status(&self.account.id, status.clone());
            self.last_status = status;
        }
        for effect in effects {
            self.perform(effect);
        }
    }

    fn perform(&mut self, effect: Effect) {
        match effect {
            Effect::FetchPage { cursor } => {
                let (api, tx) = (self.api.clone(), self.internal_tx.clone());
                let limit = self.config.page_limit;
                tokio::spawn(async move {
                    let result = api
                        .list(StatusFilter::Pending, Some(limit), cursor.as_deref())
                        .await;
                    let _ = tx.send(Internal::Page { cursor, result }).await;
                });
            }
            Effect::OpenStream { last_event_id } => self.open_stream(last_event_id),
            Effect::CloseStream => self.close_stream(),
            Effect::FetchInteraction { id } => self.fetch_interaction(id),
            Effect::Notify { id } => {
                if let Some(card) = self.inbox.card(&id) {
                    self.publisher.notification(NativeNotification {
                        account: self.account.id.clone(),
                        kind: NotificationKind::Show {
                            card: Box::new(card),
                        },
                    });
                }
            }
            Effect::WithdrawNotification { id } => {
                self.publisher.notification(NativeNotification {
                    account: self.account.id.clone(),
                    kind: NotificationKind::Withdraw { id },
                });
            }
            Effect::MarkNotificationRead { id } => {
                let api = self.api.clone();
                tokio::spawn(async move {
                    // Display-only on the server: a lost mark costs nothing but its echo.
                    if let Err(e) = api.mark_notification_read(&id).await {
                        debug!(notification = %id, error = %e, "marking read failed");
                    }
                });
            }
            Effect::DismissNotification { id } => {
                let api = self.api.clone();
                let policy = self.config.backoff;
                tokio::spawn(async move {
                    let mut backoff = Backoff::new(policy);
                    for attempt in 1..=DISMISS_ATTEMPTS {
                        match api.dismiss_notification(&id).await {
                            Ok(_) => return,
                            Err(e) if e.status() == Some(404) => return,
                            Err(e) if attempt == DISMISS_ATTEMPTS => {
                                warn!(notification = %id, error = %e, "dismissal not delivered");
                            }
                            Err(_) => tokio::time::sleep(backoff.next_delay()).await,
                        }
                    }
                });
            }
        }
    }

    /// Read every page of the notifications list; the board merges it when it arrives.
    fn fetch_notifications(&mut self) {
        self.apply(Input::NotificationsFetching);
        let (api, tx) = (self.api.clone(), self.internal_tx.clone());
        tokio::spawn(async move {
            let result = async {
                let mut items = Vec::new();
                let mut cursor: Option<String> = None;
                for _ in 0..NOTIFICATION_PAGES_MAX {
                    let page = api
                        .list_notifications(Some(PAGE_LIMIT_MAX), cursor.as_deref())
                        .await?;
                    items.extend(page.items);
                    match page.next_cursor {
                        Some(next) => cursor = Some(next),
                        None => break,
                    }
                }
                Ok(items)
            }
            .await;
            let _ = tx.send(Internal::Notifications { result }).await;
        });
    }

    // ---- commands from the app --------------------------------------------------------

    fn command(&mut self, command: Command) {
        match command {
            Command::Snapshot(reply) => {
                let _ = reply.send(self.inbox.snapshot());
            }
            Command::Act { id, action, reply } => self.act(id, action, reply),
            Command::Input(input) => {
                let input = *input;
                let dismissed = match &input {
                    Input::Dismiss { id } => Some(id.clone()),
                    _ => None,
                };
                let refresh = matches!(input, Input::Refresh);
                self.apply(input);
                if refresh {
                    self.fetch_notifications();
                }
                if let Some(id) = dismissed.filter(|id| self.inbox.card(id).is_none()) {
                    self.forget_verdicts(&id);
                }
            }
            Command::Network { online } => self.network(online),
            Command::SignIn { token } => {
                match ApiClient::with_options(&self.account.server_url, token, &self.config.client)
                {
                    Ok(api) => {
                        info!(account = %self.account.id, "signed in again");
                        self.api = api;
                        self.backoff.reset();
                        self.apply(Input::Start);
                    }
                    Err(e) => {
                        error!(account = %self.account.id, error = %e, "cannot use the new token")
                    }
                }
            }
            Command::Client(reply) => {
                let _ = reply.send(self.api.clone());
            }
            Command::Outbox(reply) => {
                let _ = reply.send(self.outbox.entries().into_iter().cloned().collect());
            }
            // Handled by the loop.
            Command::Shutdown(done) => {
                let _ = done.send(());
            }
        }
    }

    /// Validate, keep in the outbox, show as queued, and send if we can.
    fn act(
        &mut self,
        id: String,
        action: OutboxAction,
        reply: oneshot::Sender<Result<Delivery, EngineError>>,
    ) {
        let checked = (|| {
            let card = self
                .inbox
                .card(&id)
                .ok_or_else(|| EngineError::UnknownCard(id.clone()))?;
            if card.status().is_final() {
                return Err(EngineError::NotOpen {
                    id: id.clone(),
                    status: card.status(),
                });
            }
            if card.delivery.as_ref().is_some_and(Delivery::is_in_flight)
                || self.outbox.unsettled_for(&id).is_some()
            {
                return Err(EngineError::InFlight(id.clone()));
            }
            match &action {
                OutboxAction::Answer { value, .. } => validate_answer(&card.interaction, value)?,
                OutboxAction::Decline { reason } => validate_decline(&DeclineRequest {
                    reason: reason.clone(),
                })?,
            }
            Ok(self.outbox.enqueue(&id, action)?)
        })();
        let entry = match checked {
            Ok(entry) => entry,
            Err(e) => {
                let _ = reply.send(Err(e));
                return;
            }
        };
        info!(account = %self.account.id, interaction = %id, "answer queued");
        self.shown.insert(entry.key.clone(), false);
        self.apply(queued_input(&entry));
        if self.can_send() {
            // Reply once this entry's first attempt has an outcome.
            self.waiters.insert(entry.key.clone(), reply);
            self.deliver_next();
        } else {
            let _ = reply.send(Ok(Delivery::Queued));
        }
    }

    fn network(&mut self, online: bool) {
        if online == self.network_up {
            return;
        }
        self.network_up = online;
        if online {
            info!(account = %self.account.id, "network is back");
            self.timers.retry = None;
            self.backoff.reset();
            self.apply(Input::Retry);
        } else {
            info!(account = %self.account.id, "network is gone");
            self.timers.retry = None;
            self.close_stream();
            self.apply(Input::StreamDropped {
                failure: Failure::Offline,
            });
        }
    }

    // ---- what our requests report -----------------------------------------------------

    fn internal(&mut self, message: Internal) {
        match message {
            Internal::Page { cursor, result } => match result {
                Ok(page) => self.apply(Input::PageLoaded {
                    page,
                    cursor_requested: cursor,
                }),
                Err(e) => {
                    warn!(account = %self.account.id, error = %e, "page request failed");
                    let failure = self.failure_for(e.status() == Some(401));
                    self.apply(Input::PageFailed {
                        cursor_requested: cursor,
                        failure,
                    });
                }
            },
            Internal::Stream { generation, signal } if generation == self.generation => {
                self.stream_signal(signal)
            }
            Internal::Stream { .. } => {} // from a connection we already left
            Internal::Fetched { id, result } => match result {
                Ok(interaction) => self.apply(Input::InteractionFetched {
                    interaction: *interaction,
                }),
                Err(e) if e.code() == Some(ErrorCode::NotFound) || e.status() == Some(404) => {
                    self.apply(Input::InteractionGone { id })
                }
                Err(e) if e.status() == Some(401) => {
                    self.unfetched.insert(id);
                    self.sign_out();
                }
                Err(e) => {
                    debug!(account = %self.account.id, error = %e, "interaction fetch failed; will retry");
                    self.unfetched.insert(id);
                    if self.timers.fetch.is_none() {
                        self.timers.fetch = Some(Instant::now() + self.fetch_backoff.next_delay());
                    }
                }
            },
            Internal::Sent { key, outcome } => self.sent(key, outcome),
            Internal::Notifications { result } => match result {
                Ok(items) => self.apply(Input::NotificationsLoaded { items }),
                // The next stream (re)open or refresh reads the list again.
                Err(e) => {
                    warn!(account = %self.account.id, error = %e, "notifications list failed")
                }
            },
        }
    }

    fn stream_signal(&mut self, signal: StreamSignal) {
        match signal {
            StreamSignal::Opened => {
                info!(account = %self.account.id, "stream open");
                self.backoff.reset();
                self.timers.retry = None;
                self.apply(Input::StreamOpened);
                // The stream is tail-only: read the notifications now that it carries the
                // rest (the board keeps what arrives live meanwhile).
                self.fetch_notifications();
                // A fresh connection is a good moment to try the outbox again at once.
                self.timers.outbox = None;
                self.deliver_next();
                self.retry_fetches();
            }
            StreamSignal::Event(raw) => match raw.parse() {
                Ok(event) => {
                    // Events were lost: the cards refetch (the machine), and so does the board.
                    let reset = matches!(event, StreamEvent::Reset(_));
                    self.apply(Input::StreamEvent { id: raw.id, event });
                    if reset {
                        self.fetch_notifications();
                    }
                }
                // Never log the data: it may carry a question's private content.
                Err(e) => {
                    warn!(account = %self.account.id, event = %raw.name, error = %e, "stream frame skipped")
                }
            },
            StreamSignal::RetryHint(retry) => self.backoff.honour_server_retry(retry),
            StreamSignal::Closed(end) => {
                self.stream = None;
                info!(account = %self.account.id, reason = %end, "stream closed");
                let failure = self.failure_for(matches!(end, StreamEnd::Unauthorized));
                self.apply(Input::StreamDropped { failure });
            }
        }
    }

    /// How a failure is reported to the machine, scheduling the retry it promises.
    fn failure_for(&mut self, unauthorized: bool) -> Failure {
        if unauthorized {
            // No timer: a refused token is not retried until the account signs in again.
            self.timers.retry = None;
            return Failure::SignedOut;
        }
        if !self.network_up {
            return Failure::Offline;
        }
        let retry_at = match self.timers.retry {
            Some((_, at)) => at,
            None => {
                let delay = self.backoff.next_delay();
                let at =
                    self.config.clock.now() + chrono::Duration::from_std(delay).unwrap_or_default();
                self.timers.retry = Some((Instant::now() + delay, at));
                at
            }
        };
        Failure::Transient { retry_at }
    }

    fn sign_out(&mut self) {
        warn!(account = %self.account.id, "the server refused the token: signed out");
        self.close_stream();
        self.timers.retry = None;
        self.apply(Input::StreamDropped {
            failure: Failure::SignedOut,
        });
    }

    // ---- stream -----------------------------------------------------------------------

    fn open_stream(&mut self, last_event_id: Option<String>) {
        self.close_stream();
        let generation = self.generation;
        let (api, tx) = (self.api.clone(), self.internal_tx.clone());
        let keepalive = self.config.keepalive_timeout;
        debug!(account = %self.account.id, resume = ?last_event_id, "opening the stream");
        self.stream = Some(tokio::spawn(async move {
            let mut connection =
                match SseConnection::open(&api, last_event_id.as_deref(), keepalive) {
                    Ok(connection) => connection,
                    Err(e) => {
                        let signal = StreamSignal::Closed(StreamEnd::Transport(e.to_string()));
                        let _ = tx.send(Internal::Stream { generation, signal }).await;
                        return;
                    }
                };
            loop {
                let signal = connection.next().await;
                let closed = matches!(signal, StreamSignal::Closed(_));
                if tx
                    .send(Internal::Stream { generation, signal })
                    .await
                    .is_err()
                    || closed
                {
                    return;
                }
            }
        }));
    }

    fn close_stream(&mut self) {
        if let Some(task) = self.stream.take() {
            task.abort();
        }
        self.generation += 1;
    }

    // ---- single interactions ----------------------------------------------------------

    fn fetch_interaction(&mut self, id: String) {
        let (api, tx) = (self.api.clone(), self.internal_tx.clone());
        tokio::spawn(async move {
            let result = api.get(&id).await.map(Box::new);
            let _ = tx.send(Internal::Fetched { id, result }).await;
        });
    }

    fn retry_fetches(&mut self) {
        self.timers.fetch = None;
        for id in std::mem::take(&mut self.unfetched) {
            self.fetch_interaction(id);
        }
    }

    // ---- the outbox -------------------------------------------------------------------

    fn can_send(&self) -> bool {
        self.network_up
            && *self.inbox.status() == ConnectionStatus::Online
            && !self.inbox.is_syncing()
    }

    /// Send the oldest undelivered entry, if none is on its way and the server is reachable.
    fn deliver_next(&mut self) {
        if self.sending.is_some() || !self.can_send() {
            return;
        }
        let Some(entry) = self.outbox.unsettled().first().map(|e| (*e).clone()) else {
            return;
        };
        if let Err(e) = self.outbox.record_attempt(&entry.key) {
            // Without a durable record of the attempt we do not send; try again later.
            error!(account = %self.account.id, error = %e, "cannot write the outbox");
            self.timers.outbox = Some(Instant::now() + self.outbox_backoff.next_delay());
            return;
        }
        self.apply(Input::AnswerSending {
            id: entry.interaction_id.clone(),
        });
        self.sending = Some(entry.key.clone());
        let (api, tx) = (self.api.clone(), self.internal_tx.clone());
        tokio::spawn(async move {
            let outcome = delivery::send(&api, &entry).await;
            let _ = tx
                .send(Internal::Sent {
                    key: entry.key,
                    outcome,
                })
                .await;
        });
    }

    fn sent(&mut self, key: String, outcome: SendOutcome) {
        if self.sending.as_deref() == Some(key.as_str()) {
            self.sending = None;
        }
        let Some(entry) = self.outbox.get(&key).cloned() else {
            return;
        };
        let id = entry.interaction_id.clone();
        match outcome {
            SendOutcome::Verdict(verdict) => {
                info!(account = %self.account.id, interaction = %id, verdict = verdict_name(&verdict), "answer delivered");
                if let Err(e) = self.outbox.record_verdict(&key, verdict.clone()) {
                    // The server has it (same key on a resend replays the same verdict).
                    error!(account = %self.account.id, error = %e, "cannot record the verdict");
                }
                self.outbox_backoff.reset();
                self.shown.insert(key.clone(), true);
                self.apply(Input::AnswerVerdict {
                    id: id.clone(),
                    verdict: verdict.into(),
                });
                self.reply(&key, &id);
                self.deliver_next();
            }
            SendOutcome::Retry(reason) => {
                warn!(account = %self.account.id, interaction = %id, %reason, "answer not delivered yet; kept in the outbox");
                self.apply(queued_input(&entry));
                self.reply(&key, &id);
                self.timers.outbox = Some(Instant::now() + self.outbox_backoff.next_delay());
            }
            SendOutcome::SignedOut => {
                self.apply(queued_input(&entry));
                self.reply(&key, &id);
                self.sign_out();
            }
        }
    }

    fn reply(&mut self, key: &str, id: &str) {
        if let Some(waiter) = self.waiters.remove(key) {
            let delivery = self
                .inbox
                .card(id)
                .and_then(|card| card.delivery)
                .unwrap_or(Delivery::Queued);
            let _ = waiter.send(Ok(delivery));
        }
    }

    /// A caller waits for its entry's first outcome only while something is on its way: an
    /// entry queued behind another send hears nothing more once that send fails and the
    /// outbox backs off or the link drops (it is not sent until the server is back), so with
    /// nothing in flight every waiter is told `queued` now, not when the link returns.
    fn release_waiters(&mut self) {
        if self.sending.is_some() || self.waiters.is_empty() {
            return;
        }
        let keys: Vec<String> = self.waiters.keys().cloned().collect();
        for key in keys {
            let id = self
                .outbox
                .get(&key)
                .map(|e| e.interaction_id.clone())
                .unwrap_or_default();
            self.reply(&key, &id);
        }
    }

    /// Show outbox entries on cards that arrived after them (after a restart, the outbox is
    /// read before the pages that bring the cards).
    fn show_outbox_on_cards(&mut self) {
        let unshown: Vec<OutboxEntry> = self
            .outbox
            .entries()
            .into_iter()
            .filter(|e| self.shown.get(&e.key) != Some(&e.is_settled()))
            .cloned()
            .collect();
        for entry in unshown {
            if self.inbox.card(&entry.interaction_id).is_none() {
                continue;
            }
            if self.sending.as_deref() != Some(entry.key.as_str()) {
                self.apply(queued_input(&entry));
            }
            if let Some(verdict) = entry.verdict.clone() {
                self.apply(Input::AnswerVerdict {
                    id: entry.interaction_id.clone(),
                    verdict: verdict.into(),
                });
            }
            self.shown.insert(entry.key, entry.verdict.is_some());
        }
    }

    fn forget_verdicts(&mut self, id: &str) {
        let settled: Vec<String> = self
            .outbox
            .entries()
            .into_iter()
            .filter(|e| e.interaction_id == id && e.is_settled())
            .map(|e| e.key.clone())
            .collect();
        for key in settled {
            if let Err(e) = self.outbox.forget(&key) {
                warn!(account = %self.account.id, error = %e, "cannot forget an outbox verdict");
            }
            self.shown.remove(&key);
        }
    }

    // ---- timers -----------------------------------------------------------------------

    fn next_wake(&self) -> Option<Instant> {
        let deadline = self.inbox.next_deadline().map(|at| {
            let wait = (at - self.config.clock.now()).to_std().unwrap_or_default();
            Instant::now() + wait
        });
        [
            self.timers.retry.map(|(at, _)| at),
            self.timers.flush,
            self.timers.persist,
            self.timers.outbox,
            self.timers.fetch,
            self.timers.clock,
            deadline,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    fn timers_due(&mut self) {
        let now = Instant::now();
        let due = |t: &mut Option<Instant>| t.take_if(|at| *at <= now).is_some();
        if self.timers.retry.is_some_and(|(at, _)| at <= now) {
            self.timers.retry = None;
            if self.network_up {
                self.apply(Input::Retry);
            }
        }
        let clock_check = due(&mut self.timers.clock);
        if clock_check {
            self.timers.clock = Some(now + CLOCK_CHECK);
        }
        if clock_check
            || self
                .inbox
                .next_deadline()
                .is_some_and(|at| at <= self.config.clock.now())
        {
            self.apply(Input::Tick {
                now: self.config.clock.now(),
            });
        }
        if due(&mut self.timers.outbox) {
            self.deliver_next();
        }
        if due(&mut self.timers.fetch) {
            self.retry_fetches();
        }
        if due(&mut self.timers.persist) {
            self.cursor.save(self.inbox.last_event_id());
        }
        if due(&mut self.timers.flush) {
            self.flush();
        }
    }

    /// After any work: show late outbox entries, send what became sendable (e.g. a refetch
    /// finished) unless a failed send is waiting out its backoff, schedule the position write.
    fn after_work(&mut self) {
        self.show_outbox_on_cards();
        if self.timers.outbox.is_none() {
            self.deliver_next();
        }
        self.release_waiters();
        if self.timers.persist.is_none() && self.cursor.is_stale(self.inbox.last_event_id()) {
            self.timers.persist = Some(Instant::now() + PERSIST_DELAY);
        }
    }

    fn flush(&mut self) {
        self.timers.flush = None;
        if let Some(batch) = self.pending.take() {
            self.publisher.changes(batch);
        }
    }

    fn stop(&mut self) {
        self.close_stream();
        self.cursor.save(self.inbox.last_event_id());
        self.flush();
        info!(account = %self.account.id, "sync stopped");
    }
}

fn queued_input(entry: &OutboxEntry) -> Input {
    let id = entry.interaction_id.clone();
    match &entry.action {
        OutboxAction::Answer { value, .. } => Input::AnswerQueued {
            id,
            value: value.clone(),
        },
        OutboxAction::Decline { reason } => Input::DeclineQueued {
            id,
            reason: reason.clone(),
        },
    }
}

fn verdict_name(verdict: &crate::outbox::RecordedVerdict) -> &'static str {
    use crate::outbox::RecordedVerdict as V;
    match verdict {
        V::Accepted { .. } => "accepted",
        V::AlreadyAnswered { .. } => "already_answered",
        V::Gone => "gone",
        V::Rejected { .. } => "rejected",
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
