//! An MCP `elicitation/create` request as an inbox question, and the resolved question as the
//! elicitation result.
//!
//! | elicitation | question |
//! |---|---|
//! | form, one `boolean` property | confirm; the answer `true`/`false` is that property |
//! | form, one string property with `enum` (or `oneOf` of `const`s) | select over those values |
//! | form, anything else | form with the requested schema; each property's `default` prefills |
//! | url | external, linking to the server's URL |
//!
//! | question | result |
//! |---|---|
//! | answered | `accept` (form: the answer as `content`; url: no content) |
//! | declined | `decline` |
//! | expired, withdrawn | `cancel` |

use inbox_protocol::{AnswerFormat, AskRequest, ChoiceOption, FormData, Interaction, Status};
use rmcp::model::{ElicitResult, ElicitationAction};
use serde_json::{Map, Value, json};

/// Where a URL elicitation's link carries the question's callback (in the fragment).
const CALLBACK_MARK: &str = "inbox_callback=";

/// How a question's answer turns back into elicitation `content`.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// The answer object is the content.
    Form,
    /// The answer (a bool or a string) is the one property's value.
    Single(String),
    /// URL mode: an accept carries no content.
    Url,
}

/// The question to ask for one elicitation's `params`, or why it cannot be asked.
pub fn question(
    params: &Value,
    timeout_s: Option<u64>,
    server: &str,
) -> Result<(AskRequest, Shape), String> {
    let message = params
        .get("message")
        .and_then(Value::as_str)
        .ok_or("elicitation params.message must be a string")?;
    let mode = params.get("mode").and_then(Value::as_str).unwrap_or("form");
    let (mut ask, shape) = match mode {
        "form" => form_question(message, params.get("requestedSchema"))?,
        "url" => url_question(message, params)?,
        other => return Err(format!("unknown elicitation mode `{other}`")),
    };
    ask.timeout_s = timeout_s;
    let mut metadata = Map::new();
    metadata.insert("source".into(), json!("mcp elicitation"));
    metadata.insert("mcp_server".into(), json!(server));
    ask.metadata = Some(metadata);
    Ok((ask, shape))
}

fn form_question(message: &str, schema: Option<&Value>) -> Result<(AskRequest, Shape), String> {
    let schema = schema
        .filter(|s| s.is_object())
        .ok_or("elicitation params.requestedSchema must be an object")?;
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    if properties.len() == 1 {
        let (name, property) = properties.iter().next().expect("one property");
        if property.get("type").and_then(Value::as_str) == Some("boolean") {
            let ask = AskRequest::new(single_prompt(message, property), AnswerFormat::Confirm);
            return Ok((ask, Shape::Single(name.clone())));
        }
        if let Some(options) = choices(property) {
            let mut ask = AskRequest::new(single_prompt(message, property), AnswerFormat::Select);
            ask.options = Some(options);
            return Ok((ask, Shape::Single(name.clone())));
        }
    }
    let mut ask = AskRequest::new(message, AnswerFormat::Form);
    let defaults: Map<String, Value> = properties
        .iter()
        .filter_map(|(name, p)| p.get("default").map(|d| (name.clone(), d.clone())))
        .collect();
    if !defaults.is_empty() {
        ask.data = Some(FormData {
            values: defaults,
            ..FormData::default()
        });
    }
    ask.schema = Some(schema.clone());
    Ok((ask, Shape::Form))
}

/// The message, with the one property's title or description when it adds something.
fn single_prompt(message: &str, property: &Value) -> String {
    let detail = property
        .get("description")
        .or_else(|| property.get("title"))
        .and_then(Value::as_str)
        .filter(|d| !d.is_empty() && *d != message);
    match detail {
        Some(detail) => format!("{message}\n\n{detail}"),
        None => message.to_owned(),
    }
}

