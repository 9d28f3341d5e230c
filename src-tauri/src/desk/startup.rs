//! Which mode a run starts in, decided once at start-up:
//! - a `--url` server (with `--token`) for this run only: nothing saved, the token in memory;
//! - the saved accounts (`accounts.json`), their tokens in the OS keyring;
//! - with none saved, local mode: the in-process server, followed as the `local` account.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use inbox_client::{Account, AccountList, ApiClient, Engine, EngineConfig, Keyring, Token};

use super::Desk;
use super::accounts::accounts_file;
use super::media_gate::MediaGate;
use crate::launch::LaunchOptions;
use crate::local_server::{self, LocalServer, LocalServerOptions};
use crate::notifications::Presence;
use crate::settings::SettingsFile;

/// The account id of a server given with `--url`/`INBOX_URL` for one run.
pub const LAUNCH_ACCOUNT_ID: &str = "server";

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
        // The engine is the only writer of tokens. A `--url` run keeps everything in memory;
        // otherwise the OS keyring, reached only once a token is read or stored — local mode
        // never needs it until the reviewer adds an account (the local server's token lives
        // in its own tokens file).
        let keyring = match &launch_account {
            Some(_) => Keyring::in_memory().context("an in-memory keyring")?,
            None => Keyring::native_on_first_use(),
        };
        let engine = Engine::new(EngineConfig::new(data_dir.join("sync")), keyring);

        let mut local = None;
        if let Some((account, token)) = launch_account.clone() {
            engine
                .add_session_account(account, token)
                .await
                .context("follow the server given with --url")?;
        } else {
            let saved = AccountList::load(&accounts_file(&data_dir))?.accounts;
            if saved.is_empty() {
                let server = start_local_server(options, &data_dir).await?;
                let account = Account::new(local_server::ACCOUNT_ID, "Local", &server.base_url)?;
                engine
                    .add_session_account(account, server.reviewer())
                    .await
                    .context("follow the local server")?;
                local = Some(server);
            } else {
                for (id, error) in engine.start(saved).await {
                    tracing::warn!(account = %id, error = %error, "account not started");
                }
            }
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
            follows_local: local.is_some(),
            local_hint: local.as_ref().map(LocalServer::hint),
            local: tokio::sync::Mutex::new(local),
            data_dir,
            saves_accounts: launch_account.is_none(),
            settings: Mutex::new(settings),
            media: MediaGate::new(),
            logs_dir: None,
        })
    }
}

async fn start_local_server(
    options: &LaunchOptions,
    data_dir: &std::path::Path,
) -> anyhow::Result<LocalServer> {
    let server_options = LocalServerOptions {
        port: options.local_port,
        // Only the default instance answers a bare `inbox` (see `local_server`).
        discovery_file: options
            .data_dir
            .is_none()
            .then(inbox_client::local_discovery::default_path),
    };
    LocalServer::start(&data_dir.join("local-server"), &server_options).await
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
