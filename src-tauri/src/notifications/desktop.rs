//! The session-bus side: notify-rust shows a notification with a default action (a click opens
//! the question); withdrawing calls `CloseNotification` with the id the server gave it.

use std::sync::Arc;

use notify_rust::{Hint, Notification, Timeout};

use super::markup;
use super::planner::{Notice, NoticeAction, NoticeKey, ShownIds};
use super::{OpenHandler, Presence};

const BUS_NAME: &str = "org.freedesktop.Notifications";
const OBJECT_PATH: &str = "/org/freedesktop/Notifications";

/// Told the id of a notification the server reports closed.
pub(super) type ClosedHandler = Arc<dyn Fn(u32) + Send + Sync>;

/// Notifications shown on the session bus, by what they announce.
pub(super) struct SessionNotices {
    app_name: String,
    on_open: OpenHandler,
    on_closed: ClosedHandler,
    ids: ShownIds,
    /// A connection for withdrawing, opened on first use.
    bus: Option<zbus::blocking::Connection>,
    /// Failures are logged once, not for every question (e.g. no notification daemon).
    warned: bool,
    /// Asked at each notification whether to play the server's sound.
    presence: Arc<Presence>,
}

impl SessionNotices {
    pub(super) fn new(
        app_name: String,
        on_open: OpenHandler,
        on_closed: ClosedHandler,
        presence: Arc<Presence>,
    ) -> Self {
        SessionNotices {
            app_name,
            on_open,
            on_closed,
            ids: ShownIds::default(),
            bus: None,
            warned: false,
            presence,
        }
    }

    pub(super) fn apply(&mut self, action: NoticeAction) {
        match action {
            NoticeAction::Show { key, notice } => self.show(key, notice),
            NoticeAction::Close { key } => {
                if let Some(id) = self.ids.take(&key) {
                    self.withdraw(id);
                }
            }
        }
    }

    /// The server closed `id`; returns what it announced, if it was still ours.
    pub(super) fn closed(&mut self, id: u32) -> Option<NoticeKey> {
        let key = self.ids.key_of(id)?;
        self.ids.take(&key);
        Some(key)
    }

    fn show(&mut self, key: NoticeKey, notice: Notice) {
        let mut note = Notification::new();
        note.appname(&self.app_name)
            .summary(&notice.title)
            // The body is markup on the bus; the prompt in it is not (see `markup`).
            .body(&markup::escape_body(&notice.body))
            .icon("mail-unread")
            .action("default", "Open")
            .hint(Hint::Category("im.received".into()))
            .timeout(Timeout::Default);
        if self.presence.sound() {
            note.hint(Hint::SoundName("message-new-instant".into()));
        } else {
            note.hint(Hint::SuppressSound(true));
        }
        // The summary replaces itself as the burst grows, rather than stacking.
        if let Some(previous) = self.ids.get(&key) {
            note.id(previous);
        }
        match note.show() {
            Ok(handle) => {
                let id = handle.id();
                self.ids.insert(key, id);
                let on_open = self.on_open.clone();
                let on_closed = self.on_closed.clone();
                let opens = notice.opens;
                // Waiting for a click blocks until the notification is acted on or closed.
                let waiter = std::thread::Builder::new()
                    .name(format!("notification-{id}"))
                    .spawn(move || {
                        handle.wait_for_action(|action| match action {
                            "default" => {
                                if let Some(question) = opens {
                                    on_open(question);
                                }
                            }
                            "__closed" => on_closed(id),
                            _ => {}
                        })
                    });
                if let Err(e) = waiter {
                    tracing::warn!(error = %e, "could not wait for notification clicks");
                }
            }
            Err(e) => {
                if !self.warned {
                    self.warned = true;
                    tracing::warn!(error = %e, "desktop notifications are unavailable");
                } else {
                    tracing::debug!(error = %e, "notification not shown");
                }
            }
        }
    }

    fn withdraw(&mut self, id: u32) {
        if self.bus.is_none() {
            match zbus::blocking::Connection::session() {
                Ok(bus) => self.bus = Some(bus),
                Err(e) => {
                    tracing::warn!(error = %e, "no session bus to withdraw a notification on");
                    return;
                }
            }
        }
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