/// A string property's choices: `enum` (labelled by the legacy `enumNames` when present) or a
/// `oneOf` of `{const, title}`.
fn choices(property: &Value) -> Option<Vec<ChoiceOption>> {
    if property.get("type").and_then(Value::as_str) != Some("string") {
        return None;
    }
    if let Some(values) = property.get("enum").and_then(Value::as_array) {
        let names = property.get("enumNames").and_then(Value::as_array);
        return values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                Some(ChoiceOption {
                    value: v.as_str()?.to_owned(),
                    label: names
                        .and_then(|n| n.get(i))
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                })
            })
            .collect::<Option<Vec<_>>>()
            .filter(|o| !o.is_empty());
    }
    property
        .get("oneOf")
        .and_then(Value::as_array)?
        .iter()
        .map(|branch| {
            Some(ChoiceOption {
                value: branch.get("const")?.as_str()?.to_owned(),
                label: branch
                    .get("title")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            })
        })
        .collect::<Option<Vec<_>>>()
        .filter(|o| !o.is_empty())
}

/// The inbox's external link must carry `{callback_url}`; the server's URL must reach the site
/// unchanged. A fragment does both: browsers never send it, so the site sees exactly its URL,
/// while the inbox still mints the callback that marks the question done.
fn url_question(message: &str, params: &Value) -> Result<(AskRequest, Shape), String> {
    let url = params
        .get("url")
        .and_then(Value::as_str)
        .ok_or("elicitation params.url must be a string")?;
    let joiner = if url.contains('#') { "&" } else { "#" };
    let mut ask = AskRequest::new(message, AnswerFormat::External);
    ask.link = Some(format!("{url}{joiner}{CALLBACK_MARK}{{callback_url}}"));
    Ok((ask, Shape::Url))
}

/// The callback URL in a URL elicitation's question link (after the server substituted it).
pub fn callback_of_link(link: &str) -> Option<&str> {
    link.rsplit_once(CALLBACK_MARK)
        .map(|(_, callback)| callback)
}

/// The elicitation result for a resolved question.
pub fn result(ia: &Interaction, shape: &Shape) -> ElicitResult {
    match ia.status {
        Status::Answered => {
            let value = ia.answer.as_ref().map(|a| a.value.clone());
            let result = ElicitResult::new(ElicitationAction::Accept);
            match (shape, value) {
                (Shape::Url, _) | (_, None) => result,
                (Shape::Form, Some(value)) => result.with_content(value),
                (Shape::Single(name), Some(value)) => result.with_content(json!({ name: value })),
            }
        }
        Status::Declined => ElicitResult::new(ElicitationAction::Decline),
        Status::Expired | Status::Cancelled | Status::Pending => {
            ElicitResult::new(ElicitationAction::Cancel)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_boolean_is_a_confirm_and_one_enum_a_select() {
        let (ask, shape) = question(
            &json!({"message": "Proceed?", "requestedSchema": {"type": "object",
                "properties": {"ok": {"type": "boolean"}}}}),
            None,
            "srv",
        )
        .unwrap();
        assert_eq!(ask.answer_format, AnswerFormat::Confirm);
        assert_eq!(shape, Shape::Single("ok".into()));

        let (ask, _) = question(
            &json!({"message": "Pet?", "requestedSchema": {"type": "object",
                "properties": {"pet": {"type": "string", "enum": ["c", "d"], "enumNames": ["Cat", "Dog"]}}}}),
            None,
            "srv",
        )
        .unwrap();
        assert_eq!(ask.answer_format, AnswerFormat::Select);
        let options = ask.options.unwrap();
        assert_eq!(options[1].value, "d");
        assert_eq!(options[1].label.as_deref(), Some("Dog"));
    }

    #[test]
    fn a_form_prefills_defaults_and_a_url_keeps_the_servers_address() {
        let (ask, shape) = question(
            &json!({"message": "Details", "requestedSchema": {"type": "object", "properties": {
                "name": {"type": "string"}, "n": {"type": "integer", "default": 42}}}}),
            Some(30),
            "srv",
        )
        .unwrap();
        assert_eq!(shape, Shape::Form);
        assert_eq!(ask.timeout_s, Some(30));
        assert_eq!(ask.data.unwrap().values.get("n"), Some(&json!(42)));

        let (ask, shape) = question(
            &json!({"mode": "url", "message": "Sign in", "url": "https://example.com/a?b=1",
                "elicitationId": "e1"}),
            None,
            "srv",
        )
        .unwrap();
        assert_eq!(shape, Shape::Url);
        assert_eq!(
            ask.link.as_deref(),
            Some("https://example.com/a?b=1#inbox_callback={callback_url}")
        );
    }
}
