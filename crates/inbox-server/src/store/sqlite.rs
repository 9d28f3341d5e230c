//! The embedded store: one SQLite file in the data dir (WAL mode), one connection behind a
//! mutex, used from `spawn_blocking`. Every mutation runs in one `IMMEDIATE` transaction and
//! publishes its events to the live bus while the connection is still held (just after its
//! caller has the answer), so live events leave in exactly the order of their sequence numbers.

mod agui;
mod notification;
mod park;
mod queue;
mod rows;

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use inbox_protocol::{
    AguiRun, Interaction, InteractionPage, Notification, NotificationPage, Park, RemovedEvent,
    RemovedReason, ResetReason, Status, StreamEvent,
};
use rusqlite::types::ToSql;
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};
use tokio::sync::{broadcast, oneshot};

use self::queue::{DELIVERIES, Queue, TURNS};
use self::rows::Prune;
use super::{
    AguiTurn, ClaimOutcome, Delivery, DeliveryResult, EventsAfter, IdempotencyClaim, LiveBus,
    LiveEvent, MediaBlob, NewAguiRun, NewAsk, NewPark, PageQuery, Resolution, ResolveOutcome,
    Store, StoreError, StoredEvent, StoredMedia, TicketMatch, TurnResult, page, transition,
};
use super::{CreateOutcome, Mark, NewNotification, NewSubmission, SubmitOutcome};

