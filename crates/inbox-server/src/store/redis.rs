//! The Redis 7 store, shared by any number of server workers.
//!
//! Interactions are hashes (`body`, `status`, `rank`); sorted sets index them by creation rank
//! per status (the pages) and by deadline (the expiry sweep). Events go to one Redis stream
//! with `XADD … MAXLEN ~ N`, so the stream is also the bounded resume window and its entry ids
//! are the SSE ids. Every mutation is one Lua script ([`scripts`]): the pending check, the
//! write, the idempotency record and the event happen together or not at all, so exactly one
//! worker wins an answer and a second expiry sweeper finds nothing left to do. Each worker
//! follows the stream with a blocking read ([`follower`]) and fans events out to its own
//! subscribers, so an SSE client or a waiting asker on one worker hears what another did.
//! Redis is reached through a `ConnectionManager`, which reconnects after a Redis restart.

mod agui;
mod entry;
mod follower;
mod keys;
mod notification;
mod park;
mod scripts;
mod stream_id;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use inbox_protocol::{
    Interaction, InteractionPage, Park, RemovedEvent, RemovedReason, ResetReason, Status,
    StreamEvent,
};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::streams::StreamRangeReply;
use redis::{AsyncCommands, RedisError, ScriptInvocation};
use serde::de::DeserializeOwned;
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use self::entry::Entry;
use self::keys::Keys;
use self::scripts::Scripts;
use self::stream_id::StreamId;
use super::{
    ClaimOutcome, Delivery, DeliveryResult, EventsAfter, IdempotencyClaim, LiveBus, LiveEvent,
    MediaBlob, NewAsk, NewPark, PageQuery, Resolution, ResolveOutcome, Store, StoreError,
    StoredMedia, StoredTicket, TicketMatch, page, transition,
};
use super::{CreateOutcome, Mark, NewNotification, NewSubmission, SubmitOutcome};

/// The key prefix when none is configured.
pub const DEFAULT_PREFIX: &str = "inbox";

/// Live events buffered per subscriber before it counts as lagging (and re-reads the stream).
const LIVE_CAPACITY: usize = 4096;
/// `/readyz` answers within this, reachable or not.
const PING_TIMEOUT: Duration = Duration::from_secs(1);
/// A pending interaction read, then resolved by someone else before our script ran, is
/// simply final; "stale" only happens if it appeared in between. A few rounds settle it.
const SETTLE_ATTEMPTS: usize = 3;

pub struct RedisStore {
    conn: ConnectionManager,
    keys: Keys,
    scripts: Scripts,
    retention: usize,
    live: broadcast::Sender<Arc<LiveEvent>>,
    /// Parks this worker's scripts moved to `resolved` (see `Store::subscribe_parks`).
    parks: broadcast::Sender<Park>,
    follower: JoinHandle<()>,
}

// Redis errors are the store's I/O: the doors answer them as "unavailable" (503), like a
// failing disk under SQLite.
impl From<RedisError> for StoreError {
    fn from(e: RedisError) -> Self {
        StoreError::Io(std::io::Error::other(e))
    }
}

