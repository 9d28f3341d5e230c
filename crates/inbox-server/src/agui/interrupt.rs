//! One `Interrupt` → one question (design: `agents.md`, the AG-UI mapping table), and the
//! answer back into the payload its schema asks for.
//!
//! | Interrupt | question |
//! |---|---|
//! | no `responseSchema` | confirm, answer sent as `{"approved": bool}` |
//! | an object schema whose one property is a boolean | confirm, sent as `{prop: bool}` |
//! | … whose one property is a string with an `enum` | select, sent as `{prop: value}` |
//! | … whose one property is a string | text, sent as `{prop: text}` |
//! | any other schema | form (`default`s prefill; `editedArgs` from the tool call) |

use chrono::{DateTime, SecondsFormat, Utc};
use inbox_protocol::caps::{AGUI_ID_MAX_CHARS, METADATA_MAX_BYTES, PROMPT_MAX_CHARS};
use inbox_protocol::{
    AguiQuestion, AguiToolCall, AnswerFormat, AskRequest, ChoiceOption, FormData, Mode,
};
use serde_json::{Map, Value, json};

use super::events::Transcript;

/// The key a confirm without a schema answers under.
const APPROVED: &str = "approved";
/// The property a tool-call interrupt's schema names for the (possibly edited) arguments.
const EDITED_ARGS: &str = "editedArgs";
/// How much of the last message and of the tool call's arguments a question carries: enough
/// to read, and inside `METADATA_MAX_BYTES` with room for the rest.
const CONTEXT_MAX_CHARS: usize = 2_500;

/// A question for `interrupt`; `Err` names the interrupt's field at fault.
pub fn question_for(
    interrupt: &ag_ui::Interrupt,
    run_id: &str,
    transcript: &Transcript,
    default_expiry: DateTime<Utc>,
) -> Result<AskRequest, (String, String)> {
    if interrupt.id.trim().is_empty() || interrupt.id.chars().count() > AGUI_ID_MAX_CHARS {
        return Err((
            "id".into(),
            format!("must be 1 to {AGUI_ID_MAX_CHARS} characters"),
        ));
    }
    let prompt = interrupt
        .message
        .as_deref()
        .filter(|m| !m.trim().is_empty())
        .or(Some(interrupt.reason.as_str()).filter(|r| !r.trim().is_empty()))
        .unwrap_or("The agent is waiting for your answer.");
    let prompt: String = prompt.chars().take(PROMPT_MAX_CHARS).collect();
    let (format, answer_key) = classify(interrupt.response_schema.as_ref());
    let mut ask = AskRequest::new(prompt, format);
    ask.mode = Mode::Async;
    ask.expiry_at = Some(
        interrupt
            .expires_at
            .clone()
            .unwrap_or_else(|| default_expiry.to_rfc3339_opts(SecondsFormat::Secs, true)),
    );
    let schema = interrupt.response_schema.as_ref();
    let property = |key: &str| {
        schema
            .and_then(|s| s.get("properties"))
            .and_then(|p| p.get(key))
            .cloned()
    };
    let tool_call = interrupt
        .tool_call_id
        .as_ref()
        .and_then(|id| transcript.tool_call(id.as_ref()));
    match format {
        AnswerFormat::Select => {
            let key = answer_key.as_deref().unwrap_or_default();
            let options = property(key)
                .and_then(|p| p.get("enum").cloned())
                .and_then(|e| e.as_array().cloned())
                .unwrap_or_default()
                .into_iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .map(|value| ChoiceOption { value, label: None })
                .collect();
            ask.options = Some(options);
        }
        AnswerFormat::Form => {
            let schema = Value::Object(schema.cloned().unwrap_or_default());
            let mut values = Map::new();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (name, prop) in props {
                    if let Some(default) = prop.get("default") {
                        values.insert(name.clone(), default.clone());
                    }
                }
                // A tool call's streamed arguments are what the person approves or edits.
                if props.contains_key(EDITED_ARGS)
                    && let Some((_, args)) = tool_call
                    && let Ok(parsed @ Value::Object(_)) = serde_json::from_str::<Value>(args)
                {
                    values.insert(EDITED_ARGS.into(), parsed);
                }
            }
            ask.schema = Some(schema);
            if !values.is_empty() {
                ask.data = Some(FormData {
                    values,
                    ..FormData::default()
                });
            }
        }
        _ => {}
    }
    let mut context = AguiQuestion {
        run_id: run_id.to_owned(),
        interrupt_id: interrupt.id.clone(),
        reason: interrupt.reason.chars().take(200).collect(),
        tool_call_id: interrupt.tool_call_id.as_ref().map(|id| id.to_string()),
        tool_call: tool_call.map(|(name, args)| AguiToolCall {
            name: name.chars().take(200).collect(),
            arguments: shorten(args),
        }),
        last_message: transcript.last_message().map(shorten),
        metadata: interrupt.metadata.clone(),
        answer_key,
    };
    let mut metadata = wrap(&context);
    if serialized_len(&metadata) > METADATA_MAX_BYTES {
        // The agent's own metadata is the extra that gives way first.
        context.metadata = None;
        metadata = wrap(&context);
    }
    ask.metadata = Some(metadata);
    Ok(ask)
}

