//! An AG-UI run request: an agent URL the server may call, a thread id, an `input` that is the
//! caller's part of a real `RunAgentInput` (checked by decoding it as one, so a malformed
//! message is named down to its field), and bounded extra headers.

use url::Url;

use super::{
    check_cap, check_max_chars, check_serialised_size, check_text, has_unsafe_url_chars,
    starts_with_scheme,
};
use crate::agui::AguiRunRequest;
use crate::caps::{
    AGUI_HEADER_MAX_BYTES, AGUI_HEADERS_MAX_ITEMS, AGUI_ID_MAX_CHARS, AGUI_INPUT_MAX_BYTES,
    AGUI_URL_MAX_CHARS,
};
use crate::error::{ErrorCode, ValidationError};

/// The keys of `RunAgentInput` a caller may set; the rest belong to the driver.
const INPUT_KEYS: [&str; 5] = ["messages", "state", "context", "tools", "forwardedProps"];
/// Set by the driver on every request; a caller's value would be silently replaced.
const DRIVER_KEYS: [&str; 4] = ["threadId", "runId", "resume", "parentRunId"];
/// Headers the driver writes itself (or that frame the request); a caller may not override them.
const DRIVER_HEADERS: [&str; 7] = [
    "accept",
    "content-type",
    "content-length",
    "host",
    "transfer-encoding",
    "connection",
    "upgrade",
];

pub(super) fn validate(req: &AguiRunRequest) -> Result<(), ValidationError> {
    check_agent_url(&req.agent_url)?;
    if let Some(thread) = &req.thread_id {
        check_text(
            thread,
            "thread_id",
            AGUI_ID_MAX_CHARS,
            ErrorCode::InvalidField,
        )?;
    }
    check_input(&req.input)?;
    if let Some(headers) = &req.headers {
        check_headers(headers)?;
    }
    Ok(())
}

fn check_agent_url(url: &str) -> Result<(), ValidationError> {
    let field = "agent_url";
    let invalid = |message: &str| ValidationError::new(ErrorCode::InvalidField, field, message);
    if url.trim().is_empty() {
        return Err(ValidationError::new(
            ErrorCode::MissingField,
            field,
            "must not be blank",
        ));
    }
    check_max_chars(url, field, AGUI_URL_MAX_CHARS, ErrorCode::InvalidField)?;
    if has_unsafe_url_chars(url) {
        return Err(invalid("must not contain whitespace or control characters"));
    }
    if !starts_with_scheme(url, "http://") && !starts_with_scheme(url, "https://") {
        return Err(invalid("must be an http:// or https:// URL"));
    }
    let parsed = Url::parse(url).map_err(|_| invalid("must be an absolute http(s) URL"))?;
    if parsed.host().is_none() {
        return Err(invalid("must name a host"));
    }
    // Credentials in a URL end up in logs and error texts; headers are the place for a key.
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(invalid(
            "must not carry credentials (send an API key in `headers`)",
        ));
    }
    if parsed.fragment().is_some() {
        return Err(invalid("must not carry a fragment"));
    }
    Ok(())
}

fn check_input(input: &serde_json::Map<String, serde_json::Value>) -> Result<(), ValidationError> {
    check_serialised_size(
        input,
        "input",
        AGUI_INPUT_MAX_BYTES,
        ErrorCode::InvalidField,
    )?;
    for key in input.keys() {
        if DRIVER_KEYS.contains(&key.as_str()) {
            return Err(ValidationError::new(
                ErrorCode::FieldNotAllowed,
                format!("input.{key}"),
                "is set by the server on every request to the agent",
            ));
        }
        if !INPUT_KEYS.contains(&key.as_str()) {
            return Err(ValidationError::new(
                ErrorCode::FieldNotAllowed,
                format!("input.{key}"),
                format!("is not a RunAgentInput field a caller sets ({INPUT_KEYS:?})"),
            ));
        }
    }
    let mut whole = input.clone();
    whole.insert("threadId".into(), "thread".into());
    whole.insert("runId".into(), "run".into());
    let decoded: Result<ag_ui::RunAgentInput, _> =
        serde_path_to_error::deserialize(serde_json::Value::Object(whole));
    if let Err(e) = decoded {
        let path = e.path().to_string();
        let field = if path.is_empty() || path == "." {
            "input".to_owned()
        } else {
            format!("input.{path}")
        };
        return Err(ValidationError::new(
            ErrorCode::InvalidField,
            field,
            format!("is not valid AG-UI input: {}", e.inner()),
        ));
    }
    Ok(())
}

