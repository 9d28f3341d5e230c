//! What the engine tests share: a real server in-process with a temp data dir (restartable on
//! the same port), the server's truth read through its doors, and a wait for convergence.

#![allow(dead_code)] // each test binary uses its own part of this

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use chrono::Utc;
use inbox_client::backoff::BackoffPolicy;
use inbox_client::{Account, ApiClient, Engine, EngineConfig, Keyring, Token};
use inbox_protocol::{AnswerFormat, AskRequest, Interaction, Status, StatusFilter};
use inbox_server::store::{NewAsk, SqliteStore, Store};
use inbox_server::{DATABASE_FILE, Role, RunningServer, ServerConfig, TokenSpec};
use inbox_sync::ConnectionStatus;
use tempfile::TempDir;

pub const ALICE: &str = "alice-token-0123456789";
pub const BOB: &str = "bob-token-0123456789";
pub const BOT: &str = "bot-token-0123456789";

/// A real interactions server on 127.0.0.1, stoppable and restartable on the same port.
pub struct TestServer {
    pub dir: TempDir,
    pub addr: SocketAddr,
    pub retention: usize,
    running: Option<RunningServer>,
}

impl TestServer {
    pub async fn start() -> TestServer {
        TestServer::start_with_retention(10_000).await
    }

    pub async fn start_with_retention(retention: usize) -> TestServer {
        TestServer::start_in(tempfile::tempdir().unwrap(), retention).await
    }

    /// A server over a data dir already filled by [`seed_pending`].
    pub async fn start_in(dir: TempDir, retention: usize) -> TestServer {
        let mut server = TestServer {
            dir,
            addr: "127.0.0.1:0".parse().unwrap(),
            retention,
            running: None,
        };
        server.boot().await;
        server
    }

