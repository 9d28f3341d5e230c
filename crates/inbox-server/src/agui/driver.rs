//! The turn loop and one turn. See the module docs of [`crate::agui`].

use std::sync::Arc;
use std::time::Duration;

use ag_ui::{ResumeEntry, ResumeStatus, RunAgentInput, RunOutcome};
use chrono::Utc;
use futures::StreamExt;
use inbox_protocol::caps::{AGUI_INTERRUPTS_MAX_ROUNDS, PARK_MAX_ASKS};
use inbox_protocol::validate::validate_park;
use inbox_protocol::{
    AguiQuestion, AguiRun, AguiRunStatus, Continuation, ParkRequest, ResolutionStatus,
};
use serde_json::{Map, Value};
use tokio::sync::Semaphore;
use tokio::sync::broadcast::error::RecvError;
use tokio::task::JoinHandle;
use tracing::Instrument;

use super::events::{SseDecoder, StreamEnd, StreamFault, Transcript, decode};
use super::interrupt::{payload, question_for};
use crate::outbound;
use crate::state::AppState;
use crate::store::{AguiTurn, Store, StoreError, TurnResult};

/// How often a turn's growing transcript is written while the agent streams.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(500);

/// How far a turn's lease outlasts its timeout at most: a report written just as the timeout
/// fires still finds the lease held.
const LEASE_MARGIN: Duration = Duration::from_secs(30);

/// How the driver retries an unreachable agent, bounds a turn, and dates a question.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Attempts at one turn before the run is `failed` (re-triggerable with `…/retry`).
    pub max_attempts: u32,
    /// The first retry waits about this; each one after twice as long, up to `retry_cap`.
    pub retry_base: Duration,
    pub retry_cap: Duration,
    /// The longest one turn (one request and its whole stream) may take; the lease on the
    /// turn is this plus a margin (30 s, or the timeout itself when shorter), so a live turn
    /// is never taken over and a dead worker's turn comes due again after about twice this.
    pub turn_timeout: Duration,
    pub connect_timeout: Duration,
    /// The longest the agent's stream may go silent (its keep-alives count).
    pub idle_timeout: Duration,
    /// How often the queue is looked at when nothing wakes the driver.
    pub poll: Duration,
    /// The deadline of an interrupt without `expiresAt` (capped by the park retention).
    pub default_expiry: Duration,
    /// Turns one worker drives at once.
    pub concurrency: usize,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            max_attempts: 5,
            retry_base: Duration::from_secs(1),
            retry_cap: Duration::from_secs(60),
            turn_timeout: Duration::from_secs(600),
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(120),
            poll: Duration::from_millis(500),
            default_expiry: Duration::from_secs(7 * 24 * 3600),
            concurrency: 16,
        }
    }
}

impl Policy {
    fn lease(&self) -> Duration {
        self.turn_timeout + self.turn_timeout.min(LEASE_MARGIN)
    }
}

pub fn spawn(
    state: AppState,
    policy: Policy,
    stopping: impl Future<Output = ()> + Send + 'static,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let builder = reqwest::Client::builder()
            .connect_timeout(policy.connect_timeout)
            .timeout(policy.turn_timeout);
        let Some(http) = outbound::client(builder, "AG-UI driver") else {
            return;
        };
        let store = state.store().clone();
        let permits = Arc::new(Semaphore::new(policy.concurrency.max(1)));
        let mut resolved = store.subscribe_parks();
        let mut ticker = tokio::time::interval(policy.poll);
        let policy = Arc::new(policy);
        tokio::pin!(stopping);
        loop {
            tokio::select! {
                _ = ticker.tick() => {}
                moved = resolved.recv() => if let Err(RecvError::Closed) = moved { break },
                () = state.agui_woken() => {}
                () = &mut stopping => break,
            }
            loop {
                let Ok(permit) = permits.clone().acquire_owned().await else {
                    break;
                };
                let lease = store.lease_agui_turn(Utc::now(), policy.lease()).await;
                let Some(turn) = outbound::leased(lease, "an AG-UI turn") else {
                    break;
                };
                let span = tracing::info_span!(
                    "agui",
                    run = %turn.run.id,
                    turn = turn.run.turns + 1,
                    attempt = turn.attempts + 1
                );
                let (state, http, policy) = (state.clone(), http.clone(), policy.clone());
                tokio::spawn(
                    async move {
                        drive(&state, &http, &policy, turn).await;
                        drop(permit);
                    }
                    .instrument(span),
                );
            }
        }
    })
}

