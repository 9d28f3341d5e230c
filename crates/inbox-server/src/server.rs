//! Starting and stopping the server: data dir, tokens, store, listener, sweeper.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::config::{Role, Secret, ServerConfig, TokenSpec};
use crate::hosts::AllowedHosts;
use crate::listener;
use crate::state::{AppState, Settings};
use crate::store::{RedisStore, SqliteStore, Store, StoreError};
use crate::{sweeper, tokens_file};

/// The SQLite database inside the data dir.
pub const DATABASE_FILE: &str = "inbox.sqlite3";

/// How long a shutdown waits for open requests before it stops waiting.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("data dir {path}: {source}")]
    DataDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    TokensFile(#[from] crate::tokens_file::TokensFileError),
    #[error("public url `{0}` (--public-url / INTERACTIONS_PUBLIC_BASE_URL): {1}")]
    PublicUrl(String, &'static str),
    #[error("{0} (--allowed-host / INBOX_ALLOWED_HOSTS)")]
    AllowedHost(#[from] crate::hosts::AllowedHostError),
    #[error("{0}")]
    WebhookSecret(#[from] crate::webhook::secret::SecretError),
    #[error("store: {0}")]
    Store(#[from] StoreError),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("server stopped: {0}")]
    Serve(std::io::Error),
}

/// A server accepting requests. Drop it and the server keeps running until the runtime ends;
/// call [`RunningServer::shutdown`] or [`RunningServer::wait`] to stop it in order.
pub struct RunningServer {
    pub addr: SocketAddr,
    /// `http://<addr>`.
    pub base_url: String,
    /// Where the generated tokens are, when none were configured.
    pub tokens_file: Option<PathBuf>,
    tokens: Vec<TokenSpec>,
    state: AppState,
    stop: oneshot::Sender<()>,
    serving: JoinHandle<std::io::Result<()>>,
    sweeper: JoinHandle<()>,
    dispatcher: JoinHandle<()>,
    agui: JoinHandle<()>,
}

impl RunningServer {
    /// The secret of the first principal with `role`.
    pub fn token_for(&self, role: Role) -> Option<String> {
        self.tokens
            .iter()
            .find(|t| t.role == role)
            .map(|t| t.secret.clone())
    }

    /// How many long-polls (`…/wait`) are listening for their resolution right now. For
    /// in-process observers (the tests wait on it rather than sleeping); no door serves it.
    pub fn long_polls_waiting(&self) -> usize {
        self.state.long_polls().count()
    }

    /// Stop accepting, end open streams and long-polls, and wait for requests in flight.
    pub async fn shutdown(self) {
        let RunningServer {
            state,
            stop,
            mut serving,
            sweeper,
            dispatcher,
            agui,
            ..
        } = self;
        state.begin_shutdown();
        let _ = stop.send(());
        if tokio::time::timeout(SHUTDOWN_GRACE, &mut serving)
            .await
            .is_err()
        {
            tracing::warn!("requests still open after the grace period; stopping anyway");
            serving.abort();
        }
        let _ = sweeper.await;
        let _ = dispatcher.await;
        let _ = agui.await;
        tracing::info!("interactions server stopped");
    }

    /// Serve until ctrl-c (or SIGTERM), then shut down in order.
    pub async fn wait(mut self) -> Result<(), ServerError> {
        let ended = tokio::select! {
            () = termination() => None,
            ended = &mut self.serving => Some(ended),
        };
        match ended {
            None => {
                tracing::info!("termination requested");
                self.shutdown().await;
                Ok(())
            }
            Some(Ok(Ok(()))) => Ok(()),
            Some(Ok(Err(e))) => Err(ServerError::Serve(e)),
            Some(Err(join)) => Err(ServerError::Serve(std::io::Error::other(join.to_string()))),
        }
    }
}

async fn termination() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    if tokio::signal::ctrl_c().await.is_err() {
        // No way to hear a signal: serve until stopped some other way.
        std::future::pending::<()>().await;
    }
}

/// Open the data dir and store, bind the listener and start serving.
pub async fn start(config: ServerConfig) -> Result<RunningServer, ServerError> {
    let data_dir = config.data_dir.clone();
    inbox_files::private_dir(&data_dir).map_err(|source| ServerError::DataDir {
        path: data_dir.clone(),
        source,
    })?;
    let (tokens, tokens_file) = if config.tokens.is_empty() {
        let (tokens, path) = tokens_file::load_or_generate(&data_dir)?;
        tracing::info!(path = %path.display(), "bearer tokens are in this file (mode 0600)");
        (tokens, Some(path))
    } else {
        (config.tokens.clone(), None)
    };

    let webhook_key = crate::webhook::secret::load_or_generate(
        config.webhook_secret.as_ref().map(Secret::expose),
        &data_dir,
    )?;
    let db_path = data_dir.join(DATABASE_FILE);
    let retention = config.events_retention;
    let store: Arc<dyn Store> = match &config.redis {
        Some(redis) => {
            Arc::new(RedisStore::connect(redis.url.expose(), &redis.prefix, retention).await?)
        }
        None => Arc::new(
            tokio::task::spawn_blocking(move || SqliteStore::open(&db_path, retention))
                .await
                .map_err(|e| StoreError::Task(e.to_string()))??,
        ),
    };

    let listener = listen(config.bind).map_err(|source| ServerError::Bind {
        addr: config.bind,
        source,
    })?;
    let addr = listener.local_addr().map_err(|source| ServerError::Bind {
        addr: config.bind,
        source,
    })?;
    let base_url = format!("http://{addr}");
    let public_url = match &config.public_url {
        Some(url) => Some(checked_public_url(url)?),
        // A loopback server is reached at its own address; any other has to be told its name.
        None if addr.ip().is_loopback() => Some(base_url.clone()),
        None => None,
    };

    let allowed_hosts = AllowedHosts::for_server(
        addr,
        public_url
            .as_deref()
            .and_then(|u| url::Url::parse(u).ok())
            .as_ref(),
        &config.allowed_hosts,
    )?;
    let state = AppState::with_settings(
        store.clone(),
        tokens.clone(),
        Settings {
            public_base_url: public_url,
            keepalive: config.keepalive,
            allowed_hosts,
            body_read_timeout: config.body_read_timeout,
            ticket_max_ttl: config.ticket_max_ttl,
            park_retention: inbox_protocol::validate::Retention(
                config
                    .park_retention
                    .map(|d| chrono::Duration::from_std(d).unwrap_or(chrono::Duration::MAX)),
            ),
            public_doors: config.public_doors.clone(),
        },
    );
    let sweeper = sweeper::spawn(
        store.clone(),
        config.sweep_interval,
        config.retentions,
        state.stopping(),
    );
    let dispatcher = crate::webhook::dispatcher::spawn(
        store,
        webhook_key,
        config.webhook.clone(),
        state.stopping(),
    );
    let agui = crate::agui::spawn(state.clone(), config.agui.clone(), state.stopping());
    let router = crate::app(state.clone());
    let (stop, stopped) = oneshot::channel::<()>();
    let serving = tokio::spawn(listener::serve(
        listener,
        router,
        config.connections,
        stopped,
    ));
    let store_kind = if config.redis.is_some() {
        "redis"
    } else {
        "sqlite"
    };
    tracing::info!(%addr, store = store_kind, data_dir = %data_dir.display(), public_doors = %config.public_doors, "interactions server listening");
    Ok(RunningServer {
        addr,
        base_url,
        tokens_file,
        tokens,
        state,
        stop,
        serving,
        sweeper,
        dispatcher,
        agui,
    })
}

/// The public URL: an `https://` origin, or `http://` on a loopback host for local use. The
/// callback URLs built on it are bearer capabilities; over plain http anyone on the path could
/// read them.
fn checked_public_url(raw: &str) -> Result<String, ServerError> {
    let trimmed = raw.trim_end_matches('/');
    let refuse = |why| ServerError::PublicUrl(raw.to_owned(), why);
    let url = url::Url::parse(trimmed).map_err(|_| refuse("is not an absolute URL"))?;
    let Some(host) = url.host() else {
        return Err(refuse("names no host"));
    };
    if !url.username().is_empty() || url.password().is_some() {
        return Err(refuse("must not carry credentials"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(refuse(
            "must be an origin (and path), without a query or fragment",
        ));
    }
    let loopback = match host {
        url::Host::Domain(name) => name.eq_ignore_ascii_case("localhost"),
        url::Host::Ipv4(ip) => ip.is_loopback(),
        url::Host::Ipv6(ip) => ip.is_loopback(),
    };
    match url.scheme() {
        "https" => Ok(trimmed.to_owned()),
        "http" if loopback => Ok(trimmed.to_owned()),
        "http" => Err(refuse(
            "must be https:// (plain http is accepted only for a loopback host)",
        )),
        _ => Err(refuse("must be an https:// URL")),
    }
}

/// Connections the kernel holds for the accept loop (capped by `net.core.somaxconn`, 4096 on
/// current Linux). Tokio's default of 1,024 dropped the SYNs of a reconnect storm beyond it:
/// 5,000 streams cut at once then waited out TCP's retransmits (1, 3, 7, 15 s) to come back
/// (docs/benchmarks.md).
const LISTEN_BACKLOG: u32 = 4096;

/// A listener on `addr` as `TcpListener::bind` makes one (`SO_REUSEADDR` on Unix), with
/// [`LISTEN_BACKLOG`].
fn listen(addr: std::net::SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_public_url_is_https_or_loopback() {
        for ok in [
            "https://inbox.example.org",
            "https://inbox.example.org/base/",
            "http://127.0.0.1:8790",
            "http://localhost:8790",
            "http://[::1]:8790",
        ] {
            assert!(checked_public_url(ok).is_ok(), "{ok}");
        }
        for refused in [
            "http://inbox.example.org",
            "http://10.0.0.5:8790",
            "ftp://inbox.example.org",
            "inbox.example.org",
            "https://user:pw@inbox.example.org",
            "https://inbox.example.org/?x=1",
        ] {
            let err = checked_public_url(refused).expect_err(refused).to_string();
            assert!(err.contains("INTERACTIONS_PUBLIC_BASE_URL"), "{err}");
        }
    }
}
