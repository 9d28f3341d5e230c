//! Account tokens in the OS keyring (keyring-core). A token is read from the keyring into a
//! [`Token`] and goes from there to the `Authorization` header — never to the UI, a file or a log.
//!
//! Keyring calls block (the Secret Service store talks D-Bus), so async callers run them on a
//! blocking thread.

use std::sync::{Arc, Mutex, PoisonError};

use keyring_core::{CredentialStore, Entry};

use crate::secret::Token;

/// The keyring service name every account's token is filed under; the user is the account id.
pub const SERVICE: &str = "interactions-inbox";

#[derive(Debug, thiserror::Error)]
pub enum KeyringError {
    /// The keyring could not be reached or refused access (locked, no Secret Service, ...).
    #[error("the keyring is not available: {0}")]
    Unavailable(String),
    /// The stored secret is not text.
    #[error("the stored token for `{0}` is not valid text")]
    BadEncoding(String),
}

/// Where tokens live: the OS keyring in the app, an in-memory store in tests.
#[derive(Clone)]
pub struct Keyring {
    store: Arc<Store>,
}

type OpenStore = fn() -> Result<Arc<CredentialStore>, KeyringError>;

enum Store {
    Open(Arc<CredentialStore>),
    /// Opened at the first call (and tried again at the next while it fails).
    OnFirstUse {
        open: OpenStore,
        opened: Mutex<Option<Arc<CredentialStore>>>,
    },
}

impl std::fmt::Debug for Keyring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let vendor = match &*self.store {
            Store::Open(store) => store.vendor(),
            Store::OnFirstUse { opened, .. } => opened
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .as_ref()
                .map_or_else(|| "not opened yet".to_owned(), |s| s.vendor()),
        };
        f.debug_struct("Keyring").field("vendor", &vendor).finish()
    }
}

impl Keyring {
    /// A keyring over any keyring-core store.
    pub fn with_store(store: Arc<CredentialStore>) -> Keyring {
        Keyring {
            store: Arc::new(Store::Open(store)),
        }
    }

    /// keyring-core's in-memory mock store: nothing persists past the process (tests, demos).
    pub fn in_memory() -> Result<Keyring, KeyringError> {
        let store = keyring_core::mock::Store::new()
            .map_err(|e| KeyringError::Unavailable(e.to_string()))?;
        Ok(Keyring::with_store(store))
    }

    /// The OS keyring: the Secret Service (GNOME Keyring, KWallet) over D-Bus.
    #[cfg(all(target_os = "linux", feature = "native-keyring"))]
    pub fn native() -> Result<Keyring, KeyringError> {
        Ok(Keyring::with_store(open_native()?))
    }

    /// The OS keyring, reached only when a token is first stored or read: a run that never
    /// needs one (local mode until an account is added) never talks to the Secret Service.
    #[cfg(all(target_os = "linux", feature = "native-keyring"))]
    pub fn native_on_first_use() -> Keyring {
        Keyring::on_first_use(open_native)
    }

    /// A keyring over the store `open` gives, opened at the first call.
    pub fn on_first_use(open: OpenStore) -> Keyring {
        Keyring {
            store: Arc::new(Store::OnFirstUse {
                open,
                opened: Mutex::new(None),
            }),
        }
    }

    fn store(&self) -> Result<Arc<CredentialStore>, KeyringError> {
        match &*self.store {
            Store::Open(store) => Ok(store.clone()),
            Store::OnFirstUse { open, opened } => {
                let mut opened = opened.lock().unwrap_or_else(PoisonError::into_inner);
                if let Some(store) = &*opened {
                    return Ok(store.clone());
                }
                let store = open()?;
                *opened = Some(store.clone());
                Ok(store)
            }
        }
    }

    fn entry(&self, account: &str) -> Result<Entry, KeyringError> {
        Entry::new_in_store(&self.store()?, SERVICE, account)
            .map_err(|e| KeyringError::Unavailable(e.to_string()))
    }

    /// Store (or replace) the token of `account`.
    pub fn save(&self, account: &str, token: &Token) -> Result<(), KeyringError> {
        self.entry(account)?
            .set_password(token.expose())
            .map_err(|e| KeyringError::Unavailable(e.to_string()))
    }

    /// The token of `account`, if one is stored.
    pub fn load(&self, account: &str) -> Result<Option<Token>, KeyringError> {
        match self.entry(account)?.get_password() {
            Ok(secret) => Ok(Some(Token::new(secret))),
            Err(keyring_core::Error::NoEntry) => Ok(None),
            Err(keyring_core::Error::BadEncoding(_)) => {
                Err(KeyringError::BadEncoding(account.to_owned()))
            }
            Err(e) => Err(KeyringError::Unavailable(e.to_string())),
        }
    }

    /// Remove the token of `account` (signing out for good). Absent already is fine.
    pub fn forget(&self, account: &str) -> Result<(), KeyringError> {
        match self.entry(account)?.delete_credential() {
            Ok(()) | Err(keyring_core::Error::NoEntry) => Ok(()),
            Err(e) => Err(KeyringError::Unavailable(e.to_string())),
        }
    }
}

#[cfg(all(target_os = "linux", feature = "native-keyring"))]
fn open_native() -> Result<Arc<CredentialStore>, KeyringError> {
    let store: Arc<CredentialStore> = zbus_secret_service_keyring_store::Store::new()
        .map_err(|e| KeyringError::Unavailable(e.to_string()))?;
    Ok(store)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keyring_opened_on_first_use_opens_once_and_only_when_asked() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static OPENED: AtomicUsize = AtomicUsize::new(0);
        fn open() -> Result<Arc<CredentialStore>, KeyringError> {
            OPENED.fetch_add(1, Ordering::SeqCst);
            let store: Arc<CredentialStore> = keyring_core::mock::Store::new()
                .map_err(|e| KeyringError::Unavailable(e.to_string()))?;
            Ok(store)
        }
        let keyring = Keyring::on_first_use(open);
        assert!(format!("{keyring:?}").contains("not opened yet"));
        assert_eq!(OPENED.load(Ordering::SeqCst), 0, "not opened before a call");
        keyring.save("work", &Token::new("w-secret")).unwrap();
        assert_eq!(keyring.load("work").unwrap(), Some(Token::new("w-secret")));
        assert_eq!(OPENED.load(Ordering::SeqCst), 1, "opened once, kept");
    }

    #[test]
    fn a_token_round_trips_per_account_and_can_be_forgotten() {
        let keyring = Keyring::in_memory().unwrap();
        assert_eq!(keyring.load("work").unwrap(), None);
        keyring.save("work", &Token::new("w-secret")).unwrap();
        keyring.save("home", &Token::new("h-secret")).unwrap();
        assert_eq!(keyring.load("work").unwrap(), Some(Token::new("w-secret")));
        assert_eq!(keyring.load("home").unwrap(), Some(Token::new("h-secret")));

        keyring.save("work", &Token::new("rotated")).unwrap();
        assert_eq!(keyring.load("work").unwrap(), Some(Token::new("rotated")));

        keyring.forget("work").unwrap();
        keyring.forget("work").unwrap();
        assert_eq!(keyring.load("work").unwrap(), None);
        assert_eq!(keyring.load("home").unwrap(), Some(Token::new("h-secret")));
    }

    #[test]
    fn debug_shows_the_store_not_the_secrets() {
        let keyring = Keyring::in_memory().unwrap();
        keyring.save("work", &Token::new("s3cret")).unwrap();
        let shown = format!("{keyring:?}");
        assert!(shown.contains("Mock"));
        assert!(!shown.contains("s3cret"));
    }
}
