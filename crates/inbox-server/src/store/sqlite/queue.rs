//! The durable queues of the embedded store, leased the same way: `park_deliveries` (webhook
//! resumes) and `agui_turns` (AG-UI turns). A row per member that is due or leased: `due_at`
//! (unix ms) and the `lease_token` of the driver holding it. A lease moves `due_at` past its
//! end, so a driver that dies simply lets the row come due again, and only the holder of the
//! lease may report on it.

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, Transaction, params};

use crate::store::StoreError;

pub(super) struct Queue {
    table: &'static str,
    /// The column naming the member (its park or run).
    member: &'static str,
}

pub(super) const DELIVERIES: Queue = Queue {
    table: "park_deliveries",
    member: "park_id",
};

pub(super) const TURNS: Queue = Queue {
    table: "agui_turns",
    member: "run_id",
};

impl Queue {
    /// Lease the member due earliest, at or before `now`, to `token` for `lease_ms`: its id,
    /// or `None` when nothing is due.
    pub(super) fn lease_next(
        &self,
        tx: &Transaction<'_>,
        now: DateTime<Utc>,
        lease_ms: i64,
        token: &str,
    ) -> Result<Option<String>, StoreError> {
        let Queue { table, member } = self;
        let next: Option<String> = tx
            .query_row(
                &format!("SELECT {member} FROM {table} WHERE due_at <= ?1 ORDER BY due_at LIMIT 1"),
                [now.timestamp_millis()],
                |row| row.get(0),
            )
            .optional()?;
        if let Some(id) = &next {
            tx.execute(
                &format!("UPDATE {table} SET due_at = ?2, lease_token = ?3 WHERE {member} = ?1"),
                params![id, now.timestamp_millis().saturating_add(lease_ms), token],
            )?;
        }
        Ok(next)
    }

    /// Apply `report` only if `lease` is still the lease on `id`, and say whether it was: a
    /// driver whose lease ran out and was taken over must change nothing.
    pub(super) fn report(
        &self,
        tx: &Transaction<'_>,
        id: &str,
        lease: &str,
        report: impl FnOnce() -> Result<(), StoreError>,
    ) -> Result<bool, StoreError> {
        let held = self.holds(tx, id, lease)?;
        if held {
            report()?;
        }
        Ok(held)
    }

    /// Whether `lease` is still the lease on `id`.
    fn holds(&self, tx: &Transaction<'_>, id: &str, lease: &str) -> Result<bool, StoreError> {
        let Queue { table, member } = self;
        let held: Option<Option<String>> = tx
            .query_row(
                &format!("SELECT lease_token FROM {table} WHERE {member} = ?1"),
                [id],
                |row| row.get(0),
            )
            .optional()?;
        Ok(held.flatten().as_deref() == Some(lease))
    }

    /// Take `id` off the queue.
    pub(super) fn remove(&self, tx: &Transaction<'_>, id: &str) -> Result<(), StoreError> {
        let Queue { table, member } = self;
        tx.execute(&format!("DELETE FROM {table} WHERE {member} = ?1"), [id])?;
        Ok(())
    }

    /// Queue `id` afresh, due at `at`: not leased, no failed attempts counted.
    pub(super) fn requeue(
        &self,
        tx: &Transaction<'_>,
        id: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let Queue { table, member } = self;
        tx.execute(
            &format!("INSERT OR REPLACE INTO {table} ({member}, due_at) VALUES (?1, ?2)"),
            params![id, at.timestamp_millis()],
        )?;
        Ok(())
    }
}
