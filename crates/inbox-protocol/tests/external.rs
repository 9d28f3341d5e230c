//! Ask-time rules of external questions (parks.md, "External questions, tightened"): the link
//! carries `{callback_url}`, a bound verifier is usable, and a schema is in the subset the
//! callback page can render. Each refusal names its field.

use chrono::Utc;
use inbox_protocol::validate::validate_ask;
use inbox_protocol::{AskRequest, ErrorCode};
use serde_json::{Value, json};
use support::with;

mod support;

fn external(patch: Value) -> Value {
    let body = json!({"prompt": "Sign the NDA", "answer_format": "external",
                      "link": "https://sign.example/doc?return={callback_url}"});
    with(&body, patch)
}

fn check(body: &Value) -> Result<(), (ErrorCode, String)> {
    let req: AskRequest = serde_json::from_value(body.clone()).expect("an ask body");
    validate_ask(&req, Utc::now())
        .map(|_| ())
        .map_err(|e| (e.code, e.field))
}

/// A Standard Webhooks secret with a 32-byte key.
const WHSEC: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

#[test]
fn accepted_external_asks() {
    for body in [
        external(json!({})),
        external(
            json!({"verifier": {"kind": "hmac-sha256", "header": "X-Hub-Signature-256",
                                     "prefix": "sha256=", "encoding": "hex", "secret": "s"}}),
        ),
        external(
            json!({"verifier": {"kind": "hmac-sha256", "header": "X-Signature",
                                     "encoding": "base64", "secret": "s"}}),
        ),
        external(json!({"verifier": {"kind": "standard-webhooks", "secret": WHSEC}})),
        external(json!({"schema": {"type": "object", "properties": {
            "name": {"type": "string", "maxLength": 40},
            "tier": {"type": "string", "enum": ["free", "pro"]},
            "ok": {"type": "boolean"}, "n": {"type": "integer", "minimum": 1},
            "x": {"type": "number"}}, "required": ["name", "ok"]}})),
    ] {
        assert_eq!(check(&body), Ok(()), "{body}");
    }
}

#[test]
fn refused_external_asks_name_their_field() {
    use ErrorCode::{FieldNotAllowed, InvalidField};
    let schema = |properties: Value| {
        external(json!({"schema": {"type": "object", "properties": properties}}))
    };
    let cases: Vec<(Value, ErrorCode, &str)> = vec![
        (
            external(json!({"link": "https://sign.example/doc"})),
            InvalidField,
            "link",
        ),
        (
            json!({"prompt": "ok?", "answer_format": "confirm",
                   "verifier": {"kind": "standard-webhooks", "secret": WHSEC}}),
            FieldNotAllowed,
            "verifier",
        ),
        (
            external(
                json!({"verifier": {"kind": "hmac-sha256", "header": "Bad Header",
                                         "secret": "s"}}),
            ),
            InvalidField,
            "verifier.header",
        ),
        (
            external(
                json!({"verifier": {"kind": "hmac-sha256", "header": "X-Sig",
                                         "prefix": "sha 256=", "secret": "s"}}),
            ),
            InvalidField,
            "verifier.prefix",
        ),
        (
            external(json!({"verifier": {"kind": "hmac-sha256", "header": "X-Sig", "secret": ""}})),
            InvalidField,
            "verifier.secret",
        ),
        (
            external(
                json!({"verifier": {"kind": "hmac-sha256", "header": "X-Sig",
                                         "secret": "k".repeat(inbox_protocol::caps::VERIFIER_SECRET_MAX_BYTES + 1)}}),
            ),
            InvalidField,
            "verifier.secret",
        ),
        (
            external(json!({"verifier": {"kind": "standard-webhooks", "secret": "c2VjcmV0"}})),
            InvalidField,
            "verifier.secret",
        ),
        (
            external(json!({"verifier": {"kind": "standard-webhooks", "secret": "whsec_!!"}})),
            InvalidField,
            "verifier.secret",
        ),
        (
            external(
                json!({"verifier": {"kind": "standard-webhooks", "secret": "whsec_c2hvcnQ="}}),
            ),
            InvalidField,
            "verifier.secret",
        ),
        (
            external(json!({"schema": {"type": "array", "items": {"type": "string"}}})),
            InvalidField,
            "schema.type",
        ),
        (
            external(json!({"schema": {"type": "object", "properties": {}}})),
            InvalidField,
            "schema.properties",
        ),
        (
            schema(
                json!({"name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}),
            ),
            InvalidField,
            "schema.properties.tags",
        ),
        (
            schema(
                json!({"address": {"type": "object", "properties": {"city": {"type": "string"}}}}),
            ),
            InvalidField,
            "schema.properties.address",
        ),
        (
            schema(json!({"either": {"anyOf": [{"type": "string"}, {"type": "integer"}]}})),
            InvalidField,
            "schema.properties.either",
        ),
        (
            schema(json!({"untyped": {"minLength": 1}})),
            InvalidField,
            "schema.properties.untyped",
        ),
        (
            schema(json!({"nullable": {"type": ["string", "null"]}})),
            InvalidField,
            "schema.properties.nullable",
        ),
        (
            schema(json!({"n": {"type": "integer", "enum": [1, 2]}})),
            InvalidField,
            "schema.properties.n.enum",
        ),
        (
            schema(json!({"tier": {"type": "string", "enum": []}})),
            InvalidField,
            "schema.properties.tier.enum",
        ),
        (
            external(
                json!({"schema": {"type": "object", "properties": {"a": {"type": "string"}},
                                       "required": ["a", "b"]}}),
            ),
            InvalidField,
            "schema.required[1]",
        ),
    ];
    for (body, code, field) in cases {
        assert_eq!(check(&body), Err((code, field.to_owned())), "{body}");
    }
}
