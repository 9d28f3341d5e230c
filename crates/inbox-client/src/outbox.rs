//! The durable outbox: answers and declines the reviewer gave, kept on disk until the server
//! has ruled on them.
//!
//! Each entry is one JSON file named by its idempotency key, replaced atomically (write a
//! temporary file, fsync, rename, fsync the directory), so an app crash leaves either the old
//! or the new state of an entry and never half of one. The key is minted once, when the
//! reviewer acts, and sent with every retry — that is what makes delivery exactly-once: the
//! server records the first request and answers every repeat with the same outcome.
//!
//! An entry keeps its server verdict after delivery (accepted, already answered by someone
//! else, gone, refused), so the verdict survives a restart and is shown on the card rather
//! than lost; the driver forgets it once the card is dismissed or the verdict is old.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use inbox_protocol::{ErrorCode, Interaction};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::api::new_idempotency_key;

/// What the reviewer gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum OutboxAction {
    Answer {
        value: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        params: Option<Map<String, Value>>,
    },
    Decline {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}

/// The server's final word on an entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum RecordedVerdict {
    /// Recorded; the interaction as resolved.
    Accepted { interaction: Box<Interaction> },
    /// Somebody else was first; the interaction as the winner left it.
    AlreadyAnswered { winner: Box<Interaction> },
    /// `404`: expired, withdrawn, pruned or unknown.
    Gone,
    /// Any other refusal; the reviewer may try again with another value.
    Rejected { code: ErrorCode, message: String },
}

impl From<RecordedVerdict> for inbox_sync::Verdict {
    fn from(v: RecordedVerdict) -> Self {
        match v {
            RecordedVerdict::Accepted { interaction } => inbox_sync::Verdict::Accepted {
                interaction: *interaction,
            },
            RecordedVerdict::AlreadyAnswered { winner } => {
                inbox_sync::Verdict::AlreadyAnswered { winner: *winner }
            }
            RecordedVerdict::Gone => inbox_sync::Verdict::Gone,
            RecordedVerdict::Rejected { code, message } => {
                inbox_sync::Verdict::Rejected { code, message }
            }
        }
    }
}

/// One answer or decline on its way (or delivered, with its verdict).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutboxEntry {
    /// The `Idempotency-Key`, the same on every try; also the entry's file name.
    pub key: String,
    pub interaction_id: String,
    pub action: OutboxAction,
    pub queued_at: DateTime<Utc>,
    /// Requests made so far (some may have reached the server without us hearing back).
    pub attempts: u32,
    /// Set once the server ruled; then the entry is never sent again.
    pub verdict: Option<RecordedVerdict>,
}