    async fn boot(&mut self) {
        let mut config = ServerConfig::new(self.addr, self.dir.path().to_owned());
        config.tokens = vec![
            token("alice", Role::Reviewer, ALICE),
            token("bob", Role::Reviewer, BOB),
            token("bot", Role::Asker, BOT),
        ];
        config.events_retention = self.retention;
        // Tests reach the server through a fault-injecting relay on another port too; its
        // `Host` (127.0.0.1:<relay port>) is this same machine, so any port is served.
        config.allowed_hosts = vec!["127.0.0.1".into()];
        // Short keepalives so a short client keepalive timeout only fires on real silence.
        config.keepalive = Duration::from_millis(300);
        // The port of a stopped server can linger briefly; try again for a moment.
        let started = Instant::now();
        let running = loop {
            match inbox_server::start(config.clone()).await {
                Ok(running) => break running,
                Err(e) if started.elapsed() < Duration::from_secs(10) => {
                    eprintln!("server start retry: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => panic!("server did not start: {e}"),
            }
        };
        self.addr = running.addr;
        self.running = Some(running);
    }

    pub async fn stop(&mut self) {
        if let Some(running) = self.running.take() {
            running.shutdown().await;
        }
    }

    /// Shut down and start again on the same port and data dir.
    pub async fn restart(&mut self) {
        self.stop().await;
        self.boot().await;
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn api(&self, token: &str) -> ApiClient {
        ApiClient::new(&self.url(), Token::new(token)).unwrap()
    }
}

fn token(name: &str, role: Role, secret: &str) -> TokenSpec {
    TokenSpec {
        name: name.into(),
        role,
        secret: secret.into(),
    }
}

/// Fill a data dir with `count` pending questions directly through the store (asking them one
/// by one over HTTP would dominate the test's time).
pub async fn seed_pending(dir: &TempDir, count: usize, retention: usize) {
    let store = SqliteStore::open(&dir.path().join(DATABASE_FILE), retention).unwrap();
    let base = Utc::now() - chrono::Duration::hours(1);
    for i in 0..count {
        let interaction = Interaction::builder(format!("ia_seed{i:07}"))
            .prompt(format!("Seeded question {i}?"))
            .format(AnswerFormat::Confirm)
            // Not "bot": the live asks of a test must stay under the per-asker pending cap.
            .asker("seed-bot")
            .created_at(base + chrono::Duration::milliseconds(i as i64))
            .build();
        // Seeded past the server's per-asker cap: these tests are about the client.
        store.insert_ask(NewAsk::plain(interaction)).await.unwrap();
    }
}

/// Ask one confirm question as the bot.
pub async fn ask(server_api: &ApiClient, prompt: &str) -> Interaction {
    server_api
        .ask(&AskRequest::new(prompt, AnswerFormat::Confirm))
        .await
        .unwrap()
}

/// An engine for tests: fast backoff, a short keepalive timeout, tokens in memory.
pub fn engine(state_dir: &std::path::Path) -> Engine {
    engine_with_keyring(state_dir, Keyring::in_memory().unwrap())
}

pub fn engine_with_keyring(state_dir: &std::path::Path, keyring: Keyring) -> Engine {
    let mut config = EngineConfig::new(state_dir);
    config.backoff = BackoffPolicy {
        base: Duration::from_millis(100),
        cap: Duration::from_secs(1),
    };
    config.keepalive_timeout = Duration::from_secs(2);
    config.coalesce_window = Duration::from_millis(10);
    Engine::new(config, keyring)
}

pub fn account(id: &str, url: &str) -> Account {
    Account::new(id, id, url).unwrap()
}

/// Add the account `id` at `url` to `engine`, signed in with `token`.
pub async fn add_account(engine: &Engine, id: &str, url: &str, token: &str) {
    engine
        .add_account(account(id, url), Some(Token::new(token)))
        .await
        .unwrap();
}

/// Every pending interaction, read page by page from the server.
pub async fn server_pending(api: &ApiClient) -> BTreeMap<String, Interaction> {
    let pending = api.list_all(StatusFilter::Pending).await.unwrap();
    pending.into_iter().map(|ia| (ia.id.clone(), ia)).collect()
}

/// Compare the engine's list for `account` with the server's truth: the same pending
/// questions with the same content, every resolved card in the status the server has, and
/// no card twice. `Err` says what differs.
pub async fn compare(engine: &Engine, account: &str, api: &ApiClient) -> Result<usize, String> {
    let snapshot = engine
        .snapshot_of(account)
        .await
        .map_err(|e| e.to_string())?;
    let truth = server_pending(api).await;
    let mut seen = BTreeSet::new();
    let mut client_pending = BTreeMap::new();
    let mut resolved = Vec::new();
    for card in &snapshot.cards {
        if !seen.insert(card.interaction.id.clone()) {
            return Err(format!("card {} is listed twice", card.interaction.id));
        }
        if card.interaction.status == Status::Pending {
            client_pending.insert(card.interaction.id.clone(), &card.interaction);
        } else {
            resolved.push(&card.interaction);
        }
    }
    let missing: Vec<&String> = truth
        .keys()
        .filter(|id| !client_pending.contains_key(*id))
        .collect();
    let extra: Vec<&String> = client_pending
        .keys()
        .filter(|id| !truth.contains_key(*id))
        .collect();
    if !missing.is_empty() || !extra.is_empty() {
        return Err(format!(
            "pending differs: {} missing on the client (e.g. {:?}), {} extra (e.g. {:?})",
            missing.len(),
            missing.first(),
            extra.len(),
            extra.first()
        ));
    }
    for (id, interaction) in &truth {
        if client_pending[id] != interaction {
            return Err(format!("card {id} differs from the server's copy"));
        }
    }
    for interaction in resolved {
        let server = api.get(&interaction.id).await.map_err(|e| e.to_string())?;
        if server.status != interaction.status {
            return Err(format!(
                "card {} shows {:?}, the server says {:?}",
                interaction.id, interaction.status, server.status
            ));
        }
    }
    Ok(truth.len())
}

/// Wait until the engine's list equals the server's truth; panic with the last difference.
pub async fn converge(engine: &Engine, account: &str, api: &ApiClient, within: Duration) -> usize {
    let started = Instant::now();
    loop {
        match compare(engine, account, api).await {
            Ok(pending) => return pending,
            Err(diff) if started.elapsed() > within => {
                panic!("not converged after {within:?}: {diff}")
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

/// The engine's card for question `id` in `account`, as its snapshot shows it now.
pub async fn card_of(engine: &Engine, account: &str, id: &str) -> inbox_sync::Card {
    let cards = engine.snapshot_of(account).await.unwrap().cards;
    cards
        .into_iter()
        .find(|c| c.interaction.id == id)
        .unwrap_or_else(|| panic!("no card {id} in {account}"))
}

/// Ask `probe` again every 50 ms until it answers `Ok`, for at most `within`; past that, panic
/// naming `what` and the last thing the probe saw instead (its `Err`).
pub async fn eventually<T, Seen: std::fmt::Debug>(
    what: &str,
    within: Duration,
    mut probe: impl AsyncFnMut() -> Result<T, Seen>,
) -> T {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match probe().await {
            Ok(found) => return found,
            Err(seen) => assert!(
                tokio::time::Instant::now() < deadline,
                "{what} (within {within:?}); last seen: {seen:?}"
            ),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Wait until `account`'s status satisfies `want`.
pub async fn wait_status(
    engine: &Engine,
    account: &str,
    within: Duration,
    want: impl Fn(&ConnectionStatus) -> bool,
) -> ConnectionStatus {
    let mut statuses = engine.statuses();
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if let Some(status) = statuses.borrow_and_update().get(account)
            && want(status)
        {
            return status.clone();
        }
        let seen = statuses.borrow().get(account).cloned();
        if tokio::time::timeout_at(deadline, statuses.changed())
            .await
            .is_err()
        {
            panic!("status of {account} never matched within {within:?}; last {seen:?}");
        }
    }
}
