//! How the server is configured: where it listens, where it keeps data, who may call it.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::listener::ConnectionLimits;
use crate::public_doors::PublicDoors;
use crate::sweeper::Retentions;

/// `--park-retention` when not given: 30 days.
pub const DEFAULT_PARK_RETENTION: Duration = Duration::from_secs(30 * 24 * 3600);

/// `--resolved-retention` and `--resolved-park-retention` when not given: 30 days.
const SETTLED_RETENTION: Duration = Duration::from_secs(30 * 24 * 3600);

/// Everything `start` needs. Build with [`ServerConfig::new`] and adjust the public fields.
/// `Debug` is derived: the fields that may carry a password are [`Secret`]s, which never print.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    // Where it listens, and who may reach it there.
    pub bind: SocketAddr,
    /// The origin other parties reach this server at (used in external callback URLs). Must
    /// be `https://`, except on a loopback host. `None` falls back to the bound address when
    /// that is loopback; otherwise external questions are refused.
    pub public_url: Option<String>,
    /// Extra `Host` names served besides the bind address and the public URL's host
    /// (`name` matches every port, `name:port` only that port). See `hosts.rs`.
    pub allowed_hosts: Vec<String>,
    /// The doors that answer without a bearer token (default: media, callback, health). A door
    /// left out needs a token of any role; see `public_doors.rs`.
    pub public_doors: PublicDoors,
    /// Principals; empty means "generate a reviewer and an asker token on first start".
    pub tokens: Vec<TokenSpec>,

    // Where it keeps what it is given.
    /// Holds the SQLite database and, when `tokens` is empty, the generated `tokens.json`.
    pub data_dir: PathBuf,
    /// Keep everything in this Redis instead of the embedded SQLite store, so several workers
    /// can serve one inbox.
    pub redis: Option<RedisConfig>,

    // How long a connection, a request and the stream may take.
    /// How many connections are served at once and when one is closed for what it does not
    /// send or take (the header read, idle and send timeouts); see `listener.rs`.
    pub connections: ConnectionLimits,
    /// A request body must arrive whole within this, counted from when a door starts reading it.
    pub body_read_timeout: Duration,
    /// How often an idle stream sends a keepalive comment.
    pub keepalive: Duration,
    /// How many recent events the stream can resume from.
    pub events_retention: usize,

    // How long what it keeps lives.
    /// The longest a callback ticket lives; it dies sooner with its question's deadline.
    pub ticket_max_ttl: Duration,
    /// How far ahead a park's `expiry_at` may lie; `None` keeps parks forever (no horizon).
    pub park_retention: Option<Duration>,
    /// How often pending questions past their deadline are expired (and what is due is pruned).
    pub sweep_interval: Duration,
    /// How long what has settled (resolved questions with their media, ticket and idempotency
    /// records; parks that left `parked`, with their resolutions and delivery) is kept before
    /// the sweeper prunes it.
    pub retentions: Retentions,

    // What it sends out.
    /// The webhook signing secret, `whsec_<base64>`; `None` → generated into the data dir.
    /// Several Redis workers must share one.
    pub webhook_secret: Option<Secret>,
    /// Attempts, backoff and lease of webhook deliveries.
    pub webhook: crate::webhook::dispatcher::Policy,
    /// Retries, timeouts and default question deadline of the AG-UI driver.
    pub agui: crate::agui::Policy,
}

impl ServerConfig {
    pub fn new(bind: SocketAddr, data_dir: PathBuf) -> Self {
        ServerConfig {
            bind,
            public_url: None,
            allowed_hosts: Vec::new(),
            public_doors: PublicDoors::default(),
            tokens: Vec::new(),
            data_dir,
            redis: None,
            connections: ConnectionLimits {
                header_read_timeout: Duration::from_secs(10),
                idle_timeout: Duration::from_secs(60),
                send_timeout: Duration::from_secs(30),
                max_connections: 512,
            },
            body_read_timeout: Duration::from_secs(30),
            keepalive: Duration::from_secs(15),
            events_retention: 10_000,
            ticket_max_ttl: crate::ticket::DEFAULT_MAX_TTL,
            park_retention: Some(DEFAULT_PARK_RETENTION),
            sweep_interval: Duration::from_secs(1),
            retentions: Retentions {
                resolved: Some(SETTLED_RETENTION),
                resolved_parks: Some(SETTLED_RETENTION),
            },
            webhook_secret: None,
            webhook: crate::webhook::dispatcher::Policy::default(),
            agui: crate::agui::Policy::default(),
        }
    }
}

/// Where a Redis-backed inbox keeps everything.
#[derive(Debug, Clone)]
pub struct RedisConfig {
    /// `redis://host:port[/db]` of a Redis 7. A secret: it may hold a password.
    pub url: Secret,
    /// The prefix of every key, so several inboxes (or tests) can share one Redis; every
    /// worker of one inbox uses the same.
    pub prefix: String,
}

impl RedisConfig {
    /// `url` with the default key prefix.
    pub fn new(url: impl Into<Secret>) -> Self {
        RedisConfig {
            url: url.into(),
            prefix: crate::store::redis::DEFAULT_PREFIX.to_owned(),
        }
    }
}

/// A setting that must never reach a log: its `Debug` prints `<redacted>`, and only
/// [`Secret::expose`] reads it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// The value itself, for the one place that uses it (connecting, signing) — nowhere else.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Secret(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Secret(value.to_owned())
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
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
    fn debug_never_shows_the_redis_url_or_the_webhook_secret() {
        let mut config = ServerConfig::new("127.0.0.1:0".parse().unwrap(), "/x".into());
        config.redis = Some(RedisConfig::new("redis://:hunter2@redis.internal:6379"));
        config.webhook_secret = Some("whsec_c2VjcmV0LXNpZ25pbmcta2V5".into());
        let shown = format!("{config:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(!shown.contains("whsec_"), "{shown}");
        assert!(shown.contains("url: <redacted>"), "{shown}");
    }

    #[test]
    fn every_role_parses_from_its_name() {
        for role in [Role::Reviewer, Role::Asker, Role::Admin] {
            assert_eq!(role.as_str().parse::<Role>(), Ok(role), "{role}");
        }
    }
}
