//! AG-UI runs in the embedded store: the run, its input and its secret headers in `agui_runs`,
//! and the durable turn queue `agui_turns`, leased like `park_deliveries`. `queue_for_park` is
//! called by `park::record` in the transaction that resolves an `agui` park.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use inbox_protocol::{AguiRun, AguiRunStatus, ParkStatus};
use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::Outbox;
use super::queue::TURNS;
use super::rows::{self, Prune};
use crate::store::StoreError;
use crate::store::agui::{AguiTurn, NewAguiRun, TurnResult};

pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS agui_runs (
    id      TEXT PRIMARY KEY,
    body    TEXT NOT NULL,  -- the AguiRun as JSON (what the read door shows)
    input   TEXT NOT NULL,  -- the caller's part of RunAgentInput, as JSON
    headers TEXT NOT NULL,  -- extra request headers, as JSON: secrets, never shown
    live    TEXT            -- the run as the current turn streams (shown; never the base of a turn)
);
-- The durable turn queue: one row per run that is due (or leased). A lease moves `due_at`
-- past its end, so a driver that dies lets the row come due again.
CREATE TABLE IF NOT EXISTS agui_turns (
    run_id      TEXT PRIMARY KEY,
    due_at      INTEGER NOT NULL,             -- unix ms
    lease_token TEXT,
    attempts    INTEGER NOT NULL DEFAULT 0    -- failed attempts at this turn
);
CREATE INDEX IF NOT EXISTS agui_turns_due ON agui_turns(due_at);
";

pub(super) fn insert(
    tx: &Transaction<'_>,
    new: &NewAguiRun,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO agui_runs (id, body, input, headers) VALUES (?1, ?2, ?3, ?4)",
        params![
            new.run.id,
            serde_json::to_string(&new.run)?,
            serde_json::to_string(&new.input)?,
            serde_json::to_string(&new.headers)?
        ],
    )?;
    TURNS.requeue(tx, &new.run.id, now)
}

/// The run as readers see it: the streaming copy while a turn writes one, else the last report.
pub(super) fn load(conn: &Connection, id: &str) -> Result<Option<AguiRun>, StoreError> {
    rows::record(
        conn,
        "SELECT COALESCE(live, body) FROM agui_runs WHERE id = ?1",
        [id],
    )
}

/// The run as its last turn reported it: what the next turn builds on.
fn load_reported(conn: &Connection, id: &str) -> Result<Option<AguiRun>, StoreError> {
    rows::record(conn, "SELECT body FROM agui_runs WHERE id = ?1", [id])
}

/// Queue the turn that resumes the run of park `park_id` (an `agui` park that just resolved).
pub(super) fn queue_for_park(
    tx: &Transaction<'_>,
    park_id: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let run: Option<Option<String>> = tx
        .query_row(
            "SELECT json_extract(body, '$.continuation.run_id') FROM parks
             WHERE id = ?1 AND continuation = 'agui'",
            [park_id],
            |row| row.get(0),
        )
        .optional()?;
    match run.flatten() {
        Some(run_id) => TURNS.requeue(tx, &run_id, now),
        None => Ok(()),
    }
}

