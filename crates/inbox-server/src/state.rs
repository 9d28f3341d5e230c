//! What every door shares: the store, the principals, the public origin and the stream tuning.

use std::sync::Arc;
use std::time::Duration;

use inbox_protocol::validate::Retention;
use tokio::sync::watch;

use crate::config::TokenSpec;
use crate::hosts::AllowedHosts;
use crate::long_poll::LongPolls;
use crate::principal::Tokens;
use crate::public_doors::PublicDoors;
use crate::store::Store;
use crate::validation::Validation;

/// Cheap to clone; handed to [`crate::app`].
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Shared>,
}

struct Shared {
    store: Arc<dyn Store>,
    tokens: Tokens,
    settings: Settings,
    validation: Arc<Validation>,
    /// Flips to `true` when the server stops, so open streams and long-polls end and the
    /// graceful shutdown does not wait on them forever.
    stopping: watch::Sender<bool>,
    long_polls: LongPolls,
    /// Rung when a run is queued on this worker, so the AG-UI driver need not wait its poll.
    agui_wake: tokio::sync::Notify,
}

/// The tuning the doors read (the connection bounds live with the listener).
pub(crate) struct Settings {
    /// The origin external callback URLs are built on (no trailing `/`); `None` when the
    /// server has none, and external questions are then refused.
    pub public_base_url: Option<String>,
    pub keepalive: Duration,
    pub allowed_hosts: AllowedHosts,
    pub body_read_timeout: Duration,
    pub ticket_max_ttl: Duration,
    /// How far ahead a park's `expiry_at` may lie (`--park-retention`).
    pub park_retention: Retention,
    pub public_doors: PublicDoors,
}

impl AppState {
    /// `public_base_url` is the origin external callback URLs are built on (no trailing `/`).
    /// Serves the loopback names on any port and the public URL's host (see [`AllowedHosts`]).
    pub fn new(store: Arc<dyn Store>, tokens: Vec<TokenSpec>, public_base_url: &str) -> Self {
        AppState::with_settings(
            store,
            tokens,
            Settings {
                public_base_url: Some(public_base_url.to_owned()),
                keepalive: Duration::from_secs(15),
                allowed_hosts: AllowedHosts::loopback_and(public_base_url),
                body_read_timeout: Duration::from_secs(30),
                ticket_max_ttl: crate::ticket::DEFAULT_MAX_TTL,
                park_retention: Retention::DEFAULT,
                public_doors: PublicDoors::default(),
            },
        )
    }

    pub(crate) fn with_settings(
        store: Arc<dyn Store>,
        tokens: Vec<TokenSpec>,
        mut settings: Settings,
    ) -> Self {
        settings.public_base_url = settings
            .public_base_url
            .map(|url| url.trim_end_matches('/').to_owned());
        let (stopping, _) = watch::channel(false);
        AppState {
            inner: Arc::new(Shared {
                store,
                tokens: Tokens::new(tokens),
                settings,
                validation: Arc::new(Validation::new()),
                stopping,
                long_polls: LongPolls::default(),
                agui_wake: tokio::sync::Notify::new(),
            }),
        }
    }

    pub(crate) fn allowed_hosts(&self) -> &AllowedHosts {
        &self.inner.settings.allowed_hosts
    }

    /// How long a door waits for a whole request body.
    pub(crate) fn body_read_timeout(&self) -> Duration {
        self.inner.settings.body_read_timeout
    }

    /// The longest a callback ticket lives, whatever its question's deadline.
    pub(crate) fn ticket_max_ttl(&self) -> Duration {
        self.inner.settings.ticket_max_ttl
    }

    /// The park retention horizon asks are checked against.
    pub(crate) fn park_retention(&self) -> Retention {
        self.inner.settings.park_retention
    }

    /// The doors that answer without a token.
    pub(crate) fn public_doors(&self) -> &PublicDoors {
        &self.inner.settings.public_doors
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.inner.store
    }

    pub(crate) fn tokens(&self) -> &Tokens {
        &self.inner.tokens
    }

    /// `None` when the server has no public URL (external questions are refused).
    pub fn public_base_url(&self) -> Option<&str> {
        self.inner.settings.public_base_url.as_deref()
    }

    /// Schema compilation and validation, off the async runtime.
    pub fn validation(&self) -> &Arc<Validation> {
        &self.inner.validation
    }

    pub fn keepalive(&self) -> Duration {
        self.inner.settings.keepalive
    }

    /// The long-polls listening on the live bus.
    pub(crate) fn long_polls(&self) -> &LongPolls {
        &self.inner.long_polls
    }

    /// Tell the AG-UI driver a turn was queued.
    pub(crate) fn wake_agui(&self) {
        self.inner.agui_wake.notify_one();
    }

    /// Resolves when [`AppState::wake_agui`] is rung.
    pub(crate) async fn agui_woken(&self) {
        self.inner.agui_wake.notified().await;
    }

    /// Ask open streams and long-polls to finish.
    pub fn begin_shutdown(&self) {
        self.inner.stopping.send_replace(true);
    }

    /// Resolves once [`AppState::begin_shutdown`] has been called.
    pub fn stopping(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut rx = self.inner.stopping.subscribe();
        async move {
            // An error means the sender is gone: the server is gone too.
            let _ = rx.wait_for(|stopping| *stopping).await;
        }
    }
}
