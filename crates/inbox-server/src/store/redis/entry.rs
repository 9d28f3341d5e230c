//! One entry of the events stream, decoded back into the event the SSE door sends.

use inbox_protocol::StreamEvent;
use redis::streams::StreamId as RawEntry;

use super::stream_id::StreamId;
use crate::store::StoredEvent;

/// A decoded entry: the id of the entry written before it, and the event (whose cursor is
/// this entry's id).
#[derive(Debug)]
pub struct Entry {
    pub prev: StreamId,
    pub event: StoredEvent,
}

impl Entry {
    /// `None` for an entry this store did not write (the stream key is ours, so that would be
    /// an operator's hand-made entry); callers skip it.
    pub fn decode(raw: &RawEntry) -> Option<Entry> {
        let field = |name: &str| raw.get::<String>(name);
        StreamId::parse(&raw.id)?;
        let prev = StreamId::parse(&field("p")?)?;
        let event = StreamEvent::from_sse(&field("n")?, &field("d")?).ok()?;
        Some(Entry {
            prev,
            event: StoredEvent {
                cursor: raw.id.clone(),
                event,
            },
        })
    }
}
