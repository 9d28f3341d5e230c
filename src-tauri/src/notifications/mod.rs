//! Native desktop notifications for new questions, withdrawn when the question is settled.
//!
//! The engine says when a question arrived live and when it no longer waits; the planner
//! (`inbox_desktop_core::notices`, pure) decides what to show; the [`Notifier`] carries that out on the session bus from a
//! thread of its own, because notify-rust's D-Bus calls block and a click is awaited on a
//! blocking call too.

mod desktop;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use inbox_client::engine::{Notification, NotificationKind};
use inbox_sync::{Card, Delivery};
use serde_json::Value;

use desktop::Response;

use crate::settings::{NotificationPrefs, QuietHours};

pub use inbox_desktop_core::notices::{
    Attention, NoticeAction, NoticeKey, NoticePlanner, QuestionRef,
};

/// Arrivals are gathered this long after the last one, so a burst is seen as one.
const GATHER_QUIET: Duration = Duration::from_millis(300);
/// …but never held longer than this.
const GATHER_MAX: Duration = Duration::from_secs(1);

/// What decides whether the reviewer may be interrupted; shared with the window and the tray.
#[derive(Debug, Default)]
pub struct Presence {
    window_attentive: AtomicBool,
    window_visible: AtomicBool,
    do_not_disturb: AtomicBool,
    /// The Settings view's notification preferences and Do-not-disturb schedule.
    prefs: Mutex<(NotificationPrefs, QuietHours)>,
}

impl Presence {
    pub fn set_window_attentive(&self, on: bool) {
        self.window_attentive.store(on, Ordering::SeqCst);
    }

    /// Shown on screen (not closed to the tray, not minimised), focused or not.
    pub fn set_window_visible(&self, on: bool) {
        self.window_visible.store(on, Ordering::SeqCst);
    }

    pub fn set_preferences(&self, notifications: NotificationPrefs, quiet_hours: QuietHours) {
        *self.prefs.lock().unwrap_or_else(PoisonError::into_inner) = (notifications, quiet_hours);
    }

    /// Whether a notification asks the server for its sound.
    pub fn sound(&self) -> bool {
        self.prefs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .0
            .sound
    }

    pub fn set_do_not_disturb(&self, on: bool) {
        self.do_not_disturb.store(on, Ordering::SeqCst);
    }

    pub fn do_not_disturb(&self) -> bool {
        self.do_not_disturb.load(Ordering::SeqCst)
    }

    /// Now, in the reviewer's local time (for the schedule).
    pub fn attention(&self) -> Attention {
        self.attention_at(chrono::Local::now().time())
    }

    /// The preferences fold into the planner's two questions: notifications off or a quiet
    /// hour count as Do not disturb; "only when hidden" counts a visible window as watched.
    pub fn attention_at(&self, at: chrono::NaiveTime) -> Attention {
        let (notifications, quiet_hours) = self
            .prefs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let watched = if notifications.only_when_hidden {
            self.window_visible.load(Ordering::SeqCst)
        } else {
            self.window_attentive.load(Ordering::SeqCst)
        };
        Attention {
            window_attentive: watched,
            do_not_disturb: self.do_not_disturb.load(Ordering::SeqCst)
                || !notifications.enabled
                || quiet_hours.covers(at),
        }
    }
}

enum Command {
    Engine(Notification),
    /// The notification server said something about one of its notifications.
    Signal(desktop::BusSignal),
    /// An answer given from notification `id` got this outcome.
    Answered {
        id: u32,
        title: String,
        body: String,
    },
}

/// The handle the app keeps: hand it every notification event of the engine.
#[derive(Clone)]
pub struct Notifier {
    commands: mpsc::Sender<Command>,
}

/// Called (on the notifier thread) when the reviewer clicks a notification.
pub type OpenHandler = Arc<dyn Fn(QuestionRef) + Send + Sync>;

/// Sends an answer given from a notification — the same path as one from the window (the
/// engine's validation, outbox and Idempotency-Key). Called on a thread of its own, so it may
/// block until the engine knows the outcome.
pub type AnswerHandler = Arc<dyn Fn(QuestionRef, Value) -> Result<Delivery, String> + Send + Sync>;

/// What the app does when a notification is acted on.
#[derive(Clone)]
pub struct NoticeHandlers {
    pub open: OpenHandler,
    pub answer: AnswerHandler,
}

impl Notifier {
    /// Start the notifier thread. `app_name` is what the desktop shows as the sender.
    pub fn spawn(app_name: &str, presence: Arc<Presence>, handlers: NoticeHandlers) -> Notifier {
        let (tx, rx) = mpsc::channel();
        let signals = tx.clone();
        let answers = tx.clone();
        let app_name = app_name.to_owned();
        std::thread::Builder::new()
            .name("notifications".into())
            .spawn(move || {
                let bus = desktop::SessionNotices::new(
                    app_name,
                    presence.clone(),
                    Box::new(move |signal| {
                        let _ = signals.send(Command::Signal(signal));
                    }),
                );
                run(rx, bus, presence, handlers, answers);
            })
            .expect("spawn the notifications thread");
        Notifier { commands: tx }
    }

    /// Pass on one of the engine's notification events.
    pub fn handle(&self, event: Notification) {
        let _ = self.commands.send(Command::Engine(event));
    }
}

