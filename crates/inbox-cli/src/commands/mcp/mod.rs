//! `inbox mcp` — the inbox for MCP hosts: a stdio tool server (`ask_user`, `notify_user`), and
//! `inbox mcp proxy`, which answers another MCP server's elicitations through the inbox.

mod ask_tool;
mod elicitation;
mod notify_tool;
mod proxy;
mod server;
mod tool;

use std::time::Duration;

use anyhow::Context as _;
use rmcp::ServiceExt as _;

use crate::connection::{Acting, ConnectionArgs};
use crate::exit;

/// Serve the inbox to an MCP host over stdio (JSON-RPC on stdin/stdout; logs on stderr).
///
/// Tools: `ask_user` (ask a question of any format and wait for the answer, with progress
/// notifications while it waits) and `notify_user` (an ask-less notification, returns at once).
/// Host config: {"command": "inbox", "args": ["mcp"]} (plus INBOX_URL / INBOX_TOKEN in its env
/// when the server is not the local `inbox serve`). Asks as the asker role.
///
/// `inbox mcp proxy -- CMD [ARGS…]` instead runs another MCP server behind this one and answers
/// its elicitation requests through the inbox.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    command: Option<McpCommand>,
    /// Seconds between progress notifications while `ask_user` waits (each is one long-poll).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=60))]
    progress_every: u64,
    #[command(flatten)]
    conn: ConnectionArgs,
}

#[derive(clap::Subcommand, Debug)]
enum McpCommand {
    Proxy(proxy::Args),
}

pub async fn run(args: Args) -> anyhow::Result<u8> {
    let client = args.conn.client(Acting::Asker)?;
    match args.command {
        Some(McpCommand::Proxy(proxy_args)) => proxy::run(proxy_args, client).await,
        None => {
            let tools = server::InboxTools::new(client, Duration::from_secs(args.progress_every));
            let running = tools
                .serve(rmcp::transport::stdio())
                .await
                .context("starting the MCP session on stdio")?;
            running
                .waiting()
                .await
                .context("the MCP session ended with an error")?;
            Ok(exit::ANSWERED)
        }
    }
}
