//! What the two tools share: how a tool is declared, the prompt and media schemas, and tool
//! errors.

use inbox_protocol::caps;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

/// A tool that acts on the world (it reaches a person), with its JSON Schema input.
pub fn tool(name: &'static str, description: &'static str, input_schema: Value) -> Tool {
    let Value::Object(schema) = input_schema else {
        unreachable!("tool input schemas are object literals")
    };
    let mut tool = Tool::new(name, description, JsonObject::from(schema));
    tool.annotations = Some(
        ToolAnnotations::new()
            .read_only(false)
            .destructive(false)
            .idempotent(false)
            .open_world(true),
    );
    tool
}

/// `prompt` as the ask and notification doors take it (plain text, capped alike).
pub fn prompt_schema(description: &str) -> Value {
    json!({
        "type": "string",
        "maxLength": caps::PROMPT_MAX_CHARS,
        "description": description
    })
}

/// `media` as the ask and notification doors take it.
pub fn media_schema() -> Value {
    json!({
        "type": "array",
        "maxItems": caps::MEDIA_MAX_ITEMS,
        "items": {
            "type": "object",
            "properties": {
                "kind": {"type": "string", "enum": ["image", "document", "video", "audio", "link"]},
                "url": {"type": "string", "description": "https URL (an image may be a data:image/* URI)"},
                "caption": {"type": "string", "maxLength": caps::MEDIA_CAPTION_MAX_CHARS},
                "filename": {"type": "string", "maxLength": caps::MEDIA_FILENAME_MAX_CHARS}
            },
            "required": ["kind", "url"],
            "additionalProperties": false
        },
        "description": "Images, documents, video, audio or links shown with the text."
    })
}

/// Tool arguments that do not fit the schema, naming the field (`options[0].value`).
pub fn field_error(e: &serde_path_to_error::Error<serde_json::Error>) -> String {
    let path = e.path().to_string();
    if path == "." {
        format!("invalid arguments: {}", e.inner())
    } else {
        format!("invalid argument `{path}`: {}", e.inner())
    }
}

/// A tool error the model can read (bad arguments, a refused ask, an unreachable server).
pub fn error_result(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}