/// What one request to the agent came to, before it is turned into a [`TurnResult`].
enum Reply {
    Ended(Transcript, StreamEnd),
    /// Worth another attempt (connect failure, 5xx, a broken or silent stream).
    Unreachable(String),
    /// The agent answered, but wrongly: no retry helps.
    Refused(String),
}

async fn drive(state: &AppState, http: &reqwest::Client, policy: &Policy, turn: AguiTurn) {
    let store = state.store().clone();
    let result = match turn_result(state, http, policy, &turn).await {
        Ok(result) => result,
        Err(e) => {
            // The store failed while building the turn: leave it leased; it comes due again.
            tracing::warn!(error = %e, "an AG-UI turn could not be prepared");
            return;
        }
    };
    let status = result.run().status;
    let finished = match store.finish_agui_turn(&turn, result, Utc::now()).await {
        Err(StoreError::PendingLimit { limit }) => {
            let run = failed(
                &turn,
                turn.run.transcript.clone(),
                format!(
                    "the run's questions would pass the asker's limit of {limit} pending questions"
                ),
            );
            store
                .finish_agui_turn(
                    &turn,
                    TurnResult::Finished { run, reached: true },
                    Utc::now(),
                )
                .await
        }
        other => other,
    };
    match finished {
        Ok(true) => tracing::info!(status = status.as_str(), "AG-UI turn reported"),
        Ok(false) => tracing::warn!("the turn's lease was lost before it was reported"),
        Err(e) => tracing::warn!(error = %e, "reporting the turn failed; it comes due again"),
    }
}

fn failed(
    turn: &AguiTurn,
    transcript: Vec<inbox_protocol::AguiTranscriptItem>,
    error: String,
) -> AguiRun {
    AguiRun {
        status: AguiRunStatus::Failed,
        transcript,
        error: Some(error),
        updated_at: Utc::now(),
        ..turn.run.clone()
    }
}

async fn turn_result(
    state: &AppState,
    http: &reqwest::Client,
    policy: &Policy,
    turn: &AguiTurn,
) -> Result<TurnResult, StoreError> {
    let resume = match &turn.resume {
        Some(park) => Some(resume_entries(&**state.store(), park).await?),
        None => None,
    };
    let reply = send(&**state.store(), http, policy, turn, resume).await;
    let now = Utc::now();
    let (transcript, end) = match reply {
        Reply::Ended(transcript, end) => (transcript, end),
        Reply::Refused(error) => {
            return Ok(TurnResult::Finished {
                run: failed(turn, turn.run.transcript.clone(), error),
                reached: false,
            });
        }
        Reply::Unreachable(error) => {
            let attempt = turn.attempts + 1;
            if attempt >= policy.max_attempts {
                let error = format!(
                    "the agent was unreachable on {attempt} attempts (last: {error}); \
                     POST /api/agui/runs/{}/retry runs it again",
                    turn.run.id
                );
                return Ok(TurnResult::Finished {
                    run: failed(turn, turn.run.transcript.clone(), error),
                    reached: false,
                });
            }
            let wait =
                crate::webhook::dispatcher::backoff(policy.retry_base, policy.retry_cap, attempt);
            tracing::info!(%error, retry_in_ms = wait.as_millis() as u64, "the agent is unreachable");
            return Ok(TurnResult::Retry {
                run: AguiRun {
                    status: AguiRunStatus::Running,
                    error: Some(format!("attempt {attempt}: {error}")),
                    updated_at: now,
                    ..turn.run.clone()
                },
                at: now + chrono::Duration::from_std(wait).unwrap_or_default(),
            });
        }
    };
    let mut run = AguiRun {
        turns: turn.run.turns + 1,
        error: None,
        updated_at: now,
        ..turn.run.clone()
    };
    let interrupts = match end {
        StreamEnd::Error(message) => {
            run.status = AguiRunStatus::Failed;
            run.error = Some(format!("RUN_ERROR: {message}"));
            run.transcript = transcript.into_items();
            return Ok(TurnResult::Finished { run, reached: true });
        }
        StreamEnd::Finished(Some(RunOutcome::Cancelled)) => {
            run.status = AguiRunStatus::Cancelled;
            run.transcript = transcript.into_items();
            return Ok(TurnResult::Finished { run, reached: true });
        }
        StreamEnd::Finished(Some(RunOutcome::Interrupt { interrupts })) => interrupts,
        StreamEnd::Finished(_) => {
            run.status = AguiRunStatus::Succeeded;
            run.transcript = transcript.into_items();
            return Ok(TurnResult::Finished { run, reached: true });
        }
    };
    match open_park(state, policy, &run, &transcript, &interrupts).await {
        Ok(park) => {
            run.status = AguiRunStatus::Interrupted;
            run.park_id = Some(park.park.id.clone());
            run.transcript = transcript.into_items();
            Ok(TurnResult::Interrupted {
                run,
                park: Box::new(park),
            })
        }
        Err(error) => {
            run.status = AguiRunStatus::Failed;
            run.error = Some(error);
            run.transcript = transcript.into_items();
            Ok(TurnResult::Finished { run, reached: true })
        }
    }
}

