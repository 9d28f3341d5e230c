//! What every door shares: the store, the principals, the public origin and the stream tuning.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::auth::Tokens;
use crate::config::TokenSpec;
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
    public_base_url: String,
    keepalive: Duration,
    validation: Arc<Validation>,
    /// Flips to `true` when the server stops, so open streams and long-polls end and the
    /// graceful shutdown does not wait on them forever.
    stopping: watch::Sender<bool>,
}

impl AppState {
    /// `public_base_url` is the origin external callback URLs are built on (no trailing `/`).
    pub fn new(store: Arc<dyn Store>, tokens: Vec<TokenSpec>, public_base_url: &str) -> Self {
        AppState::with_keepalive(store, tokens, public_base_url, Duration::from_secs(15))
    }

    pub fn with_keepalive(
        store: Arc<dyn Store>,
        tokens: Vec<TokenSpec>,
        public_base_url: &str,
        keepalive: Duration,
    ) -> Self {
        let (stopping, _) = watch::channel(false);
        AppState {
            inner: Arc::new(Shared {
                store,
                tokens: Tokens::new(tokens),
                public_base_url: public_base_url.trim_end_matches('/').to_owned(),
                keepalive,
                validation: Arc::new(Validation::new()),
                stopping,
            }),
        }
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.inner.store
    }

    pub(crate) fn tokens(&self) -> &Tokens {
        &self.inner.tokens
    }

    pub fn public_base_url(&self) -> &str {
        &self.inner.public_base_url
    }

    /// Schema compilation and validation, off the async runtime.
    pub fn validation(&self) -> &Arc<Validation> {
        &self.inner.validation
    }

    pub fn keepalive(&self) -> Duration {
        self.inner.keepalive
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
