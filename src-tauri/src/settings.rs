//! The app's own settings file (`settings.json` in the app's config dir; in the data dir when
//! the app runs with `--data-dir`): notifications, Do not disturb and its schedule, the theme,
//! and the askers whose remote media the reviewer allowed. Accounts live in `accounts.json`
//! (inbox-client), tokens in the keyring — never here. This file is the one owner of the
//! allowances: the window only shows what it is told.

use inbox_client::AppCode;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::Context;
use chrono::NaiveTime;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use inbox_desktop_core::CommandError;

/// File name, in the config dir.
pub const FILE_NAME: &str = "settings.json";

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub do_not_disturb: bool,
    /// Account id → askers whose remote (https) images, video and audio load without asking
    /// again. (Named when it covered images only; the key stays so saved files still read.)
    pub remote_image_senders: BTreeMap<String, BTreeSet<String>>,
    #[serde(flatten)]
    pub preferences: Preferences,
}

/// What the Settings view edits as a whole.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(default)]
#[ts(export_to = "desktop/")]
pub struct Preferences {
    pub notifications: NotificationPrefs,
    pub quiet_hours: QuietHours,
    pub theme: Theme,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(default)]
#[ts(export_to = "desktop/")]
pub struct NotificationPrefs {
    /// Pop up a notification for a new question at all.
    pub enabled: bool,
    /// Only while the window is hidden (closed to the tray or minimised); otherwise also when
    /// it is open but not focused.
    pub only_when_hidden: bool,
    /// Ask the notification server to play its sound.
    pub sound: bool,
}

impl Default for NotificationPrefs {
    fn default() -> Self {
        NotificationPrefs {
            enabled: true,
            only_when_hidden: false,
            sound: true,
        }
    }
}

/// The Do-not-disturb schedule: every day from `from` to `to` (local time, `HH:MM`; a span
/// past midnight when `to` is earlier), no notifications.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(default)]
#[ts(export_to = "desktop/")]
pub struct QuietHours {
    pub enabled: bool,
    pub from: String,
    pub to: String,
}

impl Default for QuietHours {
    fn default() -> Self {
        QuietHours {
            enabled: false,
            from: "22:00".into(),
            to: "07:00".into(),
        }
    }
}

impl QuietHours {
    /// Both times parse (`HH:MM`); the error names the field.
    pub fn check(&self) -> Result<(NaiveTime, NaiveTime), CommandError> {
        let parse = |field: &str, value: &str| {
            NaiveTime::parse_from_str(value, "%H:%M").map_err(|_| {
                CommandError::new(
                    AppCode::InvalidTime,
                    format!("`{value}` is not a time like 22:00"),
                )
                .with_field(&format!("quiet_hours.{field}"))
            })
        };
        Ok((parse("from", &self.from)?, parse("to", &self.to)?))
    }

