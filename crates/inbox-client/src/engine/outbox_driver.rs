//! The outbox driver: answers and declines kept on disk until the server ruled, sent one at a
//! time, oldest first, and shown on their cards. When the outbox may be tried again is the
//! machine's to say ([`Session::outbox_paused`], [`inbox_sync::Work::DeliverOutbox`]); this
//! keeps the entries, sends them and reports how each send went.

use std::collections::HashMap;

use inbox_protocol::DeclineRequest;
use inbox_protocol::validate::{validate_answer, validate_decline};
use inbox_sync::{Delivery, Input, Moment, Session};
use tokio::sync::{mpsc, oneshot};
use tracing::{Instrument, error, info, warn};

use super::EngineError;
use super::delivery::{self, SendOutcome};
use super::report::Report;
use crate::api::ApiClient;
use crate::outbox::{Outbox, OutboxAction, OutboxEntry, RecordedVerdict};

/// Where a send is made and where its outcome goes.
pub(super) struct Link<'a> {
    pub(super) api: &'a ApiClient,
    pub(super) reports: &'a mpsc::Sender<Report>,
}

pub(super) struct OutboxDriver {
    outbox: Outbox,
    /// The entry being sent (one at a time, oldest first).
    sending: Option<String>,
    /// `answer`/`decline` callers waiting for the first outcome of their entry.
    waiters: HashMap<String, oneshot::Sender<Result<Delivery, EngineError>>>,
    /// Entries already shown on their card: key → whether the verdict was shown too.
    shown: HashMap<String, bool>,
}

impl OutboxDriver {
    pub(super) fn new(outbox: Outbox) -> OutboxDriver {
        OutboxDriver {
            outbox,
            sending: None,
            waiters: HashMap::new(),
            shown: HashMap::new(),
        }
    }

    pub(super) fn entries(&self) -> Vec<OutboxEntry> {
        self.outbox.entries().into_iter().cloned().collect()
    }

