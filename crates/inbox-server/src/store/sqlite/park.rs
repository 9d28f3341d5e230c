//! Parks in the embedded store: two tables of their own, written inside the same `IMMEDIATE`
//! transactions as the questions. `record` is called by `resolve` and `expire_due` right after
//! a question leaves `pending`, so the park's count of resolutions and the question's status
//! commit together; the `UPDATE … WHERE status = 'parked' AND resolved = total` that follows
//! is true for exactly one transaction, the one that recorded the last resolution.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use inbox_protocol::{Interaction, Park};
use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::Outbox;
use super::queue::DELIVERIES;
use super::rows::Prune;
use crate::store::park::{
    ClaimOutcome, Delivery, DeliveryResult, NewPark, StoredPark, delivery_id, resolution_of,
};
use crate::store::{IdempotencyClaim, StoreError};

pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS parks (
    id                TEXT PRIMARY KEY,
    status            TEXT NOT NULL,              -- parked | resolved | resumed | failed
    total             INTEGER NOT NULL,           -- questions in the park
    resolved          INTEGER NOT NULL DEFAULT 0, -- resolutions recorded so far
    body              TEXT NOT NULL,              -- the Park as created, as JSON
    resolved_at       INTEGER,                    -- unix ms of parked -> resolved
    resumed_at        INTEGER,
    claim_key         TEXT,                       -- the Idempotency-Key of the winning claim
    claim_fingerprint TEXT,
    continuation      TEXT NOT NULL DEFAULT 'claim', -- its kind: claim | webhook
    attempts          INTEGER NOT NULL DEFAULT 0,  -- webhook delivery attempts
    last_error        TEXT
);
-- The durable resume queue: one row per webhook park that is due (or leased). A lease moves
-- `due_at` past its end, so a dispatcher that dies simply lets the row come due again.
CREATE TABLE IF NOT EXISTS park_deliveries (
    park_id     TEXT PRIMARY KEY,
    due_at      INTEGER NOT NULL,                 -- unix ms
    lease_token TEXT
);
CREATE INDEX IF NOT EXISTS park_deliveries_due ON park_deliveries(due_at);
CREATE INDEX IF NOT EXISTS parks_settled ON parks(COALESCE(resumed_at, resolved_at))
    WHERE status != 'parked';
CREATE TABLE IF NOT EXISTS park_resolutions (
    park_id        TEXT NOT NULL,
    interaction_id TEXT NOT NULL,
    body           TEXT NOT NULL,                 -- the Resolution as JSON
    PRIMARY KEY (park_id, interaction_id)
);
";

/// Store the park row and every question (with its media and ticket) in the caller's
/// transaction; their `add` events go out after commit.
pub(super) fn insert(
    tx: &Transaction<'_>,
    out: &mut Outbox<'_>,
    new: &NewPark,
) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO parks (id, status, total, body, continuation) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            new.park.id,
            new.park.status.as_str(),
            i64::try_from(new.asks.len()).unwrap_or(i64::MAX),
            serde_json::to_string(&new.park)?,
            new.park.continuation.kind()
        ],
    )?;
    for ask in &new.asks {
        super::insert_question(tx, out, ask)?;
    }
    Ok(())
}

/// Record the resolution of `ia` (just settled in `tx`) on its park. Returns the park's id
/// when this very step moved it `parked → resolved`.
pub(super) fn record(
    tx: &Transaction<'_>,
    ia: &Interaction,
    now: DateTime<Utc>,
) -> Result<Option<String>, StoreError> {
    let (Some(park_id), Some(resolution)) = (&ia.park_id, resolution_of(ia)) else {
        return Ok(None);
    };
    // A slot is filled once: a question settles once, but the guard keeps the count honest.
    let added = tx.execute(
        "INSERT OR IGNORE INTO park_resolutions (park_id, interaction_id, body) VALUES (?1, ?2, ?3)",
        params![park_id, ia.id, serde_json::to_string(&resolution)?],
    )?;
    if added == 0 {
        return Ok(None);
    }
    tx.execute(
        "UPDATE parks SET resolved = resolved + 1 WHERE id = ?1",
        [park_id],
    )?;
    let moved = tx.execute(
        "UPDATE parks SET status = 'resolved', resolved_at = ?2
         WHERE id = ?1 AND status = 'parked' AND resolved = total",
        params![park_id, now.timestamp_millis()],
    )?;
    if moved == 0 {
        return Ok(None);
    }
    // A webhook park's resume is queued in the same transaction that resolved it: durable
    // before anyone is told, and queued once.
    tx.execute(
        "INSERT INTO park_deliveries (park_id, due_at)
         SELECT id, ?2 FROM parks WHERE id = ?1 AND continuation = 'webhook'",
        params![park_id, now.timestamp_millis()],
    )?;
    // An AG-UI park's resume turn, the same way.
    super::agui::queue_for_park(tx, park_id, now)?;
    Ok(Some(park_id.clone()))
}

