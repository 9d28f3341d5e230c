//! The app's state behind every command: the sync engine and its accounts, local mode, the
//! reviewer's settings, and the tray. Thin glue: syncing, answering and the outbox are the
//! engine's (inbox-client); this only adapts them to the window, tray and notifications.

use inbox_client::AppCode;
use inbox_protocol::ErrorCode;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use anyhow::Context;
use inbox_client::keyring::KeyringError;
use inbox_client::remote_media::RemoteFetcher;
use inbox_client::{Account, AccountList, ApiClient, Engine, EngineConfig, Keyring, Token};
use inbox_sync::{Changes, Counts};
use serde_json::{Map, Value};

use crate::command_error::CommandError;
use crate::launch::LaunchOptions;
use crate::local_server::{self, LocalServer, LocalServerOptions};
use crate::media::{self, MediaSource, RemoteMediaPolicy};
use crate::notifications::Presence;
use crate::settings::{Preferences, SettingsFile};
use crate::tray::Tray;
use crate::views::{
    AccountView, InboxSnapshot, NewAccount, RemoteQuestion, RemoteSender, SettingsView,
};

/// The account id of a server given with `--url`/`INBOX_URL` for one run.
pub const LAUNCH_ACCOUNT_ID: &str = "server";

pub struct Desk {
    pub engine: Engine,
    pub presence: Arc<Presence>,
    data_dir: PathBuf,
    local: tokio::sync::Mutex<Option<LocalServer>>,
    local_hint: Option<String>,
    /// Accounts are saved to `accounts.json` unless this run follows a `--url` server.
    saves_accounts: bool,
    accounts: Mutex<Vec<AccountView>>,
    settings: Mutex<SettingsFile>,
    /// Account id → questions whose remote images the reviewer allowed (this run only).
    allowed_questions: Mutex<HashMap<String, HashSet<String>>>,
    counts: Mutex<BTreeMap<String, Counts>>,
    tray: Mutex<Option<Tray>>,
    /// For remote https media only (SSRF-guarded); the server is reached through the engine.
    remote: RemoteFetcher,
    logs_dir: Option<PathBuf>,
}

/// Longest account label accepted from the Settings view.
pub const MAX_LABEL_CHARS: usize = 80;

