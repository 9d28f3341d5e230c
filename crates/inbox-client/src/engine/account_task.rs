//! The task that syncs one account: the only owner of its machine ([`Session`]), its API
//! client, its stream task and its outbox driver. It does I/O only: it feeds what it sees to
//! the machine, performs the work the machine hands out, and sleeps until the machine's
//! [`Session::poll_timeout`]. Every timer and every backoff is the machine's.

use std::sync::Arc;

use inbox_protocol::caps::PAGE_LIMIT_MAX;
use inbox_protocol::{ErrorCode, StatusFilter, StreamEvent};
use inbox_sync::{ConnectionStatus, Effect, Input, Moment, Session, Work};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tracing::{Instrument, debug, error, info, warn};

use super::command::Command;
use super::cursor::CursorFile;
use super::outbox_driver::{Link, OutboxDriver};
use super::report::Report;
use super::stream_task::StreamTask;
use super::{EngineConfig, Notification as NativeNotification, NotificationKind, Publisher};
use crate::accounts::Account;
use crate::api::ApiClient;
use crate::stream::{StreamEnd, StreamSignal};

/// Reports handled in one go before the outbox and waiters are looked at again (keeps
/// commands responsive while a burst of frames is applied).
const DRAIN: usize = 512;
/// Pages of the notifications list read at most in one go (each `PAGE_LIMIT_MAX` long): far
/// beyond what the per-asker cap lets a few askers fill, and a bound all the same.
const NOTIFICATION_PAGES_MAX: usize = 20;

pub(super) struct AccountTask {
    pub(super) account: Account,
    pub(super) api: ApiClient,
    pub(super) session: Session,
    pub(super) outbox: OutboxDriver,
    pub(super) cursor: CursorFile,
    pub(super) config: Arc<EngineConfig>,
    pub(super) publisher: Publisher,
    pub(super) reports: mpsc::Sender<Report>,
    pub(super) stream: StreamTask,
    pub(super) last_status: ConnectionStatus,
}

