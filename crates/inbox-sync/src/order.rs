//! The one ordering of the list. It is a function of each card alone (never of arrival order),
//! so a card that arrives late slots into its place and no other card moves.

use std::cmp::{Ordering, Reverse};

use chrono::{DateTime, Utc};

use crate::card::Card;

/// Open cards first, then newest `created_at` first, then the greater id first.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct SortKey {
    resolved: bool,
    newest: Reverse<DateTime<Utc>>,
    id: Reverse<String>,
}

impl SortKey {
    pub(crate) fn new(resolved: bool, created_at: DateTime<Utc>, id: &str) -> SortKey {
        SortKey {
            resolved,
            newest: Reverse(created_at),
            id: Reverse(id.to_owned()),
        }
    }

    pub(crate) fn id(&self) -> &str {
        &self.id.0
    }
}

/// The same order for cards that have left the machine (batches, snapshots).
pub(crate) fn compare_cards(a: &Card, b: &Card) -> Ordering {
    fn key(c: &Card) -> (bool, Reverse<DateTime<Utc>>, Reverse<&str>) {
        (
            c.interaction.status.is_final(),
            Reverse(c.interaction.created_at),
            Reverse(c.interaction.id.as_str()),
        )
    }
    key(a).cmp(&key(b))
}