/// Live events buffered per subscriber before it counts as lagging (and re-reads the table).
const LIVE_CAPACITY: usize = 4096;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS interactions (
    rank       INTEGER PRIMARY KEY AUTOINCREMENT,  -- insertion order: pages run newest first
    id         TEXT NOT NULL UNIQUE,
    status     TEXT NOT NULL,
    expires_at INTEGER,                           -- unix milliseconds; NULL = no deadline
    body       TEXT NOT NULL,                     -- the Interaction as JSON
    asker      TEXT,                              -- its asker, for the pending-per-asker cap
    resolved_at INTEGER                           -- unix milliseconds it left pending; pruning
);
CREATE INDEX IF NOT EXISTS interactions_by_status ON interactions(status, rank);
CREATE INDEX IF NOT EXISTS interactions_due ON interactions(expires_at) WHERE status = 'pending';
CREATE TABLE IF NOT EXISTS events (
    seq  INTEGER PRIMARY KEY AUTOINCREMENT,       -- the stream cursor; never reused
    body TEXT NOT NULL                            -- the StreamEvent as JSON
);
CREATE TABLE IF NOT EXISTS idempotency (
    interaction_id TEXT NOT NULL,
    key            TEXT NOT NULL,
    fingerprint    TEXT NOT NULL,
    body           TEXT NOT NULL,                 -- the Interaction as this key resolved it
    PRIMARY KEY (interaction_id, key)
);
CREATE TABLE IF NOT EXISTS media (
    id             TEXT PRIMARY KEY,
    interaction_id TEXT NOT NULL,
    content_type   TEXT NOT NULL,
    bytes          BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS callback_tickets (
    hash           TEXT PRIMARY KEY,              -- SHA-256 of the ticket, hex; never the ticket
    interaction_id TEXT NOT NULL,
    expires_at     INTEGER NOT NULL,              -- unix milliseconds: the ticket's own TTL
    verifier       TEXT                           -- the bound Verifier as JSON, or NULL
);
CREATE INDEX IF NOT EXISTS callback_tickets_due ON callback_tickets(expires_at);
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
";

/// `meta` key: every event with `seq <=` this value has been pruned.
const PRUNED_THROUGH: &str = "pruned_through";

pub struct SqliteStore {
    inner: Arc<Inner>,
}

struct Inner {
    conn: Mutex<Connection>,
    retention: i64,
    live: broadcast::Sender<Arc<LiveEvent>>,
    /// Parks this store moved to `resolved`, published after the commit that moved them.
    parks: broadcast::Sender<Park>,
}

impl SqliteStore {
    /// Open (or create) the database at `path`, keeping the newest `events_retention` events
    /// for resume.
    ///
    /// The database is created 0600 before SQLite opens it; SQLite gives its `-wal` and `-shm`
    /// files the database's mode, and existing ones that are more open are narrowed here.
    pub fn open(path: &Path, events_retention: usize) -> Result<SqliteStore, StoreError> {
        inbox_files::private_file(path)?;
        for suffix in ["-wal", "-shm", "-journal"] {
            let mut side = path.as_os_str().to_owned();
            side.push(suffix);
            inbox_files::narrow_if_present(Path::new(&side), inbox_files::FILE_MODE)?;
        }
        let mut conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        // FULL: an acknowledged answer survives power loss (NORMAL may lose the last commits
        // in WAL mode).
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.execute_batch(SCHEMA)?;
        conn.execute_batch(park::SCHEMA)?;
        conn.execute_batch(notification::SCHEMA)?;
        conn.execute_batch(agui::SCHEMA)?;
        migrate_plain_tickets(&mut conn)?;
        migrate_asker_and_resolved_at(&conn)?;
        let (live, _) = broadcast::channel(LIVE_CAPACITY);
        let (parks, _) = broadcast::channel(LIVE_CAPACITY);
        Ok(SqliteStore {
            inner: Arc::new(Inner {
                conn: Mutex::new(conn),
                retention: i64::try_from(events_retention.max(1)).unwrap_or(i64::MAX),
                live,
                parks,
            }),
        })
    }

    /// Run `f` on the connection off the async runtime.
    async fn with_conn<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection, &Inner) -> Result<T, StoreError> + Send + 'static,
    {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || {
            let mut conn = inner.lock_conn();
            f(&mut conn, &inner)
        })
        .await
        .map_err(|e| StoreError::Task(e.to_string()))?
    }

    /// Run `f` in one `IMMEDIATE` transaction, committed when `f` returns `Ok` (an error rolls
    /// all of it back), then publish what it queued in the outbox while the connection is still
    /// held, so live events leave in the order of their sequence numbers. Every mutation goes
    /// through here.
    ///
    /// The caller has its answer before the live events are published (as on Redis, whose
    /// follower publishes them later still): the commit is what makes a write true — a reader,
    /// a resume or a fresh stream finds it in the table — and a send on the bus wakes every
    /// open stream through the runtime's shared queue. Answered after it, the caller's own
    /// wake-up queued behind all of them, so at 10,000 streams an ask waited for the whole
    /// fan-out before its `201` (docs/benchmarks.md, `publish_p99`).
    async fn write<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction<'_>, &mut Outbox<'_>) -> Result<T, StoreError> + Send + 'static,
    {
        let (answer, answered) = oneshot::channel();
        let inner = self.inner.clone();
        // Not awaited for the answer: the write runs to its end even when the caller goes away
        // (its answer is then dropped), so what committed is always published.
        let task = tokio::task::spawn_blocking(move || {
            let mut conn = inner.lock_conn();
            let committed = commit(&mut conn, &inner, f);
            let (out, Outbox { events, parks, .. }) = match committed {
                Ok(done) => done,
                Err(e) => {
                    let _ = answer.send(Err(e));
                    return;
                }
            };
            // Parks first, as on every store: a write that moved one has published it by the
            // time it returns (few listen, so this costs the caller nothing).
            let parked = inner.publish_parks(&conn, parks).map(|()| out);
            let _ = answer.send(parked);
            inner.publish(events);
        });
        match answered.await {
            Ok(answer) => answer,
            // No answer only when the task died before sending one: its join error says why
            // (the panic), as `with_conn`'s does.
            Err(_) => Err(StoreError::Task(match task.await {
                Err(e) => e.to_string(),
                Ok(()) => "the write ended without an answer".to_owned(),
            })),
        }
    }

    /// Prune up to `limit` of the batch `prune` selects below `cut_off`, in one write.
    async fn prune_batch(
        &self,
        prune: &'static Prune,
        cut_off: impl ToSql + Send + 'static,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.write(move |tx, _| rows::prune(tx, prune, params![cut_off, limit]))
            .await
    }

    /// Lease the earliest due member of `queue` for `lease` and read it with `read` (its id and
    /// the new lease's token), in one write: `None` when nothing is due or `read` takes the
    /// member off the queue. Webhook deliveries and AG-UI turns are leased alike.
    async fn lease_next<T: Send + 'static>(
        &self,
        queue: Queue,
        now: DateTime<Utc>,
        lease: std::time::Duration,
        read: fn(&Transaction<'_>, &str, &str) -> Result<Option<T>, StoreError>,
    ) -> Result<Option<T>, StoreError> {
        let lease_ms = lease_millis(lease);
        let token = crate::ids::lease_token();
        self.write(
            move |tx, _| match queue.lease_next(tx, now, lease_ms, &token)? {
                Some(id) => read(tx, &id, &token),
                None => Ok(None),
            },
        )
        .await
    }

    /// Run `f` in one read (`DEFERRED`) transaction: all it reads describes the same moment.
    async fn read<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction<'_>) -> Result<T, StoreError> + Send + 'static,
    {
        self.with_conn(move |conn, _| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Deferred)?;
            let out = f(&tx)?;
            tx.commit()?;
            Ok(out)
        })
        .await
    }
}

/// `f` in one `IMMEDIATE` transaction on `conn`, committed when it returns `Ok`, with the
/// outbox it filled (published by the caller once it has answered).
fn commit<'a, T, F>(
    conn: &mut Connection,
    inner: &'a Inner,
    f: F,
) -> Result<(T, Outbox<'a>), StoreError>
where
    F: FnOnce(&Transaction<'_>, &mut Outbox<'_>) -> Result<T, StoreError>,
{
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut outbox = Outbox {
        inner,
        events: Vec::new(),
        parks: Vec::new(),
    };
    let out = f(&tx, &mut outbox)?;
    tx.commit()?;
    Ok((out, outbox))
}

/// What one write transaction publishes once it has committed: the events it appended and the
/// parks it moved to `resolved` (only the transaction that moved a park names it).
struct Outbox<'a> {
    inner: &'a Inner,
    events: Vec<StoredEvent>,
    parks: Vec<String>,
}

