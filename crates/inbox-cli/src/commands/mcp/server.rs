//! `inbox mcp`: the inbox as MCP tools over stdio.

use std::time::Duration;

use inbox_client::ApiClient;
use inbox_protocol::Interaction;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::{Peer, RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler};
use tracing::Instrument as _;

use super::tool::error_result;
use super::{ask_tool, notify_tool};
use crate::commands::ask::wait_until_resolved;

/// The tool server: one inbox connection, asking as the asker.
pub struct InboxTools {
    client: ApiClient,
    /// How long one long-poll waits before a progress notification is due.
    progress_every: Duration,
}

impl InboxTools {
    pub fn new(client: ApiClient, progress_every: Duration) -> Self {
        InboxTools {
            client,
            progress_every,
        }
    }

    async fn ask_user(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let ask = match ask_tool::ask_request(request.arguments) {
            Ok(ask) => ask,
            Err(message) => return error_result(message),
        };
        let interaction = match self.client.ask(&ask).await {
            Ok(ia) => ia,
            Err(e) if e.status().is_some() => {
                return error_result(format!("the inbox refused the question: {e}"));
            }
            Err(e) => return error_result(format!("could not ask the inbox: {e}")),
        };
        let token = request
            .meta
            .as_ref()
            .and_then(|m| m.get_progress_token())
            .or_else(|| context.meta.get_progress_token());
        let progress = Progress {
            peer: context.peer.clone(),
            token,
            total: ask.timeout_s.map(|s| s as f64),
            id: interaction.id.clone(),
        };
        progress.send(Duration::ZERO).await;
        let waited = tokio::select! {
            resolved = wait_until_resolved(
                &self.client,
                &interaction.id,
                self.progress_every,
                |elapsed| progress.send(elapsed),
            ) => resolved,
            _ = context.ct.cancelled() => {
                // The host gave up on the call: nobody is left to read an answer.
                if let Err(e) = self.client.withdraw(&interaction.id).await {
                    tracing::warn!(id = %interaction.id, "could not withdraw after cancellation: {e}");
                }
                return error_result(format!(
                    "the call was cancelled; question {} was withdrawn", interaction.id
                ));
            }
        };
        match waited {
            Ok(resolved) => {
                self.finish_park(&resolved).await;
                ask_tool::resolved_result(&resolved)
            }
            Err(e) => error_result(format!(
                "lost track of question {} while waiting: {e:#}",
                interaction.id
            )),
        }
    }

    /// An `expiry_at` ask is a park of one; its resume is taken here so the park does not sit
    /// claimable after this call has already handed the answer to the model.
    async fn finish_park(&self, ia: &Interaction) {
        let Some(park_id) = &ia.park_id else { return };
        let key = inbox_client::new_idempotency_key();
        if let Err(e) = self.client.claim_park(park_id, &key).await {
            tracing::warn!(park_id, "could not claim the park of {}: {e}", ia.id);
        }
    }
}

/// Progress notifications for one waiting call; nothing is sent without the caller's token.
struct Progress {
    peer: Peer<RoleServer>,
    token: Option<ProgressToken>,
    total: Option<f64>,
    id: String,
}

impl Progress {
    async fn send(&self, elapsed: Duration) {
        let Some(token) = &self.token else { return };
        let mut note = ProgressNotificationParam::new(token.clone(), elapsed.as_secs_f64())
            .with_message(format!(
                "waiting for the person to answer {} ({}s so far)",
                self.id,
                elapsed.as_secs()
            ));
        if let Some(total) = self.total {
            note = note.with_total(total);
        }
        if let Err(e) = self.peer.notify_progress(note).await {
            tracing::debug!("progress notification not sent: {e}");
        }
    }
}

impl ServerHandler for InboxTools {
    fn get_info(&self) -> ServerConfig {
        let mut implementation = rmcp::model::Implementation::from_build_env();
        implementation.name = "interactions-inbox".into();
        implementation.version = env!("CARGO_PKG_VERSION").into();
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(implementation)
            .with_instructions(
                "ask_user asks the human a question in their Interactions Inbox and waits for the \
                 answer; notify_user tells them something without waiting.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult {
            tools: vec![ask_tool::definition(), notify_tool::definition()],
            ..ListToolsResult::default()
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let span = tracing::info_span!("tool", name = %name);
        let result = async {
            match name.as_str() {
                ask_tool::NAME => Ok(self.ask_user(request, context).await),
                notify_tool::NAME => Ok(notify_tool::call(&self.client, request.arguments).await),
                other => Err(McpError::invalid_params(
                    format!("unknown tool `{other}`: this server has ask_user and notify_user"),
                    None,
                )),
            }
        }
        .instrument(span)
        .await?;
        Ok(result.into())
    }
}
