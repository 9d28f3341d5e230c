//! Starting and stopping the server: data dir, tokens, store, listener, sweeper.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::config::{Role, ServerConfig, TokenSpec};
use crate::state::AppState;
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
    #[error("tokens file {path}: {message}")]
    TokensFile { path: PathBuf, message: String },
    #[error("public url `{0}` is not an absolute http(s) URL")]
    PublicUrl(String),
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
}

impl RunningServer {
    /// The secret of the first principal with `role`.
    pub fn token_for(&self, role: Role) -> Option<String> {
        self.tokens
            .iter()
            .find(|t| t.role == role)
            .map(|t| t.secret.clone())
    }

    /// Stop accepting, end open streams and long-polls, and wait for requests in flight.
    pub async fn shutdown(self) {
        let RunningServer {
            state,
            stop,
            mut serving,
            sweeper,
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
    std::fs::create_dir_all(&data_dir).map_err(|source| ServerError::DataDir {
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

    let db_path = data_dir.join(DATABASE_FILE);
    let retention = config.events_retention;
    let store: Arc<dyn Store> = match &config.redis_url {
        Some(url) => Arc::new(RedisStore::connect(url, &config.redis_prefix, retention).await?),
        None => Arc::new(
            tokio::task::spawn_blocking(move || SqliteStore::open(&db_path, retention))
                .await
                .map_err(|e| StoreError::Task(e.to_string()))??,
        ),
    };

    let listener = tokio::net::TcpListener::bind(config.bind)
        .await
        .map_err(|source| ServerError::Bind {
            addr: config.bind,
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| ServerError::Bind {
        addr: config.bind,
        source,
    })?;
    let base_url = format!("http://{addr}");
    let public_url = match &config.public_url {
        Some(url) => checked_public_url(url)?,
        None => base_url.clone(),
    };

    let state =
        AppState::with_keepalive(store.clone(), tokens.clone(), &public_url, config.keepalive);
    let sweeper = sweeper::spawn(store, config.sweep_interval, state.stopping());
    let router = crate::app(state.clone());
    let (stop, stopped) = oneshot::channel::<()>();
    let serving = tokio::spawn(async move {
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .await
    });
    let store_kind = if config.redis_url.is_some() {
        "redis"
    } else {
        "sqlite"
    };
    tracing::info!(%addr, store = store_kind, data_dir = %data_dir.display(), "interactions server listening");
    Ok(RunningServer {
        addr,
        base_url,
        tokens_file,
        tokens,
        state,
        stop,
        serving,
        sweeper,
    })
}

fn checked_public_url(raw: &str) -> Result<String, ServerError> {
    let trimmed = raw.trim_end_matches('/');
    match url::Url::parse(trimmed) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.has_host() => {
            if url.scheme() == "http" {
                // The callback URL is a bearer capability; plain http exposes it in transit.
                tracing::warn!("public url is plain http; callback tickets travel unencrypted");
            }
            Ok(trimmed.to_owned())
        }
        _ => Err(ServerError::PublicUrl(raw.to_owned())),
    }
}
