//! The app's own settings file (`settings.json` in the data dir): Do not disturb, and the askers
//! whose remote media the reviewer allowed. Accounts live in `accounts.json` (inbox-client),
//! tokens in the keyring — never here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::Context;
use inbox_client::private_files;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub do_not_disturb: bool,
    /// Account id → askers whose remote (https) images, video and audio load without asking
    /// again. (Named when it covered images only; the key stays so saved files still read.)
    pub remote_image_senders: BTreeMap<String, BTreeSet<String>>,
}

/// Settings with the file they are kept in.
#[derive(Debug)]
pub struct SettingsFile {
    path: PathBuf,
    pub settings: Settings,
}

impl SettingsFile {
    /// Read `settings.json` from `dir`; a missing or unreadable file starts from the defaults
    /// (settings are conveniences: losing them must not stop the app).
    pub fn load(dir: &Path) -> SettingsFile {
        let path = dir.join("settings.json");
        // Who the reviewer trusts is theirs alone; an older version wrote this file 0644.
        if let Err(e) = private_files::fix_file(&path) {
            tracing::warn!(path = %path.display(), error = %e, "could not narrow the settings file to 0600");
        }
        let settings = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                tracing::warn!(path = %path.display(), error = %e, "settings unreadable; using defaults");
                Settings::default()
            }),
            Err(_) => Settings::default(),
        };
        SettingsFile { path, settings }
    }

    /// Write atomically (temporary file, then rename), 0600 from the start.
    pub fn save(&self) -> anyhow::Result<()> {
        let text = serde_json::to_vec_pretty(&self.settings)?;
        private_files::write_atomically(&self.path, &text)
            .with_context(|| format!("write {}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_round_trip_and_a_broken_file_falls_back_to_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = SettingsFile::load(dir.path());
        assert_eq!(file.settings, Settings::default());
        file.settings.do_not_disturb = true;
        file.settings
            .remote_image_senders
            .entry("local".into())
            .or_default()
            .insert("deploy-bot".into());
        file.save().unwrap();
        assert_eq!(SettingsFile::load(dir.path()).settings, file.settings);
        std::fs::write(dir.path().join("settings.json"), "{not json").unwrap();
        assert_eq!(SettingsFile::load(dir.path()).settings, Settings::default());
    }

    #[cfg(unix)]
    #[test]
    fn the_settings_file_is_private_and_an_old_open_one_is_narrowed() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let mut file = SettingsFile::load(dir.path());
        file.settings.do_not_disturb = true;
        file.save().unwrap();
        assert_eq!(mode(&path), 0o600);

        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let reloaded = SettingsFile::load(dir.path());
        assert_eq!(mode(&path), 0o600);
        assert!(reloaded.settings.do_not_disturb, "narrowed, not lost");
    }
}
