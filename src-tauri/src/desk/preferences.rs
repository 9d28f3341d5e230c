//! The Settings view's preferences and Do not disturb: kept in the settings file and handed to
//! [`Presence`](crate::notifications::Presence), which decides whether a notification may
//! interrupt. Showing Do not disturb on the tray is the caller's (the tray is Tauri's).

use inbox_desktop_core::CommandError;
use inbox_protocol::ErrorCode;

use super::{Desk, lock};
use crate::settings::{Preferences, SettingsFile};
use crate::views::SettingsView;

pub(super) fn save_settings(settings: &SettingsFile) -> Result<(), CommandError> {
    settings.save().map_err(|e| {
        CommandError::new(
            ErrorCode::Unavailable,
            format!("could not save settings: {e}"),
        )
    })
}

impl Desk {
    /// The settings as kept (autostart is the caller's to fill in: it lives with the OS).
    pub fn settings_view(&self) -> SettingsView {
        // Its own statement: the guard must be gone before `remote_senders` locks again.
        let preferences = lock(&self.settings).settings.preferences.clone();
        SettingsView {
            preferences,
            remote_senders: self.remote_senders(),
            remote_questions: self.remote_questions(),
            autostart: None,
            logs_dir: self.logs_dir.as_ref().map(|d| d.display().to_string()),
        }
    }

    /// Replace the editable preferences (checked first: nothing is saved when a time is bad).
    pub fn save_preferences(&self, preferences: Preferences) -> Result<(), CommandError> {
        preferences.quiet_hours.check()?;
        self.presence.set_preferences(
            preferences.notifications.clone(),
            preferences.quiet_hours.clone(),
        );
        let mut settings = lock(&self.settings);
        settings.settings.preferences = preferences;
        save_settings(&settings)
    }

    /// Switch Do not disturb and remember it for the next start.
    pub fn set_do_not_disturb(&self, on: bool) {
        self.presence.set_do_not_disturb(on);
        let mut settings = lock(&self.settings);
        settings.settings.do_not_disturb = on;
        if let Err(e) = settings.save() {
            tracing::warn!(error = %e, "could not save settings");
        }
    }
}
