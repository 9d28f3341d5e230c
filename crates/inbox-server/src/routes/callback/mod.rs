//! `GET`/`POST /api/interactions/callback/{ticket}` — public: the ticket is the capability.
//!
//! GET never mutates (link scanners prefetch URLs): it serves a byte-constant confirm page whose
//! form POSTs back to the same URL, query string included. POST claims the answer: a JSON body,
//! or form fields merged over the query parameters. Unknown, used and expired tickets all get
//! the same 404, and no page interpolates anything from the request.

use axum::Json;
use axum::extract::State;
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS,
    X_FRAME_OPTIONS,
};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use inbox_protocol::validate::validate_answer;
use inbox_protocol::{Interaction, Status};
use serde_json::{Map, Value, json};

use super::{PathId, QueryParams};
use crate::body::{RawBody, parse_json};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::{Resolution, ResolveOutcome};

/// Who an answer through this door is recorded as.
const CALLBACK_PRINCIPAL: &str = "callback";

const CONFIRM_PAGE: &str = r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Confirm your answer</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2328}button{font:inherit;padding:.6rem 1.4rem;cursor:pointer}</style>
</head>
<body>
<h1>Confirm your answer</h1>
<p>Press the button to send your answer back to the service that asked.</p>
<form method="post"><button type="submit">Confirm</button></form>
</body>
</html>
"#;

const DONE_PAGE: &str = r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Answer received</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2328}</style>
</head>
<body>
<h1>Answer received</h1>
<p>Thank you. You can close this page.</p>
</body>
</html>
"#;

/// Headers for both pages: nothing runs, nothing frames it, the ticket leaks to no referrer.
fn page(body: &'static str) -> Response {
    (
        [
            (CONTENT_TYPE, "text/html; charset=utf-8"),
            (
                CONTENT_SECURITY_POLICY,
                "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
            ),
            (X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (X_FRAME_OPTIONS, "DENY"),
            (REFERRER_POLICY, "no-referrer"),
            (CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}

/// The interaction behind a ticket while it can still be answered.
fn answerable(ia: &Interaction) -> bool {
    ia.is_pending() && ia.expires_at.is_none_or(|at| at > Utc::now())
}

fn answered_by_someone(ia: &Interaction) -> bool {
    matches!(ia.status, Status::Answered | Status::Declined)
}

pub async fn confirm_page(
    State(state): State<AppState>,
    PathId(ticket): PathId,
) -> Result<Response, ApiError> {
    match state.store().ticket_lookup(&ticket).await? {
        Some(ia) if answerable(&ia) => Ok(page(CONFIRM_PAGE)),
        _ => Err(ApiError::not_found()),
    }
}

pub async fn submit(
    State(state): State<AppState>,
    PathId(ticket): PathId,
    QueryParams(query): QueryParams,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> Result<Response, ApiError> {
    let Some(ia) = state.store().ticket_lookup(&ticket).await? else {
        return Err(ApiError::not_found());
    };
    let from_form = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/x-www-form-urlencoded"));
    let reply = |already: bool| -> Response {
        if from_form {
            page(DONE_PAGE)
        } else {
            let status = if already {
                "already_answered"
            } else {
                "answered"
            };
            (StatusCode::OK, Json(json!({ "status": status }))).into_response()
        }
    };
    // A provider retrying after its answer landed gets the same success, not an error.
    if answered_by_someone(&ia) {
        return Ok(reply(true));
    }
    if !answerable(&ia) {
        return Err(ApiError::not_found());
    }
    let value = if from_form || body.is_empty() {
        let mut fields: Map<String, Value> = query
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        for (k, v) in url::form_urlencoded::parse(&body) {
            fields.insert(k.into_owned(), Value::String(v.into_owned()));
        }
        coerce_to_schema(fields, ia.schema.as_ref())
    } else {
        parse_json::<Value>(&body)?
    };
    validate_answer(&ia, &value)?;
    let resolution = Resolution::Answer {
        value,
        params: None,
        by: CALLBACK_PRINCIPAL.to_owned(),
    };
    match state.store().resolve(&ia.id, resolution, None).await? {
        ResolveOutcome::Resolved(ia) => {
            tracing::info!(interaction = %ia.id, "answered through the callback door");
            Ok(reply(false))
        }
        ResolveOutcome::AlreadyFinal(ia) if answered_by_someone(&ia) => Ok(reply(true)),
        _ => Err(ApiError::not_found()),
    }
}

/// Form fields and query parameters arrive as text; where the schema declares a scalar
/// property as boolean, integer or number, read the text as that type. Anything that does not
/// parse stays text, and validation names it.
fn coerce_to_schema(fields: Map<String, Value>, schema: Option<&Value>) -> Value {
    let properties = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object);
    let coerced = fields
        .into_iter()
        .map(|(name, value)| {
            let declared = properties
                .and_then(|p| p.get(&name))
                .and_then(|p| p.get("type"))
                .and_then(Value::as_str);
            let text = value.as_str().unwrap_or_default();
            let typed = match declared {
                Some("boolean") => text.parse::<bool>().ok().map(Value::Bool),
                Some("integer") => text.parse::<i64>().ok().map(Value::from),
                Some("number") => text
                    .parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
                    .map(Value::Number),
                _ => None,
            };
            (name, typed.unwrap_or(value))
        })
        .collect();
    Value::Object(coerced)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_fields_take_the_schema_types() {
        let schema = json!({"type": "object", "properties": {
            "ok": {"type": "boolean"}, "n": {"type": "integer"}, "x": {"type": "number"},
            "s": {"type": "string"}
        }});
        let fields: Map<String, Value> = [
            ("ok", "true"),
            ("n", "42"),
            ("x", "1.5"),
            ("s", "7"),
            ("n2", "no"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), Value::String(v.to_owned())))
        .collect();
        assert_eq!(
            coerce_to_schema(fields, Some(&schema)),
            json!({"ok": true, "n": 42, "x": 1.5, "s": "7", "n2": "no"})
        );
    }
}
