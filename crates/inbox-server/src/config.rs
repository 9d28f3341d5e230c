//! How the server is configured: where it listens, where it keeps data, who may call it.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::public_doors::PublicDoors;

/// `--park-retention` when not given: 30 days.
pub const DEFAULT_PARK_RETENTION: Duration = Duration::from_secs(30 * 24 * 3600);

/// Everything `start` needs. Build with [`ServerConfig::new`] and adjust the public fields.
#[derive(Clone)]
pub struct ServerConfig {
    pub bind: SocketAddr,
    /// Holds the SQLite database and, when `tokens` is empty, the generated `tokens.json`.
    pub data_dir: PathBuf,
    /// Principals; empty means "generate a reviewer and an asker token on first start".
    pub tokens: Vec<TokenSpec>,
    /// The origin other parties reach this server at (used in external callback URLs). Must
    /// be `https://`, except on a loopback host. `None` falls back to the bound address when
    /// that is loopback; otherwise external questions are refused.
    pub public_url: Option<String>,
    /// How many recent events the stream can resume from.
    pub events_retention: usize,
    /// How often pending questions past their deadline are expired.
    pub sweep_interval: Duration,
    /// How often an idle stream sends a keepalive comment.
    pub keepalive: Duration,
    /// Keep everything in this Redis 7 (`redis://host:port[/db]`) instead of the embedded
    /// SQLite store, so several workers can serve one inbox. Never logged: it may hold a password.
    pub redis_url: Option<String>,
    /// The prefix of every Redis key, so several inboxes (or tests) can share one Redis.
    pub redis_prefix: String,
    /// Extra `Host` names served besides the bind address and the public URL's host
    /// (`name` matches every port, `name:port` only that port). See `hosts.rs`.
    pub allowed_hosts: Vec<String>,
    /// Once a request's first byte arrives, its whole head must arrive within this.
    pub header_read_timeout: Duration,
    /// A request body must arrive whole within this, counted from when a door starts reading it.
    pub body_read_timeout: Duration,
    /// A connection with no request in flight and nothing received for this long is closed.
    /// An open stream or long-poll is in flight, so it is never cut.
    pub idle_timeout: Duration,
    /// A connection whose client has taken no byte for this long while a response waits to
    /// go out (e.g. a stream subscriber that stopped reading) is closed.
    pub send_timeout: Duration,
    /// Connections served at once; more wait in the listen backlog until one closes.
    pub max_connections: usize,
    /// The longest a callback ticket lives; it dies sooner with its question's deadline.
    pub ticket_max_ttl: Duration,
    /// How long a resolved question is kept before the sweeper prunes it (with its media,
    /// ticket and idempotency records); `None` keeps everything forever.
    pub resolved_retention: Option<Duration>,
    /// How far ahead a park's `expiry_at` may lie; `None` keeps parks forever (no horizon).
    pub park_retention: Option<Duration>,
    /// How long a park that has left `parked` is kept after its last step before the sweeper
    /// prunes it (with its resolutions and delivery); `None` keeps them forever.
    pub resolved_park_retention: Option<Duration>,
    /// The webhook signing secret, `whsec_<base64>`; `None` → generated into the data dir.
    /// Several Redis workers must share one.
    pub webhook_secret: Option<String>,
    /// Attempts, backoff and lease of webhook deliveries.
    pub webhook: crate::webhook::dispatcher::Policy,
    /// Retries, timeouts and default question deadline of the AG-UI driver.
    pub agui: crate::agui::Policy,
    /// The doors that answer without a bearer token (default: media, callback, health). A door
    /// left out needs a token of any role; see `public_doors.rs`.
    pub public_doors: PublicDoors,
}

// Written by hand so the Redis URL (which may carry a password) and the token secrets can never
// reach a log through `{:?}`.
impl std::fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerConfig")
            .field("bind", &self.bind)
            .field("data_dir", &self.data_dir)
            .field("tokens", &self.tokens)
            .field("public_url", &self.public_url)
            .field("events_retention", &self.events_retention)
            .field("sweep_interval", &self.sweep_interval)
            .field("keepalive", &self.keepalive)
            .field("redis_url", &self.redis_url.as_ref().map(|_| "<redacted>"))
            .field("redis_prefix", &self.redis_prefix)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("header_read_timeout", &self.header_read_timeout)
            .field("body_read_timeout", &self.body_read_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("send_timeout", &self.send_timeout)
            .field("max_connections", &self.max_connections)
            .field("ticket_max_ttl", &self.ticket_max_ttl)
            .field("resolved_retention", &self.resolved_retention)
            .field("park_retention", &self.park_retention)
            .field("resolved_park_retention", &self.resolved_park_retention)
            .field(
                "webhook_secret",
                &self.webhook_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("webhook", &self.webhook)
            .field("agui", &self.agui)
            .field("public_doors", &self.public_doors)
            .finish()
    }
}

