//! The session-bus side, spoken directly over zbus (the Desktop Notifications spec, 1.2):
//! `Notify` with a notice's answers as actions, `CloseNotification` to withdraw, and one
//! subscription to the server's signals (`ActionInvoked`, `NotificationClosed`,
//! `NotificationReplied`) made when the notifier starts — before the first notification is
//! shown, so no click can arrive before anyone listens — and only to the signals of whoever
//! owns `org.freedesktop.Notifications`, so another client on the bus cannot answer for the
//! reviewer by sending a look-alike signal.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;
use zbus::blocking::{Connection, MessageIterator};
use zbus::zvariant;

use super::Presence;
use inbox_desktop_core::notices::markup;
use inbox_desktop_core::notices::{Notice, NoticeAction, NoticeKey, QuestionRef, ShownIds};

const BUS_NAME: &str = "org.freedesktop.Notifications";
const OBJECT_PATH: &str = "/org/freedesktop/Notifications";
/// The action every notification has: a click on its body.
const OPEN_ACTION: &str = "default";
/// Action keys of the offered answers are this and the choice's index.
const ANSWER_ACTION: &str = "answer-";
/// The action a server with the `inline-reply` capability turns into a text field.
const REPLY_ACTION: &str = "inline-reply";
const REPLY_CAPABILITY: &str = "inline-reply";

/// A signal of the notification server about one of its notifications.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum BusSignal {
    Action { id: u32, key: String },
    Closed { id: u32 },
    Replied { id: u32, text: String },
}

impl BusSignal {
    pub(super) fn id(&self) -> u32 {
        match self {
            BusSignal::Action { id, .. }
            | BusSignal::Closed { id }
            | BusSignal::Replied { id, .. } => *id,
        }
    }
}

/// What the reviewer did with one of our notifications.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Response {
    Open(QuestionRef),
    /// `value` to be sent as the answer to `question`; `shown_as` is how the reviewer saw it
    /// (the button's label, or the reply's text).
    Answer {
        question: QuestionRef,
        value: Value,
        shown_as: String,
    },
}

/// Called on the listener thread with every signal about a notification.
pub(super) type SignalHandler = Box<dyn Fn(BusSignal) + Send>;

/// Notifications shown on the session bus, by what they announce.
pub(super) struct SessionNotices {
    app_name: String,
    bus: Option<Connection>,
    ids: ShownIds,
    /// What each notification on screen offers, by the server's id.
    shown: HashMap<u32, Notice>,
    /// The server's capabilities, asked once.
    capabilities: Option<Vec<String>>,
    /// Failures are logged once, not for every question (e.g. no notification daemon).
    warned: bool,
    /// Asked at each notification whether to play the server's sound.
    presence: Arc<Presence>,
}

impl SessionNotices {
    /// Connect and subscribe to the server's signals, handed to `signals` on a thread of their own.
    pub(super) fn new(app_name: String, presence: Arc<Presence>, signals: SignalHandler) -> Self {
        let bus = match Connection::session() {
            Ok(bus) => Some(bus),
            Err(e) => {
                tracing::warn!(error = %e, "no session bus: desktop notifications are off");
                None
            }
        };
        if let Some(bus) = &bus
            && let Err(e) = listen(bus, signals)
        {
            tracing::warn!(error = %e, "cannot hear notification clicks; notifications only inform");
        }
        SessionNotices {
            app_name,
            bus,
            ids: ShownIds::default(),
            shown: HashMap::new(),
            capabilities: None,
            warned: false,
            presence,
        }
    }

    pub(super) fn apply(&mut self, action: NoticeAction) {
        match action {
            NoticeAction::Show { key, notice } => self.show(key, notice),
            NoticeAction::Close { key } => {
                if let Some(id) = self.ids.take(&key) {
                    self.shown.remove(&id);
                    self.withdraw(id);
                }
            }
        }
    }

    /// The server closed `id`; returns what it announced, if it was still ours.
    pub(super) fn closed(&mut self, id: u32) -> Option<NoticeKey> {
        self.shown.remove(&id);
        let key = self.ids.key_of(id)?;
        self.ids.take(&key);
        Some(key)
    }

    /// What an action or reply on notification `id` asks for; `None` for one not ours (or no
    /// longer on screen) or an action it never offered.
    pub(super) fn response(&self, signal: &BusSignal) -> Option<Response> {
        let (id, value, shown_as) = match signal {
            BusSignal::Action { id, key } if key == OPEN_ACTION => {
                return self.shown.get(id)?.opens.clone().map(Response::Open);
            }
            BusSignal::Action { id, key } => {
                let index: usize = key.strip_prefix(ANSWER_ACTION)?.parse().ok()?;
                let choice = self.shown.get(id)?.choices.get(index)?;
                (id, choice.value.clone(), choice.label.clone())
            }
            BusSignal::Replied { id, text } => {
                if !self.shown.get(id)?.reply {
                    return None;
                }
                (id, Value::String(text.clone()), text.clone())
            }
            BusSignal::Closed { .. } => return None,
        };
        let question = self.shown.get(id)?.opens.clone()?;
        Some(Response::Answer {
            question,
            value,
            shown_as,
        })
    }

    /// An answer is being sent from notification `id`: from now on it belongs to that answer,
    /// not to its question — settling the question (which the answer itself causes, often
    /// before the engine reports back) must not withdraw it, and no second action on it
    /// counts. Returns what it announced.
    pub(super) fn hand_over(&mut self, id: u32) -> Option<NoticeKey> {
        self.shown.remove(&id);
        let key = self.ids.key_of(id)?;
        self.ids.take(&key);
        Some(key)
    }

