//! Accounts: the servers the reviewer follows, several at once. An account is where (a server
//! URL) and a stable id; its token lives in the keyring under that id ([`crate::keyring`]),
//! never in the accounts file.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use url::Url;

use inbox_files::write_atomically;

/// One server the reviewer follows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    /// Stable and file-name safe: the keyring user, the state directory, `Card.account`.
    pub id: String,
    /// What the reviewer calls it ("Work", "CI bots").
    pub label: String,
    /// The server origin, e.g. `https://inbox.example.com`.
    pub server_url: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccountError {
    #[error(
        "account id `{0}` must be 1 to 64 letters, digits, `-`, `_` or `.`, and not start with `.`"
    )]
    InvalidId(String),
    #[error("server URL `{url}` is not usable: {reason}")]
    InvalidUrl { url: String, reason: String },
    #[error("accounts file {path}: {reason}")]
    File { path: PathBuf, reason: String },
}

impl Account {
    /// A checked account.
    pub fn new(
        id: impl Into<String>,
        label: impl Into<String>,
        server_url: impl Into<String>,
    ) -> Result<Account, AccountError> {
        let account = Account {
            id: id.into(),
            label: label.into(),
            server_url: server_url.into(),
        };
        account.check()?;
        Ok(account)
    }

    /// The id must be safe as a directory name and a keyring user; the URL must be http(s).
    pub fn check(&self) -> Result<(), AccountError> {
        let id_ok = !self.id.is_empty()
            && self.id.len() <= 64
            && !self.id.starts_with('.')
            && self
                .id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
        if !id_ok {
            return Err(AccountError::InvalidId(self.id.clone()));
        }
        let invalid = |reason: String| AccountError::InvalidUrl {
            url: self.server_url.clone(),
            reason,
        };
        let url = Url::parse(&self.server_url).map_err(|e| invalid(e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(invalid("the scheme must be http or https".into()));
        }
        if url.host_str().is_none() {
            return Err(invalid("a host is required".into()));
        }
        Ok(())
    }
}

/// The accounts file (`accounts.json`): the list the app starts with. Tokens are not in it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AccountList {
    pub accounts: Vec<Account>,
}

impl AccountList {
    /// Read the list; a missing file is an empty list.
    pub fn load(path: &Path) -> Result<AccountList, AccountError> {
        let file_error = |reason: String| AccountError::File {
            path: path.to_owned(),
            reason,
        };
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(AccountList::default());
            }
            Err(e) => return Err(file_error(e.to_string())),
        };
        let list: AccountList =
            serde_json::from_slice(&bytes).map_err(|e| file_error(e.to_string()))?;
        for account in &list.accounts {
            account.check()?;
        }
        Ok(list)
    }

    /// Write the list atomically.
    pub fn save(&self, path: &Path) -> Result<(), AccountError> {
        let file_error = |reason: String| AccountError::File {
            path: path.to_owned(),
            reason,
        };
        if let Some(dir) = path.parent() {
            inbox_files::private_dir(dir).map_err(|e| file_error(e.to_string()))?;
        }
        let bytes = serde_json::to_vec_pretty(self).map_err(|e| file_error(e.to_string()))?;
        write_atomically(path, &bytes).map_err(|e| file_error(e.to_string()))
    }

    pub fn get(&self, id: &str) -> Option<&Account> {
        self.accounts.iter().find(|a| a.id == id)
    }

    /// Add or replace the account with the same id.
    pub fn upsert(&mut self, account: Account) {
        match self.accounts.iter_mut().find(|a| a.id == account.id) {
            Some(existing) => *existing = account,
            None => self.accounts.push(account),
        }
    }

    pub fn remove(&mut self, id: &str) -> Option<Account> {
        let at = self.accounts.iter().position(|a| a.id == id)?;
        Some(self.accounts.remove(at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_must_be_safe_names_and_urls_http() {
        assert!(Account::new("work", "Work", "https://inbox.example.com").is_ok());
        assert!(Account::new("ci_bots-2.eu", "CI", "http://127.0.0.1:8790").is_ok());
        for bad in ["", "..", ".hidden", "a/b", "a b", &"x".repeat(65)] {
            assert!(
                matches!(
                    Account::new(bad, "x", "https://a.example"),
                    Err(AccountError::InvalidId(_))
                ),
                "{bad:?}"
            );
        }
        for bad in ["ftp://a.example", "not a url", "file:///tmp/x"] {
            assert!(
                matches!(
                    Account::new("a", "x", bad),
                    Err(AccountError::InvalidUrl { .. })
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn the_list_round_trips_through_its_file_without_tokens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("accounts.json");
        assert_eq!(AccountList::load(&path).unwrap(), AccountList::default());
        let mut list = AccountList::default();
        list.upsert(Account::new("work", "Work", "https://w.example").unwrap());
        list.upsert(Account::new("home", "Home", "http://127.0.0.1:8790").unwrap());
        list.upsert(Account::new("work", "Work (EU)", "https://eu.w.example").unwrap());
        list.save(&path).unwrap();

        let loaded = AccountList::load(&path).unwrap();
        assert_eq!(loaded, list);
        assert_eq!(loaded.accounts.len(), 2);
        assert_eq!(loaded.get("work").unwrap().label, "Work (EU)");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("token"));

        let mut list = loaded;
        assert!(list.remove("home").is_some());
        assert!(list.remove("home").is_none());
    }
}