impl Outbox<'_> {
    /// Append `event` in `tx` (pruning beyond the retention), to publish after commit.
    fn append(&mut self, tx: &Transaction<'_>, event: StreamEvent) -> Result<(), StoreError> {
        let stored = self.inner.append_event(tx, event)?;
        self.events.push(stored);
        Ok(())
    }

    /// The park `moved` names (from `park::record`), if any, moved to `resolved` in this write.
    fn park_moved(&mut self, moved: Option<String>) {
        self.parks.extend(moved);
    }
}

impl Inner {
    /// The one connection; a panic in an earlier holder leaves nothing half-written (its
    /// transaction rolled back when dropped), so a poisoned lock is taken as it is.
    fn lock_conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Append an event inside the caller's transaction and prune beyond the retention.
    fn append_event(
        &self,
        tx: &rusqlite::Transaction<'_>,
        event: StreamEvent,
    ) -> Result<StoredEvent, StoreError> {
        tx.execute(
            "INSERT INTO events (body) VALUES (?1)",
            [serde_json::to_string(&event)?],
        )?;
        let seq = tx.last_insert_rowid();
        let horizon = seq - self.retention;
        if horizon > 0 {
            tx.execute("DELETE FROM events WHERE seq <= ?1", [horizon])?;
            tx.execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)
                 ON CONFLICT(key) DO UPDATE SET value = max(value, excluded.value)",
                params![PRUNED_THROUGH, horizon],
            )?;
        }
        Ok(StoredEvent {
            cursor: seq.to_string(),
            event,
        })
    }

    /// Publish committed events. Called with the connection still locked, so order holds.
    fn publish(&self, events: Vec<StoredEvent>) {
        for event in events {
            // An error only means nobody is listening right now.
            let _ = self.live.send(LiveEvent::new(event));
        }
    }

    /// Publish the parks committed transactions moved to `resolved` (once each: only the
    /// transaction that moved a park names it).
    fn publish_parks(&self, conn: &Connection, moved: Vec<String>) -> Result<(), StoreError> {
        for id in moved {
            if let Some(park) = park::load(conn, &id)? {
                let _ = self.parks.send(park);
            }
        }
        Ok(())
    }
}

/// Databases written before tickets were hashed keep them in plain text in `tickets`: hash
/// A database from before the pending-per-asker cap and pruning: add the two columns, fill
/// them from the stored bodies (a question resolved before counts as resolved now), and index
/// them.
fn migrate_asker_and_resolved_at(conn: &Connection) -> Result<(), StoreError> {
    let columns: Vec<String> = rows::column(
        conn,
        "SELECT name FROM pragma_table_info('interactions')",
        [],
    )?;
    if !columns.iter().any(|c| c == "asker") {
        conn.execute_batch(
            "ALTER TABLE interactions ADD COLUMN asker TEXT;
             UPDATE interactions SET asker = json_extract(body, '$.asker');",
        )?;
    }
    if !columns.iter().any(|c| c == "resolved_at") {
        conn.execute(
            "ALTER TABLE interactions ADD COLUMN resolved_at INTEGER",
            [],
        )?;
        conn.execute(
            "UPDATE interactions SET resolved_at = ?1 WHERE status != 'pending'",
            [Utc::now().timestamp_millis()],
        )?;
    }
    conn.execute_batch(
        "CREATE INDEX IF NOT EXISTS interactions_pending_by_asker
             ON interactions(asker) WHERE status = 'pending';
         CREATE INDEX IF NOT EXISTS interactions_resolved
             ON interactions(resolved_at) WHERE status != 'pending';",
    )?;
    Ok(())
}

/// them into `callback_tickets` (expiring with their question, or after the default maximum)
/// and drop the old table, so no plain ticket stays on disk.
fn migrate_plain_tickets(conn: &mut Connection) -> Result<(), StoreError> {
    let exists: bool = conn.query_row(
        "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'tickets'",
        [],
        |row| row.get(0),
    )?;
    if !exists {
        return Ok(());
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let rows: Vec<(String, String, Option<i64>)> = {
        let mut stmt = tx.prepare(
            "SELECT t.ticket, t.interaction_id, i.expires_at
             FROM tickets t LEFT JOIN interactions i ON i.id = t.interaction_id",
        )?;
        stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
            .collect::<Result<_, _>>()?
    };
    let fallback = (Utc::now() + crate::ticket::DEFAULT_MAX_TTL).timestamp_millis();
    for (ticket, id, deadline) in rows {
        tx.execute(
            "INSERT OR IGNORE INTO callback_tickets (hash, interaction_id, expires_at, verifier)
             VALUES (?1, ?2, ?3, NULL)",
            params![
                crate::ticket::hash(&ticket),
                id,
                deadline.map_or(fallback, |d| d.min(fallback))
            ],
        )?;
    }
    tx.execute("DROP TABLE tickets", [])?;
    tx.commit()?;
    Ok(())
}

fn millis(at: Option<DateTime<Utc>>) -> Option<i64> {
    at.map(|t| t.timestamp_millis())
}

fn tail_seq(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn
        .query_row(
            "SELECT seq FROM sqlite_sequence WHERE name = 'events'",
            [],
            |row| row.get(0),
        )
        .optional()?
        .unwrap_or(0))
}

