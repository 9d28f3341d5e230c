//! `inbox mcp proxy -- CMD…`: another MCP server behind this one, with its elicitations answered
//! through the inbox.
//!
//! The proxy relays JSON-RPC lines rather than re-implementing each method through rmcp's
//! handlers: whatever the two ends speak (tools, resources, sampling, progress, cancellation,
//! methods newer than this build) passes through untouched. It changes exactly two things: the
//! host's `initialize` advertises the `elicitation` capability (form and url) to the server, and
//! the server's `elicitation/create` requests (with the cancellations and completions that refer
//! to them) are answered here and never reach the host.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context as _, bail};
use inbox_client::ApiClient;
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::elicitation;
use crate::commands::ask::wait_until_resolved;
use crate::exit;

/// Longest JSON-RPC line accepted from either side. Bounds the proxy's memory whatever a peer
/// sends; a longer line ends the session (the framing cannot be trusted past it).
pub const MESSAGE_MAX_BYTES: usize = 16 * 1024 * 1024;

/// How long the server may take to exit once the host has closed its input.
const CHILD_EXIT_GRACE: Duration = Duration::from_secs(5);

/// Run an MCP server and answer its elicitations through the inbox.
///
/// Everything else is forwarded both ways unchanged. Form elicitations become form questions
/// (a single boolean property a confirm, a single enum property a select; `default`s prefill),
/// URL elicitations external questions; answered → accept, declined → decline, expired or
/// withdrawn → cancel. The exit code is the server's.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Seconds each elicitation question waits before it expires (and the server gets `cancel`).
    /// Without it a question waits until answered or declined.
    #[arg(long = "timeout")]
    timeout_s: Option<u64>,
    /// The MCP server to run, after `--`: its command and arguments.
    #[arg(required = true, last = true, num_args = 1..)]
    command: Vec<String>,
}

/// Elicitations being asked, by the server's request id, so a `notifications/cancelled` from the
/// server withdraws the question.
type Pending = Arc<Mutex<HashMap<String, CancellationToken>>>;

/// URL elicitations being asked: the server's `elicitationId` → the question's callback URL, so
/// the server's `notifications/elicitation/complete` answers the external question.
type UrlCallbacks = Arc<Mutex<HashMap<String, String>>>;

pub async fn run(args: Args, client: ApiClient) -> anyhow::Result<u8> {
    let (program, rest) = args
        .command
        .split_first()
        .context("no server command given")?;
    let mut child = tokio::process::Command::new(program)
        .args(rest)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("could not start the MCP server `{program}`"))?;
    let mut child_in = child.stdin.take().context("child stdin")?;
    let child_out = child.stdout.take().context("child stdout")?;

    // One writer per direction, so lines from several tasks never interleave.
    let (to_child, mut to_child_rx) = mpsc::channel::<Vec<u8>>(64);
    let (to_host, mut to_host_rx) = mpsc::channel::<Vec<u8>>(64);
    // Set when the host closes its input; the server's stdin is then closed in turn (the
    // elicitation tasks still hold senders, so the channel alone would never end).
    let host_gone = CancellationToken::new();
    let child_writer = {
        let host_gone = host_gone.clone();
        tokio::spawn(async move {
            loop {
                let line = tokio::select! {
                    line = to_child_rx.recv() => line,
                    _ = host_gone.cancelled() => None,
                };
                let Some(line) = line else { break };
                if child_in.write_all(&line).await.is_err() || child_in.flush().await.is_err() {
                    break;
                }
            }
            // Dropping stdin closes it: the server sees its host go away.
        })
    };
    let host_writer = tokio::spawn(async move {
        let mut out = tokio::io::stdout();
        while let Some(line) = to_host_rx.recv().await {
            if out.write_all(&line).await.is_err() || out.flush().await.is_err() {
                break;
            }
        }
    });

    let host_reader = {
        let to_child = to_child.clone();
        tokio::spawn(async move {
            let mut reader = BufReader::new(tokio::io::stdin());
            if let Err(e) = relay_host(&mut reader, &to_child).await {
                tracing::error!("from the host: {e:#}");
            }
            host_gone.cancel();
        })
    };
    let server_name = program.clone();
    let server_reader = tokio::spawn(async move {
        let mut reader = BufReader::new(child_out);
        let context = ElicitationContext {
            client,
            timeout_s: args.timeout_s,
            server: server_name,
            to_child,
            pending: Pending::default(),
            url_callbacks: UrlCallbacks::default(),
        };
        if let Err(e) = relay_server(&mut reader, &to_host, &context).await {
            tracing::error!("from the server: {e:#}");
        }
    });

    // The session ends when either side goes: the host closing its input, or the server exiting.
    let status = tokio::select! {
        status = child.wait() => status?,
        _ = host_reader => {
            match tokio::time::timeout(CHILD_EXIT_GRACE, child.wait()).await {
                Ok(status) => status?,
                Err(_) => {
                    tracing::warn!("the MCP server did not exit after its input closed; killing it");
                    child.kill().await.ok();
                    child.wait().await?
                }
            }
        }
    };
    // Let the last lines the server wrote reach the host.
    let _ = tokio::time::timeout(Duration::from_secs(2), server_reader).await;
    let _ = tokio::time::timeout(Duration::from_secs(2), host_writer).await;
    child_writer.abort();
    Ok(status
        .code()
        .and_then(|c| u8::try_from(c).ok())
        .unwrap_or(exit::ERROR))
}