/// The park for an interrupt outcome: one question per interrupt, validated whole first, so a
/// refused interrupt asks nothing. `Err` says why the run fails.
async fn open_park(
    state: &AppState,
    policy: &Policy,
    run: &AguiRun,
    transcript: &Transcript,
    interrupts: &[ag_ui::Interrupt],
) -> Result<crate::store::NewPark, String> {
    if interrupts.is_empty() {
        return Err(
            "protocol error: RUN_FINISHED with an interrupt outcome lists no interrupts".into(),
        );
    }
    if interrupts.len() > PARK_MAX_ASKS {
        return Err(format!(
            "the agent interrupted with {} interrupts; the limit is {PARK_MAX_ASKS}",
            interrupts.len()
        ));
    }
    if run.turns as usize > AGUI_INTERRUPTS_MAX_ROUNDS {
        return Err(format!(
            "the run interrupted more than {AGUI_INTERRUPTS_MAX_ROUNDS} times"
        ));
    }
    let now = Utc::now();
    let retention = state.park_retention();
    let mut default_expiry =
        now + chrono::Duration::from_std(policy.default_expiry).unwrap_or_default();
    if let Some(horizon) = retention.horizon(now) {
        default_expiry = default_expiry.min(horizon - chrono::Duration::minutes(1));
    }
    let mut asks = Vec::with_capacity(interrupts.len());
    for (i, interrupt) in interrupts.iter().enumerate() {
        let ask = question_for(interrupt, &run.id, transcript, default_expiry)
            .map_err(|(field, why)| refused(i, interrupt, &field, &why))?;
        asks.push(ask);
    }
    let req = ParkRequest {
        asks,
        continuation: None,
        metadata: None,
    };
    let (req, accepted) = state
        .validation()
        .run(move || {
            let accepted = validate_park(&req, now, retention);
            (req, accepted)
        })
        .await
        .map_err(|e| format!("the interrupts could not be checked: {}", e.message()))?;
    let accepted = accepted.map_err(|e| {
        let (i, field) = interrupt_field(&e.field);
        match interrupts.get(i) {
            Some(interrupt) => refused(i, interrupt, &field, &e.message),
            None => format!("the interrupts were refused: {e}"),
        }
    })?;
    let park_id = crate::ids::park_id();
    let mut prepared = Vec::with_capacity(req.asks.len());
    let size = req.asks.len() as u32;
    for (i, (ask, ok)) in req.asks.into_iter().zip(&accepted.asks).enumerate() {
        let prefix = format!("asks[{i}].");
        // The window groups the interrupts of one turn under the run that raised them.
        let place = inbox_protocol::ParkPlace {
            size,
            index: i as u32,
            run: Some(run.id.clone()),
        };
        let new = crate::routes::ask::prepare(
            state,
            &run.asker,
            ask,
            ok,
            now,
            &prefix,
            Some((&park_id, place)),
        )
        .map_err(|e| refused(i, &interrupts[i], "", e.message()))?;
        prepared.push(new);
    }
    let mut metadata = Map::new();
    metadata.insert("agui_run".into(), Value::String(run.id.clone()));
    metadata.insert("thread_id".into(), Value::String(run.thread_id.clone()));
    Ok(crate::routes::ask::new_park(
        park_id,
        &run.asker,
        now,
        prepared,
        Continuation::Agui {
            run_id: run.id.clone(),
        },
        Some(metadata),
    ))
}