    /// Validate, keep in the outbox, show as queued, and send if we can.
    pub(super) fn act(
        &mut self,
        session: &mut Session,
        now: Moment,
        link: Link<'_>,
        id: String,
        action: OutboxAction,
        reply: oneshot::Sender<Result<Delivery, EngineError>>,
    ) {
        let checked = (|| {
            let card = session
                .inbox()
                .card(&id)
                .ok_or_else(|| EngineError::UnknownCard(id.clone()))?;
            if card.status().is_final() {
                return Err(EngineError::NotOpen {
                    id: id.clone(),
                    status: card.status(),
                });
            }
            if card.local.answer_in_flight() || self.outbox.unsettled_for(&id).is_some() {
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
        info!(interaction = %id, "answer queued");
        self.shown.insert(entry.key.clone(), false);
        session.handle(now, queued_input(&entry));
        if session.can_send() {
            // Reply once this entry's first attempt has an outcome.
            self.waiters.insert(entry.key.clone(), reply);
            self.deliver_next(session, now, link);
        } else {
            let _ = reply.send(Ok(Delivery::Queued));
        }
    }

    /// Send the oldest undelivered entry, if none is on its way and the server is reachable.
    pub(super) fn deliver_next(&mut self, session: &mut Session, now: Moment, link: Link<'_>) {
        if self.sending.is_some() || !session.can_send() {
            return;
        }
        let Some(entry) = self.outbox.unsettled().first().map(|e| (*e).clone()) else {
            return;
        };
        if let Err(e) = self.outbox.record_attempt(&entry.key) {
            // Without a durable record of the attempt we do not send; try again later.
            error!(error = %e, "cannot write the outbox");
            session.outbox_failed(now);
            return;
        }
        session.handle(
            now,
            Input::AnswerSending {
                id: entry.interaction_id.clone(),
            },
        );
        self.sending = Some(entry.key.clone());
        let (api, tx) = (link.api.clone(), link.reports.clone());
        let send = async move {
            let outcome = delivery::send(&api, &entry).await;
            let _ = tx
                .send(Report::Sent {
                    key: entry.key,
                    outcome,
                })
                .await;
        };
        tokio::spawn(send.in_current_span());
    }

    /// What became of a send.
    pub(super) fn sent(
        &mut self,
        session: &mut Session,
        now: Moment,
        link: Link<'_>,
        key: String,
        outcome: SendOutcome,
    ) {
        if self.sending.as_deref() == Some(key.as_str()) {
            self.sending = None;
        }
        let Some(entry) = self.outbox.get(&key).cloned() else {
            return;
        };
        let id = entry.interaction_id.clone();
        match outcome {
            SendOutcome::Verdict(verdict) => {
                info!(interaction = %id, verdict = verdict_name(&verdict), "answer delivered");
                if let Err(e) = self.outbox.record_verdict(&key, verdict.clone()) {
                    // The server has it (same key on a resend replays the same verdict).
                    error!(error = %e, "cannot record the verdict");
                }
                session.outbox_delivered();
                self.shown.insert(key.clone(), true);
                session.handle(
                    now,
                    Input::AnswerVerdict {
                        id: id.clone(),
                        verdict: verdict.into(),
                    },
                );
                self.reply(session, &key, &id);
                self.deliver_next(session, now, link);
            }
            SendOutcome::Retry(reason) => {
                warn!(interaction = %id, %reason, "answer not delivered yet; kept in the outbox");
                session.handle(now, queued_input(&entry));
                self.reply(session, &key, &id);
                session.outbox_failed(now);
            }
            SendOutcome::SignedOut => {
                session.handle(now, queued_input(&entry));
                self.reply(session, &key, &id);
                warn!("the server refused the token: signed out");
                session.signed_out(now);
            }
        }
    }

    fn reply(&mut self, session: &Session, key: &str, id: &str) {
        if let Some(waiter) = self.waiters.remove(key) {
            let delivery = session
                .inbox()
                .card(id)
                .and_then(|card| card.local.delivery)
                .unwrap_or(Delivery::Queued);
            let _ = waiter.send(Ok(delivery));
        }
    }

    /// A caller waits for its entry's first outcome only while something is on its way: an
    /// entry queued behind another send hears nothing more once that send fails and the
    /// outbox backs off or the link drops (it is not sent until the server is back), so with
    /// nothing in flight every waiter is told `queued` now, not when the link returns.
    pub(super) fn release_waiters(&mut self, session: &Session) {
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
            self.reply(session, &key, &id);
        }
    }

    /// Show entries on cards that arrived after them (after a restart, the outbox is read
    /// before the pages that bring the cards).
    pub(super) fn show_on_cards(&mut self, session: &mut Session, now: Moment) {
        let unshown: Vec<OutboxEntry> = self
            .outbox
            .entries()
            .into_iter()
            .filter(|e| self.shown.get(&e.key) != Some(&e.is_settled()))
            .cloned()
            .collect();
        for entry in unshown {
            if session.inbox().card(&entry.interaction_id).is_none() {
                continue;
            }
            if self.sending.as_deref() != Some(entry.key.as_str()) {
                session.handle(now, queued_input(&entry));
            }
            if let Some(verdict) = entry.verdict.clone() {
                session.handle(
                    now,
                    Input::AnswerVerdict {
                        id: entry.interaction_id.clone(),
                        verdict: verdict.into(),
                    },
                );
            }
            self.shown.insert(entry.key, entry.verdict.is_some());
        }
    }

    /// The reviewer cleared card `id`: its settled entries need not be kept any longer.
    pub(super) fn forget_verdicts(&mut self, id: &str) {
        let settled: Vec<String> = self
            .outbox
            .entries()
            .into_iter()
            .filter(|e| e.interaction_id == id && e.is_settled())
            .map(|e| e.key.clone())
            .collect();
        for key in settled {
            if let Err(e) = self.outbox.forget(&key) {
                warn!(error = %e, "cannot forget an outbox verdict");
            }
            self.shown.remove(&key);
        }
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

fn verdict_name(verdict: &RecordedVerdict) -> &'static str {
    match verdict {
        RecordedVerdict::Accepted { .. } => "accepted",
        RecordedVerdict::AlreadyAnswered { .. } => "already_answered",
        RecordedVerdict::Gone => "gone",
        RecordedVerdict::Rejected { .. } => "rejected",
    }
}
