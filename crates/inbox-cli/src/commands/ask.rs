//! `inbox ask` — ask a question and (for sync asks) block until it is resolved.

use std::time::Duration;

use anyhow::{Context, bail};
use inbox_client::{ApiClient, WaitOutcome};
use inbox_protocol::{
    AnswerFormat, AskRequest, ChoiceOption, FormData, FormPage, Interaction, Mode, Status,
    open_link,
};
use serde_json::Value;

use crate::commands::media::media_flags;
use crate::commands::{parse_json_flag, parse_object_flag, print_json};
use crate::connection::{Acting, ConnectionArgs};
use crate::exit;

/// Ask a question. A sync ask blocks until it is answered and prints the typed answer as JSON.
///
/// Exit codes: 0 answered, 10 declined, 11 expired, 12 cancelled (also after Ctrl-C, which
/// withdraws the question), 13 parked (with --expiry-at: the park is printed, nothing is
/// answered yet), 1 error.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The question, as plain text.
    prompt: String,
    /// text, confirm, select, form or external.
    #[arg(long, short, default_value = "text", value_parser = parse_format)]
    format: AnswerFormat,
    /// A choice as VALUE or VALUE=LABEL; repeatable. Select: the choices; text: suggested replies.
    #[arg(long = "option", short = 'o')]
    options: Vec<String>,
    /// Form (or external) answer schema, as JSON or @file.
    #[arg(long)]
    schema: Option<String>,
    /// Form prefill values, as a JSON object of property → value (or @file).
    #[arg(long)]
    values: Option<String>,
    /// Form per-send choices, as JSON {"prop": [{"value": …, "label": …}]} (or @file).
    #[arg(long = "field-options")]
    field_options: Option<String>,
    /// Form pages, as JSON [{"title": …, "fields": […]}] (or @file).
    #[arg(long)]
    pages: Option<String>,
    /// External: where the person acts; `{callback_url}` is replaced by the callback URL.
    #[arg(long)]
    link: Option<String>,
    /// An image: a local PNG/JPEG/GIF/WebP file (sent inline) or an https URL; repeatable.
    #[arg(long = "image")]
    images: Vec<String>,
    /// A media item as JSON {"kind", "url", "caption"?, "filename"?}; repeatable.
    #[arg(long = "media")]
    media: Vec<String>,
    /// Sync: seconds until the question expires.
    #[arg(long = "timeout", conflicts_with = "expiry_at")]
    timeout_s: Option<u64>,
    /// Async: the RFC 3339 deadline with an offset (e.g. 2026-12-01T09:00:00+01:00); parks the ask.
    #[arg(long)]
    expiry_at: Option<String>,
    /// Opaque display-only metadata, as a JSON object.
    #[arg(long)]
    metadata: Option<String>,
    /// Do not wait: print the created interaction and return.
    #[arg(long)]
    no_wait: bool,
    /// When resolved, print the whole interaction rather than just the answer value.
    #[arg(long)]
    full: bool,
    #[command(flatten)]
    conn: ConnectionArgs,
}

fn parse_format(s: &str) -> Result<AnswerFormat, String> {
    AnswerFormat::ALL
        .into_iter()
        .find(|f| f.as_str() == s)
        .ok_or_else(|| format!("unknown format `{s}`: use text, confirm, select, form or external"))
}

pub async fn run(args: Args) -> anyhow::Result<u8> {
    let request = build_request(&args)?;
    let client = args.conn.client(Acting::Asker)?;
    let interaction = client.ask(&request).await?;
    if let Some(park_id) = &interaction.park_id {
        // Async: nothing is answered, so never the "answered" code. Print the park the server
        // made of this ask; its resume is taken with `inbox park wait` / `inbox park claim`.
        let park = client.get_park(park_id).await?;
        eprintln!("open it in the app: {}", open_link(&interaction.id));
        eprintln!(
            "parked {park_id} ({}): resume with `inbox park wait {park_id}` then `inbox park claim {park_id}`",
            interaction.id
        );
        print_json(&inbox_protocol::ParkResponse { park })?;
        return Ok(exit::PARKED);
    }
    if args.no_wait || interaction.mode == Mode::Async {
        eprintln!("asked {}", interaction.id);
        eprintln!("open it in the app: {}", open_link(&interaction.id));
        print_json(&interaction)?;
        return Ok(exit::ANSWERED);
    }
    // Listen for Ctrl-C before saying the question exists: an interrupt right after the line
    // must withdraw it, not kill the process with the question left behind.
    let interrupted = interrupt_listener()?;
    eprintln!("asked {} — waiting for an answer", interaction.id);
    eprintln!("open it in the app: {}", open_link(&interaction.id));
    tokio::select! {
        resolved = wait_until_resolved(
            &client,
            &interaction.id,
            Duration::from_secs(inbox_protocol::caps::WAIT_MAX_SECONDS),
            |_| async {},
        ) => report(resolved?, args.full),
        () = interrupted => {
            // Do not leave a question behind that nobody is waiting for.
            match client.withdraw(&interaction.id).await {
                Ok(_) => eprintln!("interrupted: withdrew {}", interaction.id),
                Err(e) => eprintln!("interrupted: could not withdraw {}: {e}", interaction.id),
            }
            Ok(exit::CANCELLED)
        }
    }
}