pub(super) fn load(conn: &Connection, id: &str) -> Result<Option<Park>, StoreError> {
    type Row = (
        String,
        String,
        Option<i64>,
        Option<i64>,
        i64,
        Option<String>,
    );
    let row: Option<Row> = conn
        .query_row(
            "SELECT body, status, resolved_at, resumed_at, attempts, last_error
             FROM parks WHERE id = ?1",
            [id],
            |row| {
                Ok((
                    row.get(0)?,
                    row.get(1)?,
                    row.get(2)?,
                    row.get(3)?,
                    row.get(4)?,
                    row.get(5)?,
                ))
            },
        )
        .optional()?;
    let Some((body, status, resolved_at, resumed_at, attempts, last_error)) = row else {
        return Ok(None);
    };
    let mut stmt = conn
        .prepare_cached("SELECT interaction_id, body FROM park_resolutions WHERE park_id = ?1")?;
    let resolutions: HashMap<String, String> = stmt
        .query_map([id], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let mut park = StoredPark {
        body: &body,
        status: &status,
        resolutions,
        resolved_at,
        resumed_at,
    }
    .assemble()?;
    if matches!(
        park.continuation,
        inbox_protocol::Continuation::Webhook { .. }
    ) {
        park.attempts = Some(u32::try_from(attempts).unwrap_or(u32::MAX));
        park.last_error = last_error;
    }
    Ok(Some(park))
}

/// The delivery of park `park_id`, just leased to `token` (`SqliteStore::lease_next`); a park
/// that is gone or has no webhook leaves the queue.
pub(super) fn leased(
    tx: &Transaction<'_>,
    park_id: &str,
    token: &str,
) -> Result<Option<Delivery>, StoreError> {
    let Some(park) = load(tx, park_id)? else {
        DELIVERIES.remove(tx, park_id)?;
        return Ok(None);
    };
    let inbox_protocol::Continuation::Webhook { url } = park.continuation.clone() else {
        DELIVERIES.remove(tx, park_id)?;
        return Ok(None);
    };
    Ok(Some(Delivery {
        delivery_id: delivery_id(&park.id),
        url,
        attempts: park.attempts.unwrap_or(0),
        lease: token.to_owned(),
        park,
    }))
}

/// Apply the result of park `id`'s delivery (under its lease: `DELIVERIES.report`).
pub(super) fn finish(
    tx: &Transaction<'_>,
    id: &str,
    result: &DeliveryResult,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let now_ms = now.timestamp_millis();
    match result {
        DeliveryResult::Delivered => {
            tx.execute(
                "UPDATE parks SET status = 'resumed', resumed_at = ?2, attempts = attempts + 1,
                 last_error = NULL WHERE id = ?1",
                params![id, now_ms],
            )?;
            DELIVERIES.remove(tx, id)?;
        }
        DeliveryResult::Retry { at, error } => {
            tx.execute(
                "UPDATE parks SET attempts = attempts + 1, last_error = ?2 WHERE id = ?1",
                params![id, error],
            )?;
            tx.execute(
                "UPDATE park_deliveries SET due_at = ?2, lease_token = NULL WHERE park_id = ?1",
                params![id, at.timestamp_millis()],
            )?;
        }
        DeliveryResult::Failed { error } => {
            tx.execute(
                "UPDATE parks SET status = 'failed', attempts = attempts + 1, last_error = ?2
                 WHERE id = ?1",
                params![id, error],
            )?;
            DELIVERIES.remove(tx, id)?;
        }
    }
    Ok(())
}

/// Settled parks whose last step is at or before `?1` (unix ms), none with a queued delivery,
/// `?2` at most, oldest first; with their resolutions.
pub(super) const PRUNE: Prune = Prune {
    select: "SELECT id FROM parks
             WHERE status != 'parked' AND COALESCE(resumed_at, resolved_at) <= ?1
               AND id NOT IN (SELECT park_id FROM park_deliveries)
             ORDER BY COALESCE(resumed_at, resolved_at) LIMIT ?2",
    delete: &[
        "DELETE FROM park_resolutions WHERE park_id = ?1",
        "DELETE FROM parks WHERE id = ?1",
    ],
};

/// `failed → resolved`, attempts reset, queued again.
pub(super) fn redeliver(
    tx: &Transaction<'_>,
    id: &str,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let moved = tx.execute(
        "UPDATE parks SET status = 'resolved', attempts = 0, last_error = NULL
         WHERE id = ?1 AND status = 'failed'",
        [id],
    )?;
    if moved == 1 {
        DELIVERIES.requeue(tx, id, now)?;
    }
    Ok(moved == 1)
}

/// The claim, decided under the caller's `IMMEDIATE` transaction: only `resolved` moves.
pub(super) fn claim(
    tx: &Transaction<'_>,
    id: &str,
    claim: Option<&IdempotencyClaim>,
    now: DateTime<Utc>,
) -> Result<ClaimOutcome, StoreError> {
    let Some(park) = load(tx, id)? else {
        return Ok(ClaimOutcome::NotFound);
    };
    if !matches!(park.continuation, inbox_protocol::Continuation::Claim {}) {
        return Ok(ClaimOutcome::NotClaimable(park));
    }
    let (key, fingerprint) = claim.map_or((None, None), |c| {
        (Some(c.key.as_str()), Some(c.fingerprint.as_str()))
    });
    let moved = tx.execute(
        "UPDATE parks SET status = 'resumed', resumed_at = ?2, claim_key = ?3, claim_fingerprint = ?4
         WHERE id = ?1 AND status = 'resolved'",
        params![id, now.timestamp_millis(), key, fingerprint],
    )?;
    if moved == 1 {
        let park = load(tx, id)?.ok_or(StoreError::Task("park vanished".into()))?;
        return Ok(ClaimOutcome::Claimed(park));
    }
    if park.status == inbox_protocol::ParkStatus::Parked {
        return Ok(ClaimOutcome::NotResolved(park));
    }
    let winner: (Option<String>, Option<String>) = tx.query_row(
        "SELECT claim_key, claim_fingerprint FROM parks WHERE id = ?1",
        [id],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )?;
    let same = key.is_some() && winner.0.as_deref() == key && winner.1.as_deref() == fingerprint;
    Ok(if same {
        ClaimOutcome::Replayed(park)
    } else {
        ClaimOutcome::AlreadyClaimed(park)
    })
}
