//! Notifications in the Redis store: one hash each (`Keys::notification`), written only by the
//! `NT_*` scripts, so a cap checked, an ordinal given and the event appended are one step.

use chrono::{DateTime, Utc};
use inbox_protocol::{Notification, NotificationPage, Submission};
use redis::ScriptInvocation;

use super::{RedisStore, claim_args, reply_json, unexpected_reply};
use crate::store::notification::{
    CreateOutcome, Mark, NewNotification, NewSubmission, SubmitOutcome, assemble_json, head_json,
    submission_head_json,
};
use crate::store::{IdempotencyClaim, StoreError, page};

impl RedisStore {
    pub(super) async fn nt_insert(
        &self,
        new: NewNotification,
        claim: Option<IdempotencyClaim>,
    ) -> Result<CreateOutcome, StoreError> {
        let n = &new.notification;
        let (key, fingerprint) = claim_args(claim.as_ref());
        let media_ids: Vec<&str> = new.media.iter().map(|b| b.id.as_str()).collect();
        let mut call = self.scripts.nt_insert.prepare_invoke();
        call.key(self.keys.notification(&n.id))
            .key(self.keys.notification_rank())
            .key(self.keys.notifications_outstanding())
            .key(self.keys.outstanding_of(&n.asker))
            .key(self.keys.events())
            .key(self.keys.create_idempotency(&n.asker))
            .arg(&n.id)
            .arg(head_json(n)?)
            .arg(&n.asker)
            .arg(self.retention)
            .arg(new.outstanding_limit.min(i64::MAX as usize))
            .arg(key)
            .arg(fingerprint)
            .arg(self.keys.notification_prefix())
            .arg(media_ids.join(" "))
            .arg(new.media.len());
        self.push_media(&mut call, &new.media);
        let reply: Vec<String> = call.invoke_async(&mut self.conn.clone()).await?;
        Ok(match reply.first().map(String::as_str) {
            Some("created") => CreateOutcome::Created(reply_json(&reply, 1)?),
            Some("replayed") => CreateOutcome::Replayed(reply_json(&reply, 1)?),
            Some("conflict") => CreateOutcome::IdempotencyConflict,
            Some("at_limit") => CreateOutcome::AtLimit {
                limit: new.outstanding_limit,
            },
            _ => return Err(unexpected_reply()),
        })
    }

    pub(super) async fn nt_get(&self, id: &str) -> Result<Option<Notification>, StoreError> {
        let fields: (Option<String>, Option<String>, Option<String>, Option<u32>) =
            redis::cmd("HMGET")
                .arg(self.keys.notification(id))
                .arg("head")
                .arg("read_at")
                .arg("dismissed_at")
                .arg("count")
                .query_async(&mut self.conn.clone())
                .await?;
        let (Some(head), read_at, dismissed_at, count) = fields else {
            return Ok(None);
        };
        let json = assemble_json(
            &head,
            read_at.as_deref().unwrap_or("null"),
            dismissed_at.as_deref().unwrap_or("null"),
            count.unwrap_or(0),
        );
        Ok(Some(serde_json::from_str(&json)?))
    }

    pub(super) async fn nt_list(
        &self,
        limit: usize,
        cursor: Option<String>,
    ) -> Result<NotificationPage, StoreError> {
        let (stream_cursor, rows) = self
            .page(
                &self.scripts.nt_page,
                self.keys.notifications_outstanding(),
                self.keys.notification_prefix(),
                limit,
                cursor.as_deref(),
            )
            .await?;
        Ok(page::assemble(rows, limit, stream_cursor))
    }

    pub(super) async fn nt_mark(
        &self,
        id: &str,
        mark: Mark,
        now: DateTime<Utc>,
    ) -> Result<Option<Notification>, StoreError> {
        let field = match mark {
            Mark::Read => "read_at",
            Mark::Dismiss => "dismissed_at",
        };
        let reply: Vec<String> = self
            .scripts
            .nt_mark
            .key(self.keys.notification(id))
            .key(self.keys.notifications_outstanding())
            .key(self.keys.notifications_dismissed())
            .key(self.keys.events())
            .arg(field)
            .arg(serde_json::to_string(&now)?)
            .arg(now.timestamp_millis())
            .arg(self.retention)
            .arg(id)
            .arg(self.keys.outstanding_of_prefix())
            .invoke_async(&mut self.conn.clone())
            .await?;
        match reply.first().map(String::as_str) {
            Some("changed" | "same") => Ok(Some(reply_json(&reply, 1)?)),
            Some("not_found") => Ok(None),
            _ => Err(unexpected_reply()),
        }
    }

    pub(super) async fn nt_submit(
        &self,
        id: &str,
        new: NewSubmission,
        claim: Option<IdempotencyClaim>,
    ) -> Result<SubmitOutcome, StoreError> {
        let (key, fingerprint) = claim_args(claim.as_ref());
        let reply: Vec<String> = self
            .scripts
            .nt_submit
            .key(self.keys.notification(id))
            .key(self.keys.submissions(id))
            .key(self.keys.submit_idempotency(id))
            .key(self.keys.events())
            .arg(submission_head_json(&new.submission)?)
            .arg(key)
            .arg(fingerprint)
            .arg(new.limit.min(i64::MAX as usize))
            .arg(self.retention)
            .invoke_async(&mut self.conn.clone())
            .await?;
        Ok(match reply.first().map(String::as_str) {
            Some("submitted") => SubmitOutcome::Submitted(reply_json(&reply, 1)?),
            Some("replayed") => SubmitOutcome::Replayed(reply_json(&reply, 1)?),
            Some("conflict") => SubmitOutcome::IdempotencyConflict,
            Some("at_limit") => SubmitOutcome::AtLimit { limit: new.limit },
            Some("not_found") => SubmitOutcome::NotFound,
            _ => return Err(unexpected_reply()),
        })
    }

    pub(super) async fn nt_submissions(&self, id: &str) -> Result<Vec<Submission>, StoreError> {
        let bodies: Vec<String> = redis::cmd("LRANGE")
            .arg(self.keys.submissions(id))
            .arg(0)
            .arg(-1)
            .query_async(&mut self.conn.clone())
            .await?;
        bodies
            .iter()
            .map(|b| serde_json::from_str(b).map_err(StoreError::from))
            .collect()
    }

    /// The prune of a dismissed notification `id` (`NT_PRUNE`), for `RedisStore::prune_due`.
    pub(super) fn nt_prune_call(&self, id: &str) -> ScriptInvocation<'_> {
        let mut call = self.scripts.nt_prune.prepare_invoke();
        call.key(self.keys.notification(id))
            .key(self.keys.notifications_dismissed())
            .key(self.keys.submissions(id))
            .key(self.keys.submit_idempotency(id))
            .arg(id)
            .arg(self.keys.media_prefix())
            .arg(self.keys.create_idempotency_prefix());
        call
    }
}
