//! The notifications of one account, apart from the question cards: what the stream and the
//! list door said, merged so that copies arriving in any order converge (every changing field
//! only moves one way, see `Notification::merge`), and what the reviewer did here (opened,
//! dismissed) shown at once.
//!
//! When to read the list is the driver's call (it reads one whenever the stream opens or
//! resets, and on a refresh); the board only has to merge what comes back: an outstanding
//! notification absent from a list read after it arrived is gone (dismissed or pruned
//! elsewhere), one added live while the list was being read is kept, and one dismissed never
//! comes back from a list read before the dismissal.

use std::collections::{BTreeMap, HashSet, VecDeque};

use chrono::{DateTime, Utc};
use inbox_protocol::{Notification, Submission};

/// How many dismissed ids are remembered so an older list cannot bring them back.
const DISMISSED_MEMORY: usize = 10_000;

#[derive(Debug, Clone, Default)]
pub(crate) struct Board {
    /// Outstanding notifications by id.
    items: BTreeMap<String, Notification>,
    dismissed: HashSet<String>,
    dismissed_order: VecDeque<String>,
    /// Ids learned live since the list read in flight began (`None`: no read in flight).
    live_since_fetch: Option<HashSet<String>>,
}

/// What a change to the board asks of the driver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BoardEffect {
    MarkRead(String),
    Dismiss(String),
}

impl Board {
    /// Outstanding notifications, newest first (ties: greater id first).
    pub(crate) fn list(&self) -> Vec<Notification> {
        let mut items: Vec<Notification> = self.items.values().cloned().collect();
        items.sort_by(|a, b| {
            b.created_at
                .cmp(&a.created_at)
                .then_with(|| b.id.cmp(&a.id))
        });
        items
    }

    pub(crate) fn unread(&self) -> u32 {
        let n = self.items.values().filter(|n| n.read_at.is_none()).count();
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// The driver began reading the list.
    pub(crate) fn fetching(&mut self) {
        self.live_since_fetch = Some(HashSet::new());
    }

    /// A copy from the stream (added or updated). Returns whether the board changed.
    pub(crate) fn learn(&mut self, n: Notification) -> bool {
        if let Some(live) = &mut self.live_since_fetch {
            live.insert(n.id.clone());
        }
        self.upsert(n)
    }

    /// A submission seen on the stream: the notification counts at least up to its ordinal.
    pub(crate) fn submitted(&mut self, s: &Submission) -> bool {
        match self.items.get_mut(&s.notification_id) {
            Some(n) if n.submissions < s.ordinal => {
                n.submissions = s.ordinal;
                true
            }
            _ => false,
        }
    }

    /// A whole list read (every page). Returns whether the board changed.
    pub(crate) fn loaded(&mut self, items: Vec<Notification>) -> bool {
        let live = self.live_since_fetch.take().unwrap_or_default();
        let listed: HashSet<String> = items.iter().map(|n| n.id.clone()).collect();
        let before = self.items.len();
        self.items
            .retain(|id, _| listed.contains(id) || live.contains(id));
        let mut changed = self.items.len() != before;
        for n in items {
            changed |= self.upsert(n);
        }
        changed
    }

    /// The reviewer opened it here: read at once; the server is told when it did not know.
    pub(crate) fn open(&mut self, id: &str, now: DateTime<Utc>) -> Option<BoardEffect> {
        let n = self.items.get_mut(id)?;
        if n.read_at.is_some() {
            return None;
        }
        n.read_at = Some(now);
        Some(BoardEffect::MarkRead(id.to_owned()))
    }

    /// The reviewer dismissed it here: gone at once; the server is told.
    pub(crate) fn dismiss(&mut self, id: &str) -> Option<BoardEffect> {
        self.items.remove(id)?;
        self.forget(id);
        Some(BoardEffect::Dismiss(id.to_owned()))
    }

    fn upsert(&mut self, n: Notification) -> bool {
        if self.dismissed.contains(&n.id) {
            return false;
        }
        if !n.is_outstanding() {
            let had = self.items.remove(&n.id).is_some();
            self.forget(&n.id);
            return had;
        }
        match self.items.get_mut(&n.id) {
            Some(held) => {
                let before = held.clone();
                held.merge(&n);
                *held != before
            }
            None => {
                self.items.insert(n.id.clone(), n);
                true
            }
        }
    }

    /// Remember a dismissed id (bounded, oldest forgotten first).
    fn forget(&mut self, id: &str) {
        if self.dismissed.insert(id.to_owned()) {
            self.dismissed_order.push_back(id.to_owned());
            if self.dismissed_order.len() > DISMISSED_MEMORY
                && let Some(old) = self.dismissed_order.pop_front()
            {
                self.dismissed.remove(&old);
            }
        }
    }
}