    /// Whether `at` falls in the quiet span (never when off, or when the times are bad).
    pub fn covers(&self, at: NaiveTime) -> bool {
        let Ok((from, to)) = self.check() else {
            return false;
        };
        if !self.enabled || from == to {
            return false;
        }
        if from < to {
            from <= at && at < to
        } else {
            at >= from || at < to
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export_to = "desktop/")]
pub enum Theme {
    #[default]
    System,
    Light,
    Dark,
}

/// Settings with the file they are kept in.
#[derive(Debug)]
pub struct SettingsFile {
    path: PathBuf,
    pub settings: Settings,
}

impl SettingsFile {
    /// Read `settings.json` from `dir`, or — when there is none yet — from `legacy_dir`, where
    /// an older version kept it (the next save writes to `dir`). A missing or unreadable file
    /// starts from the defaults (settings are conveniences: losing them must not stop the app).
    pub fn load(dir: &Path, legacy_dir: Option<&Path>) -> SettingsFile {
        let path = dir.join(FILE_NAME);
        let read_from = match legacy_dir {
            Some(old) if !path.exists() && old.join(FILE_NAME).exists() => old.join(FILE_NAME),
            _ => path.clone(),
        };
        // Who the reviewer trusts is theirs alone; an older version wrote this file 0644.
        if let Err(e) = inbox_files::narrow_if_present(&read_from, inbox_files::FILE_MODE) {
            tracing::warn!(path = %read_from.display(), error = %e, "could not narrow the settings file to 0600");
        }
        let settings = match std::fs::read(&read_from) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                tracing::warn!(path = %read_from.display(), error = %e, "settings unreadable; using defaults");
                Settings::default()
            }),
            Err(_) => Settings::default(),
        };
        SettingsFile { path, settings }
    }

    /// Write atomically (temporary file, then rename), 0600 from the start, its dir 0700.
    pub fn save(&self) -> anyhow::Result<()> {
        if let Some(dir) = self.path.parent() {
            inbox_files::private_dir(dir).with_context(|| format!("create {}", dir.display()))?;
        }
        let text = serde_json::to_vec_pretty(&self.settings)?;
        inbox_files::write_atomically(&self.path, &text)
            .with_context(|| format!("write {}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_round_trip_and_a_broken_file_falls_back_to_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = SettingsFile::load(dir.path(), None);
        assert_eq!(file.settings, Settings::default());
        file.settings.do_not_disturb = true;
        file.settings.preferences.theme = Theme::Dark;
        file.settings.preferences.notifications.sound = false;
        file.settings.preferences.quiet_hours.enabled = true;
        file.settings
            .remote_image_senders
            .entry("local".into())
            .or_default()
            .insert("deploy-bot".into());
        file.save().unwrap();
        assert_eq!(SettingsFile::load(dir.path(), None).settings, file.settings);
        std::fs::write(dir.path().join("settings.json"), "{not json").unwrap();
        assert_eq!(
            SettingsFile::load(dir.path(), None).settings,
            Settings::default()
        );
    }

    #[test]
    fn a_file_from_before_the_settings_view_still_reads_and_moves_to_the_config_dir() {
        let root = tempfile::tempdir().unwrap();
        let (config, data) = (root.path().join("config"), root.path().join("data"));
        std::fs::create_dir_all(&data).unwrap();
        std::fs::write(
            data.join(FILE_NAME),
            r#"{"do_not_disturb": true, "remote_image_senders": {"local": ["bot"]}}"#,
        )
        .unwrap();
        let file = SettingsFile::load(&config, Some(&data));
        assert!(file.settings.do_not_disturb);
        assert_eq!(file.settings.preferences, Preferences::default());
        file.save().unwrap();
        assert!(config.join(FILE_NAME).exists());
        let again = SettingsFile::load(&config, Some(&data));
        assert_eq!(again.settings, file.settings);
    }

    #[test]
    fn quiet_hours_cover_their_span_including_one_past_midnight() {
        let t = |s| NaiveTime::parse_from_str(s, "%H:%M").unwrap();
        let night = QuietHours {
            enabled: true,
            from: "22:00".into(),
            to: "07:00".into(),
        };
        assert!(night.covers(t("23:30")) && night.covers(t("00:10")) && night.covers(t("06:59")));
        assert!(!night.covers(t("07:00")) && !night.covers(t("12:00")));
        let lunch = QuietHours {
            enabled: true,
            from: "12:00".into(),
            to: "13:00".into(),
        };
        assert!(lunch.covers(t("12:30")) && !lunch.covers(t("13:30")));
        assert!(
            !QuietHours {
                enabled: false,
                ..night.clone()
            }
            .covers(t("23:30"))
        );
        let bad = QuietHours {
            to: "25:99".into(),
            ..night
        };
        let err = bad.check().unwrap_err();
        assert_eq!(err.field.as_deref(), Some("quiet_hours.to"));
    }

    #[cfg(unix)]
    #[test]
    fn the_settings_file_is_private_and_an_old_open_one_is_narrowed() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let mut file = SettingsFile::load(dir.path(), None);
        file.settings.do_not_disturb = true;
        file.save().unwrap();
        assert_eq!(mode(&path), 0o600);

        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let reloaded = SettingsFile::load(dir.path(), None);
        assert_eq!(mode(&path), 0o600);
        assert!(reloaded.settings.do_not_disturb, "narrowed, not lost");
    }
}
