//! The number on the tray: read from the engine's counts, never kept here. The tray follows
//! [`Engine::counts`](inbox_client::Engine::counts) through [`follow`], so it shows what the
//! engine (and so the window's snapshot and batches) says, at every step.

use std::collections::BTreeMap;

use inbox_sync::Counts;
use tokio::sync::watch;

/// The tray's number: questions waiting over every account, as the engine counts them
/// ([`Counts::pending`] already leaves out answers on their way and questions expired here).
pub fn pending_total(counts: &BTreeMap<String, Counts>) -> u32 {
    counts.values().map(|c| c.pending).sum()
}

/// The tray menu's count line (and tooltip) for `pending` questions.
pub fn count_label(pending: u32) -> String {
    match pending {
        0 => "Nothing waiting".to_owned(),
        1 => "1 question waiting".to_owned(),
        n => format!("{n} questions waiting"),
    }
}

/// Call `show` with the tray number now and whenever it changes, until the engine is gone.
/// The caller spawns it on its runtime (the app on Tauri's, a test on its own).
pub async fn follow(
    mut counts: watch::Receiver<BTreeMap<String, Counts>>,
    show: impl Fn(u32) + Send + 'static,
) {
    let mut shown = None;
    loop {
        let pending = pending_total(&counts.borrow_and_update());
        if shown != Some(pending) {
            show(pending);
            shown = Some(pending);
        }
        if counts.changed().await.is_err() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pending: u32) -> Counts {
        Counts {
            pending,
            unread: 9,
            queued: 9,
            ..Counts::default()
        }
    }

    #[test]
    fn the_number_is_the_sum_of_every_accounts_pending_and_reads_as_words() {
        let all: BTreeMap<String, Counts> = [
            ("work".to_owned(), counts(2)),
            ("home".to_owned(), counts(1)),
        ]
        .into();
        assert_eq!(pending_total(&all), 3, "only pending counts");
        assert_eq!(pending_total(&BTreeMap::new()), 0);
        assert_eq!(count_label(0), "Nothing waiting");
        assert_eq!(count_label(1), "1 question waiting");
        assert_eq!(count_label(3), "3 questions waiting");
    }

    #[tokio::test]
    async fn the_tray_shows_each_new_number_once_and_stops_with_the_engine() {
        let (tx, rx) = watch::channel(BTreeMap::new());
        let (shown_tx, mut shown) = tokio::sync::mpsc::unbounded_channel();
        let task = tokio::spawn(follow(rx, move |n| {
            let _ = shown_tx.send(n);
        }));
        assert_eq!(shown.recv().await, Some(0));
        tx.send_modify(|all| {
            all.insert("work".into(), counts(2));
        });
        assert_eq!(shown.recv().await, Some(2));
        // Another count of the same account moved, not the number: nothing to redraw.
        tx.send_modify(|all| {
            all.insert(
                "work".into(),
                Counts {
                    unread: 1,
                    ..counts(2)
                },
            );
        });
        tx.send_modify(|all| {
            all.insert("home".into(), counts(1));
        });
        assert_eq!(shown.recv().await, Some(3));
        drop(tx);
        task.await.unwrap();
        assert_eq!(shown.recv().await, None, "nothing after the engine went");
    }
}
