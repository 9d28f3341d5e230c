//! `inbox serve` — run the interactions server.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use inbox_server::{ConnectionLimits, PublicDoors, RedisConfig, Secret, ServerConfig, TokenSpec};

use crate::connection::default_data_dir;
use crate::exit;

/// Run the interactions server (embedded SQLite store; loopback by default).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Address to listen on. Keep it on loopback unless a TLS proxy sits in front.
    #[arg(long, env = "INBOX_BIND", default_value = "127.0.0.1:8790")]
    bind: SocketAddr,
    /// Where the SQLite database, stored media and generated tokens live.
    #[arg(long, env = "INBOX_DATA_DIR")]
    data_dir: Option<PathBuf>,
    /// A principal as NAME:ROLE:SECRET (ROLE is reviewer, asker or admin); repeatable.
    /// Without any, the first start generates a reviewer and an asker token into the data dir.
    #[arg(
        long = "token",
        env = "INBOX_TOKENS",
        value_delimiter = ',',
        hide_env_values = true
    )]
    tokens: Vec<TokenSpec>,
    /// Public origin used to build external callback URLs: https://, except for a loopback host
    /// (default: the bound address when that is loopback). `INBOX_PUBLIC_URL` is read too.
    #[arg(long, env = "INTERACTIONS_PUBLIC_BASE_URL")]
    public_url: Option<String>,
    /// The longest a callback ticket lives, in seconds (it dies sooner with its question).
    #[arg(long, env = "INBOX_TICKET_MAX_TTL_S", default_value_t = 30 * 24 * 3600)]
    ticket_max_ttl_s: u64,
    /// How long an answered, declined, expired or withdrawn question is kept (with its media,
    /// ticket and idempotency records) before it is pruned: `30d`, `12h`, `90m`, `3600s`
    /// (a bare number is seconds), or `forever`.
    #[arg(long, env = "INBOX_RESOLVED_RETENTION", default_value = "30d", value_parser = parse_retention)]
    resolved_retention: Retention,
    /// How far ahead a park's expiry_at may lie: `30d`, `12h`, `90m`, `3600s` (a bare number
    /// is seconds), or `forever` (no horizon). An ask beyond it is refused, 400 beyond_retention.
    #[arg(long, env = "INBOX_PARK_RETENTION", default_value = "30d", value_parser = parse_retention)]
    park_retention: Retention,
    /// How long a park that has left `parked` is kept (with its resolutions, queued delivery
    /// and lease) after its last step (resolved, or resumed when it was), then pruned: `30d`,
    /// `12h`, `90m`, `3600s` (a bare number is seconds), or `forever`. A park whose webhook
    /// resume is still being delivered is kept until that is over.
    #[arg(long, env = "INBOX_RESOLVED_PARK_RETENTION", default_value = "30d", value_parser = parse_retention)]
    resolved_park_retention: Retention,
    /// The secret webhook continuations are signed with (Standard Webhooks), `whsec_<base64>`.
    /// Without it one is generated into the data dir (`webhook_secret`, mode 0600); several
    /// Redis workers must be given the same one.
    #[arg(long, env = "INBOX_WEBHOOK_SECRET", hide_env_values = true)]
    webhook_secret: Option<String>,
    /// Seconds a worker holds a webhook delivery's lease: if it dies mid-delivery, another
    /// worker takes the delivery over (same webhook-id) once this has passed.
    #[arg(long, env = "INBOX_WEBHOOK_LEASE_S", default_value_t = 30)]
    webhook_lease_s: u64,
    /// Seconds one webhook delivery attempt may take before it counts as failed (and is
    /// retried). Keep it below --webhook-lease-s, or another worker may take over a slow one.
    #[arg(long, env = "INBOX_WEBHOOK_TIMEOUT_S", default_value_t = 10)]
    webhook_timeout_s: u64,
    /// How many webhook deliveries one worker sends at once (at least 1): a slow receiver
    /// holds one of them, not the whole queue.
    #[arg(long, env = "INBOX_WEBHOOK_CONCURRENCY", default_value_t = 16)]
    webhook_concurrency: usize,
    /// How many recent events the stream keeps for resuming clients.
    #[arg(long, env = "INBOX_EVENTS_RETENTION", default_value_t = 10_000)]
    events_retention: usize,
    /// Seconds one AG-UI turn (one request to the agent and its whole stream) may take. A
    /// worker that dies mid-turn leaves its lease to run out: this plus min(30 s, this), after
    /// which another worker sends the turn again.
    #[arg(long, env = "INBOX_AGUI_TURN_TIMEOUT_S", default_value_t = 600)]
    agui_turn_timeout_s: u64,
    /// Seconds between expiry sweeps.
    #[arg(long, default_value_t = 1)]
    sweep_interval_s: u64,
    /// Keep everything in this Redis 7 (redis://host:port[/db]) instead of the embedded SQLite
    /// store, so several workers can serve one inbox.
    #[arg(long = "redis", env = "INBOX_REDIS_URL", hide_env_values = true)]
    redis_url: Option<String>,
    /// The prefix of every key this inbox keeps in Redis, so several inboxes can share one
    /// Redis; every worker of one inbox must use the same.
    #[arg(long, env = "INBOX_REDIS_PREFIX", default_value = inbox_server::store::redis::DEFAULT_PREFIX)]
    redis_prefix: String,
    /// Another Host name this server answers to (`name`, or `name:port`); repeatable. The bind
    /// address and the public URL's host are always served; other names are refused (421).
    #[arg(
        long = "allowed-host",
        env = "INBOX_ALLOWED_HOSTS",
        value_delimiter = ','
    )]
    allowed_hosts: Vec<String>,
    /// Seconds a client has to send a whole request head once it has started one.
    #[arg(long, env = "INBOX_HEADER_READ_TIMEOUT_S", default_value_t = 10)]
    header_read_timeout_s: u64,
    /// Seconds a client has to send a whole request body once a door starts reading it.
    #[arg(long, env = "INBOX_BODY_READ_TIMEOUT_S", default_value_t = 30)]
    body_read_timeout_s: u64,
    /// Seconds an idle connection (no request in flight) stays open. Open streams are never idle.
    #[arg(long, env = "INBOX_IDLE_TIMEOUT_S", default_value_t = 60)]
    idle_timeout_s: u64,
    /// Seconds a client may take no byte while a response waits to go out (a stream subscriber
    /// that stopped reading) before its connection is closed.
    #[arg(long, env = "INBOX_SEND_TIMEOUT_S", default_value_t = 30)]
    send_timeout_s: u64,
    /// Connections served at once; more wait in the listen backlog until one closes.
    #[arg(long, env = "INBOX_MAX_CONNECTIONS", default_value_t = 512)]
    max_connections: usize,
    /// The doors that answer without a token, comma-separated, from media, callback and health
    /// (`none` for no public door). A door left out needs a reviewer, asker or admin token.
    #[arg(
        long,
        env = "INBOX_PUBLIC_DOORS",
        default_value = "media,callback,health"
    )]
    public_doors: PublicDoors,
}

