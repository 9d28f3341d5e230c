//! `inbox list` — the paged list, as a table or JSON lines.

use inbox_protocol::StatusFilter;

use crate::connection::{Acting, ConnectionArgs};
use crate::exit;

/// List interactions (pending by default), newest first.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// pending, answered, declined, expired, cancelled or all.
    #[arg(long, default_value = "pending", value_parser = parse_status)]
    status: StatusFilter,
    /// Stop after this many items (default: every page).
    #[arg(long)]
    limit: Option<usize>,
    /// Print one JSON object per line instead of a table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    conn: ConnectionArgs,
}

fn parse_status(s: &str) -> Result<StatusFilter, String> {
    StatusFilter::parse(s).ok_or_else(|| {
        format!("unknown status `{s}`: use pending, answered, declined, expired, cancelled or all")
    })
}

pub async fn run(args: Args) -> anyhow::Result<u8> {
    let client = args.conn.client(Acting::Reviewer)?;
    let mut cursor: Option<String> = None;
    let mut shown = 0usize;
    if !args.json {
        println!(
            "{:<28} {:<10} {:<9} {:<16} PROMPT",
            "ID", "STATUS", "FORMAT", "ASKER"
        );
    }
    loop {
        let page = client
            .list(
                args.status,
                Some(inbox_protocol::caps::PAGE_LIMIT_MAX),
                cursor.as_deref(),
            )
            .await?;
        for ia in &page.items {
            if args.limit.is_some_and(|l| shown >= l) {
                return Ok(exit::ANSWERED);
            }
            if args.json {
                println!("{}", serde_json::to_string(ia)?);
            } else {
                let first_line = ia.prompt.lines().next().unwrap_or("");
                println!(
                    "{:<28} {:<10} {:<9} {:<16} {}",
                    ia.id,
                    ia.status.as_str(),
                    ia.answer_format.as_str(),
                    ia.asker,
                    truncate(first_line, 60)
                );
            }
            shown += 1;
        }
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    Ok(exit::ANSWERED)
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let cut: String = s.chars().take(max - 1).collect();
        format!("{cut}…")
    }
}