fn wrap(context: &AguiQuestion) -> Map<String, Value> {
    let mut metadata = Map::new();
    metadata.insert(
        inbox_protocol::agui::AGUI_METADATA_KEY.into(),
        serde_json::to_value(context).unwrap_or(Value::Null),
    );
    metadata
}

fn serialized_len(v: &Map<String, Value>) -> usize {
    serde_json::to_vec(v).map_or(usize::MAX, |v| v.len())
}

fn shorten(text: &str) -> String {
    if text.chars().count() <= CONTEXT_MAX_CHARS {
        return text.to_owned();
    }
    let mut short: String = text.chars().take(CONTEXT_MAX_CHARS).collect();
    short.push('…');
    short
}

/// The question format a schema maps to, and the property the answer is sent under.
fn classify(schema: Option<&Map<String, Value>>) -> (AnswerFormat, Option<String>) {
    let Some(schema) = schema else {
        return (AnswerFormat::Confirm, Some(APPROVED.into()));
    };
    let props = schema.get("properties").and_then(Value::as_object);
    if let Some(props) = props
        && props.len() == 1
        && let Some((name, prop)) = props.iter().next()
    {
        let kind = prop.get("type").and_then(Value::as_str);
        let plain = |extra: &[&str]| {
            prop.as_object().is_some_and(|p| {
                p.keys().all(|k| {
                    ["type", "title", "description", "default"].contains(&k.as_str())
                        || extra.contains(&k.as_str())
                })
            })
        };
        match kind {
            Some("boolean") if plain(&[]) => return (AnswerFormat::Confirm, Some(name.clone())),
            Some("string") if prop.get("enum").is_some() && plain(&["enum"]) => {
                return (AnswerFormat::Select, Some(name.clone()));
            }
            Some("string") if plain(&[]) => return (AnswerFormat::Text, Some(name.clone())),
            _ => {}
        }
    }
    (AnswerFormat::Form, None)
}

/// The resume payload for an answer `value` to a question carrying `context`.
pub fn payload(context: &AguiQuestion, value: Value) -> Value {
    match &context.answer_key {
        Some(key) => json!({ key: value }),
        None => value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(v: Value) -> Option<Map<String, Value>> {
        v.as_object().cloned()
    }

    #[test]
    fn schemas_map_to_formats_by_the_table() {
        assert_eq!(
            classify(None),
            (AnswerFormat::Confirm, Some("approved".into()))
        );
        let one = |p: Value| classify(schema(json!({"type": "object", "properties": p})).as_ref());
        assert_eq!(
            one(json!({"confirm": {"type": "boolean"}})),
            (AnswerFormat::Confirm, Some("confirm".into()))
        );
        assert_eq!(
            one(json!({"env": {"type": "string", "enum": ["prod", "staging"]}})),
            (AnswerFormat::Select, Some("env".into()))
        );
        assert_eq!(
            one(json!({"note": {"type": "string"}})),
            (AnswerFormat::Text, Some("note".into()))
        );
        assert_eq!(
            one(json!({"note": {"type": "string", "minLength": 3}})).0,
            AnswerFormat::Form
        );
        assert_eq!(
            one(json!({"a": {"type": "boolean"}, "b": {"type": "integer"}})).0,
            AnswerFormat::Form
        );
    }

    #[test]
    fn a_tool_call_prefills_edited_args_and_defaults_prefill() {
        let mut t = Transcript::continuing(vec![inbox_protocol::AguiTranscriptItem::ToolCall {
            tool_call_id: "c1".into(),
            name: "deploy".into(),
            arguments: r#"{"build": 42}"#.into(),
        }]);
        let _ = &mut t;
        let interrupt = ag_ui::Interrupt {
            id: "approve".into(),
            reason: "tool_call".into(),
            tool_call_id: Some("c1".into()),
            response_schema: schema(json!({"type": "object", "properties": {
                "approved": {"type": "boolean", "default": true},
                "editedArgs": {"type": "object", "properties": {"build": {"type": "integer"}}}}})),
            ..Default::default()
        };
        let ask = question_for(&interrupt, "ar_1", &t, Utc::now()).unwrap();
        assert_eq!(ask.answer_format, AnswerFormat::Form);
        let values = &ask.data.unwrap().values;
        assert_eq!(values["approved"], json!(true));
        assert_eq!(values["editedArgs"], json!({"build": 42}));
        let meta: AguiQuestion =
            serde_json::from_value(ask.metadata.unwrap()["agui"].clone()).unwrap();
        assert_eq!(meta.tool_call.unwrap().name, "deploy");
        assert_eq!(meta.answer_key, None);
    }
}
