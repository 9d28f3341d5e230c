//! `GET`/`POST /api/interactions/callback/{ticket}` — public by default: the ticket is the
//! capability (whether the door is public is configuration, `public_doors.rs`).
//!
//! GET never mutates (link scanners prefetch URLs): it serves a byte-constant confirm page, or
//! for a question with a schema a form rendered from that stored schema, whose form POSTs back
//! to the same URL, query string included. POST claims the answer: a JSON body, or form fields
//! merged over the query parameters, with the channel's opaque `params` beside it (`params.rs`). The ticket is looked up before the body is read, a bound
//! verifier is checked on the raw body before anything else, and unknown, used and expired
//! tickets all get the same 404. No page interpolates anything from the request.

use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use inbox_protocol::caps::CALLBACK_BODY_MAX_BYTES;
use inbox_protocol::{Interaction, Status};
use serde_json::{Map, Value, json};

use crate::body::{parse_json, read_bounded};
use crate::error::ApiError;
use crate::extract::{PathId, QueryParams};
use crate::signature;
use crate::state::AppState;
use crate::store::{Resolution, ResolveOutcome, TicketMatch};
use crate::validation::ANSWER;

mod page;
mod params;

/// Who an answer through this door is recorded as.
const CALLBACK_PRINCIPAL: &str = "callback";

/// The interaction behind a ticket while it can still be answered.
fn answerable(ia: &Interaction) -> bool {
    ia.is_pending() && ia.expires_at.is_none_or(|at| at > Utc::now())
}

fn answered_by_someone(ia: &Interaction) -> bool {
    matches!(ia.status, Status::Answered | Status::Declined)
}

/// The live ticket's record; unknown, expired and pruned tickets are all `None`.
async fn lookup(state: &AppState, ticket: &str) -> Result<Option<TicketMatch>, ApiError> {
    Ok(state
        .store()
        .ticket_lookup(&crate::ticket::hash(ticket), Utc::now())
        .await?)
}

pub async fn confirm_page(
    State(state): State<AppState>,
    PathId(ticket): PathId,
) -> Result<Response, ApiError> {
    match lookup(&state, &ticket).await? {
        // A schema is rendered as a form (the ask admitted only the renderable subset);
        // without one, the byte-constant confirm page.
        Some(found) if answerable(&found.interaction) => Ok(match &found.interaction.schema {
            Some(schema) => page::form(schema),
            None => page::confirm(),
        }),
        _ => Err(ApiError::not_found()),
    }
}

pub async fn submit(
    State(state): State<AppState>,
    PathId(ticket): PathId,
    QueryParams(query): QueryParams,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    // The ticket first: an unknown one is refused without reading a byte of the body, so an
    // unauthenticated sender cannot make the server buffer anything.
    let Some(TicketMatch {
        interaction: ia,
        verifier,
    }) = lookup(&state, &ticket).await?
    else {
        return Err(ApiError::not_found());
    };
    let body = read_bounded(
        &headers,
        body,
        CALLBACK_BODY_MAX_BYTES,
        state.body_read_timeout(),
    )
    .await?;
    // A bound verifier is checked on the raw bytes before anything else is decided: a forged
    // answer learns nothing and changes nothing.
    if let Some(verifier) = &verifier
        && let Err(refusal) = signature::verify(verifier, &headers, &body, Utc::now())
    {
        tracing::warn!(interaction = %ia.id, kind = verifier.kind(), "callback signature refused");
        return Err(refusal);
    }
    let content_type = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok());
    let from_form =
        content_type.is_some_and(|ct| ct.starts_with("application/x-www-form-urlencoded"));
    let enveloped = params::is_envelope(content_type);
    let reply = |already: bool| -> Response {
        if from_form {
            page::done()
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
    let (query, query_params) = params::split_query(query)?;
    let (value, body_params) = if enveloped {
        let envelope = parse_json::<params::Envelope>(&body)?;
        (envelope.answer, envelope.params)
    } else if from_form || body.is_empty() {
        let mut fields: Map<String, Value> = query
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        for (k, v) in url::form_urlencoded::parse(&body) {
            fields.insert(k.into_owned(), Value::String(v.into_owned()));
        }
        (coerce_to_schema(fields, ia.schema.as_ref()), None)
    } else {
        (parse_json::<Value>(&body)?, None)
    };
    let params = params::join(query_params, body_params)?;
    state.validation().check(&ANSWER, &ia, &value).await?;
    let resolution = Resolution::Answer {
        value,
        params,
        by: CALLBACK_PRINCIPAL.to_owned(),
    };
    match state.store().resolve(&ia.id, resolution, None).await? {
        ResolveOutcome::Resolved(ia) => {
            tracing::info!(interaction = %ia.id, "answered through the callback door");
            state.validation().forget(&ia.id);
            Ok(reply(false))
        }
        ResolveOutcome::AlreadyFinal(ia) if answered_by_someone(&ia) => Ok(reply(true)),
        _ => Err(ApiError::not_found()),
    }
}

/// Form fields and query parameters arrive as text; where the schema declares a scalar
/// property as boolean, integer or number, read the text as that type. An empty such field,
/// or an empty choice of an enum (a number box left blank, an optional select left unset),
/// means "not given". Anything that does not parse stays text, and
/// validation names it.
fn coerce_to_schema(fields: Map<String, Value>, schema: Option<&Value>) -> Value {
    let properties = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object);
    let coerced = fields
        .into_iter()
        .filter_map(|(name, value)| {
            let property = properties.and_then(|p| p.get(&name));
            let declared = property.and_then(|p| p.get("type")).and_then(Value::as_str);
            let choice = property.is_some_and(|p| p.get("enum").is_some());
            let text = value.as_str().unwrap_or_default();
            if text.is_empty()
                && (choice || matches!(declared, Some("boolean" | "integer" | "number")))
            {
                return None;
            }
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
            Some((name, typed.unwrap_or(value)))
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
            "x2": {"type": "number"},
            "s": {"type": "string"}
        }});
        let fields: Map<String, Value> = [
            ("ok", "true"),
            ("n", "42"),
            ("x", "1.5"),
            ("s", "7"),
            ("n2", "no"),
            ("x2", ""),
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
