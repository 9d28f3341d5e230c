//! The expiry sweeper: every `sweep_interval`, pending questions past their deadline become
//! `expired`, and the store emits `removed{expired}` for each.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use tokio::task::JoinHandle;
use tokio::time::MissedTickBehavior;

use crate::store::Store;

pub fn spawn(
    store: Arc<dyn Store>,
    every: Duration,
    stopping: impl Future<Output = ()> + Send + 'static,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(every);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        tokio::pin!(stopping);
        loop {
            tokio::select! {
                _ = ticker.tick() => match store.expire_due(Utc::now()).await {
                    Ok(ids) if !ids.is_empty() => tracing::info!(count = ids.len(), "expired"),
                    Ok(_) => {}
                    Err(e) => tracing::warn!(error = %e, "expiry sweep failed; retrying next tick"),
                },
                () = &mut stopping => break,
            }
        }
    })
}
