//! The resume dispatcher: on every worker, a task that leases due webhook deliveries from the
//! store's durable queue, POSTs each signed, and reports back. The queue and the lease are the
//! store's, so a delivery survives a restart, a dead worker's lease runs out and another worker
//! takes it, and every attempt carries the park's one delivery id.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use inbox_protocol::ParkResolvedHook;
use rand::Rng;
use tokio::sync::broadcast::error::RecvError;
use tokio::task::{JoinHandle, JoinSet};
use tracing::Instrument;

use crate::outbound;
use crate::store::{Delivery, DeliveryResult, Store};

/// How the dispatcher retries and how long it holds a lease.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Attempts before a park is `failed`.
    pub max_attempts: u32,
    /// The first retry waits about this; each one after twice as long, up to `retry_cap`.
    pub retry_base: Duration,
    pub retry_cap: Duration,
    /// How long one attempt may take before another worker may take the delivery over.
    pub lease: Duration,
    /// How often the queue is looked at when nothing wakes the dispatcher.
    pub poll: Duration,
    /// One attempt's HTTP timeout.
    pub timeout: Duration,
    /// How many deliveries one worker has in flight at once. A slow receiver then holds one
    /// slot, not the whole queue: resumes due at the same time go out side by side.
    pub concurrency: usize,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            max_attempts: 8,
            retry_base: Duration::from_secs(1),
            retry_cap: Duration::from_secs(300),
            lease: Duration::from_secs(30),
            poll: Duration::from_secs(1),
            timeout: Duration::from_secs(10),
            concurrency: 16,
        }
    }
}

impl Policy {
    /// The wait before retry number `attempt` (1-based): exponential, capped, with jitter
    /// (half fixed, half random) so failing receivers are not hit by every worker in step.
    pub fn backoff(&self, attempt: u32) -> Duration {
        backoff(self.retry_base, self.retry_cap, attempt)
    }
}

/// Exponential from `base`, capped at `cap`, with jitter (half fixed, half random); shared with
/// the AG-UI driver's retries.
pub fn backoff(base: Duration, cap: Duration, attempt: u32) -> Duration {
    let exp = base
        .saturating_mul(2u32.saturating_pow(attempt.saturating_sub(1)))
        .min(cap);
    let half = exp / 2;
    half + half.mul_f64(rand::rng().random::<f64>())
}

pub fn spawn(
    store: Arc<dyn Store>,
    key: Vec<u8>,
    policy: Policy,
    stopping: impl Future<Output = ()> + Send + 'static,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let builder = reqwest::Client::builder().timeout(policy.timeout);
        let Some(http) = outbound::client(builder, "webhook dispatcher") else {
            return;
        };
        let key: Arc<[u8]> = key.into();
        let slots = policy.concurrency.max(1);
        let mut resolved = store.subscribe_parks();
        let mut ticker = tokio::time::interval(policy.poll);
        let mut in_flight = JoinSet::new();
        tokio::pin!(stopping);
        loop {
            tokio::select! {
                _ = ticker.tick() => {}
                moved = resolved.recv() => if let Err(RecvError::Closed) = moved { break },
                // A slot came free: lease the next due delivery into it.
                Some(_) = in_flight.join_next(), if !in_flight.is_empty() => {}
                () = &mut stopping => break,
            }
            // Fill the free slots with what is due now. A lease is taken only for a slot
            // that can start at once, so a delivery is never held leased while it waits here.
            while in_flight.len() < slots {
                let lease = store.lease_delivery(Utc::now(), policy.lease).await;
                let Some(delivery) = outbound::leased(lease, "a webhook delivery") else {
                    break;
                };
                let span = tracing::info_span!(
                    "webhook",
                    park = %delivery.park.id,
                    id = %delivery.delivery_id,
                    attempt = delivery.attempts + 1
                );
                let (store, http, key, policy) =
                    (store.clone(), http.clone(), key.clone(), policy.clone());
                in_flight.spawn(
                    async move { attempt(&*store, &http, &key, &policy, delivery).await }
                        .instrument(span),
                );
            }
        }
        // Stopping: attempts still in flight are dropped; their leases run out and the
        // delivery comes due again (same webhook-id) on whichever worker is left.
        in_flight.abort_all();
    })
}

async fn attempt(
    store: &dyn Store,
    http: &reqwest::Client,
    key: &[u8],
    policy: &Policy,
    delivery: Delivery,
) {
    let result = match post(http, key, &delivery).await {
        Ok(()) => {
            tracing::info!("webhook delivered");
            DeliveryResult::Delivered
        }
        Err(error) if delivery.attempts + 1 >= policy.max_attempts => {
            tracing::warn!(%error, "webhook failed for good");
            DeliveryResult::Failed { error }
        }
        Err(error) => {
            let wait = policy.backoff(delivery.attempts + 1);
            tracing::info!(%error, retry_in_ms = wait.as_millis() as u64, "webhook attempt failed");
            DeliveryResult::Retry {
                at: Utc::now() + chrono::Duration::from_std(wait).unwrap_or_default(),
                error,
            }
        }
    };
    match store.finish_delivery(&delivery, result, Utc::now()).await {
        Ok(true) => {}
        // Another worker took the delivery over after our lease ran out; it reports instead.
        Ok(false) => tracing::warn!("the delivery's lease was lost before it was reported"),
        Err(e) => tracing::warn!(error = %e, "recording the delivery failed; it comes due again"),
    }
}

/// One signed POST; `Err` carries the reason shown on the park as `last_error`.
async fn post(http: &reqwest::Client, key: &[u8], delivery: &Delivery) -> Result<(), String> {
    let body = serde_json::to_vec(&ParkResolvedHook {
        kind: "park.resolved".into(),
        park: delivery.park.clone(),
    })
    .map_err(|e| e.to_string())?;
    let timestamp = Utc::now().timestamp();
    let signature = super::sign(key, &delivery.delivery_id, timestamp, &body);
    let resp = http
        .post(&delivery.url)
        .header("content-type", "application/json")
        .header("webhook-id", &delivery.delivery_id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature)
        .body(body)
        .send()
        .await
        .map_err(|e| format!("request failed: {}", without_url(&e)))?;
    let status = resp.status();
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("the receiver answered {}", status.as_u16()))
    }
}

/// A reqwest error's text without the URL (which the asker gave, but may hold a token).
fn without_url(e: &reqwest::Error) -> String {
    outbound::failure(e).unwrap_or("transport error").to_owned()
}
