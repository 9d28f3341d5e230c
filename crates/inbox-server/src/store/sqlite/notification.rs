//! Notifications in the embedded store: tables of their own, each mutation one `IMMEDIATE`
//! transaction, so a cap counted and the row written commit together.

use chrono::{DateTime, Utc};
use inbox_protocol::{Notification, StreamEvent, Submission};
use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::Outbox;
use super::rows::{self, Prune};
use crate::store::notification::{
    CreateOutcome, Mark, NewNotification, NewSubmission, SubmitOutcome,
};
use crate::store::{IdempotencyClaim, StoreError};

pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS notifications (
    rank         INTEGER PRIMARY KEY AUTOINCREMENT,  -- creation order: pages run newest first
    id           TEXT NOT NULL UNIQUE,
    asker        TEXT NOT NULL,
    dismissed_at INTEGER,                            -- unix ms; NULL while outstanding
    body         TEXT NOT NULL                       -- the Notification as JSON
);
CREATE INDEX IF NOT EXISTS notifications_outstanding_by_asker
    ON notifications(asker) WHERE dismissed_at IS NULL;
CREATE INDEX IF NOT EXISTS notifications_dismissed
    ON notifications(dismissed_at) WHERE dismissed_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS submissions (
    notification_id TEXT NOT NULL,
    ordinal         INTEGER NOT NULL,
    body            TEXT NOT NULL,                   -- the Submission as JSON
    PRIMARY KEY (notification_id, ordinal)
);
-- Idempotency of notification doors: `scope` is `create:<asker>` or `submit:<notification id>`;
-- `result` the id created (create) or the Submission JSON (submit).
CREATE TABLE IF NOT EXISTS notification_idempotency (
    scope       TEXT NOT NULL,
    key         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    result      TEXT NOT NULL,
    notification_id TEXT NOT NULL,
    PRIMARY KEY (scope, key)
);
";

pub(super) fn load(conn: &Connection, id: &str) -> Result<Option<Notification>, StoreError> {
    rows::record(conn, "SELECT body FROM notifications WHERE id = ?1", [id])
}

fn earlier(
    tx: &Transaction<'_>,
    scope: &str,
    claim: &IdempotencyClaim,
) -> Result<Option<(bool, String)>, StoreError> {
    Ok(tx
        .query_row(
            "SELECT fingerprint, result FROM notification_idempotency WHERE scope = ?1 AND key = ?2",
            params![scope, claim.key],
            |row| Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?)),
        )
        .optional()?
        .map(|(fingerprint, result)| (fingerprint == claim.fingerprint, result)))
}

fn remember(
    tx: &Transaction<'_>,
    scope: &str,
    claim: &IdempotencyClaim,
    result: &str,
    notification_id: &str,
) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO notification_idempotency (scope, key, fingerprint, result, notification_id)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![scope, claim.key, claim.fingerprint, result, notification_id],
    )?;
    Ok(())
}

pub(super) fn insert(
    tx: &Transaction<'_>,
    out: &mut Outbox<'_>,
    new: &NewNotification,
    claim: Option<&IdempotencyClaim>,
) -> Result<CreateOutcome, StoreError> {
    let n = &new.notification;
    let scope = format!("create:{}", n.asker);
    if let Some(claim) = claim
        && let Some((same, id)) = earlier(tx, &scope, claim)?
    {
        if !same {
            return Ok(CreateOutcome::IdempotencyConflict);
        }
        // Pruned since: the replay has nothing left to show, so it is made again.
        if let Some(n) = load(tx, &id)? {
            return Ok(CreateOutcome::Replayed(n));
        }
        tx.execute(
            "DELETE FROM notification_idempotency WHERE scope = ?1 AND key = ?2",
            params![scope, claim.key],
        )?;
    }
    if rows::at_limit(
        tx,
        "SELECT count(*) FROM notifications WHERE asker = ?1 AND dismissed_at IS NULL",
        [&n.asker],
        new.outstanding_limit,
    )? {
        return Ok(CreateOutcome::AtLimit {
            limit: new.outstanding_limit,
        });
    }
    tx.execute(
        "INSERT INTO notifications (id, asker, body) VALUES (?1, ?2, ?3)",
        params![n.id, n.asker, serde_json::to_string(n)?],
    )?;
    super::insert_media(tx, &n.id, &new.media)?;
    if let Some(claim) = claim {
        remember(tx, &scope, claim, &n.id, &n.id)?;
    }
    out.append(tx, StreamEvent::NotificationAdded(n.clone()))?;
    Ok(CreateOutcome::Created(n.clone()))
}

