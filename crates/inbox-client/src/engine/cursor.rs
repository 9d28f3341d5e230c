//! The stream position of one account, kept on disk so that an app restart resumes the
//! stream where it left off (`Last-Event-ID`) instead of at the tail.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use inbox_files::write_atomically;

#[derive(Debug, Default, Serialize, Deserialize)]
struct Stored {
    last_event_id: Option<String>,
}

/// `cursor.json` in an account's state directory.
#[derive(Debug)]
pub(crate) struct CursorFile {
    path: PathBuf,
    /// What the file holds now, so unchanged positions are not rewritten.
    written: Option<String>,
}

impl CursorFile {
    pub(crate) fn new(dir: &Path) -> CursorFile {
        CursorFile {
            path: dir.join("cursor.json"),
            written: None,
        }
    }

    /// The persisted position; an unreadable file means "start at the tail" (the paged list
    /// reconciles the rest), and is logged.
    pub(crate) fn load(&mut self) -> Option<String> {
        // Saved 0600 (`write_atomically`); an older version's 0644 file is narrowed here.
        if let Err(e) = inbox_files::narrow_if_present(&self.path, inbox_files::FILE_MODE) {
            tracing::warn!(file = %self.path.display(), error = %e, "cannot narrow the stream position file");
        }
        let bytes = match std::fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                tracing::warn!(file = %self.path.display(), error = %e, "cannot read the stream position");
                return None;
            }
        };
        match serde_json::from_slice::<Stored>(&bytes) {
            Ok(stored) => {
                self.written.clone_from(&stored.last_event_id);
                stored.last_event_id
            }
            Err(e) => {
                tracing::warn!(file = %self.path.display(), error = %e, "unreadable stream position ignored");
                None
            }
        }
    }

    /// Whether `position` differs from what is on disk.
    pub(crate) fn is_stale(&self, position: Option<&str>) -> bool {
        self.written.as_deref() != position
    }

    /// Write `position` unless it is there already; whether the file now holds it.
    pub(crate) fn save(&mut self, position: Option<&str>) -> bool {
        if !self.is_stale(position) {
            return true;
        }
        let stored = Stored {
            last_event_id: position.map(str::to_owned),
        };
        let result = serde_json::to_vec(&stored)
            .map_err(std::io::Error::other)
            .and_then(|bytes| write_atomically(&self.path, &bytes));
        match result {
            Ok(()) => {
                self.written = stored.last_event_id;
                true
            }
            // Losing the position costs a refetch at the next start, not data: log and go on.
            Err(e) => {
                tracing::warn!(file = %self.path.display(), error = %e, "cannot save the stream position");
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_position_survives_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = CursorFile::new(dir.path());
        assert_eq!(file.load(), None);
        file.save(Some("42"));
        assert!(!file.is_stale(Some("42")));
        assert!(file.is_stale(Some("43")));

        let mut again = CursorFile::new(dir.path());
        assert_eq!(again.load().as_deref(), Some("42"));
        std::fs::write(dir.path().join("cursor.json"), b"garbage").unwrap();
        assert_eq!(CursorFile::new(dir.path()).load(), None);
    }
}
