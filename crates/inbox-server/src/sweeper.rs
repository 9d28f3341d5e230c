//! The sweeper: every `sweep_interval`, pending questions past their deadline become
//! `expired` (the store emits `removed{expired}` for each), and questions resolved longer ago
//! than the retention are pruned with everything kept beside them (`removed{pruned}`), and so
//! are AG-UI runs that ended longer ago, with their input and stored headers, and
//! notifications dismissed longer ago than the same retention; parks settled longer ago than
//! the park retention are pruned too.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use tokio::task::JoinHandle;
use tokio::time::MissedTickBehavior;

use crate::store::{Store, StoreError};

/// Questions pruned per sweep at most, so one sweep never holds the store for long; a backlog
/// is worked off over the following ticks.
const PRUNE_BATCH: usize = 500;

/// How long what has settled is kept; `None` keeps it forever.
#[derive(Debug, Clone, Copy)]
pub struct Retentions {
    /// Questions that left `pending`.
    pub resolved: Option<Duration>,
    /// Parks that left `parked`.
    pub resolved_parks: Option<Duration>,
}

/// What a step of a sweep logs: what it removed, and what failed (it is tried again on the
/// next tick).
type Step = (&'static str, &'static str);

const EXPIRE: Step = ("expired", "expiry sweep failed");
const PRUNE_RESOLVED: Step = ("pruned", "pruning failed");
const PRUNE_RUNS: Step = ("AG-UI runs pruned", "AG-UI run pruning failed");
const PRUNE_DISMISSED: Step = (
    "pruned dismissed notifications",
    "notification pruning failed",
);
const PRUNE_PARKS: Step = ("pruned parks", "pruning parks failed");

/// Logs one step of a sweep: how much it removed (nothing is not news), or why it failed.
fn report(step: Result<Vec<String>, StoreError>, (removed, failed): Step) {
    match step {
        Ok(ids) if !ids.is_empty() => tracing::info!(count = ids.len(), "{removed}"),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "{failed}; retrying next tick"),
    }
}

/// The cut-off `keep` before now, if anything is to go.
fn cut_off(keep: Option<Duration>) -> Option<chrono::DateTime<Utc>> {
    keep.and_then(|keep| chrono::Duration::from_std(keep).ok())
        .and_then(|keep| Utc::now().checked_sub_signed(keep))
}

pub fn spawn(
    store: Arc<dyn Store>,
    every: Duration,
    retentions: Retentions,
    stopping: impl Future<Output = ()> + Send + 'static,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(every);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        tokio::pin!(stopping);
        loop {
            tokio::select! {
                _ = ticker.tick() => sweep(&*store, retentions).await,
                () = &mut stopping => break,
            }
        }
    })
}

/// One tick: expire what is past its deadline, then prune what is past its retention.
async fn sweep(store: &dyn Store, retentions: Retentions) {
    report(store.expire_due(Utc::now()).await, EXPIRE);
    if let Some(before) = cut_off(retentions.resolved) {
        report(
            store.prune_resolved(before, PRUNE_BATCH).await,
            PRUNE_RESOLVED,
        );
        report(
            store.prune_finished_agui_runs(before, PRUNE_BATCH).await,
            PRUNE_RUNS,
        );
        report(
            store.prune_dismissed(before, PRUNE_BATCH).await,
            PRUNE_DISMISSED,
        );
    }
    if let Some(before) = cut_off(retentions.resolved_parks) {
        report(store.prune_parks(before, PRUNE_BATCH).await, PRUNE_PARKS);
    }
}
