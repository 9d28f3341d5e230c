//! The `notify_user` tool: an ask-less notification through `POST /api/notifications`. It
//! returns as soon as the server has stored it; nobody waits for the person.

use inbox_client::ApiClient;
use inbox_protocol::NotificationRequest;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};
use serde_json::{Value, json};

use super::tool::{error_result, field_error, media_schema, prompt_schema, tool};

pub const NAME: &str = "notify_user";

pub fn definition() -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "prompt": prompt_schema("The notification's title line, as plain text."),
            "body": {
                "type": "string",
                "description": "Longer plain text shown under the title."
            },
            "media": media_schema(),
            "schema": {
                "type": "object",
                "description": "Optional: a JSON Schema form the person may submit whenever they like; \
                    submissions reach you later as messages, this call does not wait for them."
            },
            "data": {
                "type": "object",
                "properties": {
                    "values": {"type": "object"},
                    "options": {"type": "object"}
                },
                "additionalProperties": false,
                "description": "With schema only: prefill values and per-send choice lists."
            },
            "metadata": {
                "type": "object",
                "description": "Display-only context."
            }
        },
        "required": ["prompt"],
        "additionalProperties": false
    });
    tool(
        NAME,
        "Tell the human user something through their Interactions Inbox without waiting: a status \
         update, a finished task, or (with `schema`) a form they may fill in whenever they like. \
         Returns as soon as the notification is delivered to the inbox.",
        schema,
    )
}

pub async fn call(client: &ApiClient, arguments: Option<JsonObject>) -> CallToolResult {
    // The tool takes the notification door's own body, so a refusal names the same field.
    let args: NotificationRequest =
        match serde_path_to_error::deserialize(Value::Object(arguments.unwrap_or_default())) {
            Ok(args) => args,
            Err(e) => return error_result(field_error(&e)),
        };
    match client.notify(&args, None).await {
        Ok(stored) => {
            let id = stored.id.as_str();
            let structured = json!({"status": "delivered", "notification_id": id});
            let mut result = CallToolResult::success(vec![ContentBlock::text(format!(
                "Delivered notification {id} to the inbox; nothing waits for the person."
            ))]);
            result.structured_content = Some(structured);
            result
        }
        Err(e) => error_result(format!("the inbox refused the notification: {e}")),
    }
}
