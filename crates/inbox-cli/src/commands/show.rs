//! `inbox show` and `inbox withdraw`.

use crate::commands::print_json;
use crate::connection::{Acting, ConnectionArgs};
use crate::exit;

/// Print one interaction as JSON.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Interaction id (`ia_…`).
    id: String,
    /// Act as the asker (to read your own question) instead of the reviewer.
    #[arg(long)]
    as_asker: bool,
    #[command(flatten)]
    conn: ConnectionArgs,
}

pub async fn run(args: Args) -> anyhow::Result<u8> {
    let acting = if args.as_asker {
        Acting::Asker
    } else {
        Acting::Reviewer
    };
    let client = args.conn.client(acting)?;
    print_json(&client.get(&args.id).await?)?;
    Ok(exit::ANSWERED)
}

/// Withdraw a question you asked (it becomes `cancelled`).
#[derive(clap::Args, Debug)]
pub struct WithdrawArgs {
    /// Interaction id (`ia_…`).
    id: String,
    #[command(flatten)]
    conn: ConnectionArgs,
}

pub async fn run_withdraw(args: WithdrawArgs) -> anyhow::Result<u8> {
    let client = args.conn.client(Acting::Asker)?;
    let ia = client.withdraw(&args.id).await?;
    eprintln!("withdrawn: {} is now {}", ia.id, ia.status.as_str());
    Ok(exit::ANSWERED)
}
