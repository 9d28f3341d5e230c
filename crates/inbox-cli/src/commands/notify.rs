//! `inbox notify` — send a notification and return at once; `inbox notify submissions ID`
//! reads (or follows) what people submitted to its form.

use std::collections::BTreeSet;
use std::io::Write;

use anyhow::{Context, bail};
use inbox_client::connection::{LinkState, Subscription, Update};
use inbox_client::stream::DEFAULT_KEEPALIVE_TIMEOUT;
use inbox_client::{ApiClient, BackoffPolicy, new_idempotency_key};
use inbox_protocol::{FormData, NotificationRequest, StreamEvent, Submission, SubmitRequest};
use serde_json::Value;

use crate::commands::media::media_flags;
use crate::commands::{parse_json_flag, parse_object_flag, print_json};
use crate::connection::{Acting, ConnectionArgs};
use crate::exit;

/// Send a notification: it shows in the inbox apart from the questions and nothing waits for
/// it. Prints its id and exits 0 at once. With --schema it offers a form; people may submit it
/// whenever they like, and `inbox notify submissions ID` reads what they sent.
///
/// Exit codes: 0 sent (for `submissions`: read), 1 error (refused input names the field).
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    /// The title line, as plain text.
    #[arg(required = true)]
    prompt: Option<String>,
    /// Longer plain text shown under the title.
    #[arg(long)]
    body: Option<String>,
    /// A form to offer: a JSON Schema file (or inline JSON, or @file).
    #[arg(long)]
    schema: Option<String>,
    /// Form prefill, as a JSON object of property → value (or @file); needs --schema.
    #[arg(long)]
    data: Option<String>,
    /// An image: a local PNG/JPEG/GIF/WebP file (sent inline) or an https URL; repeatable.
    #[arg(long = "image")]
    images: Vec<String>,
    /// A media item as JSON {"kind", "url", "caption"?, "filename"?}; repeatable.
    #[arg(long = "media")]
    media: Vec<String>,
    /// Opaque display-only metadata, as a JSON object.
    #[arg(long)]
    metadata: Option<String>,
    /// Make a retry safe: the same key and body return the notification created the first time.
    #[arg(long)]
    idempotency_key: Option<String>,
    /// Print the whole notification as JSON rather than just its id.
    #[arg(long)]
    full: bool,
    #[command(flatten)]
    conn: ConnectionArgs,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Print a notification's submissions as JSON lines, oldest first (as its asker).
    Submissions {
        /// Notification id (`nt_…`).
        id: String,
        /// Keep going: print each new submission as it arrives (from the stream) until Ctrl-C.
        #[arg(long)]
        follow: bool,
        #[command(flatten)]
        conn: ConnectionArgs,
    },
    /// As a reviewer, submit a notification's form: VALUE is the JSON object (or @file).
    /// Prints the stored submission; a value the schema refuses names the field (exit 1).
    Submit {
        /// Notification id (`nt_…`).
        id: String,
        value: String,
        #[command(flatten)]
        conn: ConnectionArgs,
    },
}

pub async fn run(args: Args) -> anyhow::Result<u8> {
    match args.command {
        Some(Command::Submissions { id, follow, conn }) => {
            return submissions(conn.client(Acting::Asker)?, &id, follow).await;
        }
        Some(Command::Submit { id, value, conn }) => {
            let value = parse_json_flag("value", &value)?;
            let submission = conn
                .client(Acting::Reviewer)?
                .submit_notification(&id, &SubmitRequest { value }, &new_idempotency_key())
                .await?;
            print_json(&submission)?;
            return Ok(exit::ANSWERED);
        }
        None => {}
    }
    let req = build_request(&args)?;
    let client = args.conn.client(Acting::Asker)?;
    let n = client.notify(&req, args.idempotency_key.as_deref()).await?;
    if args.full {
        print_json(&n)?;
    } else {
        println!("{}", n.id);
    }
    if n.has_form() {
        eprintln!(
            "notified {} (read submissions with `inbox notify submissions {}`)",
            n.id, n.id
        );
    }
    Ok(exit::ANSWERED)
}

/// The flags as a notification body. The server validates everything again.
fn build_request(args: &Args) -> anyhow::Result<NotificationRequest> {
    let Some(prompt) = &args.prompt else {
        bail!("give the notification's title");
    };
    let mut req = NotificationRequest {
        prompt: prompt.clone(),
        body: args.body.clone(),
        ..NotificationRequest::default()
    };
    if let Some(schema) = &args.schema {
        req.schema = Some(schema_flag(schema)?);
    }
    if let Some(text) = &args.data {
        req.data = Some(FormData {
            values: parse_object_flag("data", text, " of property → value")?,
            ..FormData::default()
        });
    }
    req.media = media_flags(&args.images, &args.media)?;
    if let Some(text) = &args.metadata {
        req.metadata = Some(parse_object_flag("metadata", text, "")?);
    }
    Ok(req)
}

/// `--schema`: inline JSON when it looks like an object, `@file`, or else a file path.
fn schema_flag(text: &str) -> anyhow::Result<Value> {
    if text.trim_start().starts_with('{') || text.starts_with('@') {
        return parse_json_flag("schema", text);
    }
    let body =
        std::fs::read_to_string(text).with_context(|| format!("--schema: cannot read {text}"))?;
    serde_json::from_str(&body).with_context(|| format!("--schema: {text} is not valid JSON"))
}

async fn submissions(client: ApiClient, id: &str, follow: bool) -> anyhow::Result<u8> {
    let mut printed = BTreeSet::new();
    if !follow {
        print_new(&client.submissions(id).await?, &mut printed)?;
        return Ok(exit::ANSWERED);
    }
    let mut subscription = Subscription::new(
        client.clone(),
        None,
        BackoffPolicy::default(),
        DEFAULT_KEEPALIVE_TIMEOUT,
    );
    loop {
        let update = tokio::select! {
            update = subscription.next() => update,
            _ = tokio::signal::ctrl_c() => return Ok(exit::ANSWERED),
        };
        match update {
            // Read the list each time the stream is (re)opened: whatever arrived before or
            // while it was down is printed then, and the stream carries the rest.
            Some(Update::Link(LinkState::Online)) => {
                print_new(&client.submissions(id).await?, &mut printed)?;
            }
            Some(Update::Event(event)) => {
                if let Ok(StreamEvent::Submitted(s)) =
                    StreamEvent::from_sse(&event.name, &event.data)
                    && s.notification_id == id
                {
                    print_new(&[s], &mut printed)?;
                }
            }
            Some(Update::Link(_)) => {}
            None => {
                eprintln!("stream: signed out (the server refused the token)");
                return Ok(exit::ERROR);
            }
        }
    }
}

/// Print the submissions not printed yet (by ordinal), one JSON line each.
fn print_new(items: &[Submission], printed: &mut BTreeSet<u32>) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for s in items {
        if printed.insert(s.ordinal) {
            writeln!(out, "{}", serde_json::to_string(s)?)?;
        }
    }
    out.flush()?;
    Ok(())
}
