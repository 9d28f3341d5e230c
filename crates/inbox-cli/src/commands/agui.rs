//! `inbox agui run URL --message "…"` — start an AG-UI run the server drives, print its
//! transcript as it grows and its final status.

use std::time::Duration;

use anyhow::bail;
use inbox_protocol::{AguiRunRequest, AguiRunStatus, AguiTranscriptItem};
use serde_json::json;

use crate::connection::{Acting, ConnectionArgs};
use crate::exit;

/// Drive an AG-UI agent through the inbox: its questions are asked in the inbox, and the
/// server resumes the agent with every answer.
///
/// Exit codes: 0 succeeded, 14 failed (the message is printed), 15 cancelled by the agent,
/// 1 error (server unreachable, request refused).
#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// Start a run and follow it to its end, printing the transcript as it grows (on stdout,
    /// one line per message or tool call) and the final status (on stderr).
    Run {
        /// The agent's AG-UI endpoint (http:// or https://).
        #[arg(value_name = "URL")]
        agent_url: String,
        /// The user message the run starts with.
        #[arg(long)]
        message: String,
        /// Continue this AG-UI thread (default: a fresh one).
        #[arg(long = "thread")]
        thread: Option<String>,
        /// Extra request header for the agent, `Name: value` (repeatable). Stored by the
        /// server as a secret: never shown or logged.
        #[arg(long = "header")]
        headers: Vec<String>,
        /// Start the run, print it as JSON and exit 0 without following it.
        #[arg(long)]
        no_follow: bool,
        #[command(flatten)]
        conn: ConnectionArgs,
    },
}

pub async fn run(command: Command) -> anyhow::Result<u8> {
    let Command::Run {
        agent_url,
        message,
        thread,
        headers,
        no_follow,
        conn,
    } = command;
    let mut header_map = std::collections::BTreeMap::new();
    for h in headers {
        let Some((name, value)) = h.split_once(':') else {
            bail!("--header must be `Name: value`");
        };
        header_map.insert(name.trim().to_owned(), value.trim().to_owned());
    }
    let input = json!({"messages": [{"id": "user-1", "role": "user", "content": message}]});
    let req = AguiRunRequest {
        agent_url,
        thread_id: thread,
        input: input.as_object().cloned().unwrap_or_default(),
        headers: (!header_map.is_empty()).then_some(header_map),
    };
    let client = conn.client(Acting::Asker)?;
    let mut run = client.start_agui_run(&req).await?;
    eprintln!("run {} started (thread {})", run.id, run.thread_id);
    if no_follow {
        crate::commands::print_json(&inbox_protocol::AguiRunResponse { run })?;
        return Ok(exit::ANSWERED);
    }
    let mut printed = 0;
    let mut last_park = None;
    loop {
        for item in run.transcript.iter().skip(printed) {
            match item {
                AguiTranscriptItem::Message { role, text, .. } => println!("{role}: {text}"),
                AguiTranscriptItem::ToolCall {
                    name, arguments, ..
                } => println!("tool call {name}({arguments})"),
            }
        }
        printed = run.transcript.len();
        if run.status == AguiRunStatus::Interrupted && run.park_id != last_park {
            last_park = run.park_id.clone();
            eprintln!(
                "waiting for answers in the inbox (park {})",
                run.park_id.as_deref().unwrap_or("?")
            );
        }
        if run.status.is_final() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        run = client.get_agui_run(&run.id).await?;
    }
    eprintln!("run {} {}", run.id, run.status.as_str());
    Ok(match run.status {
        AguiRunStatus::Succeeded => exit::ANSWERED,
        AguiRunStatus::Cancelled => exit::RUN_CANCELLED,
        _ => {
            if let Some(error) = &run.error {
                eprintln!("error: {error}");
            }
            exit::RUN_FAILED
        }
    })
}
