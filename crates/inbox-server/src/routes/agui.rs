//! The AG-UI run doors: `POST /api/agui/runs` (an asker starts a run the server drives),
//! `GET /api/agui/runs/{id}` and `POST /api/agui/runs/{id}/retry` (its asker only). A run's
//! headers are stored apart from it and never shown; see [`crate::agui`] for the driver.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use inbox_protocol::validate::validate_agui_run;
use inbox_protocol::{
    AguiRun, AguiRunRequest, AguiRunResponse, AguiRunStatus, ErrorCode, ValidationError,
};

use crate::error::ApiError;
use crate::ids;
use crate::routes::asker_write::{AskerWrite, Judged};
use crate::routes::found::Found;
use crate::state::AppState;
use crate::store::NewAguiRun;

impl Judged for AguiRunRequest {
    type Accepted = ();

    fn rules(
        _: &AppState,
        _: DateTime<Utc>,
    ) -> impl FnOnce(&Self) -> Result<(), ValidationError> + Send + 'static {
        validate_agui_run
    }
}

pub async fn create(
    State(state): State<AppState>,
    write: AskerWrite<AguiRunRequest>,
) -> Result<(StatusCode, Json<AguiRunResponse>), ApiError> {
    let (asker, now, req) = (write.principal.name, write.now, write.req);
    let run = AguiRun {
        id: ids::agui_run_id(),
        asker,
        thread_id: req.thread_id.unwrap_or_else(ids::agui_thread_id),
        agent_url: req.agent_url,
        status: AguiRunStatus::Running,
        park_id: None,
        transcript: Vec::new(),
        error: None,
        turns: 0,
        created_at: now,
        updated_at: now,
    };
    state
        .store()
        .insert_agui_run(
            NewAguiRun {
                run: run.clone(),
                input: req.input,
                headers: req.headers.unwrap_or_default(),
            },
            now,
        )
        .await?;
    state.wake_agui();
    // The header names are not logged either: what an agent needs is nobody's business here.
    tracing::info!(run = %run.id, thread = %run.thread_id, "AG-UI run queued");
    Ok((StatusCode::CREATED, Json(AguiRunResponse { run })))
}

pub async fn read(found: Found<AguiRun>) -> Json<AguiRunResponse> {
    Json(AguiRunResponse { run: found.item })
}

/// A `failed` run runs its last turn again (its attempts start over).
pub async fn retry(
    State(state): State<AppState>,
    found: Found<AguiRun>,
) -> Result<Json<AguiRunResponse>, ApiError> {
    let id = &found.item.id;
    let Some(run) = state.store().retry_agui_run(id, Utc::now()).await? else {
        return Err(ApiError::new(
            ErrorCode::NotFailed,
            "only a failed run can be retried",
        ));
    };
    state.wake_agui();
    tracing::info!(run = %id, "AG-UI run queued again");
    Ok(Json(AguiRunResponse { run }))
}