fn check_headers(
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<(), ValidationError> {
    check_cap(
        headers.len(),
        AGUI_HEADERS_MAX_ITEMS,
        "headers",
        ErrorCode::InvalidField,
        ("holds", "headers"),
    )?;
    for (name, value) in headers {
        // The name may be shown; the value never is (it is a secret).
        let field = format!("headers.{name}");
        let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
        if name.is_empty() || !name.chars().all(token) || name.len() > 256 {
            return Err(ValidationError::new(
                ErrorCode::InvalidField,
                "headers",
                "a header name must be an HTTP token (letters, digits, -) of at most 256 bytes",
            ));
        }
        if DRIVER_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
            return Err(ValidationError::new(
                ErrorCode::FieldNotAllowed,
                field,
                "is written by the server itself",
            ));
        }
        if name.len() + value.len() > AGUI_HEADER_MAX_BYTES {
            return Err(ValidationError::new(
                ErrorCode::InvalidField,
                field,
                format!("name and value exceed {AGUI_HEADER_MAX_BYTES} bytes"),
            ));
        }
        if !value.chars().all(|c| c == '\t' || (' '..='~').contains(&c)) {
            return Err(ValidationError::new(
                ErrorCode::InvalidField,
                field,
                "a header value must be printable ASCII",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn req(body: serde_json::Value) -> AguiRunRequest {
        serde_json::from_value(body).unwrap()
    }

    fn refused(body: serde_json::Value) -> String {
        validate(&req(body)).unwrap_err().field
    }

    #[test]
    fn a_plain_run_request_passes() {
        let ok = req(
            json!({"agent_url": "https://agent.test/run", "thread_id": "t1",
            "input": {"messages": [{"id": "m1", "role": "user", "content": "deploy"}]},
            "headers": {"Authorization": "Bearer x"}}),
        );
        validate(&ok).unwrap();
        validate(&req(
            json!({"agent_url": "http://127.0.0.1:9/a", "input": {"messages": []}}),
        ))
        .unwrap();
    }

    #[test]
    fn each_refusal_names_its_field() {
        let m = json!({"messages": []});
        assert_eq!(
            refused(json!({"agent_url": "ftp://x.test", "input": m})),
            "agent_url"
        );
        assert_eq!(
            refused(json!({"agent_url": "javascript:alert(1)", "input": m})),
            "agent_url"
        );
        assert_eq!(
            refused(json!({"agent_url": "https://u:p@x.test", "input": m})),
            "agent_url"
        );
        assert_eq!(
            refused(json!({"agent_url": "https://x.test", "input": {"messages": [{"role": 7}]}})),
            "input.messages[0].role"
        );
        assert_eq!(
            refused(json!({"agent_url": "https://x.test", "input": {"messages": "hi"}})),
            "input.messages"
        );
        assert_eq!(
            refused(json!({"agent_url": "https://x.test", "input": {}})),
            "input"
        );
        assert_eq!(
            refused(
                json!({"agent_url": "https://x.test", "input": {"messages": [], "runId": "r"}})
            ),
            "input.runId"
        );
        assert_eq!(
            refused(json!({"agent_url": "https://x.test", "input": {"messages": [], "extra": 1}})),
            "input.extra"
        );
        assert_eq!(
            refused(json!({"agent_url": "https://x.test", "input": m, "thread_id": " "})),
            "thread_id"
        );
        assert_eq!(
            refused(json!({"agent_url": "https://x.test", "input": m, "headers": {"Accept": "x"}})),
            "headers.Accept"
        );
        assert_eq!(
            refused(
                json!({"agent_url": "https://x.test", "input": m, "headers": {"X-Key": "a\nb"}})
            ),
            "headers.X-Key"
        );
        let many: serde_json::Map<_, _> = (0..=AGUI_HEADERS_MAX_ITEMS)
            .map(|i| (format!("x-{i}"), json!("v")))
            .collect();
        assert_eq!(
            refused(json!({"agent_url": "https://x.test", "input": m, "headers": many})),
            "headers"
        );
    }
}