/// The turn of run `run_id`, just leased to `token` (`SqliteStore::lease_next`); a run that is
/// gone, final, or waiting on its open park leaves the queue.
pub(super) fn leased(
    tx: &Transaction<'_>,
    run_id: &str,
    token: &str,
) -> Result<Option<AguiTurn>, StoreError> {
    let attempts: i64 = tx.query_row(
        "SELECT attempts FROM agui_turns WHERE run_id = ?1",
        [run_id],
        |row| row.get(0),
    )?;
    let row: Option<(String, String, String)> = tx
        .query_row(
            "SELECT body, input, headers FROM agui_runs WHERE id = ?1",
            [run_id],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
        .optional()?;
    let Some((body, input, headers)) = row else {
        TURNS.remove(tx, run_id)?;
        return Ok(None);
    };
    let run: AguiRun = serde_json::from_str(&body)?;
    if run.status.is_final() {
        TURNS.remove(tx, run_id)?;
        return Ok(None);
    }
    let resume = match &run.park_id {
        Some(park_id) => super::park::load(tx, park_id)?
            .filter(|p| matches!(p.status, ParkStatus::Resolved) && p.resumed_at.is_none()),
        None => None,
    };
    if run.status == AguiRunStatus::Interrupted && resume.is_none() {
        // Queued while its park is still open: nothing to send yet.
        TURNS.remove(tx, run_id)?;
        return Ok(None);
    }
    Ok(Some(AguiTurn {
        run,
        input: serde_json::from_str(&input)?,
        headers: serde_json::from_str::<BTreeMap<String, String>>(&headers)?,
        resume,
        attempts: u32::try_from(attempts).unwrap_or(u32::MAX),
        lease: token.to_owned(),
    }))
}

/// Apply a turn's result (under its lease: `TURNS.report`); the `add` events of a park it
/// opened go out after commit.
pub(super) fn finish(
    tx: &Transaction<'_>,
    out: &mut Outbox<'_>,
    turn: &AguiTurn,
    result: &TurnResult,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let id = &turn.run.id;
    let now_ms = now.timestamp_millis();
    if let Some(park_id) = result.resumed_park(turn) {
        tx.execute(
            "UPDATE parks SET status = 'resumed', resumed_at = ?2 WHERE id = ?1 AND status = 'resolved'",
            params![park_id, now_ms],
        )?;
    }
    match result {
        TurnResult::Interrupted { park, .. } => {
            super::park::insert(tx, out, park)?;
            TURNS.remove(tx, id)?;
        }
        TurnResult::Finished { .. } => {
            TURNS.remove(tx, id)?;
        }
        TurnResult::Retry { at, .. } => {
            tx.execute(
                "UPDATE agui_turns SET due_at = ?2, lease_token = NULL, attempts = attempts + 1
                 WHERE run_id = ?1",
                params![id, at.timestamp_millis()],
            )?;
        }
    }
    tx.execute(
        "UPDATE agui_runs SET body = ?2, live = NULL WHERE id = ?1",
        params![id, serde_json::to_string(result.run())?],
    )?;
    Ok(())
}

pub(super) fn progress(
    tx: &Transaction<'_>,
    turn: &AguiTurn,
    run: &AguiRun,
) -> Result<bool, StoreError> {
    let written = tx.execute(
        "UPDATE agui_runs SET live = ?3 WHERE id = ?1
         AND EXISTS (SELECT 1 FROM agui_turns WHERE run_id = ?1 AND lease_token = ?2)",
        params![turn.run.id, turn.lease, serde_json::to_string(run)?],
    )?;
    Ok(written == 1)
}

pub(super) fn retry(
    tx: &Transaction<'_>,
    id: &str,
    now: DateTime<Utc>,
) -> Result<Option<AguiRun>, StoreError> {
    let Some(mut run) = load_reported(tx, id)? else {
        return Ok(None);
    };
    if run.status != AguiRunStatus::Failed {
        return Ok(None);
    }
    run.status = AguiRunStatus::Running;
    run.error = None;
    run.updated_at = now;
    tx.execute(
        "UPDATE agui_runs SET body = ?2, live = NULL WHERE id = ?1",
        params![id, serde_json::to_string(&run)?],
    )?;
    TURNS.requeue(tx, id, now)?;
    Ok(Some(run))
}

/// Final runs last written at or before `?1` (their body's `updated_at`, the moment the final
/// turn was reported, RFC 3339) that are not queued, `?2` at most.
pub(super) const PRUNE_FINISHED: Prune = Prune {
    select: "SELECT id FROM agui_runs
             WHERE json_extract(body, '$.status') IN ('succeeded', 'failed', 'cancelled')
               AND julianday(json_extract(body, '$.updated_at')) <= julianday(?1)
               AND NOT EXISTS (SELECT 1 FROM agui_turns WHERE run_id = agui_runs.id)
             LIMIT ?2",
    delete: &["DELETE FROM agui_runs WHERE id = ?1"],
};