/// `asks[2].schema.properties` → (2, the interrupt's name for it).
fn interrupt_field(field: &str) -> (usize, String) {
    let Some(rest) = field.strip_prefix("asks[") else {
        return (usize::MAX, field.to_owned());
    };
    let Some((index, tail)) = rest.split_once(']') else {
        return (usize::MAX, field.to_owned());
    };
    let tail = tail.trim_start_matches('.');
    let renamed = if let Some(rest) = tail.strip_prefix("schema") {
        format!("responseSchema{rest}")
    } else if let Some(rest) = tail.strip_prefix("data") {
        format!("responseSchema (its defaults or editedArgs){rest}")
    } else if tail.starts_with("expiry_at") {
        "expiresAt".to_owned()
    } else if tail.starts_with("prompt") {
        "message".to_owned()
    } else {
        tail.to_owned()
    };
    (index.parse().unwrap_or(usize::MAX), renamed)
}

fn refused(i: usize, interrupt: &ag_ui::Interrupt, field: &str, why: &str) -> String {
    let at = if field.is_empty() {
        String::new()
    } else {
        format!(" field {field}")
    };
    format!(
        "interrupts[{i}] (id {:?}){at} was refused, nothing was asked: {why}",
        interrupt.id
    )
}

/// A `ResumeEntry` for every question of the resolved park, in the order they were asked.
async fn resume_entries(
    store: &dyn Store,
    park: &inbox_protocol::Park,
) -> Result<Vec<ResumeEntry>, StoreError> {
    let mut entries = Vec::with_capacity(park.resolutions.len());
    for resolution in &park.resolutions {
        let context = store
            .get(&resolution.interaction_id)
            .await?
            .and_then(|ia| {
                ia.metadata
                    .get(inbox_protocol::agui::AGUI_METADATA_KEY)
                    .cloned()
            })
            .and_then(|v| serde_json::from_value::<AguiQuestion>(v).ok());
        let Some(context) = context else {
            tracing::warn!(interaction = %resolution.interaction_id, "a question of the park carries no interrupt");
            continue;
        };
        entries.push(match (resolution.status, &resolution.value) {
            (ResolutionStatus::Answered, Some(value)) => ResumeEntry {
                interrupt_id: context.interrupt_id.clone(),
                status: ResumeStatus::Resolved,
                payload: Some(payload(&context, value.clone())),
                metadata: None,
            },
            // Declined, expired or withdrawn: the person's "no" to the interrupt.
            _ => ResumeEntry {
                interrupt_id: context.interrupt_id.clone(),
                status: ResumeStatus::Cancelled,
                payload: None,
                metadata: None,
            },
        });
    }
    Ok(entries)
}