impl RedisStore {
    /// Connect to `url` (`redis://host:port[/db]`), keeping every key under `prefix` and about
    /// `events_retention` events for resume. Fails if Redis is unreachable now; afterwards the
    /// store reconnects by itself.
    pub async fn connect(
        url: &str,
        prefix: &str,
        events_retention: usize,
    ) -> Result<RedisStore, StoreError> {
        let client = redis::Client::open(url)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Duration::from_secs(1))
            .set_response_timeout(Duration::from_secs(3))
            // Retry a lost connection briefly per request; the next request tries again.
            .set_number_of_retries(2)
            .set_max_delay(500);
        let mut conn = ConnectionManager::new_with_config(client.clone(), config).await?;
        let keys = Keys::new(prefix);
        // Follow from the tail as it is now: subscribers see every event from here on.
        let from = newest_id(&mut conn, &keys.events()).await?;
        let (live, _) = broadcast::channel(LIVE_CAPACITY);
        let follower = follower::spawn(client, keys.events(), from, live.clone());
        let (parks, _) = broadcast::channel(LIVE_CAPACITY);
        Ok(RedisStore {
            conn,
            keys,
            scripts: Scripts::new(),
            retention: events_retention.max(1),
            live,
            parks,
            follower,
        })
    }

    /// One run of the settle script; see `scripts::SETTLE` for the replies.
    async fn settle(
        &self,
        id: &str,
        change: Option<&(Interaction, StreamEvent)>,
        claim: Option<&IdempotencyClaim>,
        deadline_check: Option<DateTime<Utc>>,
    ) -> Result<Settled, StoreError> {
        let (status, body, name, data, asker) = match change {
            Some((ia, event)) => (
                ia.status,
                serde_json::to_string(ia)?,
                event.name(),
                event.data_json(),
                ia.asker.as_str(),
            ),
            None => (Status::Pending, String::new(), "", String::new(), ""),
        };
        let (key, fingerprint) = claim_args(claim);
        // The park slot this settle fills, if the question belongs to a park.
        let (park_id, park_resolution) = match change.map(|(ia, _)| ia) {
            Some(ia) => match (&ia.park_id, super::park::resolution_of(ia)) {
                (Some(park), Some(resolution)) => {
                    (park.as_str(), serde_json::to_string(&resolution)?)
                }
                _ => ("", String::new()),
            },
            None => ("", String::new()),
        };
        let reply: Vec<String> = self
            .scripts
            .settle
            .key(self.keys.interaction(id))
            .key(self.keys.status_index(Status::Pending))
            .key(self.keys.status_index(status))
            .key(self.keys.due())
            .key(self.keys.events())
            .key(self.keys.idempotency(id))
            .key(self.keys.pending_of(asker))
            .key(self.keys.resolved())
            .key(self.keys.park(park_id))
            .key(self.keys.deliveries())
            .key(self.keys.agui_turns())
            .key(self.keys.agui_attempts())
            .key(self.keys.parks_settled())
            .arg(id)
            .arg(status.as_str())
            .arg(body)
            .arg(name)
            .arg(data)
            .arg(self.retention)
            .arg(key)
            .arg(fingerprint)
            .arg(deadline_check.map_or(String::new(), |now| now.timestamp_millis().to_string()))
            .arg(Utc::now().timestamp_millis())
            .arg(park_resolution)
            .arg(park_id)
            .invoke_async(&mut self.conn.clone())
            .await?;
        Ok(match reply.first().map(String::as_str) {
            Some("resolved") => Settled::Resolved {
                park_moved: reply.get(2).is_some_and(|m| m == "park_resolved"),
            },
            Some("replayed") => Settled::Replayed(reply_json(&reply, 1)?),
            Some("conflict") => Settled::Conflict,
            Some("final") => Settled::Final(reply_json(&reply, 1)?),
            Some("not_found") => Settled::NotFound,
            Some("past_deadline") => Settled::PastDeadline,
            Some("stale") => Settled::Stale,
            _ => return Err(unexpected_reply()),
        })
    }

    /// Up to `limit` members of the sorted set `key` scored at or before `before` (ms): what the
    /// pruners of questions, parks, notifications and AG-UI runs take next, oldest first.
    async fn due(
        &self,
        key: &str,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        Ok(redis::cmd("ZRANGEBYSCORE")
            .arg(key)
            .arg("-inf")
            .arg(before.timestamp_millis())
            .arg("LIMIT")
            .arg(0)
            .arg(limit.min(i64::MAX as usize))
            .query_async(&mut self.conn.clone())
            .await?)
    }

    /// The pruners' loop: each of up to `limit` members of the sorted set `key` scored at or
    /// before `before`, oldest first, through its own run of the script `call` builds for it
    /// (which checks it again, atomically, and replies 1 when it pruned it). Returns the ids
    /// pruned.
    async fn prune_due<'s>(
        &'s self,
        key: &str,
        before: DateTime<Utc>,
        limit: usize,
        call: impl Fn(&str) -> ScriptInvocation<'s>,
    ) -> Result<Vec<String>, StoreError> {
        let mut conn = self.conn.clone();
        let mut pruned = Vec::new();
        for id in self.due(key, before, limit).await? {
            let done: i64 = call(&id).invoke_async(&mut conn).await?;
            if done == 1 {
                pruned.push(id);
            }
        }
        Ok(pruned)
    }

    /// Lease the earliest due member of the queue `queue` for `lease` (`DELIVERY_LEASE`, with
    /// lease keys under `lease_prefix`): its id and the new lease's token, or `None` when
    /// nothing is due. Webhook deliveries and AG-UI turns are leased alike.
    async fn lease_next(
        &self,
        queue: String,
        lease_prefix: String,
        now: DateTime<Utc>,
        lease: Duration,
    ) -> Result<Option<(String, String)>, StoreError> {
        let token = crate::ids::lease_token();
        let id: String = self
            .scripts
            .delivery_lease
            .key(queue)
            .arg(now.timestamp_millis())
            .arg(u64::try_from(lease.as_millis()).unwrap_or(u64::MAX).max(1))
            .arg(&token)
            .arg(lease_prefix)
            .invoke_async(&mut self.conn.clone())
            .await?;
        Ok((!id.is_empty()).then_some((id, token)))
    }

    /// The keys every script that stores questions takes as KEYS[2] to KEYS[6] (see
    /// `scripts::QUESTION`): the rank counter, the indexes "all" and "pending", the due set and
    /// the events.
    fn push_question_sets(&self, call: &mut ScriptInvocation<'_>) {
        call.key(self.keys.rank())
            .key(self.keys.index(inbox_protocol::StatusFilter::All))
            .key(self.keys.status_index(Status::Pending))
            .key(self.keys.due())
            .key(self.keys.events());
    }

    /// One question's keys (its interaction, its ticket — any key without one — and its media)
    /// and args (id, body, deadline in unix ms or "", the ticket's record as stored under its
    /// hash or "", the ticket's expiry in unix ms or 0, the media count, then each blob), as
    /// `store_question` reads them.
    fn push_question(
        &self,
        call: &mut ScriptInvocation<'_>,
        ask: &NewAsk,
    ) -> Result<(), StoreError> {
        let ia = &ask.interaction;
        let ticket_record = ask
            .ticket
            .as_ref()
            .map(|t| {
                serde_json::to_string(&StoredTicket {
                    interaction_id: ia.id.clone(),
                    expires_at: t.expires_at.timestamp_millis(),
                    verifier: t.verifier.clone(),
                })
            })
            .transpose()?
            .unwrap_or_default();
        call.key(self.keys.interaction(&ia.id))
            .key(
                self.keys
                    .ticket(ask.ticket.as_ref().map_or("", |t| t.hash.as_str())),
            )
            .arg(&ia.id)
            .arg(serde_json::to_string(ia)?)
            .arg(
                ia.expires_at
                    .map(|t| t.timestamp_millis().to_string())
                    .unwrap_or_default(),
            )
            .arg(ticket_record)
            .arg(
                ask.ticket
                    .as_ref()
                    .map_or(0, |t| t.expires_at.timestamp_millis()),
            )
            .arg(ask.media.len());
        self.push_media(call, &ask.media);
        Ok(())
    }

    /// Every field of the hash `key` (empty when there is none).
    async fn fields(&self, key: String) -> Result<HashMap<String, String>, StoreError> {
        Ok(self.conn.clone().hgetall(key).await?)
    }

    /// Add each blob's key, content type and bytes to a script call (the insert scripts store
    /// them in one `HSET` each).
    fn push_media(&self, call: &mut ScriptInvocation<'_>, media: &[MediaBlob]) {
        for blob in media {
            call.key(self.keys.media(&blob.id))
                .arg(&blob.content_type)
                .arg(blob.bytes.as_slice());
        }
    }

    /// One page through a page script (`PAGE`, `NT_PAGE`) over the sorted set `index`, whose
    /// records the script reads under `record_prefix`: the stream's tail id, read at the same
    /// moment, and `(rank, record)` rows for `store::page`.
    async fn page<T: DeserializeOwned>(
        &self,
        script: &redis::Script,
        index: String,
        record_prefix: String,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<(String, Vec<(i64, Option<T>)>), StoreError> {
        let below = match cursor {
            Some(c) => format!("({}", page::parse_cursor(c)?),
            None => "+inf".to_owned(),
        };
        let reply: Vec<String> = script
            .key(index)
            .key(self.keys.events())
            .arg(below)
            .arg(limit.saturating_add(1))
            .arg(record_prefix)
            .invoke_async(&mut self.conn.clone())
            .await?;
        let mut reply = reply.into_iter();
        let stream_cursor = reply.next().ok_or_else(unexpected_reply)?;
        let mut rows = Vec::new();
        while let (Some(score), Some(body)) = (reply.next(), reply.next()) {
            let rank = parse_rank(&score).ok_or_else(unexpected_reply)?;
            // An index entry whose record is gone is skipped; the rank still moves the page on.
            let record = if body.is_empty() {
                None
            } else {
                Some(serde_json::from_str(&body)?)
            };
            rows.push((rank, record));
        }
        Ok((stream_cursor, rows))
    }
}

