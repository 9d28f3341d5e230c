//! AG-UI runs in the Redis store: a hash per run (`Keys::agui_run`), the turn queue as a sorted
//! set leased by the same script as webhook deliveries (`DELIVERY_LEASE`, with the AG-UI lease
//! prefix), and reports written by `AGUI_FINISH` or, when the turn opens a park, by
//! `AGUI_INTERRUPT` (PARK_INSERT and the report in one script).

use chrono::{DateTime, Utc};
use inbox_protocol::{AguiRun, AguiRunStatus, ParkStatus};
use redis::{AsyncCommands, ScriptInvocation};

use super::{RedisStore, unexpected_reply};
use crate::store::StoreError;
use crate::store::agui::{AguiTurn, NewAguiRun, TurnResult};

impl RedisStore {
    pub(super) async fn agui_insert(
        &self,
        new: NewAguiRun,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let _: String = self
            .scripts
            .agui_insert
            .key(self.keys.agui_run(&new.run.id))
            .key(self.keys.agui_turns())
            .arg(&new.run.id)
            .arg(serde_json::to_string(&new.run)?)
            .arg(serde_json::to_string(&new.input)?)
            .arg(serde_json::to_string(&new.headers)?)
            .arg(now.timestamp_millis())
            .invoke_async(&mut self.conn.clone())
            .await?;
        Ok(())
    }

    pub(super) async fn agui_get(&self, id: &str) -> Result<Option<AguiRun>, StoreError> {
        let (live, body): (Option<String>, Option<String>) = redis::cmd("HMGET")
            .arg(self.keys.agui_run(id))
            .arg("live")
            .arg("body")
            .query_async(&mut self.conn.clone())
            .await?;
        live.or(body)
            .map(|b| serde_json::from_str(&b).map_err(StoreError::from))
            .transpose()
    }

    async fn agui_drop_turn(&self, id: &str) -> Result<(), StoreError> {
        let _: i64 = self.conn.clone().zrem(self.keys.agui_turns(), id).await?;
        Ok(())
    }

    /// The turn of run `id`, just leased with `token` (`RedisStore::lease_next`); `None` when
    /// there is nothing to send (the run is gone, final, or waits on its open park: its turn
    /// leaves the queue).
    pub(super) async fn turn_leased(
        &self,
        id: String,
        token: String,
    ) -> Result<Option<AguiTurn>, StoreError> {
        let fields = self.fields(self.keys.agui_run(&id)).await?;
        let (Some(body), Some(input), Some(headers)) = (
            fields.get("body"),
            fields.get("input"),
            fields.get("headers"),
        ) else {
            self.agui_drop_turn(&id).await?;
            return Ok(None);
        };
        let run: AguiRun = serde_json::from_str(body)?;
        if run.status.is_final() {
            self.agui_drop_turn(&id).await?;
            return Ok(None);
        }
        let resume = match &run.park_id {
            Some(park_id) => self
                .park_get(park_id)
                .await?
                .filter(|p| p.status == ParkStatus::Resolved && p.resumed_at.is_none()),
            None => None,
        };
        if run.status == AguiRunStatus::Interrupted && resume.is_none() {
            self.agui_drop_turn(&id).await?;
            return Ok(None);
        }
        let attempts: Option<u32> = redis::cmd("HGET")
            .arg(self.keys.agui_attempts())
            .arg(&id)
            .query_async(&mut self.conn.clone())
            .await?;
        Ok(Some(AguiTurn {
            run,
            input: serde_json::from_str(input)?,
            headers: serde_json::from_str(headers)?,
            resume,
            attempts: attempts.unwrap_or(0),
            lease: token,
        }))
    }

