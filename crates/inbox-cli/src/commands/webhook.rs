//! `inbox webhook verify` — check that a webhook body was signed by an inbox server (a park's
//! resume), the way a receiver should before acting on it.

use std::io::Read;
use std::path::PathBuf;

use anyhow::Context;
use chrono::Utc;
use inbox_protocol::caps::SIGNATURE_TOLERANCE_SECONDS;
use inbox_server::webhook::verify::{SignedHeaders, VerifyError, secret_key, verify};

use crate::exit;

/// The largest body read: far above any resume the server sends, so a runaway pipe cannot
/// exhaust memory.
pub const BODY_MAX_BYTES: u64 = 16 * 1024 * 1024;

/// Webhooks the server sends (Standard Webhooks signed).
#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// Check a received body's Standard Webhooks signature and timestamp.
    ///
    /// The body is read raw (byte for byte as received) from --body FILE, or stdin. The three
    /// headers are given as flags. Exit codes: 0 the signature is valid and fresh; 20 it does
    /// not verify (no v1 tag matches, or the timestamp is not a number); 21 it verifies but the
    /// timestamp lies beyond --tolerance from this clock (a replay or a skewed clock); 1 error
    /// (no secret, a malformed secret, an unreadable or oversized body); 2 usage.
    Verify {
        /// The signing secret, `whsec_<base64>` (the server's `webhook_secret` file or
        /// --webhook-secret).
        #[arg(long, env = "INBOX_WEBHOOK_SECRET", hide_env_values = true)]
        secret: String,
        /// The `webhook-id` header.
        #[arg(long = "webhook-id", value_name = "ID")]
        id: String,
        /// The `webhook-timestamp` header (unix seconds).
        #[arg(long = "webhook-timestamp", value_name = "SECONDS")]
        timestamp: String,
        /// The `webhook-signature` header (`v1,<base64>`, several separated by spaces).
        #[arg(long = "webhook-signature", value_name = "SIGNATURES")]
        signature: String,
        /// Read the body from this file instead of stdin (`-` is stdin). At most 16 MiB.
        #[arg(long)]
        body: Option<PathBuf>,
        /// How far, in seconds, the timestamp may be from this machine's clock.
        #[arg(long, default_value_t = SIGNATURE_TOLERANCE_SECONDS)]
        tolerance: i64,
    },
}

pub async fn run(command: Command) -> anyhow::Result<u8> {
    match command {
        Command::Verify {
            secret,
            id,
            timestamp,
            signature,
            body,
            tolerance,
        } => {
            let key = secret_key(&secret)
                .context("--secret / INBOX_WEBHOOK_SECRET must be whsec_ followed by base64")?;
            let body = read_body(body.as_ref())?;
            let headers = SignedHeaders {
                id: &id,
                timestamp: &timestamp,
                signature: &signature,
            };
            Ok(match verify(&key, headers, &body, Utc::now(), tolerance) {
                Ok(()) => {
                    eprintln!("verified: {id} is signed by this secret");
                    exit::ANSWERED
                }
                Err(e @ VerifyError::OutsideTolerance { .. }) => {
                    eprintln!("refused: {e}");
                    exit::SIGNATURE_STALE
                }
                Err(e) => {
                    eprintln!("refused: {e}");
                    exit::SIGNATURE_INVALID
                }
            })
        }
    }
}

fn read_body(path: Option<&PathBuf>) -> anyhow::Result<Vec<u8>> {
    let mut body = Vec::new();
    let limit = BODY_MAX_BYTES + 1;
    match path.filter(|p| p.as_os_str() != "-") {
        Some(p) => std::fs::File::open(p)
            .with_context(|| format!("--body: cannot open {}", p.display()))?
            .take(limit)
            .read_to_end(&mut body)
            .with_context(|| format!("--body: cannot read {}", p.display()))?,
        None => std::io::stdin()
            .lock()
            .take(limit)
            .read_to_end(&mut body)
            .context("cannot read the body from stdin")?,
    };
    if body.len() as u64 > BODY_MAX_BYTES {
        anyhow::bail!("the body is larger than {BODY_MAX_BYTES} bytes; refusing to check it");
    }
    Ok(body)
}