impl Drop for RedisStore {
    fn drop(&mut self) {
        self.follower.abort();
    }
}

/// What the settle script found.
enum Settled {
    /// `park_moved`: this very run recorded the last resolution of the question's park.
    Resolved {
        park_moved: bool,
    },
    Replayed(Interaction),
    Conflict,
    Final(Interaction),
    NotFound,
    PastDeadline,
    Stale,
}

fn unexpected_reply() -> StoreError {
    StoreError::from(RedisError::from((
        redis::ErrorKind::TypeError,
        "unexpected reply from a store script",
    )))
}

/// The JSON record a script replied at `reply[at]`.
fn reply_json<T: DeserializeOwned>(reply: &[String], at: usize) -> Result<T, StoreError> {
    Ok(serde_json::from_str(
        reply.get(at).ok_or_else(unexpected_reply)?,
    )?)
}

/// The idempotency key and fingerprint as the scripts take them: both "" without a claim.
fn claim_args(claim: Option<&IdempotencyClaim>) -> (&str, &str) {
    claim.map_or(("", ""), |c| (c.key.as_str(), c.fingerprint.as_str()))
}

async fn newest_id(conn: &mut ConnectionManager, stream: &str) -> Result<StreamId, StoreError> {
    let newest: StreamRangeReply = conn.xrevrange_count(stream, "+", "-", 1).await?;
    Ok(newest
        .ids
        .first()
        .and_then(|e| StreamId::parse(&e.id))
        .unwrap_or(StreamId::ZERO))
}

