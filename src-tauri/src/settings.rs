//! The app's own settings file (`settings.json` in the data dir): Do not disturb, and the askers
//! whose remote images the reviewer allowed. Accounts live in `accounts.json` (inbox-client),
//! tokens in the keyring — never here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub do_not_disturb: bool,
    /// Account id → askers whose remote (https) images load without asking again.
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
        let settings = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                tracing::warn!(path = %path.display(), error = %e, "settings unreadable; using defaults");
                Settings::default()
            }),
            Err(_) => Settings::default(),
        };
        SettingsFile { path, settings }
    }

    /// Write atomically (temporary file, then rename).
    pub fn save(&self) -> anyhow::Result<()> {
        let tmp = self.path.with_extension("json.tmp");
        let text = serde_json::to_vec_pretty(&self.settings)?;
        std::fs::write(&tmp, text).with_context(|| format!("write {}", tmp.display()))?;
        std::fs::rename(&tmp, &self.path)
            .with_context(|| format!("replace {}", self.path.display()))?;
        Ok(())
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
}
