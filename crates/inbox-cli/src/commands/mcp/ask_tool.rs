//! The `ask_user` tool: its input schema, its arguments as an ask, and a resolved question as the
//! tool result a model reads.
//!
//! The arguments use the ask door's own field names (`answer_format`, `data.values`, …), so a field
//! the server refuses is named the same way in the tool error as in the schema the model was given.

use inbox_protocol::caps;
use inbox_protocol::{
    AnswerFormat, AskRequest, ChoiceOption, FormData, FormPage, Interaction, MediaItem, Mode,
    Status,
};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::tool::{field_error, media_schema, prompt_schema, tool};

pub const NAME: &str = "ask_user";

/// What the model sends. Unknown fields are refused so a misspelt option is not silently lost.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AskUserArgs {
    prompt: String,
    #[serde(default)]
    answer_format: Option<AnswerFormat>,
    #[serde(default)]
    options: Option<Vec<OptionArg>>,
    #[serde(default)]
    schema: Option<Value>,
    #[serde(default)]
    data: Option<FormData>,
    #[serde(default)]
    pages: Option<Vec<FormPage>>,
    #[serde(default)]
    link: Option<String>,
    #[serde(default)]
    media: Option<Vec<MediaItem>>,
    #[serde(default)]
    timeout_s: Option<u64>,
    #[serde(default)]
    expiry_at: Option<String>,
    #[serde(default)]
    metadata: Option<Map<String, Value>>,
}

/// Models often write a choice as a bare string; both spellings mean the same option.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OptionArg {
    Value(String),
    Choice(ChoiceOption),
}

/// The tool as `tools/list` shows it.
pub fn definition() -> Tool {
    let choice = json!({
        "oneOf": [
            {"type": "string", "maxLength": caps::OPTION_MAX_CHARS},
            {
                "type": "object",
                "properties": {
                    "value": {"type": "string", "maxLength": caps::OPTION_MAX_CHARS},
                    "label": {"type": "string", "maxLength": caps::OPTION_MAX_CHARS}
                },
                "required": ["value"],
                "additionalProperties": false
            }
        ]
    });
    let schema = json!({
        "type": "object",
        "properties": {
            "prompt": prompt_schema("The question, as plain text."),
            "answer_format": {
                "type": "string",
                "enum": AnswerFormat::ALL.iter().map(|f| f.as_str()).collect::<Vec<_>>(),
                "default": "text",
                "description": "text: a free-text reply. confirm: yes or no (the answer is true/false). \
                    select: one of `options` (the answer is its value). form: an object matching `schema`. \
                    external: the person acts at `link`, which delivers the answer."
            },
            "options": {
                "type": "array",
                "items": choice,
                "maxItems": caps::OPTIONS_MAX_ITEMS,
                "description": "select: the choices (required). text: suggested replies the person may tap; \
                    they constrain nothing."
            },
            "schema": {
                "type": "object",
                "description": "form (required): the JSON Schema of the answer object. external (optional): \
                    the schema of the payload the link delivers."
            },
            "data": {
                "type": "object",
                "properties": {
                    "values": {
                        "type": "object",
                        "description": "Prefill, keyed by top-level property name."
                    },
                    "options": {
                        "type": "object",
                        "additionalProperties": {"type": "array", "items": choice},
                        "description": "Choice lists replacing a string property's enum, keyed by property name."
                    }
                },
                "additionalProperties": false,
                "description": "form only: prefill values and per-ask choice lists."
            },
            "pages": {
                "type": "array",
                "maxItems": caps::PAGES_MAX_ITEMS,
                "items": {
                    "type": "object",
                    "properties": {
                        "title": {"type": "string", "maxLength": caps::PAGE_TITLE_MAX_CHARS},
                        "fields": {"type": "array", "items": {"type": "string"}}
                    },
                    "required": ["title", "fields"],
                    "additionalProperties": false
                },
                "description": "form only: the form's steps, each grouping top-level property names."
            },
            "link": {
                "type": "string",
                "maxLength": caps::LINK_MAX_CHARS,
                "description": "external (required): an http(s) URL template carrying the literal \
                    {callback_url}, replaced by the URL the other site posts the answer to."
            },
            "media": media_schema(),
            "timeout_s": {
                "type": "integer",
                "minimum": 1,
                "maximum": caps::TIMEOUT_MAX_SECONDS,
                "description": "Seconds until the question expires unanswered. Without it (and without \
                    expiry_at) the question waits until answered, declined or withdrawn."
            },
            "expiry_at": {
                "type": "string",
                "format": "date-time",
                "description": "Instead of timeout_s: an RFC 3339 deadline with an offset. The question is \
                    then asked async (a park of one); this call still waits for it."
            },
            "metadata": {
                "type": "object",
                "description": "Display-only context for the person (a run id, the tool being approved…)."
            }
        },
        "required": ["prompt"],
        "additionalProperties": false
    });
    tool(
        NAME,
        "Ask the human user a question through their Interactions Inbox and wait for the answer. \
         Use it when you need a decision, an approval, a choice or details only the person has. \
         The call blocks until the person answers, declines, or the question expires; all three come \
         back as a result you can read (`status`: answered, declined, expired or withdrawn).",
        schema,
    )
}