fn pruned_through(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn
        .query_row(
            "SELECT value FROM meta WHERE key = ?1",
            [PRUNED_THROUGH],
            |row| row.get(0),
        )
        .optional()?
        .unwrap_or(0))
}

fn load(conn: &Connection, id: &str) -> Result<Option<Interaction>, StoreError> {
    rows::record(conn, "SELECT body FROM interactions WHERE id = ?1", [id])
}

fn save_status(
    tx: &rusqlite::Transaction<'_>,
    interaction: &Interaction,
) -> Result<bool, StoreError> {
    let changed = tx.execute(
        "UPDATE interactions SET status = ?1, body = ?2, resolved_at = ?4
         WHERE id = ?3 AND status = 'pending'",
        params![
            interaction.status.as_str(),
            serde_json::to_string(interaction)?,
            interaction.id,
            Utc::now().timestamp_millis()
        ],
    )?;
    Ok(changed == 1)
}

/// Store the inline media of a question or a notification (`owner`: its id, which pruning
/// deletes the media by).
fn insert_media(tx: &Transaction<'_>, owner: &str, media: &[MediaBlob]) -> Result<(), StoreError> {
    for blob in media {
        tx.execute(
            "INSERT INTO media (id, interaction_id, content_type, bytes) VALUES (?1, ?2, ?3, ?4)",
            params![blob.id, owner, blob.content_type, blob.bytes],
        )?;
    }
    Ok(())
}

/// Store one question (its row, media and ticket) in the caller's transaction, refusing it when
/// its asker is at the pending limit — counted in the same transaction, so racing asks cannot
/// pass it. A lone ask and each question of a park go through here. Returns the `add` event to
/// publish after commit.
fn insert_question(
    tx: &Transaction<'_>,
    out: &mut Outbox<'_>,
    ask: &NewAsk,
) -> Result<(), StoreError> {
    let ia = &ask.interaction;
    if rows::at_limit(
        tx,
        "SELECT count(*) FROM interactions WHERE asker = ?1 AND status = 'pending'",
        [&ia.asker],
        ask.pending_limit,
    )? {
        return Err(StoreError::PendingLimit {
            limit: ask.pending_limit,
        });
    }
    tx.execute(
        "INSERT INTO interactions (id, status, expires_at, body, asker)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            ia.id,
            ia.status.as_str(),
            millis(ia.expires_at),
            serde_json::to_string(ia)?,
            ia.asker
        ],
    )?;
    insert_media(tx, &ia.id, &ask.media)?;
    if let Some(ticket) = &ask.ticket {
        let verifier = ticket
            .verifier
            .as_ref()
            .map(serde_json::to_string)
            .transpose()?;
        tx.execute(
            "INSERT INTO callback_tickets (hash, interaction_id, expires_at, verifier)
             VALUES (?1, ?2, ?3, ?4)",
            params![
                ticket.hash,
                ia.id,
                ticket.expires_at.timestamp_millis(),
                verifier
            ],
        )?;
    }
    out.append(tx, StreamEvent::Add(ia.clone()))
}

/// A stream cursor is a plain decimal sequence number.
fn parse_seq(cursor: &str) -> Option<i64> {
    if cursor.is_empty() || cursor.len() > 18 || !cursor.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    cursor.parse().ok()
}

/// A lease's length in unix milliseconds, as the queues' `due_at` counts.
fn lease_millis(lease: std::time::Duration) -> i64 {
    i64::try_from(lease.as_millis()).unwrap_or(i64::MAX)
}

#[async_trait]
impl Store for SqliteStore {
    async fn insert_ask(&self, ask: NewAsk) -> Result<Interaction, StoreError> {
        self.write(move |tx, out| {
            insert_question(tx, out, &ask)?;
            Ok(ask.interaction)
        })
        .await
    }

    async fn get(&self, id: &str) -> Result<Option<Interaction>, StoreError> {
        let id = id.to_owned();
        self.with_conn(move |conn, _| load(conn, &id)).await
    }

    async fn list_page(&self, query: PageQuery) -> Result<InteractionPage, StoreError> {
        let before = page::before(query.cursor.as_deref())?;
        // One read transaction: the page and the stream cursor describe the same moment.
        self.read(move |tx| {
            let fetch = rows::page_fetch(query.limit);
            let status = query.status.status().map(Status::as_str);
            // Two statements, so a status filter walks the (status, rank) index.
            let rows = match status {
                Some(status) => {
                    let mut stmt = tx.prepare_cached(
                        "SELECT rank, body FROM interactions
                         WHERE status = ?2 AND rank < ?1 ORDER BY rank DESC LIMIT ?3",
                    )?;
                    rows::page(stmt.query(params![before, status, fetch])?)?
                }
                None => {
                    let mut stmt = tx.prepare_cached(
                        "SELECT rank, body FROM interactions
                         WHERE rank < ?1 ORDER BY rank DESC LIMIT ?2",
                    )?;
                    rows::page(stmt.query(params![before, fetch])?)?
                }
            };
            Ok(page::assemble(rows, query.limit, tail_seq(tx)?.to_string()))
        })
        .await
    }