fn run(
    rx: mpsc::Receiver<Command>,
    mut bus: desktop::SessionNotices,
    presence: Arc<Presence>,
    handlers: NoticeHandlers,
    answers: mpsc::Sender<Command>,
) {
    let mut planner = NoticePlanner::new();
    let mut gathered: Vec<Card> = Vec::new();
    let mut first_gathered = Instant::now();
    loop {
        let command = if gathered.is_empty() {
            match rx.recv() {
                Ok(c) => Some(c),
                Err(_) => return,
            }
        } else {
            let deadline = (first_gathered + GATHER_MAX).saturating_duration_since(Instant::now());
            match rx.recv_timeout(GATHER_QUIET.min(deadline)) {
                Ok(c) => Some(c),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        };
        match command {
            Some(Command::Engine(Notification { account, kind })) => match kind {
                NotificationKind::Show { card } => {
                    if gathered.is_empty() {
                        first_gathered = Instant::now();
                    }
                    gathered.push(*card);
                    if first_gathered.elapsed() < GATHER_MAX {
                        continue;
                    }
                }
                NotificationKind::Withdraw { id } => {
                    let question = QuestionRef { account, id };
                    // Settled before it was ever announced: just never announce it.
                    gathered.retain(|c| {
                        c.account != question.account || c.interaction.id != question.id
                    });
                    for action in planner.settled(question) {
                        bus.apply(action);
                    }
                    if !gathered.is_empty() && first_gathered.elapsed() < GATHER_MAX {
                        continue;
                    }
                }
            },
            Some(Command::Signal(signal)) => {
                match bus.response(&signal) {
                    Some(Response::Open(question)) => (handlers.open)(question),
                    Some(Response::Answer {
                        question,
                        value,
                        shown_as,
                    }) => {
                        let id = signal.id();
                        if let Some(key) = bus.hand_over(id) {
                            planner.forget(&key);
                        }
                        answer_from_notification(&handlers, &answers, id, question, value, shown_as)
                    }
                    None => {}
                }
                if let desktop::BusSignal::Closed { id } = signal
                    && let Some(key) = bus.closed(id)
                {
                    planner.forget(&key);
                }
                if !gathered.is_empty() && first_gathered.elapsed() < GATHER_MAX {
                    continue;
                }
            }
            Some(Command::Answered { id, title, body }) => {
                bus.show_outcome(id, &title, &body);
                if !gathered.is_empty() && first_gathered.elapsed() < GATHER_MAX {
                    continue;
                }
            }
            None => {}
        }
        if !gathered.is_empty() {
            let arrivals = std::mem::take(&mut gathered);
            for action in planner.arrived(&arrivals, Instant::now(), presence.attention()) {
                bus.apply(action);
            }
        }
    }
}

/// Send the answer on a thread of its own (the engine may take a while: a slow server, a
/// reconnect) and report the outcome back to the notifier thread.
fn answer_from_notification(
    handlers: &NoticeHandlers,
    answers: &mpsc::Sender<Command>,
    id: u32,
    question: QuestionRef,
    value: Value,
    shown_as: String,
) {
    let answer = handlers.answer.clone();
    let back = answers.clone();
    let spawned = std::thread::Builder::new()
        .name(format!("notification-answer-{id}"))
        .spawn(move || {
            // Which question, never what was answered (see `logs`).
            tracing::info!(account = %question.account, id = %question.id, "answer from a notification");
            let (title, body) = outcome(answer(question, value), &shown_as);
            let _ = back.send(Command::Answered { id, title, body });
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "could not send an answer from a notification");
    }
}

/// What the notification says once its answer was handed to the engine.
fn outcome(delivery: Result<Delivery, String>, shown_as: &str) -> (String, String) {
    match delivery {
        Ok(Delivery::Accepted) => ("Answer sent".into(), shown_as.into()),
        Ok(Delivery::Queued | Delivery::Sending) => (
            "Answer queued".into(),
            format!("{shown_as} — it is sent when the server is reachable again."),
        ),
        Ok(Delivery::Rejected { message, .. }) => ("Answer not sent".into(), message),
        Err(message) => ("Answer not sent".into(), message),
    }
}

#[cfg(test)]
mod presence_tests {
    use super::*;

    #[test]
    fn preferences_turn_into_attention() {
        let t = |s| chrono::NaiveTime::parse_from_str(s, "%H:%M").unwrap();
        let (noon, late) = (t("12:00"), t("23:00"));
        let on = NotificationPrefs::default();
        let hide = NotificationPrefs {
            only_when_hidden: true,
            ..NotificationPrefs::default()
        };
        let off = NotificationPrefs {
            enabled: false,
            ..NotificationPrefs::default()
        };
        let days = QuietHours::default();
        let nights = QuietHours {
            enabled: true,
            ..QuietHours::default()
        };
        // (situation, notification preferences, quiet hours, window visible, time, interrupts)
        let rows = [
            ("hidden, by default", &on, &days, false, noon, true),
            // Visible but not focused: interrupts by default, not with "only when hidden".
            ("visible, by default", &on, &days, true, noon, true),
            ("visible, only when hidden", &hide, &days, true, noon, false),
            ("hidden, only when hidden", &hide, &days, false, noon, true),
            ("within quiet hours", &on, &nights, false, late, false),
            ("outside quiet hours", &on, &nights, false, noon, true),
            ("notifications off", &off, &days, false, noon, false),
        ];
        let presence = Presence::default();
        for (situation, prefs, quiet, visible, time, interrupts) in rows {
            presence.set_preferences(prefs.clone(), quiet.clone());
            presence.set_window_visible(visible);
            assert_eq!(
                presence.attention_at(time).interruptible(),
                interrupts,
                "{situation} at {time}"
            );
        }
        assert!(presence.sound(), "notifications off keep the sound setting");
    }
}