/// The arguments as an ask, or a message naming the field that is wrong.
pub fn ask_request(arguments: Option<JsonObject>) -> Result<AskRequest, String> {
    let value = Value::Object(arguments.unwrap_or_default());
    let args: AskUserArgs = serde_path_to_error::deserialize(value).map_err(|e| field_error(&e))?;
    let mut req = AskRequest::new(args.prompt, args.answer_format.unwrap_or_default());
    req.options = args.options.map(|options| {
        options
            .into_iter()
            .map(|o| match o {
                OptionArg::Value(value) => ChoiceOption { value, label: None },
                OptionArg::Choice(choice) => choice,
            })
            .collect()
    });
    req.schema = args.schema;
    req.data = args.data;
    req.pages = args.pages;
    req.link = args.link;
    req.media = args.media;
    req.timeout_s = args.timeout_s;
    if let Some(at) = args.expiry_at {
        req.mode = Mode::Async;
        req.expiry_at = Some(at);
    }
    req.metadata = args.metadata;
    Ok(req)
}

/// A resolved question as the tool result. Declined, expired and withdrawn are ordinary results,
/// not errors: the model should read them and carry on (or stop) accordingly.
pub fn resolved_result(ia: &Interaction) -> CallToolResult {
    let answer = ia.answer.as_ref();
    let (status, sentence) = match ia.status {
        Status::Answered => ("answered", "The person answered.".to_owned()),
        Status::Declined => (
            "declined",
            match answer.and_then(|a| a.reason.as_deref()) {
                Some(reason) => format!("The person declined to answer: {reason}"),
                None => "The person declined to answer.".to_owned(),
            },
        ),
        Status::Expired => (
            "expired",
            "Nobody answered before the question's deadline; it expired.".to_owned(),
        ),
        Status::Cancelled => (
            "withdrawn",
            "The question was withdrawn before anyone answered.".to_owned(),
        ),
        Status::Pending => ("pending", "The question is still pending.".to_owned()),
    };
    let mut structured = Map::new();
    structured.insert("status".into(), json!(status));
    structured.insert("interaction_id".into(), json!(ia.id));
    if ia.status == Status::Answered {
        if let Some(a) = answer {
            structured.insert("answer".into(), a.value.clone());
            structured.insert("answered_by".into(), json!(a.answered_by));
            if let Some(params) = &a.params {
                structured.insert("params".into(), Value::Object(params.clone()));
            }
        }
    } else if let Some(reason) = answer.and_then(|a| a.reason.as_deref()) {
        structured.insert("reason".into(), json!(reason));
    }
    let structured = Value::Object(structured);
    let text = match ia.status {
        Status::Answered => format!(
            "{sentence} Answer: {}",
            answer.map(|a| a.value.to_string()).unwrap_or_default()
        ),
        _ => sentence,
    };
    let mut result = CallToolResult::success(vec![
        ContentBlock::text(text),
        ContentBlock::text(structured.to_string()),
    ]);
    result.structured_content = Some(structured);
    result
}
