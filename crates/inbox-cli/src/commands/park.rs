//! `inbox park` — park async questions and take their resume: `create`, `show`, `wait`,
//! `claim`.

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use inbox_client::{ApiClient, ParkWait, new_idempotency_key};
use inbox_protocol::caps::WAIT_MAX_SECONDS;
use inbox_protocol::{Continuation, ParkRequest, ParkResponse};

use crate::commands::{parse_json_flag, print_json};
use crate::connection::{Acting, ConnectionArgs};
use crate::exit;

/// Park async questions and take their resume once they have all resolved.
///
/// Exit codes: 0 done (for `wait`: every question resolved), 13 parked (`create`; `wait` whose
/// --timeout passed first), 1 error (including a claim already taken or not yet resolved).
#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// Park questions: `--asks` is a JSON array of asks (each mode "async" with expiry_at), or
    /// a whole park request `{"asks": […], "continuation": …, "metadata": …}`; @file reads one.
    Create {
        #[arg(long)]
        asks: String,
        /// Resume by POSTing the resolved park to this URL (https, or http to loopback);
        /// without it the resume is claimed (`inbox park claim`).
        #[arg(long)]
        webhook: Option<String>,
        #[command(flatten)]
        conn: ConnectionArgs,
    },
    /// Print a park as JSON.
    Show {
        /// Park id (`pk_…`).
        id: String,
        #[command(flatten)]
        conn: ConnectionArgs,
    },
    /// Wait until every question of the park has resolved, then print it.
    Wait {
        id: String,
        /// Give up after this many seconds (exit 13); without it, wait as long as it takes.
        #[arg(long = "timeout")]
        timeout_s: Option<u64>,
        #[command(flatten)]
        conn: ConnectionArgs,
    },
    /// Take the resume of a resolved park: prints it with every resolution. Only one claim
    /// wins; repeating it with the same --idempotency-key prints the same park again.
    Claim {
        id: String,
        #[arg(long)]
        idempotency_key: Option<String>,
        #[command(flatten)]
        conn: ConnectionArgs,
    },
}

pub async fn run(command: Command) -> anyhow::Result<u8> {
    match command {
        Command::Create {
            asks,
            webhook,
            conn,
        } => {
            let mut req = parse_request(&asks)?;
            if let Some(url) = webhook {
                req.continuation = Some(Continuation::Webhook { url });
            }
            let park = conn.client(Acting::Asker)?.park(&req).await?;
            eprintln!(
                "parked {} ({} questions): resume with `inbox park wait {}`",
                park.id,
                park.interactions.len(),
                park.id
            );
            print_json(&ParkResponse { park })?;
            Ok(exit::PARKED)
        }
        Command::Show { id, conn } => {
            let park = conn.client(Acting::Asker)?.get_park(&id).await?;
            print_json(&ParkResponse { park })?;
            Ok(exit::ANSWERED)
        }
        Command::Wait {
            id,
            timeout_s,
            conn,
        } => {
            let client = conn.client(Acting::Asker)?;
            let limit = timeout_s.map(Duration::from_secs);
            match wait(&client, &id, limit).await? {
                ParkWait::Resolved(park) => {
                    print_json(&ParkResponse { park: *park })?;
                    Ok(exit::ANSWERED)
                }
                ParkWait::Parked(park) => {
                    eprintln!(
                        "still parked: {} of {} resolved",
                        park.resolutions.len(),
                        park.interactions.len()
                    );
                    print_json(&ParkResponse { park: *park })?;
                    Ok(exit::PARKED)
                }
            }
        }
        Command::Claim {
            id,
            idempotency_key,
            conn,
        } => {
            let key = idempotency_key.unwrap_or_else(new_idempotency_key);
            let park = conn.client(Acting::Asker)?.claim_park(&id, &key).await?;
            print_json(&ParkResponse { park })?;
            Ok(exit::ANSWERED)
        }
    }
}

/// A JSON array is the asks alone; an object is a whole park request.
fn parse_request(text: &str) -> anyhow::Result<ParkRequest> {
    let value = parse_json_flag("asks", text)?;
    let req = if value.is_array() {
        ParkRequest {
            asks: serde_json::from_value(value).context("--asks: not a list of asks")?,
            ..ParkRequest::default()
        }
    } else {
        serde_json::from_value(value).context("--asks: not a park request")?
    };
    Ok(req)
}

/// Long-poll in windows of at most `WAIT_MAX_SECONDS` until resolved or `limit` has passed.
async fn wait(client: &ApiClient, id: &str, limit: Option<Duration>) -> anyhow::Result<ParkWait> {
    let started = Instant::now();
    let mut failures = 0u32;
    loop {
        let left = limit.map(|l| l.saturating_sub(started.elapsed()));
        let window = left
            .unwrap_or(Duration::MAX)
            .min(Duration::from_secs(WAIT_MAX_SECONDS))
            .max(Duration::from_secs(1));
        match client.wait_park(id, window).await {
            Ok(ParkWait::Parked(park)) if left.is_some_and(|l| l <= window) => {
                return Ok(ParkWait::Parked(park));
            }
            Ok(ParkWait::Parked(_)) => failures = 0,
            Ok(resolved) => return Ok(resolved),
            // A restarting server is not the end of the wait.
            Err(e) if e.is_transport() && failures < 60 => {
                failures += 1;
                tracing::warn!("waiting for {id}: {e}; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            Err(e) => bail!(e),
        }
    }
}