/// Host → server: forward every line, advertising elicitation in `initialize`.
async fn relay_host<R: AsyncBufRead + AsyncRead + Unpin>(
    reader: &mut R,
    to_child: &mpsc::Sender<Vec<u8>>,
) -> anyhow::Result<()> {
    while let Some(line) = read_line(reader).await? {
        let line = match parse(&line) {
            Some(mut message) if method(&message) == Some("initialize") => {
                advertise_elicitation(&mut message);
                to_line(&message)
            }
            _ => line,
        };
        if to_child.send(line).await.is_err() {
            break;
        }
    }
    Ok(())
}

/// Server → host: forward every line except elicitation requests, which are answered here.
async fn relay_server<R: AsyncBufRead + AsyncRead + Unpin>(
    reader: &mut R,
    to_host: &mpsc::Sender<Vec<u8>>,
    context: &ElicitationContext,
) -> anyhow::Result<()> {
    while let Some(line) = read_line(reader).await? {
        if let Some(message) = parse(&line) {
            match method(&message) {
                Some("elicitation/create") if message.get("id").is_some() => {
                    context.answer(message);
                    continue;
                }
                Some("notifications/elicitation/complete") => {
                    // The host never saw this elicitation: the inbox question is what completes.
                    let id = message
                        .pointer("/params/elicitationId")
                        .and_then(Value::as_str);
                    if let Some(callback) = id.and_then(|id| context.take_url(id)) {
                        let client = context.client.clone();
                        tokio::spawn(async move {
                            if let Err(e) = client.complete_external(&callback).await {
                                tracing::warn!("could not complete the URL elicitation: {e}");
                            }
                        });
                        continue;
                    }
                }
                Some("notifications/cancelled") => {
                    let id = message.pointer("/params/requestId").map(id_key);
                    if let Some(token) = id.and_then(|id| context.take(&id)) {
                        token.cancel();
                        continue;
                    }
                }
                _ => {}
            }
        }
        if to_host.send(line).await.is_err() {
            break;
        }
    }
    Ok(())
}

struct ElicitationContext {
    client: ApiClient,
    timeout_s: Option<u64>,
    server: String,
    to_child: mpsc::Sender<Vec<u8>>,
    pending: Pending,
    url_callbacks: UrlCallbacks,
}

impl ElicitationContext {
    fn take(&self, id: &str) -> Option<CancellationToken> {
        self.pending.lock().expect("pending lock").remove(id)
    }

    fn take_url(&self, elicitation_id: &str) -> Option<String> {
        self.url_callbacks
            .lock()
            .expect("callbacks lock")
            .remove(elicitation_id)
    }

    /// Ask the elicitation in the background and reply to the server when it resolves.
    fn answer(&self, request: Value) {
        let id = request.get("id").cloned().unwrap_or(Value::Null);
        let token = CancellationToken::default();
        self.pending
            .lock()
            .expect("pending lock")
            .insert(id_key(&id), token.clone());
        let client = self.client.clone();
        let to_child = self.to_child.clone();
        let pending = self.pending.clone();
        let url_callbacks = self.url_callbacks.clone();
        let params = request.get("params").cloned().unwrap_or(Value::Null);
        let (timeout_s, server) = (self.timeout_s, self.server.clone());
        tokio::spawn(async move {
            let span = tracing::info_span!("elicitation", id = %id_key(&id));
            let _guard = span.enter();
            let asking = Asking {
                client: &client,
                timeout_s,
                server: &server,
                cancelled: &token,
                url_callbacks: &url_callbacks,
            };
            let reply = match elicit(&asking, &params).await {
                Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err(message) => {
                    tracing::warn!("elicitation not asked: {message}");
                    json!({"jsonrpc": "2.0", "id": id,
                        "error": {"code": -32602, "message": message}})
                }
            };
            pending.lock().expect("pending lock").remove(&id_key(&id));
            // A server that withdrew its request needs no reply.
            if !token.is_cancelled() {
                let _ = to_child.send(to_line(&reply)).await;
            }
        });
    }
}