fn save_settings(settings: &SettingsFile) -> Result<(), CommandError> {
    settings.save().map_err(|e| {
        CommandError::new(
            ErrorCode::Unavailable,
            format!("could not save settings: {e}"),
        )
    })
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Desk {
    /// Open the data dir, start the engine on the configured accounts — or, with none, start
    /// the local server and follow it. Settings are read from `default_config_dir`, or from
    /// the data dir when one was given (a test's or second instance's all-in-one dir). Call
    /// inside the async runtime.
    pub async fn open(
        options: &LaunchOptions,
        default_data_dir: PathBuf,
        default_config_dir: PathBuf,
    ) -> anyhow::Result<Desk> {
        let data_dir = options.data_dir.clone().unwrap_or(default_data_dir);
        // Accounts, settings, queued answers: the data dir is the reviewer's alone (0700).
        inbox_files::private_dir(&data_dir)
            .with_context(|| format!("create {}", data_dir.display()))?;
        inbox_files::narrow_if_present(&accounts_file(&data_dir), inbox_files::FILE_MODE)
            .with_context(|| format!("narrow {}", accounts_file(&data_dir).display()))?;
        let settings = match &options.data_dir {
            Some(dir) => SettingsFile::load(dir, None),
            // Before the Settings view the file lived in the data dir.
            None => SettingsFile::load(&default_config_dir, Some(&data_dir)),
        };
        let presence = Arc::new(Presence::default());
        presence.set_do_not_disturb(settings.settings.do_not_disturb);
        let prefs = &settings.settings.preferences;
        presence.set_preferences(prefs.notifications.clone(), prefs.quiet_hours.clone());
        let launch_account = match (&options.url, &options.token) {
            (Some(url), Some(token)) => Some((
                Account::new(LAUNCH_ACCOUNT_ID, &options.label, url)?,
                Token::new(token.clone()),
            )),
            _ => None,
        };
        let saved = if launch_account.is_some() {
            Vec::new()
        } else {
            AccountList::load(&accounts_file(&data_dir))?.accounts
        };
        // Saved accounts keep their tokens in the OS keyring. The local server's and a --url
        // server's tokens are not kept anywhere (the local one lives in its own tokens file),
        // so those runs need no keyring until the reviewer adds an account.
        let keyring = if saved.is_empty() {
            Keyring::in_memory().context("an in-memory keyring")?
        } else {
            open_native_keyring().await
        };
        let engine = Engine::new(EngineConfig::new(data_dir.join("sync")), keyring);

        let mut views = Vec::new();
        let mut local = None;
        if let Some((account, token)) = &launch_account {
            engine
                .add_account(account.clone(), Some(token.clone()))
                .await
                .context("follow the server given with --url")?;
            views.push(view(account, false));
        } else if saved.is_empty() {
            let server_options = LocalServerOptions {
                port: options.local_port,
                // Only the default instance answers a bare `inbox` (see `local_server`).
                discovery_file: options
                    .data_dir
                    .is_none()
                    .then(inbox_client::local_discovery::default_path),
            };
            let server =
                LocalServer::start(&data_dir.join("local-server"), &server_options).await?;
            let account = Account::new(local_server::ACCOUNT_ID, "Local", &server.base_url)?;
            engine
                .add_account(account.clone(), Some(server.reviewer()))
                .await
                .context("follow the local server")?;
            views.push(view(&account, true));
            local = Some(server);
        } else {
            for (id, error) in engine.start(saved.clone()).await {
                tracing::warn!(account = %id, error = %error, "account not started");
            }
            views.extend(saved.iter().map(|a| view(a, false)));
        }
        if options.demo {
            match &local {
                Some(server) => ask_demo_questions(&server.base_url, server.asker()),
                None => {
                    tracing::warn!("--demo only asks the local server; no local server in this run")
                }
            }
        }
        Ok(Desk {
            engine,
            presence,
            local_hint: local.as_ref().map(LocalServer::hint),
            local: tokio::sync::Mutex::new(local),
            data_dir,
            saves_accounts: launch_account.is_none(),
            accounts: Mutex::new(views),
            settings: Mutex::new(settings),
            allowed_questions: Mutex::new(HashMap::new()),
            counts: Mutex::new(BTreeMap::new()),
            tray: Mutex::new(None),
            remote: RemoteFetcher::new(),
            logs_dir: None,
        })
    }

    /// Where the log files go (set once logging to a file started).
    pub fn set_logs_dir(&mut self, dir: PathBuf) {
        self.logs_dir = Some(dir);
    }

    pub fn logs_dir(&self) -> Option<&Path> {
        self.logs_dir.as_deref()
    }

    /// The settings as kept (autostart is the caller's to fill in: it lives with the OS).
    pub fn settings_view(&self) -> SettingsView {
        let settings = lock(&self.settings);
        let remote_senders = settings
            .settings
            .remote_image_senders
            .iter()
            .flat_map(|(account, senders)| {
                senders.iter().map(|sender| RemoteSender {
                    account: account.clone(),
                    sender: sender.clone(),
                })
            })
            .collect();
        let mut remote_questions: Vec<RemoteQuestion> = lock(&self.allowed_questions)
            .iter()
            .flat_map(|(account, ids)| {
                ids.iter().map(|id| RemoteQuestion {
                    account: account.clone(),
                    id: id.clone(),
                })
            })
            .collect();
        remote_questions.sort_by(|a, b| (&a.account, &a.id).cmp(&(&b.account, &b.id)));
        SettingsView {
            preferences: settings.settings.preferences.clone(),
            remote_senders,
            remote_questions,
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

    /// Take back a sender's allowance: their remote media is blocked again from now on.
    pub fn revoke_remote_sender(&self, account: &str, sender: &str) -> Result<(), CommandError> {
        let mut settings = lock(&self.settings);
        let senders = &mut settings.settings.remote_image_senders;
        let removed = senders.get_mut(account).is_some_and(|s| s.remove(sender));
        if !removed {
            return Err(CommandError::new(
                ErrorCode::NotFound,
                format!("`{sender}` is not allowed on account `{account}`"),
            )
            .with_field("sender"));
        }
        if senders.get(account).is_some_and(|s| s.is_empty()) {
            senders.remove(account);
        }
        save_settings(&settings)
    }

    /// Give an account another sidebar label; saved with the accounts.
    pub fn rename_account(&self, id: &str, label: &str) -> Result<(), CommandError> {
        let label = label.trim();
        if label.is_empty() {
            return Err(
                CommandError::new(ErrorCode::MissingField, "a name is required")
                    .with_field("label"),
            );
        }
        if label.chars().count() > MAX_LABEL_CHARS {
            return Err(CommandError::new(
                AppCode::TooLong,
                format!("a name has at most {MAX_LABEL_CHARS} characters"),
            )
            .with_field("label"));
        }
        self.engine.relabel(id, label)?;
        for view in lock(&self.accounts).iter_mut().filter(|a| a.id == id) {
            view.label = label.to_owned();
        }
        self.save_accounts()
    }

    /// One request to the account's server with its token: what it said, or why not.
    pub async fn test_account(&self, id: &str) -> Result<String, CommandError> {
        let api = self.engine.client(id).await?;
        let started = std::time::Instant::now();
        let page = api
            .list(inbox_protocol::StatusFilter::Pending, Some(1), None)
            .await?;
        let ms = started.elapsed().as_millis();
        let more = if page.next_cursor.is_some() {
            " or more"
        } else {
            ""
        };
        Ok(format!(
            "Connected in {ms} ms; {}{more} pending",
            page.items.len()
        ))
    }

    pub fn attach_tray(&self, tray: Tray) {
        tray.show_do_not_disturb(self.presence.do_not_disturb());
        *lock(&self.tray) = Some(tray);
    }

    /// Keep the tray count current from a batch (counts are absolute per account).
    pub fn note_counts(&self, batch: &Changes) {
        let pending = {
            let mut counts = lock(&self.counts);
            counts.insert(batch.account.clone(), batch.counts);
            counts.values().map(|c| c.pending).sum()
        };
        if let Some(tray) = lock(&self.tray).as_ref() {
            tray.show_pending(pending);
        }
    }

    pub async fn snapshot(&self) -> InboxSnapshot {
        let snapshots = self.engine.snapshot().await;
        let mut cards = Vec::new();
        let mut connections = BTreeMap::new();
        let mut counts = BTreeMap::new();
        let mut notifications = BTreeMap::new();
        for snapshot in snapshots {
            cards.extend(snapshot.cards);
            notifications.insert(snapshot.account.clone(), snapshot.notifications);
            connections.insert(snapshot.account.clone(), snapshot.status);
            counts.insert(snapshot.account, snapshot.counts);
        }
        InboxSnapshot {
            accounts: lock(&self.accounts).clone(),
            cards,
            connections,
            counts,
            notifications,
            local_hint: self.local_hint.clone(),
            do_not_disturb: self.presence.do_not_disturb(),
        }
    }

    pub fn set_do_not_disturb(&self, on: bool) {
        self.presence.set_do_not_disturb(on);
        {
            let mut settings = lock(&self.settings);
            settings.settings.do_not_disturb = on;
            if let Err(e) = settings.save() {
                tracing::warn!(error = %e, "could not save settings");
            }
        }
        if let Some(tray) = lock(&self.tray).as_ref() {
            tray.show_do_not_disturb(on);
        }
    }

    pub async fn answer(
        &self,
        account: &str,
        id: &str,
        value: Value,
        params: Option<Map<String, Value>>,
    ) -> Result<inbox_sync::Delivery, CommandError> {
        // Which question, never what was answered (see `logs`).
        tracing::info!(account, id, "answer");
        Ok(self.engine.answer(account, id, value, params).await?)
    }

    pub fn allow_remote_images(
        &self,
        account: &str,
        id: Option<String>,
        sender: Option<String>,
    ) -> Result<(), CommandError> {
        if id.is_none() && sender.is_none() {
            return Err(CommandError::new(
                ErrorCode::MissingField,
                "give the question `id` or the `sender`",
            )
            .with_field("id"));
        }
        if let Some(id) = id {
            lock(&self.allowed_questions)
                .entry(account.to_owned())
                .or_default()
                .insert(id);
        }
        if let Some(sender) = sender {
            let mut settings = lock(&self.settings);
            settings
                .settings
                .remote_image_senders
                .entry(account.to_owned())
                .or_default()
                .insert(sender);
            settings.save().map_err(|e| {
                CommandError::new(
                    ErrorCode::Unavailable,
                    format!("could not save settings: {e}"),
                )
            })?;
        }
        Ok(())
    }

    /// A media item's bytes as a `data:` URL (see [`crate::media`]).
    pub async fn load_media(&self, account: &str, url: &str) -> Result<String, CommandError> {
        match media::classify(url)? {
            MediaSource::SameOrigin(reference) => {
                let body = self.engine.media(account, &reference).await?;
                if body.bytes.len() > media::MAX_MEDIA_BYTES {
                    return Err(CommandError::new(
                        ErrorCode::MediaTooLarge,
                        "the media is larger than 16 MiB",
                    ));
                }
                Ok(media::data_url(&body.content_type, &body.bytes))
            }
            MediaSource::Remote(remote) => {
                let cards = self.engine.snapshot_of(account).await?.cards;
                let policy = RemoteMediaPolicy {
                    questions: lock(&self.allowed_questions)
                        .get(account)
                        .cloned()
                        .unwrap_or_default(),
                    senders: lock(&self.settings)
                        .settings
                        .remote_image_senders
                        .get(account)
                        .map(|s| s.iter().cloned().collect())
                        .unwrap_or_default(),
                };
                let Some(kind) = policy.allowed_kind(url, &cards) else {
                    return Err(CommandError::new(
                        AppCode::RemoteImagesBlocked,
                        "remote media loads only after you allow it for this question or sender",
                    ));
                };
                let body = self
                    .remote
                    .fetch(&remote, kind)
                    .await
                    .map_err(media::remote_error)?;
                Ok(media::data_url(&body.content_type, &body.bytes))
            }
        }
    }

    pub async fn add_account(&self, new: NewAccount) -> Result<AccountView, CommandError> {
        let url = check_server_url(&new.url)?;
        let label = if new.label.trim().is_empty() {
            url.host_str().unwrap_or("Server").to_owned()
        } else {
            new.label.trim().to_owned()
        };
        if new.token.trim().is_empty() {
            return Err(
                CommandError::new(ErrorCode::MissingField, "a token is required")
                    .with_field("token"),
            );
        }
        let id = {
            let taken: HashSet<String> =
                lock(&self.accounts).iter().map(|a| a.id.clone()).collect();
            unique_id(&url, &taken)
        };
        let base = url.as_str().trim_end_matches('/').to_owned();
        let account = Account::new(&id, &label, &base)
            .map_err(|e| CommandError::new(AppCode::InvalidUrl, e.to_string()).with_field("url"))?;
        let token = Token::new(new.token.trim());
        if self.saves_accounts {
            remember_token(&id, &token).await?;
        }
        self.engine
            .add_account(account.clone(), Some(token))
            .await?;
        let added = view(&account, false);
        lock(&self.accounts).push(added.clone());
        self.save_accounts()?;
        Ok(added)
    }

    pub async fn remove_account(&self, id: &str) -> Result<(), CommandError> {
        if lock(&self.accounts).iter().any(|a| a.id == id && a.local) {
            return Err(CommandError::new(
                AppCode::LocalAccount,
                "the local server stays while no other account is set up",
            ));
        }
        self.engine.remove_account(id).await?;
        if self.saves_accounts {
            let id = id.to_owned();
            let forgotten =
                tokio::task::spawn_blocking(move || Keyring::native()?.forget(&id)).await;
            if !matches!(forgotten, Ok(Ok(_))) {
                tracing::warn!("could not remove a token from the OS keyring");
            }
        }
        lock(&self.accounts).retain(|a| a.id != id);
        lock(&self.counts).remove(id);
        self.save_accounts()
    }

    fn save_accounts(&self) -> Result<(), CommandError> {
        if !self.saves_accounts {
            return Ok(());
        }
        let accounts: Vec<Account> = self
            .engine
            .accounts()
            .into_iter()
            .filter(|a| a.id != local_server::ACCOUNT_ID)
            .collect();
        AccountList { accounts }
            .save(&accounts_file(&self.data_dir))
            .map_err(|e| CommandError::new(ErrorCode::Unavailable, e.to_string()))
    }

    /// Stop syncing (positions saved) and the local server.
    pub async fn shutdown(&self) {
        self.engine.shutdown().await;
        if let Some(server) = self.local.lock().await.take() {
            server.shutdown().await;
        }
    }
}

fn accounts_file(data_dir: &Path) -> PathBuf {
    data_dir.join("accounts.json")
}

fn view(account: &Account, local: bool) -> AccountView {
    AccountView {
        id: account.id.clone(),
        label: account.label.clone(),
        url: account.server_url.clone(),
        local,
    }
}

/// The OS keyring when it answers; otherwise an in-memory one, so the app still runs (the log
/// says the saved accounts cannot sign in).
async fn open_native_keyring() -> Keyring {
    let probe = tokio::task::spawn_blocking(|| {
        let keyring = Keyring::native()?;
        keyring.load("probe-that-the-keyring-answers")?;
        Ok::<_, KeyringError>(keyring)
    })
    .await;
    match probe {
        Ok(Ok(keyring)) => keyring,
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "the OS keyring is unavailable; saved accounts cannot sign in");
            Keyring::in_memory().expect("an in-memory keyring")
        }
        Err(e) => {
            tracing::warn!(error = %e, "keyring probe failed; saved accounts cannot sign in");
            Keyring::in_memory().expect("an in-memory keyring")
        }
    }
}

/// Put an added account's token in the OS keyring, where the next start finds it. Runs on a
/// blocking thread: the Secret Service client blocks (and must not be dropped on an async one).
async fn remember_token(id: &str, token: &Token) -> Result<(), CommandError> {
    let (id, token) = (id.to_owned(), token.clone());
    tokio::task::spawn_blocking(move || Keyring::native()?.save(&id, &token))
        .await
        .map_err(|e| CommandError::new(AppCode::Keyring, e.to_string()))?
        .map_err(|e| {
            CommandError::new(
                AppCode::Keyring,
                format!("the token could not be stored in the keyring: {e}"),
            )
        })
}

/// `https:` always; plain `http:` only to this machine (a token must not cross a network in
/// the clear).
pub fn check_server_url(raw: &str) -> Result<url::Url, CommandError> {
    let bad = |message: &str| CommandError::new(AppCode::InvalidUrl, message).with_field("url");
    let url = url::Url::parse(raw.trim()).map_err(|_| bad("not a URL"))?;
    let loopback = match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        None => false,
    };
    match url.scheme() {
        "https" if url.host().is_some() => Ok(url),
        "http" if loopback => Ok(url),
        "http" => Err(bad(
            "use https (plain http is only for servers on this machine)",
        )),
        _ => Err(bad("the server URL must start with https://")),
    }
}