impl OutboxEntry {
    pub fn is_settled(&self) -> bool {
        self.verdict.is_some()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OutboxError {
    #[error("outbox i/o at {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("could not encode an outbox entry: {0}")]
    Encode(#[from] serde_json::Error),
    /// An answer for this interaction is already on its way; a second one could only lose.
    #[error("an answer to {0} is already waiting to be delivered")]
    AlreadyQueued(String),
    #[error("no outbox entry with that key")]
    UnknownEntry,
}

/// The outbox of one account, in one directory.
#[derive(Debug)]
pub struct Outbox {
    dir: PathBuf,
    entries: BTreeMap<String, OutboxEntry>,
}

const SUFFIX: &str = ".json";

impl Outbox {
    /// Open (creating if needed) the outbox in `dir` and load every entry in it. A leftover
    /// temporary file from a crash mid-write is removed (the entry it was replacing is intact);
    /// an unreadable entry is set aside as `*.corrupt` and reported, never silently dropped.
    pub fn open(dir: impl Into<PathBuf>) -> Result<Outbox, OutboxError> {
        let dir = dir.into();
        // What the reviewer answered is nobody else's business: 0700 here, 0600 per entry.
        inbox_files::private_dir(&dir).map_err(|e| io_error(&dir, e))?;
        let mut entries = BTreeMap::new();
        for item in fs::read_dir(&dir).map_err(|e| io_error(&dir, e))? {
            let path = item.map_err(|e| io_error(&dir, e))?.path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            if name.ends_with(inbox_files::TEMP_SUFFIX) {
                let _ = fs::remove_file(&path);
                continue;
            }
            if name.ends_with(SUFFIX) || name.ends_with(".corrupt") {
                // Written by a version that left entries readable by others.
                inbox_files::narrow_if_present(&path, inbox_files::FILE_MODE)
                    .map_err(|e| io_error(&path, e))?;
            }
            let Some(key) = name.strip_suffix(SUFFIX) else {
                continue;
            };
            let parsed = fs::read(&path)
                .map_err(|e| io_error(&path, e))
                .map(|bytes| serde_json::from_slice::<OutboxEntry>(&bytes));
            match parsed? {
                Ok(entry) if entry.key == key => {
                    entries.insert(entry.key.clone(), entry);
                }
                _ => {
                    tracing::error!(file = %path.display(), "unreadable outbox entry set aside");
                    // Named from the key, not `with_extension`: a stem of dots (`..json`) has no
                    // extension to replace, and the entry would stay where the next start trips on it.
                    let _ = fs::rename(&path, dir.join(format!("{key}.corrupt")));
                }
            }
        }
        Ok(Outbox { dir, entries })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Keep a new answer or decline, durably, before anything is sent. Refused while another
    /// one for the same interaction is still unsettled.
    pub fn enqueue(
        &mut self,
        interaction_id: &str,
        action: OutboxAction,
    ) -> Result<OutboxEntry, OutboxError> {
        if self.unsettled_for(interaction_id).is_some() {
            return Err(OutboxError::AlreadyQueued(interaction_id.to_owned()));
        }
        // A settled entry for the same card is superseded (e.g. a refused value, tried again).
        let superseded: Vec<String> = self
            .entries
            .values()
            .filter(|e| e.interaction_id == interaction_id)
            .map(|e| e.key.clone())
            .collect();
        let entry = OutboxEntry {
            key: new_idempotency_key(),
            interaction_id: interaction_id.to_owned(),
            action,
            queued_at: Utc::now(),
            attempts: 0,
            verdict: None,
        };
        self.write(&entry)?;
        self.entries.insert(entry.key.clone(), entry.clone());
        for key in superseded {
            self.forget(&key)?;
        }
        Ok(entry)
    }

    pub fn get(&self, key: &str) -> Option<&OutboxEntry> {
        self.entries.get(key)
    }

    /// Every entry, oldest first.
    pub fn entries(&self) -> Vec<&OutboxEntry> {
        let mut all: Vec<&OutboxEntry> = self.entries.values().collect();
        all.sort_by(|a, b| a.queued_at.cmp(&b.queued_at).then(a.key.cmp(&b.key)));
        all
    }

    /// Entries still to deliver, oldest first.
    pub fn unsettled(&self) -> Vec<&OutboxEntry> {
        self.entries()
            .into_iter()
            .filter(|e| !e.is_settled())
            .collect()
    }

    /// The undelivered entry for an interaction, if any.
    pub fn unsettled_for(&self, interaction_id: &str) -> Option<&OutboxEntry> {
        self.entries
            .values()
            .find(|e| e.interaction_id == interaction_id && !e.is_settled())
    }

    /// The newest entry for an interaction, settled or not.
    pub fn latest_for(&self, interaction_id: &str) -> Option<&OutboxEntry> {
        self.entries
            .values()
            .filter(|e| e.interaction_id == interaction_id)
            .max_by(|a, b| a.queued_at.cmp(&b.queued_at))
    }

    /// Count a request about to be made (written first, so a crash mid-request is visible).
    pub fn record_attempt(&mut self, key: &str) -> Result<&OutboxEntry, OutboxError> {
        let mut entry = self
            .entries
            .get(key)
            .cloned()
            .ok_or(OutboxError::UnknownEntry)?;
        entry.attempts += 1;
        self.replace(entry)
    }

    /// Keep the server's verdict; the entry is settled and will not be sent again.
    pub fn record_verdict(
        &mut self,
        key: &str,
        verdict: RecordedVerdict,
    ) -> Result<&OutboxEntry, OutboxError> {
        let mut entry = self
            .entries
            .get(key)
            .cloned()
            .ok_or(OutboxError::UnknownEntry)?;
        entry.verdict = Some(verdict);
        self.replace(entry)
    }

    /// Drop an entry (its verdict was shown and the card dismissed, or it is old).
    pub fn forget(&mut self, key: &str) -> Result<(), OutboxError> {
        if self.entries.remove(key).is_some() {
            let path = self.path_of(key);
            match fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_error(&path, e)),
            }
        }
        Ok(())
    }

    /// Forget settled entries queued before `cutoff`.
    pub fn prune_settled(&mut self, cutoff: DateTime<Utc>) -> Result<usize, OutboxError> {
        let old: Vec<String> = self
            .entries
            .values()
            .filter(|e| e.is_settled() && e.queued_at < cutoff)
            .map(|e| e.key.clone())
            .collect();
        for key in &old {
            self.forget(key)?;
        }
        Ok(old.len())
    }

    fn replace(&mut self, entry: OutboxEntry) -> Result<&OutboxEntry, OutboxError> {
        self.write(&entry)?;
        let key = entry.key.clone();
        self.entries.insert(key.clone(), entry);
        Ok(&self.entries[&key])
    }

    fn path_of(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}{SUFFIX}"))
    }

    fn write(&self, entry: &OutboxEntry) -> Result<(), OutboxError> {
        let bytes = serde_json::to_vec_pretty(entry)?;
        let path = self.path_of(&entry.key);
        inbox_files::write_atomically(&path, &bytes).map_err(|e| io_error(&path, e))
    }
}

fn io_error(path: &Path, source: std::io::Error) -> OutboxError {
    OutboxError::Io {
        path: path.to_owned(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer(v: Value) -> OutboxAction {
        OutboxAction::Answer {
            value: v,
            params: None,
        }
    }

    #[test]
    fn an_entry_survives_reopening_with_the_same_key() {
        let dir = tempfile::tempdir().unwrap();
        let key = {
            let mut outbox = Outbox::open(dir.path()).unwrap();
            let entry = outbox.enqueue("ia_1", answer(json!(true))).unwrap();
            outbox.record_attempt(&entry.key).unwrap();
            entry.key
        };
        // As after an app crash: nothing but the directory is left.
        let reopened = Outbox::open(dir.path()).unwrap();
        let pending = reopened.unsettled();
        assert_eq!(pending.len(), 1);
        assert_eq!(
            pending[0].key, key,
            "the idempotency key is reused after a restart"
        );
        assert_eq!(pending[0].interaction_id, "ia_1");
        assert_eq!(pending[0].attempts, 1);
        assert_eq!(pending[0].action, answer(json!(true)));
    }

    #[test]
    fn a_settled_entry_is_not_delivered_again_but_its_verdict_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let mut outbox = Outbox::open(dir.path()).unwrap();
        let entry = outbox.enqueue("ia_1", answer(json!("yes"))).unwrap();
        outbox
            .record_verdict(&entry.key, RecordedVerdict::Gone)
            .unwrap();
        drop(outbox);

        let reopened = Outbox::open(dir.path()).unwrap();
        assert!(
            reopened.unsettled().is_empty(),
            "delivered once, never again"
        );
        let kept = reopened.latest_for("ia_1").unwrap();
        assert_eq!(kept.verdict, Some(RecordedVerdict::Gone));
    }

    #[test]
    fn delivery_by_a_retrying_sender_happens_exactly_once_per_key() {
        // A sender that loses the first two responses: the server saw three requests, all with
        // one key, so it recorded one answer.
        let dir = tempfile::tempdir().unwrap();
        let mut server_seen: Vec<String> = Vec::new();
        let mut outbox = Outbox::open(dir.path()).unwrap();
        outbox.enqueue("ia_9", answer(json!("eu"))).unwrap();
        for round in 0..3 {
            // Each round is a fresh app start.
            let mut outbox = Outbox::open(dir.path()).unwrap();
            for entry in outbox.unsettled().into_iter().cloned().collect::<Vec<_>>() {
                outbox.record_attempt(&entry.key).unwrap();
                server_seen.push(entry.key.clone());
                if round == 2 {
                    outbox
                        .record_verdict(&entry.key, RecordedVerdict::Gone)
                        .unwrap();
                }
            }
        }
        let again = Outbox::open(dir.path()).unwrap();
        assert!(again.unsettled().is_empty());
        assert_eq!(server_seen.len(), 3);
        let distinct: std::collections::HashSet<_> = server_seen.iter().collect();
        assert_eq!(distinct.len(), 1, "every retry carried the same key");
        assert_eq!(again.entries()[0].attempts, 3);
    }

    #[test]
    fn a_second_answer_to_the_same_question_waits_for_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let mut outbox = Outbox::open(dir.path()).unwrap();
        let first = outbox.enqueue("ia_1", answer(json!(1))).unwrap();
        assert!(matches!(
            outbox.enqueue("ia_1", answer(json!(2))),
            Err(OutboxError::AlreadyQueued(_))
        ));
        outbox
            .record_verdict(
                &first.key,
                RecordedVerdict::Rejected {
                    code: ErrorCode::InvalidAnswer,
                    message: "no".into(),
                },
            )
            .unwrap();
        let second = outbox.enqueue("ia_1", answer(json!(2))).unwrap();
        assert_ne!(second.key, first.key, "a new answer is a new request");
        assert!(
            outbox.get(&first.key).is_none(),
            "the refused one is superseded"
        );
        assert_eq!(Outbox::open(dir.path()).unwrap().entries().len(), 1);
    }

    #[test]
    fn crash_leftovers_and_corrupt_files_do_not_lose_the_other_entries() {
        let dir = tempfile::tempdir().unwrap();
        let mut outbox = Outbox::open(dir.path()).unwrap();
        let good = outbox.enqueue("ia_ok", answer(json!(true))).unwrap();
        drop(outbox);
        fs::write(dir.path().join("abc.tmp"), b"{half a wri").unwrap();
        fs::write(dir.path().join("deadbeef.json"), b"not json").unwrap();

        let reopened = Outbox::open(dir.path()).unwrap();
        assert_eq!(reopened.entries().len(), 1);
        assert_eq!(reopened.entries()[0].key, good.key);
        assert!(!dir.path().join("abc.tmp").exists());
        assert!(
            dir.path().join("deadbeef.corrupt").exists(),
            "set aside, not deleted"
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_outbox_is_readable_by_its_owner_only_even_when_an_older_version_left_it_open() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("account/outbox");
        let mut outbox = Outbox::open(&dir).unwrap();
        let entry = outbox.enqueue("ia_1", answer(json!(true))).unwrap();
        let file = dir.join(format!("{}{SUFFIX}", entry.key));
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&root.path().join("account")), 0o700);
        assert_eq!(mode(&file), 0o600);
        outbox.record_attempt(&entry.key).unwrap();
        assert_eq!(mode(&file), 0o600, "a rewritten entry stays private");
        drop(outbox);

        // As an older version left them.
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
        let reopened = Outbox::open(&dir).unwrap();
        assert_eq!(reopened.entries().len(), 1);
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&file), 0o600);
    }

    #[test]
    fn prune_forgets_only_old_settled_entries() {
        let dir = tempfile::tempdir().unwrap();
        let mut outbox = Outbox::open(dir.path()).unwrap();
        let settled = outbox.enqueue("ia_1", answer(json!(1))).unwrap();
        outbox
            .record_verdict(&settled.key, RecordedVerdict::Gone)
            .unwrap();
        outbox.enqueue("ia_2", answer(json!(2))).unwrap();
        let pruned = outbox
            .prune_settled(Utc::now() + chrono::Duration::seconds(1))
            .unwrap();
        assert_eq!(pruned, 1);
        assert_eq!(outbox.entries().len(), 1);
        assert_eq!(outbox.entries()[0].interaction_id, "ia_2");
    }
}
