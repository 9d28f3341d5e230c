//! What an external question must satisfy beyond a well-formed link (`ask.rs`): the link
//! carries `{callback_url}` (without it the question can never be answered), a bound verifier
//! is usable, and a schema — which the callback page renders as a form — falls in the
//! renderable subset (seed "Delivering to a channel"): an object root with a non-empty
//! `properties` map, every property one scalar type (string, boolean, integer, number), an
//! `enum` (non-empty, strings) only on a string, and `required` naming declared properties.
//! Other keywords beside a scalar type are not rendered but are enforced on the answer.

use base64::Engine;
use serde_json::Value;

use super::ask::CALLBACK_URL_PLACEHOLDER;
use crate::ask::AskRequest;
use crate::caps::VERIFIER_SECRET_MAX_BYTES;
use crate::error::{ErrorCode, ValidationError};
use crate::verifier::Verifier;

/// The Standard Webhooks secret prefix; the base64 key follows it.
pub const STANDARD_WEBHOOKS_SECRET_PREFIX: &str = "whsec_";

/// The scalar types a callback-page form can render.
const RENDERABLE_TYPES: [&str; 4] = ["string", "boolean", "integer", "number"];

pub(super) fn check(req: &AskRequest) -> Result<(), ValidationError> {
    if let Some(link) = &req.link
        && !link.contains(CALLBACK_URL_PLACEHOLDER)
    {
        return Err(ValidationError::new(
            ErrorCode::InvalidField,
            "link",
            format!(
                "must carry the literal {CALLBACK_URL_PLACEHOLDER}: without the callback URL \
                 the question can never be answered"
            ),
        ));
    }
    if let Some(verifier) = &req.verifier {
        check_verifier(verifier)?;
    }
    if let Some(schema) = &req.schema {
        check_renderable(schema)?;
    }
    Ok(())
}

fn check_verifier(verifier: &Verifier) -> Result<(), ValidationError> {
    let invalid =
        |field: &str, message: &str| ValidationError::new(ErrorCode::InvalidField, field, message);
    match verifier {
        Verifier::HmacSha256 {
            header,
            prefix,
            secret,
            ..
        } => {
            let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
            if header.is_empty() || header.len() > 100 || !header.chars().all(token) {
                return Err(invalid(
                    "verifier.header",
                    "must be an HTTP header name (letters, digits and !#$%&'*+-.^_`|~; at most 100)",
                ));
            }
            if let Some(prefix) = prefix
                && (prefix.len() > 32 || !prefix.chars().all(|c| c.is_ascii_graphic()))
            {
                return Err(invalid(
                    "verifier.prefix",
                    "must be at most 32 visible ASCII characters",
                ));
            }
            check_secret_size(secret)
        }
        Verifier::StandardWebhooks { secret } => {
            check_secret_size(secret)?;
            let key = secret
                .strip_prefix(STANDARD_WEBHOOKS_SECRET_PREFIX)
                .ok_or_else(|| invalid("verifier.secret", "must start with whsec_"))?;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(key)
                .map_err(|_| invalid("verifier.secret", "the part after whsec_ must be base64"))?;
            // The Standard Webhooks spec: keys are 24 to 64 random bytes.
            if !(24..=64).contains(&bytes.len()) {
                return Err(invalid(
                    "verifier.secret",
                    "the key after whsec_ must decode to 24-64 bytes",
                ));
            }
            Ok(())
        }
    }
}

fn check_secret_size(secret: &str) -> Result<(), ValidationError> {
    if secret.is_empty() || secret.len() > VERIFIER_SECRET_MAX_BYTES {
        return Err(ValidationError::new(
            ErrorCode::InvalidField,
            "verifier.secret",
            format!("must be 1-{VERIFIER_SECRET_MAX_BYTES} bytes"),
        ));
    }
    Ok(())
}

/// The renderable subset; each refusal names the part of the schema at fault.
pub fn check_renderable(schema: &Value) -> Result<(), ValidationError> {
    let refuse = |field: String, message: &str| {
        ValidationError::new(ErrorCode::InvalidField, field, message)
    };
    let root = schema
        .as_object()
        .ok_or_else(|| refuse("schema".into(), "must be a JSON object"))?;
    if root.get("type").and_then(Value::as_str) != Some("object") {
        return Err(refuse(
            "schema.type".into(),
            "a form on the callback page must have \"type\": \"object\" at its root",
        ));
    }
    let properties = root
        .get("properties")
        .and_then(Value::as_object)
        .filter(|p| !p.is_empty())
        .ok_or_else(|| {
            refuse(
                "schema.properties".into(),
                "a form on the callback page needs a non-empty properties map",
            )
        })?;
    for (name, property) in properties {
        let field = format!("schema.properties.{name}");
        let Some(kind) = property
            .get("type")
            .and_then(Value::as_str)
            .filter(|t| RENDERABLE_TYPES.contains(t))
        else {
            return Err(refuse(
                field,
                "must have one scalar type (string, boolean, integer or number) to be rendered \
                 on the callback page",
            ));
        };
        if let Some(choices) = property.get("enum") {
            let strings = choices
                .as_array()
                .filter(|c| !c.is_empty() && c.iter().all(Value::is_string));
            if kind != "string" || strings.is_none() {
                return Err(refuse(
                    format!("{field}.enum"),
                    "an enum must be a non-empty list of strings on a string property",
                ));
            }
        }
    }
    if let Some(required) = root.get("required") {
        let names = required
            .as_array()
            .ok_or_else(|| refuse("schema.required".into(), "must be a list of property names"))?;
        for (i, name) in names.iter().enumerate() {
            if !name.as_str().is_some_and(|n| properties.contains_key(n)) {
                return Err(refuse(
                    format!("schema.required[{i}]"),
                    "must name a declared property",
                ));
            }
        }
    }
    Ok(())
}
