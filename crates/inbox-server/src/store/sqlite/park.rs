//! Parks in the embedded store: two tables of their own, written inside the same `IMMEDIATE`
//! transactions as the questions. `record` is called by `resolve` and `expire_due` right after
//! a question leaves `pending`, so the park's count of resolutions and the question's status
//! commit together; the `UPDATE … WHERE status = 'parked' AND resolved = total` that follows
//! is true for exactly one transaction, the one that recorded the last resolution.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use inbox_protocol::{Interaction, Park};
use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::Inner;
use crate::store::park::{ClaimOutcome, NewPark, StoredPark, resolution_of};
use crate::store::{IdempotencyClaim, StoreError, StoredEvent};

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
    claim_fingerprint TEXT
);
CREATE TABLE IF NOT EXISTS park_resolutions (
    park_id        TEXT NOT NULL,
    interaction_id TEXT NOT NULL,
    body           TEXT NOT NULL,                 -- the Resolution as JSON
    PRIMARY KEY (park_id, interaction_id)
);
";

/// Store the park row and every question (with its media and ticket) in the caller's
/// transaction; returns the `add` events to publish after commit.
pub(super) fn insert(
    tx: &Transaction<'_>,
    inner: &Inner,
    new: &NewPark,
) -> Result<Vec<StoredEvent>, StoreError> {
    tx.execute(
        "INSERT INTO parks (id, status, total, body) VALUES (?1, ?2, ?3, ?4)",
        params![
            new.park.id,
            new.park.status.as_str(),
            i64::try_from(new.asks.len()).unwrap_or(i64::MAX),
            serde_json::to_string(&new.park)?
        ],
    )?;
    let mut events = Vec::with_capacity(new.asks.len());
    for ask in &new.asks {
        events.push(super::insert_question(tx, inner, ask)?);
    }
    Ok(events)
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
    Ok((moved == 1).then(|| park_id.clone()))
}

pub(super) fn load(conn: &Connection, id: &str) -> Result<Option<Park>, StoreError> {
    let row: Option<(String, String, Option<i64>, Option<i64>)> = conn
        .query_row(
            "SELECT body, status, resolved_at, resumed_at FROM parks WHERE id = ?1",
            [id],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)),
        )
        .optional()?;
    let Some((body, status, resolved_at, resumed_at)) = row else {
        return Ok(None);
    };
    let mut stmt = conn
        .prepare_cached("SELECT interaction_id, body FROM park_resolutions WHERE park_id = ?1")?;
    let resolutions: HashMap<String, String> = stmt
        .query_map([id], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<Result<_, _>>()?;
    StoredPark {
        body: &body,
        status: &status,
        resolutions,
        resolved_at,
        resumed_at,
    }
    .assemble()
    .map(Some)
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