/// One request to the agent, read to the end of its stream.
async fn send(
    store: &dyn Store,
    http: &reqwest::Client,
    policy: &Policy,
    turn: &AguiTurn,
    resume: Option<Vec<ResumeEntry>>,
) -> Reply {
    let mut body = Value::Object(turn.input.clone());
    let request_run_id = format!("{}-{}", turn.run.id, turn.run.turns + 1);
    if let Value::Object(map) = &mut body {
        map.insert("threadId".into(), Value::String(turn.run.thread_id.clone()));
        map.insert("runId".into(), Value::String(request_run_id));
        if let Some(resume) = &resume {
            map.insert(
                "resume".into(),
                serde_json::to_value(resume).unwrap_or(Value::Null),
            );
        }
    }
    // The stored input was checked as RunAgentInput when the run was created; decoding it
    // again keeps what is sent exactly the SDK's shape.
    let input: RunAgentInput = match serde_json::from_value(body) {
        Ok(input) => input,
        Err(e) => return Reply::Refused(format!("the run's input no longer decodes: {e}")),
    };
    let mut request = http
        .post(&turn.run.agent_url)
        .header("accept", "text/event-stream")
        .json(&input);
    for (name, value) in &turn.headers {
        request = request.header(name, value);
    }
    let response = match request.send().await {
        Ok(r) => r,
        Err(e) => return Reply::Unreachable(transport_error(&e)),
    };
    let status = response.status();
    if status.is_server_error() || status.as_u16() == 429 || status.as_u16() == 408 {
        return Reply::Unreachable(format!("the agent answered {}", status.as_u16()));
    }
    if !status.is_success() {
        return Reply::Refused(format!(
            "the agent refused the request with {}",
            status.as_u16()
        ));
    }
    let is_sse = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("text/event-stream"));
    if !is_sse {
        return Reply::Refused(
            "protocol error: the agent did not answer with text/event-stream".into(),
        );
    }
    let mut transcript = Transcript::continuing(turn.run.transcript.clone());
    let mut decoder = SseDecoder::default();
    let mut stream = response.bytes_stream();
    let mut shown = transcript.items().to_vec();
    let mut last_progress = tokio::time::Instant::now();
    let mut silent = Duration::ZERO;
    loop {
        // Readers (`inbox agui run`) see the transcript grow, at most once per interval; the
        // turn's report at its end is what counts.
        if last_progress.elapsed() >= PROGRESS_INTERVAL && transcript.items() != shown.as_slice() {
            shown = transcript.items().to_vec();
            last_progress = tokio::time::Instant::now();
            let run = AguiRun {
                transcript: shown.clone(),
                updated_at: Utc::now(),
                ..turn.run.clone()
            };
            if let Err(e) = store.progress_agui_turn(turn, &run).await {
                tracing::debug!(error = %e, "the transcript so far could not be written");
            }
        }
        // Woken at least every interval, so a message is shown while the agent works on.
        let chunk = match tokio::time::timeout(PROGRESS_INTERVAL, stream.next()).await {
            Err(_) => {
                silent += PROGRESS_INTERVAL;
                if silent >= policy.idle_timeout {
                    return Reply::Unreachable("the event stream went silent".into());
                }
                continue;
            }
            Ok(None) => {
                return Reply::Unreachable(
                    "the event stream ended before RUN_FINISHED or RUN_ERROR".into(),
                );
            }
            Ok(Some(Err(e))) => return Reply::Unreachable(transport_error(&e)),
            Ok(Some(Ok(chunk))) => {
                silent = Duration::ZERO;
                chunk
            }
        };
        let payloads = match decoder.feed(&chunk) {
            Ok(p) => p,
            Err(fault) => return fault_reply(fault),
        };
        for payload in payloads {
            let event = match decode(&payload) {
                Ok(Some(event)) => event,
                Ok(None) => continue,
                Err(fault) => return fault_reply(fault),
            };
            match transcript.apply(event) {
                Ok(Some(end)) => return Reply::Ended(transcript, end),
                Ok(None) => {}
                Err(fault) => return fault_reply(fault),
            }
        }
    }
}

fn fault_reply(fault: StreamFault) -> Reply {
    match fault {
        StreamFault::Transport(e) => Reply::Unreachable(e),
        StreamFault::Protocol(_) => Reply::Refused(fault.to_string()),
    }
}

/// A reqwest error's kind, without the URL (the agent URL may carry a token in its query).
fn transport_error(e: &reqwest::Error) -> String {
    let kind = outbound::failure(e).unwrap_or(if e.is_body() || e.is_decode() {
        "the stream broke"
    } else {
        "transport error"
    });
    kind.to_owned()
}
