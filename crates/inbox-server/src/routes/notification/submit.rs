//! `POST /api/notifications/{id}/submit` — a reviewer submits a notification's form. Checked
//! with the answer rules of a form question with its schema (400 naming the field, nothing
//! stored); stored under the per-notification cap with the next ordinal; the asker hears it as
//! `submitted` on the stream and reads it at `…/submissions`. `Idempotency-Key` replays.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::Utc;
use inbox_protocol::caps::SUBMISSIONS_PER_NOTIFICATION_MAX;
use inbox_protocol::{ErrorCode, Submission, SubmitRequest};

use super::not_found;
use crate::error::ApiError;
use crate::ids;
use crate::routes::resolution::ReviewerWrite;
use crate::state::AppState;
use crate::store::{NewSubmission, SubmitOutcome};
use crate::validation::SUBMISSION;

pub async fn submit(
    State(state): State<AppState>,
    write: ReviewerWrite<SubmitRequest>,
) -> Result<(StatusCode, Json<Submission>), ApiError> {
    let notification = state
        .store()
        .get_notification(&write.id)
        .await?
        .filter(|n| n.is_outstanding())
        .ok_or_else(not_found)?;
    state
        .validation()
        .check(&SUBMISSION, &notification, &write.body.value)
        .await?;
    let claim = write.claim("submit");
    let ReviewerWrite {
        principal,
        id,
        body: req,
        ..
    } = write;
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
        SubmitOutcome::IdempotencyConflict => Err(ApiError::idempotency_conflict("submission")),
        SubmitOutcome::AtLimit { limit } => Err(ApiError::new(
            ErrorCode::TooManySubmissions,
            format!("this notification already holds {limit} submissions"),
        )),
        SubmitOutcome::NotFound => Err(not_found()),
    }
}
