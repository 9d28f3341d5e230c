//! `inbox_snapshot`: everything the window draws, from the engine's snapshots of every account
//! (cards, connection, counts, notifications) and the desk's own few facts.

use std::collections::BTreeMap;

use super::Desk;
use crate::views::InboxSnapshot;

impl Desk {
    pub async fn snapshot(&self) -> InboxSnapshot {
        let snapshots = self.engine.snapshot().await;
        let mut cards = Vec::new();
        let mut connections = BTreeMap::new();
        let mut counts = BTreeMap::new();
        let mut notifications = BTreeMap::new();
        for snapshot in snapshots {
            cards.extend(snapshot.cards);
            notifications.insert(snapshot.account.clone(), snapshot.notifications);
            connections.insert(snapshot.account.clone(), snapshot.status);
            counts.insert(snapshot.account, snapshot.counts);
        }
        InboxSnapshot {
            accounts: self.account_views(),
            cards,
            connections,
            counts,
            notifications,
            local_hint: self.local_hint.clone(),
            do_not_disturb: self.presence.do_not_disturb(),
        }
    }
}