    /// Notification `id` (handed over) now shows the answer's outcome: no actions, transient.
    pub(super) fn show_outcome(&mut self, id: u32, title: &str, body: &str) {
        let mut hints = HashMap::new();
        hints.insert("transient", zvariant::Value::from(true));
        hints.insert("suppress-sound", zvariant::Value::from(true));
        self.notify(id, title, &markup::escape_body(body), &[], hints);
    }

    fn supports(&mut self, capability: &str) -> bool {
        if self.capabilities.is_none() {
            let Some(bus) = &self.bus else { return false };
            let reply = bus.call_method(
                Some(BUS_NAME),
                OBJECT_PATH,
                Some(BUS_NAME),
                "GetCapabilities",
                &(),
            );
            let capabilities = reply
                .and_then(|r| r.body().deserialize::<Vec<String>>())
                .unwrap_or_default();
            self.capabilities = Some(capabilities);
        }
        self.capabilities
            .as_ref()
            .is_some_and(|c| c.iter().any(|x| x == capability))
    }

    fn show(&mut self, key: NoticeKey, notice: Notice) {
        let mut actions: Vec<(String, String)> = vec![(OPEN_ACTION.into(), "Open".into())];
        for (i, choice) in notice.choices.iter().enumerate() {
            actions.push((format!("{ANSWER_ACTION}{i}"), choice.label.clone()));
        }
        let reply = notice.reply && self.supports(REPLY_CAPABILITY);
        if reply {
            actions.push((REPLY_ACTION.into(), "Reply".into()));
        }
        let mut hints = HashMap::new();
        hints.insert("category", zvariant::Value::from("im.received"));
        if reply {
            hints.insert(
                "x-kde-reply-placeholder-text",
                zvariant::Value::from("Your answer"),
            );
        }
        if self.presence.sound() {
            hints.insert("sound-name", zvariant::Value::from("message-new-instant"));
        } else {
            hints.insert("suppress-sound", zvariant::Value::from(true));
        }
        // The summary replaces itself as the burst grows, rather than stacking.
        let replaces = self.ids.get(&key).unwrap_or(0);
        // The body is markup on the bus; the prompt in it is not (see `markup`).
        let body = markup::escape_body(&notice.body);
        if let Some(id) = self.notify(replaces, &notice.title, &body, &actions, hints) {
            if replaces != 0 && replaces != id {
                self.shown.remove(&replaces);
            }
            self.ids.insert(key, id);
            self.shown.insert(id, notice);
        }
    }

    /// `Notify`; the server's id, or `None` (logged) when it failed.
    fn notify(
        &mut self,
        replaces: u32,
        title: &str,
        body: &str,
        actions: &[(String, String)],
        hints: HashMap<&str, zvariant::Value<'_>>,
    ) -> Option<u32> {
        let bus = self.bus.as_ref()?;
        let flat: Vec<&str> = actions
            .iter()
            .flat_map(|(key, label)| [key.as_str(), label.as_str()])
            .collect();
        let result = bus
            .call_method(
                Some(BUS_NAME),
                OBJECT_PATH,
                Some(BUS_NAME),
                "Notify",
                &(
                    self.app_name.as_str(),
                    replaces,
                    "mail-unread",
                    title,
                    body,
                    flat,
                    hints,
                    -1i32,
                ),
            )
            .and_then(|reply| reply.body().deserialize::<u32>());
        match result {
            Ok(id) => Some(id),
            Err(e) => {
                if !self.warned {
                    self.warned = true;
                    tracing::warn!(error = %e, "desktop notifications are unavailable");
                } else {
                    tracing::debug!(error = %e, "notification not shown");
                }
                None
            }
        }
    }

    fn withdraw(&mut self, id: u32) {
        let Some(bus) = &self.bus else { return };
        let result = bus.call_method(
            Some(BUS_NAME),
            OBJECT_PATH,
            Some(BUS_NAME),
            "CloseNotification",
            &(id,),
        );
        if let Err(e) = result {
            tracing::debug!(error = %e, id, "could not withdraw a notification");
        }
    }
}

/// Subscribe now (the match rule is in place when this returns) and hand every signal to
/// `signals` from a thread of its own.
fn listen(bus: &Connection, signals: SignalHandler) -> zbus::Result<()> {
    let rule = zbus::MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        // The bus delivers only signals sent by the name's current owner.
        .sender(BUS_NAME)?
        .interface(BUS_NAME)?
        .path(OBJECT_PATH)?
        .build();
    let messages = MessageIterator::for_match_rule(rule, bus, Some(64))?;
    std::thread::Builder::new()
        .name("notification-signals".into())
        .spawn(move || {
            for message in messages {
                let Ok(message) = message else { continue };
                let header = message.header();
                let Some(member) = header.member() else {
                    continue;
                };
                let body = message.body();
                let signal = match member.as_str() {
                    "ActionInvoked" => body
                        .deserialize::<(u32, String)>()
                        .map(|(id, key)| BusSignal::Action { id, key }),
                    "NotificationClosed" => body
                        .deserialize::<(u32, u32)>()
                        .map(|(id, _reason)| BusSignal::Closed { id }),
                    "NotificationReplied" => body
                        .deserialize::<(u32, String)>()
                        .map(|(id, text)| BusSignal::Replied { id, text }),
                    _ => continue,
                };
                match signal {
                    Ok(signal) => signals(signal),
                    Err(e) => {
                        tracing::debug!(error = %e, %member, "unreadable notification signal")
                    }
                }
            }
        })
        .map_err(|e| zbus::Error::Failure(format!("spawn the signal thread: {e}")))?;
    Ok(())
}