impl AccountTask {
    pub(super) async fn run(
        mut self,
        mut commands: mpsc::Receiver<Command>,
        mut reports: mpsc::Receiver<Report>,
    ) {
        info!("sync starting");
        self.session.start(self.now());
        self.drive();
        loop {
            let wake = self.session.poll_timeout();
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
                Some(report) = reports.recv() => {
                    self.report(report);
                    for _ in 0..DRAIN {
                        match reports.try_recv() {
                            Ok(report) => self.report(report),
                            Err(_) => break,
                        }
                    }
                    self.after_work();
                }
                _ = sleep_until(wake), if wake.is_some() => {
                    self.session.handle_timeout(self.now());
                    self.drive();
                    self.after_work();
                }
            }
        }
        self.stop();
    }

    /// Now on both clocks.
    fn now(&self) -> Moment {
        Moment {
            at: Instant::now().into_std(),
            wall: self.config.clock.now(),
        }
    }

    // ---- the machine's work -----------------------------------------------------------

    /// Perform everything the machine handed out (performing may hand out more), then tell
    /// the app if the connection status changed.
    fn drive(&mut self) {
        while let Some(work) = self.session.poll_work() {
            match work {
                Work::Effect(effect) => self.perform(effect),
                Work::Publish(batch) => self.publisher.changes(batch),
                Work::SavePosition(position) => {
                    let saved = self.cursor.save(position.as_deref());
                    self.session.position_saved(saved);
                }
                Work::DeliverOutbox => {
                    let now = self.now();
                    let link = Link {
                        api: &self.api,
                        reports: &self.reports,
                    };
                    self.outbox.deliver_next(&mut self.session, now, link);
                }
            }
        }
        let status = self.session.inbox().status();
        if *status != self.last_status {
            debug!(?status, "connection status");
            self.publisher.status(&self.account.id, status.clone());
            self.last_status = status.clone();
        }
    }

    fn perform(&mut self, effect: Effect) {
        match effect {
            Effect::FetchPage { cursor } => {
                let (api, tx) = (self.api.clone(), self.reports.clone());
                let limit = self.config.page_limit;
                spawn(async move {
                    let result = api
                        .list(StatusFilter::Pending, Some(limit), cursor.as_deref())
                        .await;
                    let _ = tx.send(Report::Page { cursor, result }).await;
                });
            }
            Effect::OpenStream { last_event_id } => {
                self.stream.open(&self.api, last_event_id, &self.reports)
            }
            Effect::CloseStream => {
                // The machine closes it when offline, signed out, or silent too long.
                debug!("closing the stream");
                self.stream.close()
            }
            Effect::FetchInteraction { id } => {
                let (api, tx) = (self.api.clone(), self.reports.clone());
                spawn(async move {
                    let result = api.get(&id).await.map(Box::new);
                    let _ = tx.send(Report::Fetched { id, result }).await;
                });
            }
            Effect::Notify { id } => {
                if let Some(card) = self.session.inbox().card(&id) {
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
                spawn(async move {
                    // Display-only on the server: a lost mark costs nothing but its echo.
                    if let Err(e) = api.mark_notification_read(&id).await {
                        debug!(notification = %id, error = %e, "marking read failed");
                    }
                });
            }
            Effect::DismissNotification { id } => {
                // One try; the machine times the next if this one fails.
                let (api, tx) = (self.api.clone(), self.reports.clone());
                spawn(async move {
                    let result = api.dismiss_notification(&id).await.map(drop);
                    let _ = tx.send(Report::Dismissed { id, result }).await;
                });
            }
        }
    }

    /// Read every page of the notifications list; the board merges it when it arrives.
    fn fetch_notifications(&mut self) {
        self.session
            .handle(self.now(), Input::NotificationsFetching);
        let (api, tx) = (self.api.clone(), self.reports.clone());
        spawn(async move {
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
            let _ = tx.send(Report::Notifications { result }).await;
        });
    }

    // ---- commands from the app --------------------------------------------------------

    fn command(&mut self, command: Command) {
        let now = self.now();
        match command {
            Command::Snapshot(reply) => {
                let _ = reply.send(self.session.inbox().snapshot());
            }
            Command::Act { id, action, reply } => {
                let link = Link {
                    api: &self.api,
                    reports: &self.reports,
                };
                self.outbox
                    .act(&mut self.session, now, link, id, action, reply);
            }
            Command::Input(input) => {
                let input = *input;
                let dismissed = match &input {
                    Input::Dismiss { id } => Some(id.clone()),
                    _ => None,
                };
                let refresh = matches!(input, Input::Refresh);
                self.session.handle(now, input);
                if refresh {
                    self.fetch_notifications();
                }
                if let Some(id) = dismissed.filter(|id| self.session.inbox().card(id).is_none()) {
                    self.outbox.forget_verdicts(&id);
                }
            }
            Command::Network { online } => {
                if online != self.session.network_up() {
                    info!(
                        online,
                        "network {}",
                        if online { "is back" } else { "is gone" }
                    );
                }
                self.session.network(now, online);
            }
            Command::SignIn { token } => {
                match ApiClient::with_options(&self.account.server_url, token, &self.config.client)
                {
                    Ok(api) => {
                        info!("signed in again");
                        self.api = api;
                        self.session.signed_in(now);
                    }
                    Err(e) => error!(error = %e, "cannot use the new token"),
                }
            }
            Command::Client(reply) => {
                let _ = reply.send(self.api.clone());
            }
            Command::Outbox(reply) => {
                let _ = reply.send(self.outbox.entries());
            }
            // Handled by the loop.
            Command::Shutdown(done) => {
                let _ = done.send(());
            }
        }
        self.drive();
    }

    // ---- what our requests report -----------------------------------------------------

    fn report(&mut self, report: Report) {
        let now = self.now();
        match report {
            Report::Page { cursor, result } => match result {
                Ok(page) => self.session.handle(
                    now,
                    Input::PageLoaded {
                        page,
                        cursor_requested: cursor,
                    },
                ),
                Err(e) => {
                    warn!(error = %e, "page request failed");
                    self.session
                        .page_failed(now, cursor, e.status() == Some(401));
                }
            },
            Report::Stream { generation, signal } if self.stream.is_current(generation) => {
                self.stream_signal(now, signal)
            }
            Report::Alive { generation } if self.stream.is_current(generation) => {
                self.session.stream_alive(now)
            }
            // From a connection we already left.
            Report::Stream { .. } | Report::Alive { .. } => {}
            Report::Fetched { id, result } => match result {
                Ok(interaction) => self.session.handle(
                    now,
                    Input::InteractionFetched {
                        interaction: *interaction,
                    },
                ),
                Err(e) if e.code() == Some(ErrorCode::NotFound) || e.status() == Some(404) => {
                    self.session.handle(now, Input::InteractionGone { id })
                }
                Err(e) if e.status() == Some(401) => {
                    warn!("the server refused the token: signed out");
                    self.session.fetch_failed(now, id, true);
                }
                Err(e) => {
                    debug!(error = %e, "interaction fetch failed; will retry");
                    self.session.fetch_failed(now, id, false);
                }
            },
            Report::Sent { key, outcome } => {
                let link = Link {
                    api: &self.api,
                    reports: &self.reports,
                };
                self.outbox.sent(&mut self.session, now, link, key, outcome);
            }
            Report::Notifications { result } => match result {
                Ok(items) => self
                    .session
                    .handle(now, Input::NotificationsLoaded { items }),
                // The next stream (re)open or refresh reads the list again.
                Err(e) => warn!(error = %e, "notifications list failed"),
            },
            Report::Dismissed { id, result } => match result {
                Ok(()) => self.session.dismissal_settled(&id),
                Err(e) if e.status() == Some(404) => self.session.dismissal_settled(&id),
                Err(e) => {
                    if !self.session.dismissal_failed(now, &id) {
                        warn!(notification = %id, error = %e, "dismissal not delivered");
                    }
                }
            },
        }
        // Performed at once, so an effect sees the list as its input left it (a notification
        // shows the card as it arrived, even if a later frame in the burst resolves it).
        self.drive();
    }

    fn stream_signal(&mut self, now: Moment, signal: StreamSignal) {
        if !matches!(signal, StreamSignal::Closed(_)) {
            self.session.stream_alive(now);
        }
        match signal {
            StreamSignal::Opened => {
                info!("stream open");
                self.session.stream_opened(now);
                // The stream is tail-only: read the notifications now that it carries the
                // rest (the board keeps what arrives live meanwhile).
                self.fetch_notifications();
            }
            StreamSignal::Event(raw) => match raw.parse() {
                Ok(event) => {
                    // Events were lost: the cards refetch (the machine), and so does the board.
                    let reset = matches!(event, StreamEvent::Reset(_));
                    self.session
                        .handle(now, Input::StreamEvent { id: raw.id, event });
                    if reset {
                        self.fetch_notifications();
                    }
                }
                // Never log the data: it may carry a question's private content.
                Err(e) => warn!(event = %raw.name, error = %e, "stream frame skipped"),
            },
            StreamSignal::RetryHint(retry) => self.session.server_retry(retry),
            StreamSignal::Closed(end) => {
                self.stream.ended();
                info!(reason = %end, "stream closed");
                self.session
                    .stream_closed(now, matches!(end, StreamEnd::Unauthorized));
            }
        }
    }

    // ---- between inputs ---------------------------------------------------------------

    /// After any work: show late outbox entries, send what became sendable (e.g. a refetch
    /// finished) unless a failed send is waiting out its backoff, and tell waiting callers.
    fn after_work(&mut self) {
        let now = self.now();
        self.outbox.show_on_cards(&mut self.session, now);
        if !self.session.outbox_paused() {
            let link = Link {
                api: &self.api,
                reports: &self.reports,
            };
            self.outbox.deliver_next(&mut self.session, now, link);
        }
        self.outbox.release_waiters(&self.session);
        self.drive();
    }

    fn stop(&mut self) {
        self.stream.close();
        self.cursor.save(self.session.inbox().last_event_id());
        if let Some(batch) = self.session.take_changes() {
            self.publisher.changes(batch);
        }
        info!("sync stopped");
    }
}

/// Requests run on tasks of their own, in the account's span (their logs name the account).
fn spawn(request: impl std::future::Future<Output = ()> + Send + 'static) {
    tokio::spawn(request.in_current_span());
}

async fn sleep_until(at: Option<std::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(Instant::from_std(at)).await,
        None => std::future::pending().await,
    }
}
