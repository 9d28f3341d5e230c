//! What is known about interactions that have no card: resolved before their body arrived
//! (an `answered` frame ahead of the page that lists the question), or dismissed by the
//! reviewer. A body that arrives later takes the final state instead of showing as pending.

use std::collections::{HashMap, VecDeque};

use inbox_protocol::{Answer, Status};

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Tombstone {
    pub(crate) status: Status,
    pub(crate) answer: Option<Answer>,
    /// The reviewer cleared the card: never show it again.
    pub(crate) dismissed: bool,
}

/// Bounded (oldest forgotten first): only races within a resume window or a refetch need them.
#[derive(Debug, Clone)]
pub(crate) struct Tombstones {
    by_id: HashMap<String, Tombstone>,
    order: VecDeque<String>,
    capacity: usize,
}

impl Tombstones {
    pub(crate) fn new(capacity: usize) -> Tombstones {
        Tombstones {
            by_id: HashMap::new(),
            order: VecDeque::new(),
            capacity,
        }
    }

    pub(crate) fn get(&self, id: &str) -> Option<&Tombstone> {
        self.by_id.get(id)
    }

    /// Record a tombstone; the first final state learned wins, like on a card.
    pub(crate) fn insert(&mut self, id: &str, tombstone: Tombstone) {
        if let Some(existing) = self.by_id.get_mut(id) {
            existing.dismissed |= tombstone.dismissed;
            return;
        }
        if self.order.len() >= self.capacity
            && let Some(old) = self.order.pop_front()
        {
            self.by_id.remove(&old);
        }
        self.order.push_back(id.to_owned());
        self.by_id.insert(id.to_owned(), tombstone);
    }

    /// Forget a tombstone that a body has now absorbed. The id stays in `order` until it ages
    /// out; a stale id there only makes a later eviction a no-op.
    pub(crate) fn remove(&mut self, id: &str) -> Option<Tombstone> {
        self.by_id.remove(id)
    }
}
