//! What changed after an input, as one batch the UI merges into its store by card id.

use std::collections::HashSet;

use inbox_protocol::Notification;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::card::Card;
use crate::connection::ConnectionStatus;
use crate::effect::Effect;

/// The badge numbers, always absolute (never deltas), so the newest batch simply wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
pub struct Counts {
    /// Open questions still waiting for this reviewer (pending, not expired locally, and no
    /// answer of theirs on its way) — the tray number.
    pub pending: u32,
    /// Cards not yet opened.
    pub unread: u32,
    /// Answers in the outbox or being sent.
    pub queued: u32,
    /// Outstanding notifications not yet opened.
    #[serde(default)]
    pub notifications_unread: u32,
}

/// One coalesced batch of changes for one account.
///
/// The UI keeps cards by id: it replaces (or inserts) every card in `upserted`, drops every id
/// in `removed`, and orders the list by one rule (the same as the engine's): open cards first,
/// then newest `created_at` first, ties broken by the greater id first. `upserted` is itself in
/// that order. A card appears at most once in a batch.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
pub struct Changes {
    pub account: String,
    pub upserted: Vec<Card>,
    pub removed: Vec<String>,
    /// Present when the connection status changed.
    pub status: Option<ConnectionStatus>,
    pub counts: Counts,
    /// Present when the notifications changed: all outstanding ones, newest first (they are
    /// few, bounded per asker, so the whole list is simpler than a diff).
    #[serde(default)]
    pub notifications: Option<Vec<Notification>>,
}

impl Changes {
    /// Nothing for the UI to do (the counts are unchanged by definition then).
    pub fn is_empty(&self) -> bool {
        self.upserted.is_empty()
            && self.removed.is_empty()
            && self.status.is_none()
            && self.notifications.is_none()
    }

    /// Fold a later batch of the same account into this one, as if both inputs had been one:
    /// the later version of a card wins, a removal cancels an earlier upsert (and an upsert
    /// an earlier removal), the later status and counts win.
    pub fn merge(&mut self, later: Changes) {
        debug_assert!(self.account.is_empty() || self.account == later.account);
        if self.account.is_empty() {
            self.account = later.account;
        }
        // Index by id so merging two large batches (a first sync of many pages) stays linear.
        let dropped: HashSet<&str> = later.removed.iter().map(String::as_str).collect();
        let refreshed: HashSet<&str> = later
            .upserted
            .iter()
            .map(|c| c.interaction.id.as_str())
            .collect();
        self.upserted.retain(|c| {
            !dropped.contains(c.interaction.id.as_str())
                && !refreshed.contains(c.interaction.id.as_str())
        });
        self.removed
            .retain(|id| !dropped.contains(id.as_str()) && !refreshed.contains(id.as_str()));
        self.removed.extend(later.removed);
        self.upserted.extend(later.upserted);
        self.upserted.sort_by(crate::order::compare_cards);
        if later.status.is_some() {
            self.status = later.status;
        }
        if later.notifications.is_some() {
            self.notifications = later.notifications;
        }
        self.counts = later.counts;
    }

    /// Merge many batches into one (`None` when given none).
    pub fn coalesce(batches: impl IntoIterator<Item = Changes>) -> Option<Changes> {
        let mut batches = batches.into_iter();
        let mut first = batches.next()?;
        for later in batches {
            first.merge(later);
        }
        Some(first)
    }
}

/// What one input produced: the batch for the UI and the effects for the driver.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outcome {
    pub changes: Changes,
    pub effects: Vec<Effect>,
}

/// The whole list at once, for a UI that (re)attaches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Snapshot {
    pub account: String,
    /// In display order.
    pub cards: Vec<Card>,
    pub status: ConnectionStatus,
    pub counts: Counts,
    /// Outstanding notifications, newest first.
    pub notifications: Vec<Notification>,
}