/// A sorted-set score as Redis prints it ("42", or "4.2e+15" for large ones).
fn parse_rank(score: &str) -> Option<i64> {
    score
        .parse::<i64>()
        .ok()
        .or_else(|| score.parse::<f64>().ok().map(|f| f as i64))
}

#[async_trait]
impl Store for RedisStore {
    async fn insert_ask(&self, ask: NewAsk) -> Result<Interaction, StoreError> {
        let mut call = self.scripts.insert.prepare_invoke();
        call.key(self.keys.pending_of(&ask.interaction.asker));
        self.push_question_sets(&mut call);
        call.arg(self.retention)
            .arg(ask.pending_limit.min(i64::MAX as usize));
        self.push_question(&mut call, &ask)?;
        let reply: Vec<String> = call.invoke_async(&mut self.conn.clone()).await?;
        match reply.first().map(String::as_str) {
            Some("added") => Ok(ask.interaction),
            Some("at_limit") => Err(StoreError::PendingLimit {
                limit: ask.pending_limit,
            }),
            _ => Err(unexpected_reply()),
        }
    }

    async fn get(&self, id: &str) -> Result<Option<Interaction>, StoreError> {
        let body: Option<String> = self
            .conn
            .clone()
            .hget(self.keys.interaction(id), "body")
            .await?;
        Ok(body.map(|b| serde_json::from_str(&b)).transpose()?)
    }

    async fn list_page(&self, query: PageQuery) -> Result<InteractionPage, StoreError> {
        let (stream_cursor, rows) = self
            .page(
                &self.scripts.page,
                self.keys.index(query.status),
                self.keys.interaction_prefix(),
                query.limit,
                query.cursor.as_deref(),
            )
            .await?;
        Ok(page::assemble(rows, query.limit, stream_cursor))
    }

