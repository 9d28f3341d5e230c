//! `inbox serve` — run the interactions server.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use inbox_server::{ServerConfig, TokenSpec};

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
    /// Public origin used to build external callback URLs (default: the bound address).
    #[arg(long, env = "INBOX_PUBLIC_URL")]
    public_url: Option<String>,
    /// How many recent events the stream keeps for resuming clients.
    #[arg(long, env = "INBOX_EVENTS_RETENTION", default_value_t = 10_000)]
    events_retention: usize,
    /// Seconds between expiry sweeps.
    #[arg(long, default_value_t = 1)]
    sweep_interval_s: u64,
    /// Keep everything in this Redis 7 (redis://host:port[/db]) instead of the embedded SQLite
    /// store, so several workers can serve one inbox.
    #[arg(long = "redis", env = "INBOX_REDIS_URL", hide_env_values = true)]
    redis_url: Option<String>,
}

pub async fn run(args: Args) -> anyhow::Result<u8> {
    let data_dir = args.data_dir.unwrap_or_else(default_data_dir);
    let mut config = ServerConfig::new(args.bind, data_dir.clone());
    config.tokens = args.tokens;
    config.public_url = args.public_url;
    config.events_retention = args.events_retention;
    config.sweep_interval = Duration::from_secs(args.sweep_interval_s.max(1));
    config.redis_url = args.redis_url;
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