/// A file-name-safe account id from the host (and port), unique among `taken`.
fn unique_id(url: &url::Url, taken: &HashSet<String>) -> String {
    let mut base: String = url
        .host_str()
        .unwrap_or("server")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    if let Some(port) = url.port() {
        base.push_str(&format!("-{port}"));
    }
    let base = base
        .trim_start_matches('.')
        .chars()
        .take(56)
        .collect::<String>();
    let base = if base.is_empty() {
        "server".to_owned()
    } else {
        base
    };
    if !taken.contains(&base) {
        return base;
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|c| !taken.contains(c))
        .expect("a free id")
}

/// `--demo`: ask one question of every format, park three, and send the demo notifications
/// (one with a form) as the local asker, in the background.
fn ask_demo_questions(base_url: &str, asker: Token) {
    let api = match ApiClient::new(base_url, asker) {
        Ok(api) => api,
        Err(e) => {
            tracing::warn!(error = %e, "demo questions not asked");
            return;
        }
    };
    tokio::spawn(async move {
        for question in inbox_client::demo::demo_questions() {
            if let Err(e) = api.ask(&question).await {
                tracing::warn!(error = %e, "a demo question was refused");
            }
        }
        for notification in inbox_client::demo::demo_notifications() {
            if let Err(e) = api.notify(&notification, None).await {
                tracing::warn!(error = %e, "a demo notification was refused");
            }
        }
        if let Err(e) = api
            .park(&inbox_client::demo::demo_park(chrono::Utc::now()))
            .await
        {
            tracing::warn!(error = %e, "the demo park was refused");
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_is_required_except_on_this_machine() {
        for ok in [
            "https://inbox.example.com",
            "http://127.0.0.1:8790",
            "http://localhost:1",
            "http://[::1]:9",
        ] {
            assert!(check_server_url(ok).is_ok(), "{ok}");
        }
        for bad in [
            "http://inbox.example.com",
            "http://10.0.0.2",
            "ftp://x",
            "inbox.example.com",
            "file:///tmp",
        ] {
            assert_eq!(
                check_server_url(bad).unwrap_err().code,
                AppCode::InvalidUrl,
                "{bad}"
            );
        }
    }

    #[test]
    fn account_ids_come_from_the_host_and_never_collide() {
        let url = url::Url::parse("https://Inbox.Work.Acme:8443/x").unwrap();
        let mut taken = HashSet::new();
        let first = unique_id(&url, &taken);
        assert_eq!(first, "inbox.work.acme-8443");
        taken.insert(first);
        assert_eq!(unique_id(&url, &taken), "inbox.work.acme-8443-2");
        let account = Account::new(unique_id(&url, &taken), "x", "https://inbox.work.acme:8443");
        assert!(account.is_ok());
    }
}