    async fn resolve(
        &self,
        id: &str,
        resolution: Resolution,
        claim: Option<IdempotencyClaim>,
    ) -> Result<ResolveOutcome, StoreError> {
        for _ in 0..SETTLE_ATTEMPTS {
            // The body of a pending interaction never changes, so building the resolved one
            // from this read is safe: the script only applies it while still pending.
            let now = Utc::now();
            let change = match self.get(id).await? {
                Some(ia) if ia.is_pending() => {
                    Some(transition::resolve(ia, resolution.clone(), now))
                }
                _ => None,
            };
            let settled = self
                .settle(id, change.as_ref(), claim.as_ref(), Some(now))
                .await?;
            let outcome = match settled {
                Settled::Stale => continue,
                Settled::Resolved { park_moved } => {
                    let (ia, _) = change.ok_or_else(unexpected_reply)?;
                    if park_moved {
                        self.publish_park(&ia).await?;
                    }
                    ResolveOutcome::Resolved(ia)
                }
                Settled::Replayed(ia) => ResolveOutcome::Replayed(ia),
                Settled::Conflict => ResolveOutcome::IdempotencyConflict,
                Settled::Final(ia) => ResolveOutcome::AlreadyFinal(ia),
                Settled::NotFound => ResolveOutcome::NotFound,
                Settled::PastDeadline => ResolveOutcome::PastDeadline,
            };
            return Ok(outcome);
        }
        Err(unexpected_reply())
    }

    async fn expire_due(&self, now: DateTime<Utc>) -> Result<Vec<String>, StoreError> {
        let mut conn = self.conn.clone();
        let due: Vec<String> = conn
            .zrangebyscore(self.keys.due(), "-inf", now.timestamp_millis())
            .await?;
        let mut expired = Vec::new();
        for id in due {
            let Some(ia) = self.get(&id).await?.filter(Interaction::is_pending) else {
                // Resolved scripts drop their ids from the due set; a leftover is harmless,
                // but clear it so it is not read again.
                let _: i64 = conn.zrem(self.keys.due(), &id).await?;
                continue;
            };
            let change = transition::remove(ia, RemovedReason::Expired);
            // Another worker sweeping at the same moment makes this a no-op ("final").
            if let Settled::Resolved { park_moved } =
                self.settle(&id, Some(&change), None, None).await?
            {
                if park_moved {
                    self.publish_park(&change.0).await?;
                }
                expired.push(id);
            }
        }
        Ok(expired)
    }

    async fn prune_resolved(
        &self,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        let mut conn = self.conn.clone();
        let due = self.due(&self.keys.resolved(), before, limit).await?;
        let mut pruned = Vec::new();
        for id in due {
            let Some(ia) = self.get(&id).await? else {
                let _: i64 = conn.zrem(self.keys.resolved(), &id).await?;
                continue;
            };
            let event = StreamEvent::Removed(RemovedEvent {
                id: id.clone(),
                reason: RemovedReason::Pruned,
            });
            let mut call = self.scripts.prune.prepare_invoke();
            call.key(self.keys.interaction(&id))
                .key(self.keys.index(inbox_protocol::StatusFilter::All))
                .key(self.keys.status_index(ia.status))
                .key(self.keys.idempotency(&id))
                .key(self.keys.resolved())
                .key(self.keys.events())
                .arg(&id)
                .arg(self.retention)
                .arg(event.data_json());
            // Inline media is referred to by its served path; the id after it is the key.
            for item in &ia.media {
                if let Some(media_id) = item.url.strip_prefix(inbox_protocol::paths::MEDIA_PREFIX) {
                    call.key(self.keys.media(media_id));
                }
            }
            let done: i64 = call.invoke_async(&mut conn).await?;
            if done == 1 {
                pruned.push(id);
            }
        }
        Ok(pruned)
    }

