//! A run of page requests: the first sync (applied page by page as it arrives) or a refetch
//! (staged until complete, then merged in one go so nothing flickers).

use std::collections::{HashMap, HashSet};

use inbox_protocol::Interaction;

#[derive(Debug, Clone)]
pub(crate) struct Paging {
    pub(crate) purpose: Purpose,
    /// The cursor of the outstanding request (or of the one to retry).
    pub(crate) cursor: Option<String>,
    /// A request is outstanding; when false, the last one failed and waits for `Retry`.
    pub(crate) in_flight: bool,
    /// A reset arrived while a request was outstanding: discard its answer and start over
    /// from page 1 (one request at a time, so a stale answer can never be mistaken for a
    /// fresh one).
    pub(crate) restart: bool,
}

#[derive(Debug, Clone)]
pub(crate) enum Purpose {
    /// The first sync: pages go straight into the list, so page 1 renders at once.
    Seed,
    /// A refetch after `reset`/`Refresh`/`Start` again.
    Refetch(Staging),
}

impl Paging {
    pub(crate) fn seed() -> Paging {
        Paging {
            purpose: Purpose::Seed,
            cursor: None,
            in_flight: true,
            restart: false,
        }
    }

    pub(crate) fn refetch() -> Paging {
        Paging {
            purpose: Purpose::Refetch(Staging::default()),
            cursor: None,
            in_flight: true,
            restart: false,
        }
    }
}

/// The pending set as a refetch reads it, page by page.
#[derive(Debug, Clone, Default)]
pub(crate) struct Staging {
    /// In arrival order (so the merge, and the effects it emits, are deterministic).
    pub(crate) items: Vec<Interaction>,
    index: HashMap<String, usize>,
    /// Ids that arrived by `add` while the refetch ran: they may postdate the snapshot, so
    /// their absence from it means nothing.
    pub(crate) added_live: HashSet<String>,
}

impl Staging {
    pub(crate) fn stage(&mut self, item: Interaction) {
        match self.index.get(&item.id) {
            // The same question on two pages (it cannot, with keyset cursors, but a later
            // read is never older): keep the later copy.
            Some(&at) => self.items[at] = item,
            None => {
                self.index.insert(item.id.clone(), self.items.len());
                self.items.push(item);
            }
        }
    }
}