    async fn resolve(
        &self,
        id: &str,
        resolution: Resolution,
        claim: Option<IdempotencyClaim>,
    ) -> Result<ResolveOutcome, StoreError> {
        let id = id.to_owned();
        self.write(move |tx, out| {
            if let Some(claim) = &claim {
                let earlier: Option<(String, String)> = tx
                    .query_row(
                        "SELECT fingerprint, body FROM idempotency WHERE interaction_id = ?1 AND key = ?2",
                        params![id, claim.key],
                        |row| Ok((row.get(0)?, row.get(1)?)),
                    )
                    .optional()?;
                if let Some((fingerprint, body)) = earlier {
                    return Ok(if fingerprint == claim.fingerprint {
                        ResolveOutcome::Replayed(serde_json::from_str(&body)?)
                    } else {
                        ResolveOutcome::IdempotencyConflict
                    });
                }
            }
            let Some(ia) = load(tx, &id)? else {
                return Ok(ResolveOutcome::NotFound);
            };
            if ia.status.is_final() {
                return Ok(ResolveOutcome::AlreadyFinal(ia));
            }
            let now = Utc::now();
            if ia.expires_at.is_some_and(|at| at <= now) {
                return Ok(ResolveOutcome::PastDeadline);
            }
            let (ia, event) = transition::resolve(ia, resolution, now);
            // The guard on status = 'pending' is the single-winner rule; under the
            // IMMEDIATE transaction it cannot miss, but it keeps the rule in one place.
            if !save_status(tx, &ia)? {
                let current = load(tx, &id)?;
                return Ok(current.map_or(ResolveOutcome::NotFound, ResolveOutcome::AlreadyFinal));
            }
            out.append(tx, event)?;
            // In this transaction: the park's "last one resolved" commits with the question.
            out.park_moved(park::record(tx, &ia, now)?);
            if let Some(claim) = &claim {
                tx.execute(
                    "INSERT INTO idempotency (interaction_id, key, fingerprint, body) VALUES (?1, ?2, ?3, ?4)",
                    params![id, claim.key, claim.fingerprint, serde_json::to_string(&ia)?],
                )?;
            }
            Ok(ResolveOutcome::Resolved(ia))
        })
        .await
    }

    async fn expire_due(&self, now: DateTime<Utc>) -> Result<Vec<String>, StoreError> {
        let now_ms = now.timestamp_millis();
        self.write(move |tx, out| {
            let due: Vec<Interaction> = rows::records(
                tx,
                "SELECT body FROM interactions
                 WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ?1
                 ORDER BY expires_at, rank",
                [now_ms],
            )?;
            let mut ids = Vec::with_capacity(due.len());
            for ia in due {
                let (ia, event) = transition::remove(ia, RemovedReason::Expired);
                if save_status(tx, &ia)? {
                    out.append(tx, event)?;
                    out.park_moved(park::record(tx, &ia, now)?);
                    ids.push(ia.id);
                }
            }
            tx.execute(
                "DELETE FROM callback_tickets WHERE expires_at <= ?1",
                [now_ms],
            )?;
            Ok(ids)
        })
        .await
    }

    async fn prune_resolved(
        &self,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        let before_ms = before.timestamp_millis();
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.write(move |tx, out| {
            let ids: Vec<String> = rows::column(
                tx,
                "SELECT id FROM interactions
                 WHERE status != 'pending' AND resolved_at <= ?1
                 ORDER BY resolved_at LIMIT ?2",
                params![before_ms, limit],
            )?;
            for id in &ids {
                for table in ["media", "idempotency", "callback_tickets"] {
                    tx.execute(
                        &format!("DELETE FROM {table} WHERE interaction_id = ?1"),
                        [id],
                    )?;
                }
                tx.execute("DELETE FROM interactions WHERE id = ?1", [id])?;
                out.append(
                    tx,
                    StreamEvent::Removed(RemovedEvent {
                        id: id.clone(),
                        reason: RemovedReason::Pruned,
                    }),
                )?;
            }
            Ok(ids)
        })
        .await
    }

    async fn events_after(&self, cursor: &str, limit: usize) -> Result<EventsAfter, StoreError> {
        let Some(after) = parse_seq(cursor) else {
            return Ok(EventsAfter::Gap(ResetReason::MalformedId));
        };
        self.read(move |tx| {
            // Events up to `pruned` are gone: a cursor before it would skip them. A cursor past
            // the tail was never issued by this stream.
            if after < pruned_through(tx)? || after > tail_seq(tx)? {
                return Ok(EventsAfter::Gap(ResetReason::AgedOut));
            }
            let mut stmt = tx.prepare_cached(
                "SELECT seq, body FROM events WHERE seq > ?1 ORDER BY seq LIMIT ?2",
            )?;
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let mut rows = stmt.query(params![after, limit])?;
            let mut events = Vec::new();
            while let Some(row) = rows.next()? {
                let seq: i64 = row.get(0)?;
                let body: String = row.get(1)?;
                events.push(StoredEvent {
                    cursor: seq.to_string(),
                    event: serde_json::from_str(&body)?,
                });
            }
            Ok(EventsAfter::Events(events))
        })
        .await
    }