    pub(super) async fn agui_finish(
        &self,
        turn: &AguiTurn,
        result: TurnResult,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let id = &turn.run.id;
        let resumed = result.resumed_park(turn);
        let resumed_key = self.keys.park(resumed.unwrap_or("none"));
        let (outcome, at) = match &result {
            TurnResult::Retry { at, .. } => ("retry", at.timestamp_millis()),
            // A final run joins the finished set (scored by now) the pruning sweep reads.
            TurnResult::Finished { .. } => ("final", 0),
            TurnResult::Interrupted { .. } => ("done", 0),
        };
        let body = serde_json::to_string(result.run())?;
        let tail_keys = [
            self.keys.agui_turns(),
            self.keys.agui_lease(id),
            self.keys.agui_run(id),
            self.keys.agui_attempts(),
            resumed_key,
        ];
        let tail_args = [
            turn.lease.clone(),
            outcome.to_owned(),
            body,
            at.to_string(),
            id.clone(),
            if resumed.is_some() { "1" } else { "" }.to_owned(),
            now.timestamp_millis().to_string(),
        ];
        let reply: String = match &result {
            TurnResult::Interrupted { park, .. } => {
                let (mut call, pending_limit) =
                    self.park_insert_call(&self.scripts.agui_interrupt, park)?;
                for key in &tail_keys {
                    call.key(key);
                }
                for arg in &tail_args {
                    call.arg(arg);
                }
                let reply: String = call.invoke_async(&mut self.conn.clone()).await?;
                if reply == "at_limit" {
                    return Err(StoreError::PendingLimit {
                        limit: pending_limit,
                    });
                }
                reply
            }
            _ => {
                let mut call = self.scripts.agui_finish.prepare_invoke();
                for key in &tail_keys {
                    call.key(key);
                }
                for arg in &tail_args {
                    call.arg(arg);
                }
                call.invoke_async(&mut self.conn.clone()).await?
            }
        };
        match reply.as_str() {
            "ok" => Ok(true),
            "stale" => Ok(false),
            _ => Err(unexpected_reply()),
        }
    }

    pub(super) async fn agui_progress(
        &self,
        turn: &AguiTurn,
        run: &AguiRun,
    ) -> Result<bool, StoreError> {
        let written: i64 = self
            .scripts
            .agui_progress
            .key(self.keys.agui_lease(&turn.run.id))
            .key(self.keys.agui_run(&turn.run.id))
            .arg(&turn.lease)
            .arg(serde_json::to_string(run)?)
            .invoke_async(&mut self.conn.clone())
            .await?;
        Ok(written == 1)
    }

    pub(super) async fn agui_retry(
        &self,
        id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<AguiRun>, StoreError> {
        let body: Option<String> = redis::cmd("HGET")
            .arg(self.keys.agui_run(id))
            .arg("body")
            .query_async(&mut self.conn.clone())
            .await?;
        let Some(body) = body else {
            return Ok(None);
        };
        let mut run: AguiRun = serde_json::from_str(&body)?;
        if run.status != AguiRunStatus::Failed {
            return Ok(None);
        }
        run.status = AguiRunStatus::Running;
        run.error = None;
        run.updated_at = now;
        let moved: i64 = self
            .scripts
            .agui_retry
            .key(self.keys.agui_run(id))
            .key(self.keys.agui_turns())
            .key(self.keys.agui_attempts())
            .arg(&body)
            .arg(serde_json::to_string(&run)?)
            .arg(id)
            .arg(now.timestamp_millis())
            .invoke_async(&mut self.conn.clone())
            .await?;
        Ok((moved == 1).then_some(run))
    }

    /// The prune of a finished run `id` (`AGUI_PRUNE`), for `RedisStore::prune_due`.
    pub(super) fn agui_prune_call(&self, id: &str) -> ScriptInvocation<'_> {
        let mut call = self.scripts.agui_prune.prepare_invoke();
        call.key(self.keys.agui_run(id))
            .key(self.keys.agui_finished())
            .key(self.keys.agui_turns())
            .key(self.keys.agui_attempts())
            .arg(id);
        call
    }
}
