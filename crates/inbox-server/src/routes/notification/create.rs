//! `POST /api/notifications` — an asker notifies. Validated whole (the ask rules for prompt,
//! media, form and metadata) before anything is stored, then stored at once: `201` with the
//! notification, no ticket, no expiry, nothing to wait for. An `Idempotency-Key` replays the
//! one it created (`200`).

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use chrono::{DateTime, Utc};
use inbox_protocol::caps::NOTIFICATIONS_PER_ASKER_MAX;
use inbox_protocol::validate::validate_notification;
use inbox_protocol::{ErrorCode, Notification, NotificationRequest, ValidationError};

use crate::error::ApiError;
use crate::ids;
use crate::routes::ask::store_inline_media;
use crate::routes::asker_write::{AskerWrite, Judged};
use crate::routes::resolution::{claim, idempotency_key};
use crate::state::AppState;
use crate::store::{CreateOutcome, NewNotification};

impl Judged for NotificationRequest {
    type Accepted = ();

    fn rules(
        _: &AppState,
        now: DateTime<Utc>,
    ) -> impl FnOnce(&Self) -> Result<(), ValidationError> + Send + 'static {
        move |req| validate_notification(req, now)
    }
}

pub async fn create(
    State(state): State<AppState>,
    headers: HeaderMap,
    write: AskerWrite<NotificationRequest>,
) -> Result<(StatusCode, Json<Notification>), ApiError> {
    let (asker, now, req) = (write.principal.name, write.now, write.req);
    let key = idempotency_key(&headers)?;
    let body = serde_json::to_value(&req).unwrap_or_default();
    let claim = claim(key, "notify", &asker, &body);
    let (media, blobs) = store_inline_media(req.media.unwrap_or_default(), "")?;
    let notification = Notification {
        id: ids::notification_id(),
        asker,
        prompt: req.prompt,
        body: req.body,
        media,
        schema: req.schema,
        data: req.data,
        metadata: req.metadata.unwrap_or_default(),
        created_at: now,
        read_at: None,
        dismissed_at: None,
        submissions: 0,
    };
    let new = NewNotification {
        notification,
        media: blobs,
        outstanding_limit: NOTIFICATIONS_PER_ASKER_MAX,
    };
    match state.store().insert_notification(new, claim).await? {
        CreateOutcome::Created(n) => {
            tracing::info!(notification = %n.id, form = n.has_form(), "notified");
            Ok((StatusCode::CREATED, Json(n)))
        }
        CreateOutcome::Replayed(n) => Ok((StatusCode::OK, Json(n))),
        CreateOutcome::IdempotencyConflict => Err(ApiError::idempotency_conflict("notification")),
        CreateOutcome::AtLimit { limit } => Err(ApiError::new(
            ErrorCode::TooManyPending,
            format!(
                "this asker already has {limit} notifications outstanding; they leave the \
                 count when a reviewer dismisses them"
            ),
        )),
    }
}