    async fn tail_cursor(&self) -> Result<String, StoreError> {
        self.with_conn(|conn, _| Ok(tail_seq(conn)?.to_string()))
            .await
    }

    fn is_after(&self, cursor: &str, reference: &str) -> bool {
        match (parse_seq(cursor), parse_seq(reference)) {
            (Some(a), Some(b)) => a > b,
            // An unreadable reference orders before everything; an unreadable cursor after
            // nothing. Neither happens with cursors this store issued.
            (Some(_), None) => true,
            (None, _) => false,
        }
    }

    async fn get_media(&self, id: &str) -> Result<Option<StoredMedia>, StoreError> {
        let id = id.to_owned();
        self.with_conn(move |conn, _| {
            Ok(conn
                .query_row(
                    "SELECT content_type, bytes FROM media WHERE id = ?1",
                    [id],
                    |row| {
                        Ok(StoredMedia {
                            content_type: row.get(0)?,
                            bytes: row.get(1)?,
                        })
                    },
                )
                .optional()?)
        })
        .await
    }

    async fn ticket_lookup(
        &self,
        ticket_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<TicketMatch>, StoreError> {
        let hash = ticket_hash.to_owned();
        let now_ms = now.timestamp_millis();
        self.with_conn(move |conn, _| {
            // Checked here, not only by the pruning sweep: an expired ticket is dead at once.
            let found: Option<(String, Option<String>)> = conn
                .query_row(
                    "SELECT interaction_id, verifier FROM callback_tickets
                     WHERE hash = ?1 AND expires_at > ?2",
                    params![hash, now_ms],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )
                .optional()?;
            let Some((id, verifier)) = found else {
                return Ok(None);
            };
            let verifier = verifier.map(|v| serde_json::from_str(&v)).transpose()?;
            Ok(load(conn, &id)?.map(|interaction| TicketMatch {
                interaction,
                verifier,
            }))
        })
        .await
    }

    fn subscribe(&self) -> LiveBus {
        self.inner.live.subscribe()
    }

    /// Ready means the store can serve a write: the write lock is taken and let go (nothing is
    /// written) and the schema is read, so a file that another process holds locked, or one
    /// that is no longer a database, reports unavailable here. `SELECT 1` touched neither.
    async fn ping(&self) -> Result<(), StoreError> {
        self.with_conn(|conn, _| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()))?;
            tx.rollback()?;
            Ok(())
        })
        .await
    }

    async fn insert_park(&self, new: NewPark) -> Result<Park, StoreError> {
        // Any failing row rolls the whole park back: all questions or none.
        self.write(move |tx, out| {
            park::insert(tx, out, &new)?;
            Ok(new.park)
        })
        .await
    }

    async fn get_park(&self, id: &str) -> Result<Option<Park>, StoreError> {
        let id = id.to_owned();
        self.with_conn(move |conn, _| park::load(conn, &id)).await
    }

    async fn claim_park(
        &self,
        id: &str,
        claim: Option<IdempotencyClaim>,
        now: DateTime<Utc>,
    ) -> Result<ClaimOutcome, StoreError> {
        let id = id.to_owned();
        self.write(move |tx, _| park::claim(tx, &id, claim.as_ref(), now))
            .await
    }

    fn subscribe_parks(&self) -> broadcast::Receiver<Park> {
        self.inner.parks.subscribe()
    }

    async fn lease_delivery(
        &self,
        now: DateTime<Utc>,
        lease: std::time::Duration,
    ) -> Result<Option<Delivery>, StoreError> {
        self.lease_next(DELIVERIES, now, lease, park::leased).await
    }

    async fn finish_delivery(
        &self,
        delivery: &Delivery,
        result: DeliveryResult,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let delivery = delivery.clone();
        self.write(move |tx, _| {
            let id = &delivery.park.id;
            DELIVERIES.report(tx, id, &delivery.lease, || {
                park::finish(tx, id, &result, now)
            })
        })
        .await
    }

    async fn prune_parks(
        &self,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        self.prune_batch(&park::PRUNE, before.timestamp_millis(), limit)
            .await
    }

    async fn redeliver_park(&self, id: &str, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let id = id.to_owned();
        self.write(move |tx, _| park::redeliver(tx, &id, now)).await
    }

    async fn insert_agui_run(&self, new: NewAguiRun, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.write(move |tx, _| agui::insert(tx, &new, now)).await
    }

    async fn get_agui_run(&self, id: &str) -> Result<Option<AguiRun>, StoreError> {
        let id = id.to_owned();
        self.with_conn(move |conn, _| agui::load(conn, &id)).await
    }

    async fn lease_agui_turn(
        &self,
        now: DateTime<Utc>,
        lease: std::time::Duration,
    ) -> Result<Option<AguiTurn>, StoreError> {
        self.lease_next(TURNS, now, lease, agui::leased).await
    }

    async fn finish_agui_turn(
        &self,
        turn: &AguiTurn,
        result: TurnResult,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let turn = turn.clone();
        // Any failing row (a refused park) rolls the whole report back.
        self.write(move |tx, out| {
            TURNS.report(tx, &turn.run.id, &turn.lease, || {
                agui::finish(tx, out, &turn, &result, now)
            })
        })
        .await
    }

    async fn progress_agui_turn(&self, turn: &AguiTurn, run: &AguiRun) -> Result<bool, StoreError> {
        let (turn, run) = (turn.clone(), run.clone());
        self.write(move |tx, _| agui::progress(tx, &turn, &run))
            .await
    }

    async fn prune_finished_agui_runs(
        &self,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        self.prune_batch(&agui::PRUNE_FINISHED, before.to_rfc3339(), limit)
            .await
    }

    async fn retry_agui_run(
        &self,
        id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<AguiRun>, StoreError> {
        let id = id.to_owned();
        self.write(move |tx, _| agui::retry(tx, &id, now)).await
    }

    async fn insert_notification(
        &self,
        new: NewNotification,
        claim: Option<IdempotencyClaim>,
    ) -> Result<CreateOutcome, StoreError> {
        self.write(move |tx, out| notification::insert(tx, out, &new, claim.as_ref()))
            .await
    }

    async fn get_notification(&self, id: &str) -> Result<Option<Notification>, StoreError> {
        let id = id.to_owned();
        self.with_conn(move |conn, _| notification::load(conn, &id))
            .await
    }

    async fn list_notifications(
        &self,
        limit: usize,
        cursor: Option<String>,
    ) -> Result<NotificationPage, StoreError> {
        let before = page::before(cursor.as_deref())?;
        self.read(move |tx| {
            let rows = notification::page(tx, limit, before)?;
            let stream_cursor = tail_seq(tx)?.to_string();
            Ok(page::assemble(rows, limit, stream_cursor))
        })
        .await
    }

    async fn mark_notification(
        &self,
        id: &str,
        mark: Mark,
        now: DateTime<Utc>,
    ) -> Result<Option<Notification>, StoreError> {
        let id = id.to_owned();
        self.write(move |tx, out| notification::mark(tx, out, &id, mark, now))
            .await
    }

    async fn submit(
        &self,
        id: &str,
        new: NewSubmission,
        claim: Option<IdempotencyClaim>,
    ) -> Result<SubmitOutcome, StoreError> {
        let id = id.to_owned();
        self.write(move |tx, out| notification::submit(tx, out, &id, &new, claim.as_ref()))
            .await
    }

    async fn submissions(&self, id: &str) -> Result<Vec<inbox_protocol::Submission>, StoreError> {
        let id = id.to_owned();
        self.with_conn(move |conn, _| notification::submissions(conn, &id))
            .await
    }

    async fn prune_dismissed(
        &self,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        self.prune_batch(&notification::PRUNE, before.timestamp_millis(), limit)
            .await
    }
}

