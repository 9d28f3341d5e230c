//! `POST /api/notifications/{id}/submit` — a reviewer submits a notification's form. Checked
//! with the answer rules of a form question with its schema (400 naming the field, nothing
//! stored); stored under the per-notification cap with the next ordinal; the asker hears it as
//! `submitted` on the stream and reads it at `…/submissions`. `Idempotency-Key` replays.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use chrono::Utc;
use inbox_protocol::caps::SUBMISSIONS_PER_NOTIFICATION_MAX;
use inbox_protocol::{ErrorCode, Submission, SubmitRequest};

use super::not_found;
use crate::auth::AsReviewer;
use crate::body::JsonBody;
use crate::error::ApiError;
use crate::extract::PathId;
use crate::ids;
use crate::routes::resolution::{claim, idempotency_key};
use crate::state::AppState;
use crate::store::{NewSubmission, SubmitOutcome};

pub async fn submit(
    State(state): State<AppState>,
    AsReviewer(principal): AsReviewer,
    PathId(id): PathId,
    headers: HeaderMap,
    JsonBody(req): JsonBody<SubmitRequest>,
) -> Result<(StatusCode, Json<Submission>), ApiError> {
    let key = idempotency_key(&headers)?;
    let notification = state
        .store()
        .get_notification(&id)
        .await?
        .filter(|n| n.is_outstanding())
        .ok_or_else(not_found)?;
    state
        .validation()
        .check_submission(&notification, &req.value)
        .await?;
    let body = serde_json::to_value(&req).unwrap_or_default();
    let claim = claim(key, "submit", &principal.name, &body);
    let new = NewSubmission {
        submission: Submission {
            id: ids::submission_id(),
            notification_id: id.clone(),
            asker: notification.asker.clone(),
            value: req.value,
            submitted_by: principal.name.clone(),
            submitted_at: Utc::now(),
            ordinal: 0,
        },
        limit: SUBMISSIONS_PER_NOTIFICATION_MAX,
    };
    match state.store().submit(&id, new, claim).await? {
        SubmitOutcome::Submitted(s) => {
            tracing::info!(notification = %id, submission = %s.id, ordinal = s.ordinal, "submitted");
            Ok((StatusCode::CREATED, Json(s)))
        }
        SubmitOutcome::Replayed(s) => Ok((StatusCode::OK, Json(s))),
        SubmitOutcome::IdempotencyConflict => Err(ApiError::new(
            ErrorCode::IdempotencyConflict,
            "this Idempotency-Key was used for a different submission",
        )
        .with_field("Idempotency-Key")),
        SubmitOutcome::AtLimit { limit } => Err(ApiError::new(
            ErrorCode::TooManySubmissions,
            format!("this notification already holds {limit} submissions"),
        )),
        SubmitOutcome::NotFound => Err(not_found()),
    }
}
