//! The opaque enrichment a channel sends beside a callback answer (a tapped reply's id, a
//! button payload, a referral): stored as the answer's `params` and handed to the asker.
//!
//! Two ways in, both chosen so that no callback that worked before changes meaning:
//! - query parameters named `params.<key>` — each becomes the string `params[<key>]` and is
//!   never an answer field (a channel building a confirm URL can add them without touching
//!   the body);
//! - a JSON envelope, sent with the content type [`ENVELOPE_CONTENT_TYPE`]:
//!   `{"answer": <value>, "params": {…}?}`. A plain `application/json` body stays the answer
//!   itself, as it always was.
//!
//! Params are transport, not trust: bounded by `PARAMS_MAX_BYTES` and `ANSWER_MAX_DEPTH`,
//! never interpreted, never interpolated into a page.

use std::collections::HashMap;

use inbox_protocol::ErrorCode;
use inbox_protocol::validate::validate_params;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::error::ApiError;

/// The query-parameter prefix that marks a key as enrichment rather than an answer field.
pub const QUERY_PREFIX: &str = "params.";

/// The content type of a body that carries params beside the answer.
pub const ENVELOPE_CONTENT_TYPE: &str = "application/vnd.inbox.answer+json";

/// An answer with its params, as the envelope body carries them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Envelope {
    pub answer: Value,
    #[serde(default)]
    pub params: Option<Map<String, Value>>,
}

/// Whether the request's content type is the envelope's (parameters such as `charset` aside).
pub fn is_envelope(content_type: Option<&str>) -> bool {
    content_type
        .and_then(|ct| ct.split(';').next())
        .is_some_and(|ct| ct.trim().eq_ignore_ascii_case(ENVELOPE_CONTENT_TYPE))
}

/// The query parameters that are answer fields (a form answer is built from them).
pub type AnswerFields = HashMap<String, String>;

/// Split the query into the answer's fields and the `params.<key>` enrichment.
pub fn split_query(
    query: HashMap<String, String>,
) -> Result<(AnswerFields, Map<String, Value>), ApiError> {
    let mut fields = HashMap::new();
    let mut params = Map::new();
    for (name, value) in query {
        match name.strip_prefix(QUERY_PREFIX) {
            Some("") => {
                return Err(ApiError::new(
                    ErrorCode::InvalidField,
                    "a params query parameter needs a name after `params.`",
                )
                .with_field("params"));
            }
            Some(key) => {
                params.insert(key.to_owned(), Value::String(value));
            }
            None => {
                fields.insert(name, value);
            }
        }
    }
    Ok((fields, params))
}

/// The query's params and the envelope's, joined and bounded; `None` when there are none (a
/// plain typed answer carries no params). A key given both ways is refused rather than one
/// silently winning.
pub fn join(
    from_query: Map<String, Value>,
    from_body: Option<Map<String, Value>>,
) -> Result<Option<Map<String, Value>>, ApiError> {
    let mut params = from_query;
    for (key, value) in from_body.unwrap_or_default() {
        if params.contains_key(&key) {
            return Err(ApiError::new(
                ErrorCode::InvalidField,
                "this param is given both in the query and in the body",
            )
            .with_field(format!("params.{key}")));
        }
        params.insert(key, value);
    }
    if params.is_empty() {
        return Ok(None);
    }
    validate_params(Some(&params))?;
    Ok(Some(params))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_prefixed_query_keys_are_params() {
        let query: HashMap<String, String> = [("params.reply_id", "r-1"), ("approved", "true")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        let (fields, params) = split_query(query).unwrap();
        assert_eq!(fields.len(), 1);
        assert_eq!(fields["approved"], "true");
        assert_eq!(Value::Object(params), json!({"reply_id": "r-1"}));
    }

    #[test]
    fn a_bare_prefix_and_a_key_given_twice_are_refused() {
        let query: HashMap<String, String> = [("params.".to_owned(), "x".to_owned())].into();
        let err = split_query(query).unwrap_err();
        assert_eq!(err.body().error.field.as_deref(), Some("params"));
        let twice = join(
            json!({"a": "1"}).as_object().cloned().unwrap(),
            json!({"a": "2"}).as_object().cloned(),
        )
        .unwrap_err();
        assert_eq!(twice.code(), ErrorCode::InvalidField);
        assert_eq!(twice.body().error.field.as_deref(), Some("params.a"));
    }

    #[test]
    fn no_params_is_none_and_the_envelope_type_ignores_charset() {
        assert_eq!(join(Map::new(), None).unwrap(), None);
        assert_eq!(join(Map::new(), Some(Map::new())).unwrap(), None);
        assert!(is_envelope(Some(
            "application/vnd.inbox.answer+json; charset=utf-8"
        )));
        assert!(!is_envelope(Some("application/json")));
        assert!(!is_envelope(None));
    }
}
