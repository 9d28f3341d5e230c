//! The live half of the Redis store: one task per worker follows the shared events stream
//! with a blocking `XREAD` and fans each entry out to this worker's subscribers. Every
//! worker's subscribers therefore see every worker's events, in stream order.
//!
//! Each entry names the entry before it, so the follower notices when it could not see a
//! stretch of the stream (trimmed while it was disconnected, or lost with a Redis restart
//! without persistence) and tells subscribers with a `reset` rather than skipping silently.

use std::sync::Arc;
use std::time::Duration;

use inbox_protocol::{ResetEvent, ResetReason, StreamEvent};
use redis::AsyncCommands;
use redis::aio::MultiplexedConnection;
use redis::streams::{StreamReadOptions, StreamReadReply};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use super::entry::Entry;
use super::stream_id::StreamId;
use crate::store::{LiveEvent, StoredEvent};

/// How long one `XREAD` waits for news before asking again.
const BLOCK: Duration = Duration::from_secs(5);
/// Entries taken per read.
const BATCH: usize = 512;
const RETRY_MIN: Duration = Duration::from_millis(50);
const RETRY_MAX: Duration = Duration::from_secs(2);

/// Follows `stream` from just after `from` until aborted.
pub fn spawn(
    client: redis::Client,
    stream: String,
    from: StreamId,
    live: broadcast::Sender<Arc<LiveEvent>>,
) -> JoinHandle<()> {
    tokio::spawn(follow(client, stream, from, live))
}

async fn follow(
    client: redis::Client,
    stream: String,
    mut last: StreamId,
    live: broadcast::Sender<Arc<LiveEvent>>,
) {
    let mut retry = RETRY_MIN;
    loop {
        let mut conn = match connect(&client).await {
            Ok(conn) => conn,
            Err(error) => {
                tracing::warn!(%error, "events follower cannot reach redis; retrying");
                tokio::time::sleep(retry).await;
                retry = (retry * 2).min(RETRY_MAX);
                continue;
            }
        };
        retry = RETRY_MIN;
        // A Redis that lost its data (restarted without persistence) starts its stream over;
        // follow it from wherever it is now rather than waiting for ids past the old tail.
        match tail(&mut conn, &stream).await {
            Ok(tail) if tail < last => {
                tracing::warn!("events stream is behind what this worker saw; following it anew");
                announce_gap(&live, tail);
                last = tail;
            }
            Ok(_) => {}
            Err(error) => {
                tracing::warn!(%error, "events follower lost redis");
                continue;
            }
        }
        if let Err(error) = read_until_error(&mut conn, &stream, &mut last, &live).await {
            tracing::warn!(%error, "events follower lost redis; reconnecting");
        }
    }
}

async fn connect(client: &redis::Client) -> redis::RedisResult<MultiplexedConnection> {
    let config = redis::AsyncConnectionConfig::new()
        .set_connection_timeout(Duration::from_secs(1))
        // Longer than the block, so only a silent server counts as a timeout.
        .set_response_timeout(BLOCK + Duration::from_secs(5));
    client
        .get_multiplexed_async_connection_with_config(&config)
        .await
}

async fn tail(conn: &mut MultiplexedConnection, stream: &str) -> redis::RedisResult<StreamId> {
    let newest: redis::streams::StreamRangeReply =
        conn.xrevrange_count(stream, "+", "-", 1).await?;
    Ok(newest
        .ids
        .first()
        .and_then(|e| StreamId::parse(&e.id))
        .unwrap_or(StreamId::ZERO))
}

async fn read_until_error(
    conn: &mut MultiplexedConnection,
    stream: &str,
    last: &mut StreamId,
    live: &broadcast::Sender<Arc<LiveEvent>>,
) -> redis::RedisResult<()> {
    let options = StreamReadOptions::default()
        .block(BLOCK.as_millis() as usize)
        .count(BATCH);
    loop {
        let reply: Option<StreamReadReply> = conn
            .xread_options(&[stream], &[last.to_string()], &options)
            .await?;
        for raw in reply.into_iter().flat_map(|r| r.keys).flat_map(|k| k.ids) {
            match Entry::decode(&raw) {
                Some(entry) => {
                    if entry.prev != *last {
                        tracing::warn!(
                            "events between {last} and {} were trimmed before this worker read them",
                            entry.prev
                        );
                        announce_gap(live, entry.prev);
                    }
                    // An error only means nobody on this worker is listening right now.
                    let _ = live.send(LiveEvent::new(entry.event));
                }
                None => tracing::warn!(id = %raw.id, "skipping an unreadable events entry"),
            }
            if let Some(id) = StreamId::parse(&raw.id) {
                *last = id;
            }
        }
    }
}

/// Subscribers missed events this follower never saw: a `reset` (at `cursor`, the newest id
/// known to be gone or the restarted stream's tail) tells them to refetch.
fn announce_gap(live: &broadcast::Sender<Arc<LiveEvent>>, cursor: StreamId) {
    let _ = live.send(LiveEvent::new(StoredEvent {
        cursor: cursor.to_string(),
        event: StreamEvent::Reset(ResetEvent {
            reason: ResetReason::AgedOut,
        }),
    }));
}