#[cfg(test)]
mod tests {
    use inbox_protocol::{AnswerFormat, RemovedEvent, StatusFilter};
    use serde_json::json;

    use super::*;
    use crate::test_support::{answer, question};

    fn open(dir: &tempfile::TempDir, retention: usize) -> SqliteStore {
        SqliteStore::open(&dir.path().join("inbox.sqlite3"), retention).unwrap()
    }

    #[tokio::test]
    async fn plain_tickets_of_an_older_database_are_hashed_on_open() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("inbox.sqlite3");
        {
            let store = open(&dir, 100);
            let mut ask = question("ia_old", None);
            ask.interaction.answer_format = AnswerFormat::External;
            store.insert_ask(ask).await.unwrap();
        }
        // What an older version left: the plain ticket in a `tickets` table.
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE tickets (ticket TEXT PRIMARY KEY, interaction_id TEXT NOT NULL);
             INSERT INTO tickets VALUES ('cb_plain_old_ticket', 'ia_old');",
        )
        .unwrap();
        drop(conn);
        let store = open(&dir, 100);
        let found = store
            .ticket_lookup(&crate::ticket::hash("cb_plain_old_ticket"), Utc::now())
            .await
            .unwrap();
        assert_eq!(found.map(|m| m.interaction.id), Some("ia_old".into()));
        let conn = Connection::open(&path).unwrap();
        let old: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'tickets'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(old, 0);
    }

    #[tokio::test]
    async fn writes_are_synchronous_full() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(&dir, 100);
        let level: i64 = store
            .inner
            .conn
            .lock()
            .unwrap()
            .pragma_query_value(None, "synchronous", |row| row.get(0))
            .unwrap();
        assert_eq!(level, 2, "FULL");
    }

    #[tokio::test]
    async fn only_the_first_resolution_wins() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(&dir, 100);
        store.insert_ask(question("ia_1", None)).await.unwrap();
        let first = store
            .resolve("ia_1", answer("alice", json!(true)), None)
            .await
            .unwrap();
        assert!(matches!(first, ResolveOutcome::Resolved(ref ia) if ia.status == Status::Answered));
        let second = store
            .resolve("ia_1", answer("bob", json!(false)), None)
            .await
            .unwrap();
        let ResolveOutcome::AlreadyFinal(winner) = second else {
            panic!("expected AlreadyFinal, got {second:?}");
        };
        assert_eq!(winner.answer.unwrap().answered_by, "alice");
        assert_eq!(
            store
                .resolve("ia_nope", Resolution::Cancel, None)
                .await
                .unwrap(),
            ResolveOutcome::NotFound
        );
    }

    #[tokio::test]
    async fn an_idempotency_key_replays_or_conflicts() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(&dir, 100);
        store.insert_ask(question("ia_1", None)).await.unwrap();
        let claim = |fp: &str| {
            Some(IdempotencyClaim {
                key: "k1".into(),
                fingerprint: fp.into(),
            })
        };
        let ResolveOutcome::Resolved(first) = store
            .resolve("ia_1", answer("alice", json!(true)), claim("a"))
            .await
            .unwrap()
        else {
            panic!("first call must win");
        };
        let again = store
            .resolve("ia_1", answer("alice", json!(true)), claim("a"))
            .await
            .unwrap();
        assert_eq!(again, ResolveOutcome::Replayed(first));
        let other = store
            .resolve("ia_1", answer("alice", json!(false)), claim("b"))
            .await
            .unwrap();
        assert_eq!(other, ResolveOutcome::IdempotencyConflict);
        // Exactly two events: the add and one answered.
        assert_eq!(store.tail_cursor().await.unwrap(), "2");
    }

    #[tokio::test]
    async fn pruned_cursors_are_a_gap_and_retained_ones_resume() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(&dir, 3);
        for i in 0..5 {
            store
                .insert_ask(question(&format!("ia_{i}"), None))
                .await
                .unwrap();
        }
        // seq 1..5, retention 3 keeps 3..5: a resume from 2 sees all it missed.
        let EventsAfter::Events(events) = store.events_after("2", usize::MAX).await.unwrap() else {
            panic!("cursor 2 is still covered");
        };
        let cursors: Vec<_> = events.iter().map(|e| e.cursor.as_str()).collect();
        assert_eq!(cursors, ["3", "4", "5"]);
        assert_eq!(
            store.events_after("1", usize::MAX).await.unwrap(),
            EventsAfter::Gap(ResetReason::AgedOut)
        );
        assert_eq!(
            store.events_after("6", usize::MAX).await.unwrap(),
            EventsAfter::Gap(ResetReason::AgedOut)
        );
        assert_eq!(
            store.events_after("x1", usize::MAX).await.unwrap(),
            EventsAfter::Gap(ResetReason::MalformedId)
        );
        assert_eq!(
            store.events_after("5", usize::MAX).await.unwrap(),
            EventsAfter::Events(vec![])
        );
    }

    #[tokio::test]
    async fn expiry_moves_due_questions_and_emits_removed() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(&dir, 100);
        let past = Utc::now() - chrono::Duration::seconds(1);
        let future = Utc::now() + chrono::Duration::hours(1);
        for (id, due) in [("ia_due", past), ("ia_later", future)] {
            store.insert_ask(question(id, Some(due))).await.unwrap();
        }
        let mut live = store.subscribe();
        assert_eq!(store.expire_due(Utc::now()).await.unwrap(), ["ia_due"]);
        // A write answers before it publishes, so the two asks' events may still reach a bus
        // subscribed after them: what counts is the event after them.
        let event = tokio::time::timeout(std::time::Duration::from_secs(5), async {
            loop {
                let event = live.recv().await.unwrap();
                if !matches!(event.stored.event, StreamEvent::Add(_)) {
                    break event;
                }
            }
        })
        .await
        .expect("the expiry is published");
        assert_eq!(event.stored.cursor, "3");
        assert_eq!(
            event.stored.event,
            StreamEvent::Removed(RemovedEvent {
                id: "ia_due".into(),
                reason: RemovedReason::Expired
            })
        );
        assert_eq!(
            store.get("ia_due").await.unwrap().unwrap().status,
            Status::Expired
        );
        assert!(store.expire_due(Utc::now()).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn pages_run_newest_first_and_survive_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = open(&dir, 100);
            for i in 0..5 {
                store
                    .insert_ask(question(&format!("ia_{i}"), None))
                    .await
                    .unwrap();
            }
        }
        let store = open(&dir, 100);
        let query = |cursor| PageQuery {
            status: StatusFilter::Pending,
            limit: 2,
            cursor,
        };
        let first = store.list_page(query(None)).await.unwrap();
        let ids: Vec<_> = first.items.iter().map(|ia| ia.id.as_str()).collect();
        assert_eq!(ids, ["ia_4", "ia_3"]);
        assert_eq!(first.stream_cursor, "5");
        let second = store.list_page(query(first.next_cursor)).await.unwrap();
        let third = store.list_page(query(second.next_cursor)).await.unwrap();
        assert_eq!(third.items.len(), 1);
        assert_eq!(third.next_cursor, None);
        assert!(matches!(
            store.list_page(query(Some("bogus".into()))).await,
            Err(StoreError::InvalidCursor)
        ));
    }
}
