//! Property fuzzing of everything the protocol crate reads from outside: asks and parks (every
//! format, with the form's `data` overlay and `pages`), answers, declines, `params` and SSE
//! frames. The properties: nothing panics, every refusal names a field rooted in the input it
//! came from, and whatever is accepted is accepted again after a round trip through JSON.
//!
//! The case count is bounded for CI; `INBOX_PROPTEST_CASES=N` runs N cases per property (the long
//! run in docs/reliability.md).

use chrono::{DateTime, Utc};
use inbox_protocol::test_support::proptest_config;
use inbox_protocol::validate::{
    Retention, effective_schema, validate_answer, validate_ask, validate_decline, validate_params,
    validate_park,
};
use inbox_protocol::{
    AskRequest, DeclineRequest, Interaction, ParkRequest, StreamEvent, ValidationError,
};
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use support::{form_schema, now, question_from};

mod support;

// ---- strategies -----------------------------------------------------------------------------

/// Strings that sit on the edges validation cares about, and arbitrary ones.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => ".{0,24}",
        1 => Just(String::new()),
        1 => Just("{callback_url}".to_owned()),
        1 => Just("https://sign.example/start?return={callback_url}".to_owned()),
        1 => Just("http://127.0.0.1:1/x".to_owned()),
        1 => Just("javascript:alert(1)".to_owned()),
        1 => Just("data:image/png;base64,iVBORw0KGgo=".to_owned()),
        1 => Just("2026-06-01T13:00:00Z".to_owned()),
        1 => Just("2020-01-01T00:00:00+00:00".to_owned()),
        1 => Just("^(a+)+$".to_owned()),
        1 => Just("(?=x)".to_owned()),
        1 => Just("count".to_owned()),
        1 => Just("date".to_owned()),
        1 => (0usize..5000).prop_map(|n| "x".repeat(n)),
        1 => Just("\u{0}\u{202e}\u{fffd}".to_owned()),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e12f64..1e12).prop_map(Value::from),
        (0u64..100).prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Object keys: the contract's own names (so nested objects look like real ones) or junk.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(KEYS).prop_map(str::to_owned),
        1 => ".{0,8}",
    ]
}

const KEYS: &[&str] = &[
    "type",
    "properties",
    "required",
    "enum",
    "items",
    "minimum",
    "maxLength",
    "pattern",
    "format",
    "$ref",
    "$defs",
    "oneOf",
    "anyOf",
    "allOf",
    "not",
    "const",
    "value",
    "label",
    "values",
    "options",
    "title",
    "fields",
    "kind",
    "url",
    "caption",
    "filename",
    "count",
    "date",
    "note",
    "additionalProperties",
    "default",
];

/// The top-level fields of an ask, as the contract names them.
const ASK_FIELDS: &[&str] = &[
    "kind",
    "prompt",
    "answer_format",
    "options",
    "schema",
    "data",
    "pages",
    "link",
    "media",
    "mode",
    "timeout_s",
    "expiry_at",
    "metadata",
    "verifier",
];

/// A valid ask of each format, to mutate from: fuzzing only from junk would rarely get past
/// the first field.
fn base_ask() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        json!({"prompt": "Anything to add?", "answer_format": "text"}),
        json!({"prompt": "Deploy?", "answer_format": "confirm", "mode": "async", "expiry_at": "2026-06-02T12:00:00Z"}),
        json!({"prompt": "Region?", "answer_format": "select", "options": [{"value": "eu", "label": "Europe"}, {"value": "us"}]}),
        json!({"prompt": "Book", "answer_format": "form", "schema": form_schema()}),
        json!({
            "prompt": "Book", "answer_format": "form", "schema": form_schema(),
            "data": {"values": {"count": 3}, "options": {"date": [{"value": "2026-12-01", "label": "Mon"}]}},
            "pages": [{"title": "Basics", "fields": ["count", "date"]}, {"title": "Notes", "fields": ["note"]}]
        }),
        json!({"prompt": "Sign", "answer_format": "external", "link": "https://sign.example/s?r={callback_url}"}),
        json!({"prompt": "Look", "answer_format": "confirm", "media": [{"kind": "image", "url": "https://cdn.example/a.png", "caption": "a"}]}),
    ])
}