impl ServerConfig {
    pub fn new(bind: SocketAddr, data_dir: PathBuf) -> Self {
        ServerConfig {
            bind,
            data_dir,
            tokens: Vec::new(),
            public_url: None,
            events_retention: 10_000,
            sweep_interval: Duration::from_secs(1),
            keepalive: Duration::from_secs(15),
            redis_url: None,
            redis_prefix: crate::store::redis::DEFAULT_PREFIX.to_owned(),
            allowed_hosts: Vec::new(),
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            send_timeout: Duration::from_secs(30),
            max_connections: 512,
            ticket_max_ttl: crate::ticket::DEFAULT_MAX_TTL,
            resolved_retention: Some(Duration::from_secs(30 * 24 * 3600)),
            park_retention: Some(DEFAULT_PARK_RETENTION),
            resolved_park_retention: Some(Duration::from_secs(30 * 24 * 3600)),
            webhook_secret: None,
            webhook: crate::webhook::dispatcher::Policy::default(),
            agui: crate::agui::Policy::default(),
            public_doors: PublicDoors::default(),
        }
    }
}

/// What a principal may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Lists, streams, reads, answers and declines.
    Reviewer,
    /// Asks, waits on and withdraws its own questions.
    Asker,
    /// Everything.
    Admin,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Reviewer => "reviewer",
            Role::Asker => "asker",
            Role::Admin => "admin",
        }
    }
}

inbox_protocol::display_as_str!(Role);

impl FromStr for Role {
    type Err = TokenSpecError;

    /// The role [`Role::as_str`] names: the names are written once, there.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [Role::Reviewer, Role::Asker, Role::Admin]
            .into_iter()
            .find(|role| role.as_str() == s)
            .ok_or_else(|| TokenSpecError::UnknownRole(s.to_owned()))
    }
}

/// One principal: a display name, a role and the bearer secret that proves it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenSpec {
    pub name: String,
    pub role: Role,
    pub secret: String,
}

// Hand-written so that a stray `{:?}` can never print a secret.
impl std::fmt::Debug for TokenSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenSpec")
            .field("name", &self.name)
            .field("role", &self.role)
            .field("secret", &"<redacted>")
            .finish()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenSpecError {
    #[error("a token is written NAME:ROLE:SECRET")]
    Shape,
    #[error("unknown role `{0}` (reviewer, asker or admin)")]
    UnknownRole(String),
    #[error("a token's name and secret must not be empty")]
    Empty,
}

impl FromStr for TokenSpec {
    type Err = TokenSpecError;

    /// `name:role:secret`; the secret is everything after the second colon.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut parts = s.splitn(3, ':');
        let (Some(name), Some(role), Some(secret)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(TokenSpecError::Shape);
        };
        if name.is_empty() || secret.is_empty() {
            return Err(TokenSpecError::Empty);
        }
        Ok(TokenSpec {
            name: name.to_owned(),
            role: role.parse()?,
            secret: secret.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_spec_parses_name_role_and_a_secret_with_colons() {
        let spec: TokenSpec = "alice:reviewer:s3:cr:et".parse().unwrap();
        assert_eq!(spec.name, "alice");
        assert_eq!(spec.role, Role::Reviewer);
        assert_eq!(spec.secret, "s3:cr:et");
    }

    #[test]
    fn token_spec_refuses_bad_shapes() {
        assert_eq!("alice".parse::<TokenSpec>(), Err(TokenSpecError::Shape));
        assert_eq!(
            "alice:boss:x".parse::<TokenSpec>(),
            Err(TokenSpecError::UnknownRole("boss".into()))
        );
        assert_eq!(":asker:x".parse::<TokenSpec>(), Err(TokenSpecError::Empty));
        assert_eq!("a:asker:".parse::<TokenSpec>(), Err(TokenSpecError::Empty));
    }

    #[test]
    fn debug_never_shows_the_secret() {
        let spec: TokenSpec = "bot:asker:topsecret".parse().unwrap();
        assert!(!format!("{spec:?}").contains("topsecret"));
    }

    #[test]
    fn every_role_parses_from_its_name() {
        for role in [Role::Reviewer, Role::Asker, Role::Admin] {
            assert_eq!(role.as_str().parse::<Role>(), Ok(role), "{role}");
        }
    }
}
