//! `inbox` — ask, list, answer and serve interactions from a terminal.

mod commands;
mod connection;
mod exit;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "inbox",
    version,
    about = "Ask people questions and answer them: the Interactions Inbox from a terminal",
    long_about = "Ask people questions and answer them: the Interactions Inbox from a terminal.\n\n\
        `inbox serve` runs the interactions server (SQLite in a data dir, loopback by default).\n\
        `inbox mcp` serves the inbox to MCP hosts (ask_user, notify_user); `inbox mcp proxy` answers\n\
        another MCP server's elicitations through it.\n\
        Every other command talks to a server: --url / INBOX_URL and --token / INBOX_TOKEN.\n\
        Given none of --url, --token, --data-dir, the desktop app running on this machine is\n\
        found through its discovery file ($XDG_DATA_HOME/interactions-inbox/desktop-server.json);\n\
        with no app, http://127.0.0.1:8790 and the tokens a local `inbox serve` generated in\n\
        its data dir are used.\n\
        Plain http:// is refused to any host but this machine unless --allow-insecure-http is\n\
        given; HTTP_PROXY/HTTPS_PROXY/ALL_PROXY/NO_PROXY are followed, but never to loopback."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Serve(commands::serve::Args),
    Ask(commands::ask::Args),
    #[command(subcommand)]
    Park(commands::park::Command),
    Notify(commands::notify::Args),
    #[command(subcommand)]
    Agui(commands::agui::Command),
    List(commands::list::Args),
    Show(commands::show::Args),
    Answer(commands::answer::Args),
    Decline(commands::answer::DeclineArgs),
    Withdraw(commands::show::WithdrawArgs),
    Demo(commands::demo::Args),
    Tail(commands::tail::Args),
    #[command(subcommand)]
    Webhook(commands::webhook::Command),
    Mcp(commands::mcp::Args),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("INBOX_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: could not start the async runtime: {e}");
            return exit::ERROR.into();
        }
    };
    let result = runtime.block_on(async move {
        match cli.command {
            Command::Serve(args) => commands::serve::run(args).await,
            Command::Ask(args) => commands::ask::run(args).await,
            Command::Park(args) => commands::park::run(args).await,
            Command::Notify(args) => commands::notify::run(args).await,
            Command::Agui(args) => commands::agui::run(args).await,
            Command::List(args) => commands::list::run(args).await,
            Command::Show(args) => commands::show::run(args).await,
            Command::Answer(args) => commands::answer::run(args).await,
            Command::Decline(args) => commands::answer::run_decline(args).await,
            Command::Withdraw(args) => commands::show::run_withdraw(args).await,
            Command::Demo(args) => commands::demo::run(args).await,
            Command::Tail(args) => commands::tail::run(args).await,
            Command::Webhook(args) => commands::webhook::run(args).await,
            Command::Mcp(args) => commands::mcp::run(args).await,
        }
    });
    match result {
        Ok(code) => code.into(),
        Err(e) => {
            eprintln!("error: {e:#}");
            exit::ERROR.into()
        }
    }
}