/// One change to an ask body: a top-level field set to anything, removed, or a nested spot of
/// the form overlay replaced.
#[derive(Debug, Clone)]
enum Mutation {
    Set(&'static str, Value),
    Remove(&'static str),
    Unknown(String, Value),
    Nested(&'static str, Vec<String>, Value),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let field = prop::sample::select(ASK_FIELDS);
    prop_oneof![
        4 => (field.clone(), json_value()).prop_map(|(f, v)| Mutation::Set(f, v)),
        1 => field.clone().prop_map(Mutation::Remove),
        1 => (".{0,10}", json_value()).prop_map(|(k, v)| Mutation::Unknown(k, v)),
        4 => (
            prop::sample::select(&["schema", "data", "pages", "options", "media", "metadata"][..]),
            prop::collection::vec(key(), 1..4),
            json_value()
        )
            .prop_map(|(f, path, v)| Mutation::Nested(f, path, v)),
    ]
}

fn apply(body: &mut Value, m: &Mutation) {
    let obj = body.as_object_mut().unwrap();
    match m {
        Mutation::Set(f, v) => {
            obj.insert((*f).to_owned(), v.clone());
        }
        Mutation::Remove(f) => {
            obj.remove(*f);
        }
        Mutation::Unknown(k, v) => {
            obj.insert(k.clone(), v.clone());
        }
        Mutation::Nested(f, path, v) => {
            let mut at = obj.entry((*f).to_owned()).or_insert_with(|| json!({}));
            for step in path {
                let descend = matches!(&*at, Value::Object(_))
                    || matches!(&*at, Value::Array(items) if !items.is_empty());
                if !descend {
                    *at = json!({});
                }
                at = match at {
                    Value::Array(items) => {
                        let i = step.len() % items.len();
                        &mut items[i]
                    }
                    Value::Object(map) => map.entry(step.clone()).or_insert_with(|| json!({})),
                    _ => unreachable!("made an object above"),
                };
            }
            *at = v.clone();
        }
    }
}

fn mutated_ask() -> impl Strategy<Value = Value> {
    (base_ask(), prop::collection::vec(mutation(), 0..4)).prop_map(|(mut body, ms)| {
        for m in &ms {
            apply(&mut body, m);
        }
        body
    })
}

// ---- properties ----------------------------------------------------------------------------

/// The field a refusal names, up to its first `.` or `[`.
fn root(field: &str) -> &str {
    field.split(['.', '[']).next().unwrap_or("")
}

fn names_a_field(e: &ValidationError, roots: &[&str]) -> Result<(), TestCaseError> {
    prop_assert!(!e.message.is_empty(), "a refusal without a message: {e:?}");
    prop_assert!(
        roots.contains(&root(&e.field)),
        "the refusal names `{}`, not a field of the input: {e:?}",
        e.field
    );
    Ok(())
}

fn interaction_from(req: AskRequest, expires_at: Option<DateTime<Utc>>) -> Interaction {
    question_from("ia_fuzz", "fuzz-bot", req, expires_at)
}

/// An ask body through the whole ask path; the accepted question, if it was accepted.
fn check_ask(body: &Value) -> Result<Option<Interaction>, TestCaseError> {
    let Ok(req) = serde_json::from_value::<AskRequest>(body.clone()) else {
        // Shape errors are the server's body reader's to name (serde_path_to_error).
        return Ok(None);
    };
    match validate_ask(&req, now()) {
        Ok(accepted) => {
            // What was accepted is accepted again as stored and re-read.
            let again: AskRequest =
                serde_json::from_value(serde_json::to_value(&req).unwrap()).unwrap();
            prop_assert!(
                validate_ask(&again, now()).is_ok(),
                "accepted once, refused after a round trip: {body}"
            );
            if let Some(schema) = &req.schema {
                let _ = effective_schema(schema, req.data.as_ref());
            }
            Ok(Some(interaction_from(req, accepted.expires_at)))
        }
        Err(e) => {
            names_a_field(&e, ASK_FIELDS)?;
            Ok(None)
        }
    }
}

proptest! {
    #![proptest_config(proptest_config(192))]

    #[test]
    fn any_ask_is_accepted_or_refused_naming_its_field(body in mutated_ask()) {
        check_ask(&body)?;
    }

    #[test]
    fn any_answer_to_an_accepted_question_is_checked_without_panicking(
        body in mutated_ask(),
        answer in prop_oneof![
            json_value(),
            Just(json!({"count": 3, "date": "2026-12-01"})),
            Just(json!("eu")),
            Just(json!(true)),
        ],
    ) {
        if let Some(question) = check_ask(&body)? && let Err(e) = validate_answer(&question, &answer) {
            // A form's refusal names the property a person has to fill in (docs/api.md),
            // which is a property of the schema or of the answer given.
            let mut roots: Vec<String> = vec!["answer".to_owned()];
            let schema = question.schema.clone().unwrap_or(Value::Null);
            for names in [&schema["properties"], &answer] {
                if let Some(map) = names.as_object() {
                    roots.extend(map.keys().cloned());
                }
            }
            if let Some(required) = schema["required"].as_array() {
                roots.extend(required.iter().filter_map(Value::as_str).map(str::to_owned));
            }
            let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
            names_a_field(&e, &roots)?;
        }
    }

    #[test]
    fn any_park_is_accepted_or_refused_naming_its_field(
        asks in prop::collection::vec(mutated_ask(), 0..4),
        continuation in prop_oneof![
            Just(None),
            Just(Some(json!({"kind": "claim"}))),
            json_value().prop_map(Some),
        ],
    ) {
        let mut body = json!({"asks": asks});
        if let Some(c) = continuation {
            body["continuation"] = c;
        }
        if let Ok(req) = serde_json::from_value::<ParkRequest>(body) && let Err(e) = validate_park(&req, now(), Retention::DEFAULT) {
            names_a_field(&e, &["asks", "continuation"])?;
            if root(&e.field) == "asks" && e.field.starts_with("asks[") {
                let i: usize = e.field[5..].split(']').next().unwrap().parse().unwrap();
                prop_assert!(i < req.asks.len(), "names asks[{i}] of {}", req.asks.len());
            }
        }
    }

    #[test]
    fn any_decline_and_params_are_bounded_without_panicking(
        reason in prop::option::of(text()),
        params in prop::collection::vec((key(), json_value()), 0..6),
    ) {
        if let Err(e) = validate_decline(&DeclineRequest { reason }) {
            names_a_field(&e, &["reason"])?;
        }
        let params: Map<String, Value> = params.into_iter().collect();
        if let Err(e) = validate_params(Some(&params)) {
            names_a_field(&e, &["params"])?;
        }
    }

    #[test]
    fn any_sse_frame_decodes_or_is_refused_without_panicking(
        name in prop_oneof![
            prop::sample::select(&["add", "answered", "removed", "reset"][..]).prop_map(str::to_owned),
            ".{0,20}",
        ],
        data in prop_oneof![
            json_value().prop_map(|v| v.to_string()),
            ".{0,64}",
            Just(json!({"id": "ia_1", "reason": "expired"}).to_string()),
            Just(json!({"id": "ia_1", "status": "answered", "answer": {"value": true, "answered_at": "2026-06-01T12:00:00Z", "answered_by": "alice"}}).to_string()),
            (key(), json_value()).prop_map(|(k, v)| {
                let mut ia = serde_json::to_value(interaction_from(
                    AskRequest::new("p", inbox_protocol::AnswerFormat::Text),
                    None,
                )).unwrap();
                ia[k] = v;
                ia.to_string()
            }),
        ],
    ) {
        if let Ok(event) = StreamEvent::from_sse(&name, &data) {
            // What decoded encodes to a frame that decodes to the same event.
            let again = StreamEvent::from_sse(event.name(), &event.data_json());
            prop_assert_eq!(again.ok(), Some(event));
        }
    }
}