fn save(tx: &Transaction<'_>, n: &Notification) -> Result<(), StoreError> {
    tx.execute(
        "UPDATE notifications SET body = ?2, dismissed_at = ?3 WHERE id = ?1",
        params![
            n.id,
            serde_json::to_string(n)?,
            n.dismissed_at.map(|t| t.timestamp_millis())
        ],
    )?;
    Ok(())
}

pub(super) fn mark(
    tx: &Transaction<'_>,
    out: &mut Outbox<'_>,
    id: &str,
    mark: Mark,
    now: DateTime<Utc>,
) -> Result<Option<Notification>, StoreError> {
    let Some(mut n) = load(tx, id)? else {
        return Ok(None);
    };
    let slot = match mark {
        Mark::Read => &mut n.read_at,
        Mark::Dismiss => &mut n.dismissed_at,
    };
    if slot.is_some() {
        return Ok(Some(n));
    }
    *slot = Some(now);
    // Dismissing something never opened also reads it: nothing is left unread behind it.
    if mark == Mark::Dismiss && n.read_at.is_none() {
        n.read_at = Some(now);
    }
    save(tx, &n)?;
    out.append(tx, StreamEvent::NotificationUpdated(n.clone()))?;
    Ok(Some(n))
}

pub(super) fn submit(
    tx: &Transaction<'_>,
    out: &mut Outbox<'_>,
    id: &str,
    new: &NewSubmission,
    claim: Option<&IdempotencyClaim>,
) -> Result<SubmitOutcome, StoreError> {
    let scope = format!("submit:{id}");
    if let Some(claim) = claim
        && let Some((same, body)) = earlier(tx, &scope, claim)?
    {
        return Ok(if same {
            SubmitOutcome::Replayed(serde_json::from_str(&body)?)
        } else {
            SubmitOutcome::IdempotencyConflict
        });
    }
    let Some(mut n) = load(tx, id)? else {
        return Ok(SubmitOutcome::NotFound);
    };
    if !n.is_outstanding() {
        return Ok(SubmitOutcome::NotFound);
    }
    if usize::try_from(n.submissions).unwrap_or(usize::MAX) >= new.limit {
        return Ok(SubmitOutcome::AtLimit { limit: new.limit });
    }
    n.submissions += 1;
    let submission = Submission {
        ordinal: n.submissions,
        ..new.submission.clone()
    };
    let body = serde_json::to_string(&submission)?;
    tx.execute(
        "INSERT INTO submissions (notification_id, ordinal, body) VALUES (?1, ?2, ?3)",
        params![id, submission.ordinal, body],
    )?;
    save(tx, &n)?;
    if let Some(claim) = claim {
        remember(tx, &scope, claim, &body, id)?;
    }
    out.append(tx, StreamEvent::Submitted(submission.clone()))?;
    out.append(tx, StreamEvent::NotificationUpdated(n))?;
    Ok(SubmitOutcome::Submitted(submission))
}

pub(super) fn submissions(conn: &Connection, id: &str) -> Result<Vec<Submission>, StoreError> {
    rows::records(
        conn,
        "SELECT body FROM submissions WHERE notification_id = ?1 ORDER BY ordinal",
        [id],
    )
}

pub(super) fn page(
    tx: &Transaction<'_>,
    limit: usize,
    before: i64,
) -> Result<Vec<(i64, Option<Notification>)>, StoreError> {
    let mut stmt = tx.prepare_cached(
        "SELECT rank, body FROM notifications
         WHERE dismissed_at IS NULL AND rank < ?1 ORDER BY rank DESC LIMIT ?2",
    )?;
    rows::page(stmt.query(params![before, rows::page_fetch(limit)])?)
}

/// Notifications dismissed at or before `?1` (unix ms), `?2` at most, oldest first; with their
/// media, submissions and idempotency records.
pub(super) const PRUNE: Prune = Prune {
    select: "SELECT id FROM notifications
             WHERE dismissed_at IS NOT NULL AND dismissed_at <= ?1
             ORDER BY dismissed_at LIMIT ?2",
    delete: &[
        "DELETE FROM media WHERE interaction_id = ?1",
        "DELETE FROM submissions WHERE notification_id = ?1",
        "DELETE FROM notification_idempotency WHERE notification_id = ?1",
        "DELETE FROM notifications WHERE id = ?1",
    ],
};
