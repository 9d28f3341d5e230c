//! What the answer, decline and withdraw doors share: the idempotency key, the single-winner
//! settle, and turning a store outcome into the contract's response. The reviewer's writes
//! (answer, decline and a notification's submit) arrive as one [`ReviewerWrite`].

use axum::Json;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::HeaderMap;
use chrono::Utc;
use inbox_protocol::caps::IDEMPOTENCY_KEY_MAX_CHARS;
use inbox_protocol::{AnswerFormat, ErrorCode, Interaction, ResolveResponse, Status, paths};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::auth::AsReviewer;
use crate::body::JsonBody;
use crate::error::ApiError;
use crate::extract::PathId;
use crate::principal::Principal;
use crate::state::AppState;
use crate::store::{IdempotencyClaim, Resolution, ResolveOutcome};
use crate::validation::ANSWER;

/// A reviewer's idempotent write to one item by id: answer, decline, or a notification's
/// submit. Extracted in the order its refusals come: the role (`401`/`403`, before the body is
/// read), the path (`404`), the body (`400`/`408`/`413`), then the `Idempotency-Key` (`400`).
pub struct ReviewerWrite<T> {
    pub principal: Principal,
    pub id: String,
    pub key: Option<String>,
    pub body: T,
}

impl<T: DeserializeOwned> FromRequest<AppState> for ReviewerWrite<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, ApiError> {
        let (mut parts, body) = req.into_parts();
        let AsReviewer(principal) = AsReviewer::from_request_parts(&mut parts, state).await?;
        let PathId(id) = PathId::from_request_parts(&mut parts, state).await?;
        let headers = parts.headers.clone();
        let JsonBody(body) =
            JsonBody::from_request(Request::from_parts(parts, body), state).await?;
        let key = idempotency_key(&headers)?;
        Ok(ReviewerWrite {
            principal,
            id,
            key,
            body,
        })
    }
}

impl<T: Serialize> ReviewerWrite<T> {
    /// This write's claim on its key, if it sent one (see [`claim`]).
    pub fn claim(&self, door: &str) -> Option<IdempotencyClaim> {
        let body = serde_json::to_value(&self.body).unwrap_or_default();
        claim(self.key.clone(), door, &self.principal.name, &body)
    }
}

/// A reviewer's answer or decline, once its body has been read: the question must be live
/// (unknown or past its deadline is the uniform 404), an answer must fit it, and the store
/// decides the single winner. `claim` ties the idempotency key to this request.
pub async fn settle(
    state: &AppState,
    id: &str,
    door: &str,
    claim: Option<IdempotencyClaim>,
    resolution: Resolution,
) -> Result<Json<ResolveResponse>, ApiError> {
    let ia = state
        .store()
        .get(id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    if past_deadline(&ia) {
        return Err(ApiError::not_found());
    }
    // An external question's answer is the outside system's payload, delivered through the
    // ticket in its link; a reviewer's hand-typed value here would stand in for a signature or
    // a payment that never happened. Declining stays open to the reviewer.
    if matches!(resolution, Resolution::Answer { .. }) && ia.answer_format == AnswerFormat::External
    {
        return Err(ApiError::new(
            ErrorCode::AnsweredExternally,
            "this external question is answered only through its link (the callback door); \
             it can still be declined",
        )
        .with_field("answer"));
    }
    // Only a live question is judged: a resolved one gets its replay or its winner below.
    if ia.is_pending()
        && let Resolution::Answer { value, .. } = &resolution
    {
        state.validation().check(&ANSWER, &ia, value).await?;
    }
    let outcome = state.store().resolve(id, resolution, claim).await?;
    if matches!(outcome, ResolveOutcome::Resolved(_)) {
        tracing::info!(interaction = %id, door, "resolved");
        state.validation().forget(id);
    }
    respond(outcome)
}

/// A question still pending whose deadline has passed: the sweeper has not reached it yet, but
/// for everyone it is already expired and cannot be answered.
pub fn past_deadline(ia: &Interaction) -> bool {
    ia.is_pending() && ia.expires_at.is_some_and(|at| at <= Utc::now())
}

/// The `Idempotency-Key` header, if sent: 1..=200 visible ASCII characters.
pub fn idempotency_key(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    let Some(raw) = headers.get(paths::IDEMPOTENCY_KEY) else {
        return Ok(None);
    };
    let refuse = || {
        ApiError::new(
            ErrorCode::InvalidField,
            format!(
                "Idempotency-Key must be 1 to {IDEMPOTENCY_KEY_MAX_CHARS} visible ASCII characters"
            ),
        )
        .with_field("Idempotency-Key")
    };
    let key = raw.to_str().map_err(|_| refuse())?;
    if key.is_empty()
        || key.len() > IDEMPOTENCY_KEY_MAX_CHARS
        || !key.bytes().all(|b| b.is_ascii_graphic())
    {
        return Err(refuse());
    }
    Ok(Some(key.to_owned()))
}

/// Ties a key to what was asked with it: the door, who called, and the body. The same key
/// with any difference in these is a conflict, not a replay.
pub fn claim(
    key: Option<String>,
    door: &str,
    principal: &str,
    body: &Value,
) -> Option<IdempotencyClaim> {
    key.map(|key| IdempotencyClaim {
        key,
        fingerprint: format!("{door}\n{principal}\n{}", canonical_json(body)),
    })
}

/// JSON text with object keys sorted at every level, so key order never matters.
fn canonical_json(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let inner: Vec<String> = entries
                .into_iter()
                .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), canonical_json(v)))
                .collect();
            format!("{{{}}}", inner.join(","))
        }
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(canonical_json).collect();
            format!("[{}]", inner.join(","))
        }
        scalar => scalar.to_string(),
    }
}

/// Answer and decline: the winner (or a replay) is `200`; a question a person already
/// resolved is `409 already_answered` with the winner; anything else final is `404`.
pub fn respond(outcome: ResolveOutcome) -> Result<Json<ResolveResponse>, ApiError> {
    match outcome {
        ResolveOutcome::Resolved(ia) | ResolveOutcome::Replayed(ia) => Ok(Json(ResolveResponse {
            status: ia.status,
            interaction: ia,
        })),
        ResolveOutcome::AlreadyFinal(ia)
            if matches!(ia.status, Status::Answered | Status::Declined) =>
        {
            Err(ApiError::already_answered(ia))
        }
        ResolveOutcome::AlreadyFinal(_)
        | ResolveOutcome::NotFound
        | ResolveOutcome::PastDeadline => Err(ApiError::not_found()),
        ResolveOutcome::IdempotencyConflict => Err(ApiError::idempotency_conflict("request")),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn canonical_json_ignores_key_order() {
        let a = json!({"b": [1, {"y": 1, "x": "q\""}], "a": null});
        let b: Value =
            serde_json::from_str(r#"{"a": null, "b": [1, {"x": "q\"", "y": 1}]}"#).unwrap();
        assert_eq!(canonical_json(&a), canonical_json(&b));
        assert_ne!(
            canonical_json(&json!([1, 2])),
            canonical_json(&json!([2, 1]))
        );
    }
}
