//! Parks in the Redis store: one hash per park (`Keys::park`), written by the `PARK_INSERT`
//! script with all its questions, filled slot by slot by `SETTLE` (through `PARK_RECORD`, in
//! the same script that settles each question), and claimed by `PARK_CLAIM`.

use chrono::{DateTime, Utc};
use inbox_protocol::{Continuation, Interaction, Park, ParkStatus};
use redis::{AsyncCommands, ScriptInvocation};

use super::{RedisStore, claim_args, unexpected_reply};
use crate::store::park::{
    ClaimOutcome, Delivery, DeliveryResult, NewPark, StoredPark, delivery_id,
};
use crate::store::{IdempotencyClaim, StoreError};

impl RedisStore {
    pub(super) async fn park_insert(&self, new: NewPark) -> Result<Park, StoreError> {
        let (call, pending_limit) = self.park_insert_call(&self.scripts.park_insert, &new)?;
        let reply: String = call.invoke_async(&mut self.conn.clone()).await?;
        if reply == "at_limit" {
            return Err(StoreError::PendingLimit {
                limit: pending_limit,
            });
        }
        Ok(new.park)
    }

    /// The keys and args PARK_INSERT takes for `new` (on `script`, which may add its own at the
    /// tail), and the pending limit it checks.
    pub(super) fn park_insert_call<'a>(
        &self,
        script: &'a redis::Script,
        new: &NewPark,
    ) -> Result<(redis::ScriptInvocation<'a>, usize), StoreError> {
        // One limit for the park: its questions share an asker (and a `NewAsk` each).
        let pending_limit = new
            .asks
            .iter()
            .map(|a| a.pending_limit)
            .min()
            .unwrap_or(usize::MAX);
        let mut call = script.prepare_invoke();
        call.key(self.keys.park(&new.park.id));
        self.push_question_sets(&mut call);
        call.key(self.keys.pending_of(&new.park.asker))
            .arg(serde_json::to_string(&new.park)?)
            .arg(new.asks.len())
            .arg(self.retention)
            .arg(pending_limit.min(i64::MAX as usize));
        for ask in &new.asks {
            self.push_question(&mut call, ask)?;
        }
        Ok((call, pending_limit))
    }

    pub(super) async fn park_get(&self, id: &str) -> Result<Option<Park>, StoreError> {
        let fields = self.fields(self.keys.park(id)).await?;
        let (Some(body), Some(status)) = (fields.get("body"), fields.get("status")) else {
            return Ok(None);
        };
        let resolutions = fields
            .iter()
            .filter_map(|(k, v)| k.strip_prefix("r:").map(|id| (id.to_owned(), v.clone())))
            .collect();
        let millis = |name: &str| fields.get(name).and_then(|v| v.parse::<i64>().ok());
        let mut park = StoredPark {
            body,
            status,
            resolutions,
            resolved_at: millis("resolved_at"),
            resumed_at: millis("resumed_at"),
        }
        .assemble()?;
        if matches!(park.continuation, Continuation::Webhook { .. }) {
            park.attempts = Some(
                fields
                    .get("attempts")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0),
            );
            park.last_error = fields.get("last_error").cloned();
        }
        Ok(Some(park))
    }

    /// The delivery of park `id`, just leased with `token` (`RedisStore::lease_next`); `None`
    /// when there is nothing to deliver (the park is gone: it leaves the queue).
    pub(super) async fn delivery_leased(
        &self,
        id: String,
        token: String,
    ) -> Result<Option<Delivery>, StoreError> {
        let Some(park) = self.park_get(&id).await? else {
            let _: i64 = self.conn.clone().zrem(self.keys.deliveries(), &id).await?;
            return Ok(None);
        };
        let Continuation::Webhook { url } = park.continuation.clone() else {
            return Ok(None);
        };
        Ok(Some(Delivery {
            delivery_id: delivery_id(&park.id),
            url,
            attempts: park.attempts.unwrap_or(0),
            lease: token,
            park,
        }))
    }

    pub(super) async fn delivery_finish(
        &self,
        delivery: &Delivery,
        result: DeliveryResult,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let id = &delivery.park.id;
        let (outcome, retry_at, error) = match result {
            DeliveryResult::Delivered => ("delivered", 0, String::new()),
            DeliveryResult::Retry { at, error } => ("retry", at.timestamp_millis(), error),
            DeliveryResult::Failed { error } => ("failed", 0, error),
        };
        let reply: String = self
            .scripts
            .delivery_finish
            .key(self.keys.deliveries())
            .key(self.keys.lease(id))
            .key(self.keys.park(id))
            .arg(&delivery.lease)
            .arg(outcome)
            .arg(now.timestamp_millis())
            .arg(retry_at)
            .arg(error)
            .arg(id)
            .invoke_async(&mut self.conn.clone())
            .await?;
        Ok(reply == "ok")
    }

    pub(super) async fn park_claim(
        &self,
        id: &str,
        claim: Option<&IdempotencyClaim>,
        now: DateTime<Utc>,
    ) -> Result<ClaimOutcome, StoreError> {
        // The continuation never changes after the park is stored, so checking it before the
        // script cannot race with anything.
        let Some(park) = self.park_get(id).await? else {
            return Ok(ClaimOutcome::NotFound);
        };
        if !matches!(park.continuation, Continuation::Claim {}) {
            return Ok(ClaimOutcome::NotClaimable(park));
        }
        let (key, fingerprint) = claim_args(claim);
        let reply: String = self
            .scripts
            .park_claim
            .key(self.keys.park(id))
            .arg(key)
            .arg(fingerprint)
            .arg(now.timestamp_millis())
            .invoke_async(&mut self.conn.clone())
            .await?;
        let current = || async { self.park_get(id).await?.ok_or_else(unexpected_reply) };
        Ok(match reply.as_str() {
            "claimed" => ClaimOutcome::Claimed(current().await?),
            "replayed" => ClaimOutcome::Replayed(current().await?),
            "already_claimed" => ClaimOutcome::AlreadyClaimed(current().await?),
            "not_resolved" => ClaimOutcome::NotResolved(Park {
                status: ParkStatus::Parked,
                ..park
            }),
            "not_found" => ClaimOutcome::NotFound,
            _ => return Err(unexpected_reply()),
        })
    }

    /// The prune of a settled park `id` (`PARK_PRUNE`) with the cut-off `before`, for
    /// `RedisStore::prune_due`.
    pub(super) fn park_prune_call(
        &self,
        id: &str,
        before: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> ScriptInvocation<'_> {
        let mut call = self.scripts.park_prune.prepare_invoke();
        call.key(self.keys.park(id))
            .key(self.keys.deliveries())
            .key(self.keys.parks_settled())
            .key(self.keys.lease(id))
            .arg(id)
            .arg(before.timestamp_millis())
            .arg(now.timestamp_millis());
        call
    }

    /// After a settle whose script reported moving `ia`'s park: tell this worker's listeners.
    pub(super) async fn publish_park(&self, ia: &Interaction) -> Result<(), StoreError> {
        if let Some(id) = &ia.park_id
            && let Some(park) = self.park_get(id).await?
        {
            // An error only means nobody is listening right now.
            let _ = self.parks.send(park);
        }
        Ok(())
    }
}