    async fn events_after(&self, cursor: &str, limit: usize) -> Result<EventsAfter, StoreError> {
        let Some(after) = StreamId::parse(cursor) else {
            return Ok(EventsAfter::Gap(ResetReason::MalformedId));
        };
        if after.millis == u64::MAX && after.seq == u64::MAX {
            // Nothing can follow it, and Redis refuses it as an exclusive start.
            return Ok(EventsAfter::Gap(ResetReason::AgedOut));
        }
        let events = self.keys.events();
        let (newest, retained): (StreamRangeReply, StreamRangeReply) = redis::pipe()
            .atomic()
            .xrevrange_count(&events, "+", "-", 1)
            .xrange_count(
                &events,
                format!("({after}"),
                "+",
                limit.min(i64::MAX as usize),
            )
            .query_async(&mut self.conn.clone())
            .await?;
        let tail = newest
            .ids
            .first()
            .and_then(|e| StreamId::parse(&e.id))
            .unwrap_or(StreamId::ZERO);
        let entries: Vec<Entry> = retained.ids.iter().filter_map(Entry::decode).collect();
        // A cursor past the tail was never issued by this stream (or Redis lost its data).
        if after > tail {
            return Ok(EventsAfter::Gap(ResetReason::AgedOut));
        }
        // The first retained entry after the cursor names the entry written just before it:
        // if that one is newer than the cursor, trimming took events the client never saw.
        // (Comparing with the stream's first entry alone would also reset a client whose
        // cursor is exactly the last trimmed entry, or the "0-0" of a then-empty stream.)
        if let Some(first) = entries.first()
            && first.prev > after
        {
            return Ok(EventsAfter::Gap(ResetReason::AgedOut));
        }
        Ok(EventsAfter::Events(
            entries.into_iter().map(|e| e.event).collect(),
        ))
    }

    async fn tail_cursor(&self) -> Result<String, StoreError> {
        Ok(newest_id(&mut self.conn.clone(), &self.keys.events())
            .await?
            .to_string())
    }

    fn is_after(&self, cursor: &str, reference: &str) -> bool {
        match (StreamId::parse(cursor), StreamId::parse(reference)) {
            (Some(a), Some(b)) => a > b,
            // As in SQLite: an unreadable reference orders before everything, an unreadable
            // cursor after nothing.
            (Some(_), None) => true,
            (None, _) => false,
        }
    }

    async fn get_media(&self, id: &str) -> Result<Option<StoredMedia>, StoreError> {
        let (content_type, bytes): (Option<String>, Option<Vec<u8>>) = redis::cmd("HMGET")
            .arg(self.keys.media(id))
            .arg("ct")
            .arg("bytes")
            .query_async(&mut self.conn.clone())
            .await?;
        Ok(content_type
            .zip(bytes)
            .map(|(content_type, bytes)| StoredMedia {
                content_type,
                bytes,
            }))
    }