/// What one elicitation is asked with.
struct Asking<'a> {
    client: &'a ApiClient,
    timeout_s: Option<u64>,
    server: &'a str,
    cancelled: &'a CancellationToken,
    url_callbacks: &'a UrlCallbacks,
}

/// One elicitation through the inbox: ask, wait, map the outcome.
async fn elicit(asking: &Asking<'_>, params: &Value) -> Result<Value, String> {
    let client = asking.client;
    let (ask, shape) = elicitation::question(params, asking.timeout_s, asking.server)?;
    let asked = client
        .ask(&ask)
        .await
        .map_err(|e| format!("the inbox refused the question: {e}"))?;
    tracing::info!(interaction = %asked.id, "asked through the inbox");
    let elicitation_id = params
        .get("elicitationId")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty() && shape == elicitation::Shape::Url);
    let callback = asked
        .link
        .as_deref()
        .and_then(elicitation::callback_of_link);
    if let (Some(id), Some(callback)) = (elicitation_id, callback) {
        asking
            .url_callbacks
            .lock()
            .expect("callbacks lock")
            .insert(id.to_owned(), callback.to_owned());
    }
    let resolved = tokio::select! {
        resolved = wait_until_resolved(
            client,
            &asked.id,
            Duration::from_secs(inbox_protocol::caps::WAIT_MAX_SECONDS),
            |_| async {},
        ) => resolved.map_err(|e| format!("{e:#}")),
        _ = asking.cancelled.cancelled() => {
            if let Err(e) = client.withdraw(&asked.id).await {
                tracing::warn!(interaction = %asked.id, "could not withdraw: {e}");
            }
            Err("the server cancelled the elicitation".into())
        }
    };
    if let Some(id) = elicitation_id {
        asking
            .url_callbacks
            .lock()
            .expect("callbacks lock")
            .remove(id);
    }
    serde_json::to_value(elicitation::result(&resolved?, &shape)).map_err(|e| e.to_string())
}

/// Set `params.capabilities.elicitation` to form and url, keeping whatever else the host said.
fn advertise_elicitation(initialize: &mut Value) {
    let Some(params) = initialize.get_mut("params").and_then(Value::as_object_mut) else {
        return;
    };
    let capabilities = params.entry("capabilities").or_insert_with(|| json!({}));
    if let Some(capabilities) = capabilities.as_object_mut() {
        let elicitation = capabilities
            .entry("elicitation")
            .or_insert_with(|| json!({}));
        if !elicitation.is_object() {
            *elicitation = json!({});
        }
        if let Some(elicitation) = elicitation.as_object_mut() {
            elicitation.entry("form").or_insert_with(|| json!({}));
            elicitation.entry("url").or_insert_with(|| json!({}));
        }
    }
}

fn parse(line: &[u8]) -> Option<Value> {
    serde_json::from_slice::<Value>(line)
        .ok()
        .filter(Value::is_object)
}

fn method(message: &Value) -> Option<&str> {
    message.get("method").and_then(Value::as_str)
}

/// A JSON-RPC id as a map key (ids are strings or numbers; `1` and `"1"` stay distinct).
fn id_key(id: &Value) -> String {
    id.to_string()
}

fn to_line(message: &Value) -> Vec<u8> {
    let mut line = serde_json::to_vec(message).unwrap_or_default();
    line.push(b'\n');
    line
}

/// One newline-terminated line (newline kept), at most [`MESSAGE_MAX_BYTES`]; `None` at the end.
async fn read_line<R: AsyncBufRead + AsyncRead + Unpin>(
    reader: &mut R,
) -> anyhow::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    let limit = (MESSAGE_MAX_BYTES + 1) as u64;
    let read = tokio::io::AsyncReadExt::take(&mut *reader, limit)
        .read_until(b'\n', &mut line)
        .await?;
    if read == 0 {
        return Ok(None);
    }
    if line.len() > MESSAGE_MAX_BYTES {
        bail!("a message longer than {MESSAGE_MAX_BYTES} bytes; ending the session");
    }
    if line.last() != Some(&b'\n') {
        line.push(b'\n');
    }
    Ok(Some(line))
}
