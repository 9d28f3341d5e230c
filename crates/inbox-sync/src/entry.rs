//! The machine's private record of one card: the server's view plus what only this app knows.

use chrono::{DateTime, Utc};
use inbox_protocol::{Interaction, Status};

use crate::card::{Card, Delivery, Local};
use crate::change::Counts;
use crate::order::SortKey;

#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// As the server last told us (never a local guess).
    pub(crate) interaction: Interaction,
    /// What the card shows of this app's own knowledge.
    pub(crate) local: Local,
    /// A native notification is showing for it (so it must be withdrawn later).
    pub(crate) notified: bool,
}

impl Entry {
    pub(crate) fn new(interaction: Interaction) -> Entry {
        Entry {
            interaction,
            local: Local::default(),
            notified: false,
        }
    }

    /// The status the reviewer sees: the server's, or `expired` once the deadline passed here.
    pub(crate) fn shown_status(&self) -> Status {
        if self.local.expired_locally && self.interaction.status == Status::Pending {
            Status::Expired
        } else {
            self.interaction.status
        }
    }

    pub(crate) fn is_open(&self) -> bool {
        self.shown_status() == Status::Pending
    }

    /// Keep the flags consistent with the status, whatever changed: a resolved card has
    /// nothing left to read, and a server verdict replaces the local expiry guess.
    /// Returns true when a notification must be withdrawn.
    pub(crate) fn normalise(&mut self) -> bool {
        if self.interaction.status.is_final() {
            self.local.expired_locally = false;
        }
        if !self.is_open() {
            self.local.unread = false;
        }
        if self.notified && !self.local.unread {
            self.notified = false;
            return true;
        }
        false
    }

    pub(crate) fn sort_key(&self) -> SortKey {
        SortKey::new(
            self.shown_status().is_final(),
            self.interaction.created_at,
            &self.interaction.id,
        )
    }

    /// When this card would expire locally, while it is open.
    pub(crate) fn deadline(&self) -> Option<DateTime<Utc>> {
        if self.is_open() {
            self.interaction.expires_at
        } else {
            None
        }
    }

    /// This card's share of the badge numbers.
    pub(crate) fn counts(&self) -> Counts {
        let sending = self.local.answer_in_flight();
        let answered_here = sending || matches!(self.local.delivery, Some(Delivery::Accepted));
        Counts {
            pending: u32::from(self.is_open() && !answered_here),
            unread: u32::from(self.local.unread),
            queued: u32::from(sending),
            notifications_unread: 0,
        }
    }

    pub(crate) fn card(&self, account: &str) -> Card {
        let mut interaction = self.interaction.clone();
        interaction.status = self.shown_status();
        Card {
            account: account.to_owned(),
            interaction,
            local: self.local.clone(),
        }
    }
}

impl Counts {
    pub(crate) fn add(&mut self, other: Counts) {
        self.pending += other.pending;
        self.unread += other.unread;
        self.queued += other.queued;
    }

    pub(crate) fn sub(&mut self, other: Counts) {
        self.pending -= other.pending;
        self.unread -= other.unread;
        self.queued -= other.queued;
    }
}