/// `--park-retention`: a duration, or `None` for forever.
#[derive(Debug, Clone, Copy)]
struct Retention(Option<Duration>);

fn parse_retention(text: &str) -> Result<Retention, String> {
    if text == "forever" {
        return Ok(Retention(None));
    }
    let (digits, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let scale = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        _ => {
            return Err(format!(
                "`{text}`: use e.g. 30d, 12h, 90m, 3600s or forever"
            ));
        }
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{text}`: use e.g. 30d, 12h, 90m, 3600s or forever"))?;
    if n == 0 {
        return Err("the retention must be longer than zero (or `forever`)".into());
    }
    Ok(Retention(Some(Duration::from_secs(
        n.saturating_mul(scale),
    ))))
}

pub async fn run(args: Args) -> anyhow::Result<u8> {
    let data_dir = args.data_dir.unwrap_or_else(default_data_dir);
    let mut config = ServerConfig::new(args.bind, data_dir.clone());
    config.tokens = args.tokens;
    // The older name of the setting still works, so existing deployments keep their URL.
    config.public_url = args.public_url.or_else(|| {
        std::env::var("INBOX_PUBLIC_URL")
            .ok()
            .filter(|v| !v.is_empty())
    });
    config.ticket_max_ttl = Duration::from_secs(args.ticket_max_ttl_s.max(1));
    config.retentions.resolved = args.resolved_retention.0;
    config.events_retention = args.events_retention;
    config.park_retention = args.park_retention.0;
    config.retentions.resolved_parks = args.resolved_park_retention.0;
    config.webhook_secret = args.webhook_secret.map(Secret::from);
    config.webhook.lease = Duration::from_secs(args.webhook_lease_s.max(1));
    config.webhook.timeout = Duration::from_secs(args.webhook_timeout_s.max(1));
    config.webhook.concurrency = args.webhook_concurrency.max(1);
    config.sweep_interval = Duration::from_secs(args.sweep_interval_s.max(1));
    config.agui.turn_timeout = Duration::from_secs(args.agui_turn_timeout_s.max(1));
    config.redis = args.redis_url.map(|url| RedisConfig {
        url: url.into(),
        prefix: args.redis_prefix,
    });
    config.allowed_hosts = args.allowed_hosts;
    config.connections = ConnectionLimits {
        header_read_timeout: Duration::from_secs(args.header_read_timeout_s.max(1)),
        idle_timeout: Duration::from_secs(args.idle_timeout_s.max(1)),
        send_timeout: Duration::from_secs(args.send_timeout_s.max(1)),
        max_connections: args.max_connections.max(1),
    };
    config.body_read_timeout = Duration::from_secs(args.body_read_timeout_s.max(1));
    config.public_doors = args.public_doors;
    let server = inbox_server::start(config)
        .await
        .with_context(|| format!("starting the server on {}", args.bind))?;
    eprintln!("interactions server listening on {}", server.base_url);
    eprintln!("data dir: {}", data_dir.display());
    if let Some(file) = &server.tokens_file {
        eprintln!(
            "tokens: {} (mode 0600). Local `inbox` commands use them automatically;\n\
             for other programs: jq -r '.[] | select(.role==\"asker\") | .secret' {}",
            file.display(),
            file.display()
        );
    }
    server.wait().await.context("server stopped")?;
    Ok(exit::ANSWERED)
}