    async fn ticket_lookup(
        &self,
        ticket_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<TicketMatch>, StoreError> {
        // The key expires with the ticket (PXAT), so Redis itself prunes it; the stored expiry
        // is checked too, so a lookup never depends on when Redis gets round to it.
        let record: Option<String> = self.conn.clone().get(self.keys.ticket(ticket_hash)).await?;
        let Some(record) = record else {
            return Ok(None);
        };
        let Ok(record) = serde_json::from_str::<StoredTicket>(&record) else {
            // A record from before tickets were hashed (a plain id): such a key can no longer
            // be reached by any presented ticket anyway.
            return Ok(None);
        };
        if record.expires_at <= now.timestamp_millis() {
            return Ok(None);
        }
        Ok(self
            .get(&record.interaction_id)
            .await?
            .map(|interaction| TicketMatch {
                interaction,
                verifier: record.verifier,
            }))
    }

    fn subscribe(&self) -> LiveBus {
        self.live.subscribe()
    }

    async fn insert_park(&self, new: NewPark) -> Result<Park, StoreError> {
        self.park_insert(new).await
    }

    async fn get_park(&self, id: &str) -> Result<Option<Park>, StoreError> {
        self.park_get(id).await
    }

    async fn claim_park(
        &self,
        id: &str,
        claim: Option<IdempotencyClaim>,
        now: DateTime<Utc>,
    ) -> Result<ClaimOutcome, StoreError> {
        self.park_claim(id, claim.as_ref(), now).await
    }

    fn subscribe_parks(&self) -> broadcast::Receiver<Park> {
        self.parks.subscribe()
    }

    async fn lease_delivery(
        &self,
        now: DateTime<Utc>,
        lease: Duration,
    ) -> Result<Option<Delivery>, StoreError> {
        let leased = self
            .lease_next(self.keys.deliveries(), self.keys.lease_prefix(), now, lease)
            .await?;
        match leased {
            Some((id, token)) => self.delivery_leased(id, token).await,
            None => Ok(None),
        }
    }

    async fn finish_delivery(
        &self,
        delivery: &Delivery,
        result: DeliveryResult,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        self.delivery_finish(delivery, result, now).await
    }

    async fn prune_parks(
        &self,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        // One moment for the whole batch: what PARK_PRUNE re-scores a kept park by.
        let now = Utc::now();
        self.prune_due(&self.keys.parks_settled(), before, limit, |id| {
            self.park_prune_call(id, before, now)
        })
        .await
    }

    async fn redeliver_park(&self, id: &str, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let queued: i64 = self
            .scripts
            .delivery_redeliver
            .key(self.keys.park(id))
            .key(self.keys.deliveries())
            .arg(id)
            .arg(now.timestamp_millis())
            .invoke_async(&mut self.conn.clone())
            .await?;
        Ok(queued == 1)
    }

    async fn insert_agui_run(
        &self,
        new: super::NewAguiRun,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.agui_insert(new, now).await
    }

    async fn get_agui_run(&self, id: &str) -> Result<Option<inbox_protocol::AguiRun>, StoreError> {
        self.agui_get(id).await
    }

    async fn lease_agui_turn(
        &self,
        now: DateTime<Utc>,
        lease: Duration,
    ) -> Result<Option<super::AguiTurn>, StoreError> {
        let leased = self
            .lease_next(
                self.keys.agui_turns(),
                self.keys.agui_lease_prefix(),
                now,
                lease,
            )
            .await?;
        match leased {
            Some((id, token)) => self.turn_leased(id, token).await,
            None => Ok(None),
        }
    }

    async fn finish_agui_turn(
        &self,
        turn: &super::AguiTurn,
        result: super::TurnResult,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        self.agui_finish(turn, result, now).await
    }

    async fn progress_agui_turn(
        &self,
        turn: &super::AguiTurn,
        run: &inbox_protocol::AguiRun,
    ) -> Result<bool, StoreError> {
        self.agui_progress(turn, run).await
    }

    async fn retry_agui_run(
        &self,
        id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<inbox_protocol::AguiRun>, StoreError> {
        self.agui_retry(id, now).await
    }

    async fn prune_finished_agui_runs(
        &self,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        self.prune_due(&self.keys.agui_finished(), before, limit, |id| {
            self.agui_prune_call(id)
        })
        .await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        let mut conn = self.conn.clone();
        let pong = tokio::time::timeout(PING_TIMEOUT, async move {
            redis::cmd("PING").query_async::<String>(&mut conn).await
        })
        .await
        .map_err(|_| RedisError::from((redis::ErrorKind::IoError, "redis ping timed out")))?;
        pong?;
        Ok(())
    }

    async fn insert_notification(
        &self,
        new: NewNotification,
        claim: Option<IdempotencyClaim>,
    ) -> Result<CreateOutcome, StoreError> {
        self.nt_insert(new, claim).await
    }

    async fn get_notification(
        &self,
        id: &str,
    ) -> Result<Option<inbox_protocol::Notification>, StoreError> {
        self.nt_get(id).await
    }

    async fn list_notifications(
        &self,
        limit: usize,
        cursor: Option<String>,
    ) -> Result<inbox_protocol::NotificationPage, StoreError> {
        self.nt_list(limit, cursor).await
    }

    async fn mark_notification(
        &self,
        id: &str,
        mark: Mark,
        now: DateTime<Utc>,
    ) -> Result<Option<inbox_protocol::Notification>, StoreError> {
        self.nt_mark(id, mark, now).await
    }

    async fn submit(
        &self,
        id: &str,
        new: NewSubmission,
        claim: Option<IdempotencyClaim>,
    ) -> Result<SubmitOutcome, StoreError> {
        self.nt_submit(id, new, claim).await
    }

    async fn submissions(&self, id: &str) -> Result<Vec<inbox_protocol::Submission>, StoreError> {
        self.nt_submissions(id).await
    }

    async fn prune_dismissed(
        &self,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        self.prune_due(&self.keys.notifications_dismissed(), before, limit, |id| {
            self.nt_prune_call(id)
        })
        .await
    }
}