/// Resolves on the first Ctrl-C; the handler is installed when this returns, not when the
/// future is first polled (as with `tokio::signal::ctrl_c`).
#[cfg(unix)]
fn interrupt_listener() -> anyhow::Result<impl Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt()).context("listening for Ctrl-C")?;
    Ok(async move {
        interrupt.recv().await;
    })
}

#[cfg(not(unix))]
fn interrupt_listener() -> anyhow::Result<impl Future<Output = ()>> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}

/// Long-poll the wait door until the question is resolved, calling `on_pending` with the time
/// waited so far each time a window closes with it still pending (`inbox mcp` sends progress
/// from there). A restarting server is not the end of the wait: transport errors are retried.
pub async fn wait_until_resolved<F: Future<Output = ()>>(
    client: &ApiClient,
    id: &str,
    window: Duration,
    mut on_pending: impl FnMut(Duration) -> F,
) -> anyhow::Result<Interaction> {
    let started = std::time::Instant::now();
    let mut failures = 0u32;
    loop {
        match client.wait(id, window).await {
            Ok(WaitOutcome::Resolved(ia)) => return Ok(*ia),
            Ok(WaitOutcome::Pending) => {
                failures = 0;
                on_pending(started.elapsed()).await;
            }
            Err(e) if e.is_transport() && failures < 60 => {
                failures += 1;
                tracing::warn!("waiting for {id}: {e}; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            Err(e) => return Err(e).context("waiting for the answer"),
        }
    }
}

fn report(ia: Interaction, full: bool) -> anyhow::Result<u8> {
    if full {
        print_json(&ia)?;
    }
    match ia.status {
        Status::Answered => {
            if !full {
                let value = ia
                    .answer
                    .as_ref()
                    .map(|a| a.value.clone())
                    .unwrap_or(Value::Null);
                print_json(&value)?;
            }
            Ok(exit::ANSWERED)
        }
        Status::Declined => {
            let (who, reason) = ia
                .answer
                .as_ref()
                .map(|a| (a.answered_by.as_str(), a.reason.as_deref()))
                .unwrap_or(("?", None));
            eprintln!(
                "declined by {who}{}",
                reason.map(|r| format!(": {r}")).unwrap_or_default()
            );
            Ok(exit::DECLINED)
        }
        Status::Expired => {
            eprintln!("expired unanswered");
            Ok(exit::EXPIRED)
        }
        Status::Cancelled => {
            eprintln!("withdrawn");
            Ok(exit::CANCELLED)
        }
        Status::Pending => bail!("the server reported {} still pending after a wait", ia.id),
    }
}

/// Turn the flags into the ask body. The server validates everything again; this only shapes it.
pub fn build_request(args: &Args) -> anyhow::Result<AskRequest> {
    let mut req = AskRequest::new(args.prompt.clone(), args.format);
    if !args.options.is_empty() {
        req.options = Some(args.options.iter().map(|o| parse_option(o)).collect());
    }
    if let Some(text) = &args.schema {
        req.schema = Some(parse_json_flag("schema", text)?);
    }
    if args.values.is_some() || args.field_options.is_some() {
        let mut data = FormData::default();
        if let Some(text) = &args.values {
            data.values = parse_object_flag("values", text, " of property → value")?;
        }
        if let Some(text) = &args.field_options {
            data.options = serde_json::from_value(parse_json_flag("field-options", text)?)
                .context(
                    "--field-options must look like {\"prop\": [{\"value\": …, \"label\": …}]}",
                )?;
        }
        req.data = Some(data);
    }
    if let Some(text) = &args.pages {
        let pages: Vec<FormPage> = serde_json::from_value(parse_json_flag("pages", text)?)
            .context("--pages must look like [{\"title\": …, \"fields\": [\"prop\", …]}]")?;
        req.pages = Some(pages);
    }
    req.link = args.link.clone();
    req.media = media_flags(&args.images, &args.media)?;
    req.timeout_s = args.timeout_s;
    if let Some(at) = &args.expiry_at {
        req.mode = Mode::Async;
        req.expiry_at = Some(at.clone());
    }
    if let Some(text) = &args.metadata {
        req.metadata = Some(parse_object_flag("metadata", text, "")?);
    }
    Ok(req)
}

fn parse_option(text: &str) -> ChoiceOption {
    match text.split_once('=') {
        Some((value, label)) => ChoiceOption {
            value: value.to_owned(),
            label: Some(label.to_owned()),
        },
        None => ChoiceOption {
            value: text.to_owned(),
            label: None,
        },
    }
}
