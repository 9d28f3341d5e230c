//! Where each record lives in Redis. Every key starts with the store's prefix, so several
//! deployments (or tests) can share one Redis without seeing each other.

use inbox_protocol::{Status, StatusFilter};

#[derive(Debug, Clone)]
pub struct Keys {
    prefix: String,
}

impl Keys {
    pub fn new(prefix: &str) -> Keys {
        Keys {
            prefix: prefix.trim_end_matches(':').to_owned(),
        }
    }

    /// Sorted set of ids by rank, one per status plus one for all of them.
    pub fn index(&self, filter: StatusFilter) -> String {
        format!("{}:idx:{}", self.prefix, filter.as_str())
    }

    pub fn status_index(&self, status: Status) -> String {
        self.index(StatusFilter::from(status))
    }
}

/// Declares the key builders, each key's name written once: `name => "part"` is the key
/// `<prefix>:part`; `name(id) => "part:"` is `<prefix>:part:<id>`, and `name(id), parts =>
/// "part:"` also declares `parts`, that key up to the id (for scripts that append ids
/// themselves).
macro_rules! keys {
    ($($(#[$doc:meta])* $name:ident $(($id:ident) $(, $prefix:ident)?)? => $part:literal;)*) => {
        impl Keys {
            $(
                $(#[$doc])*
                pub fn $name(&self $(, $id: &str)?) -> String {
                    #[allow(unused_mut)]
                    let mut key = format!("{}:{}", self.prefix, $part);
                    $(key.push_str($id);)?
                    key
                }
                $($(
                    #[doc = concat!("The part of [`Keys::", stringify!($name), "`] before the id.")]
                    pub fn $prefix(&self) -> String {
                        format!("{}:{}", self.prefix, $part)
                    }
                )?)?
            )*
        }
    };
}

keys! {
    /// Hash of one interaction: `body` (the JSON clients see), `status`, `rank`.
    interaction(id), interaction_prefix => "ia:";
    /// Counter handing out creation ranks: the order pages are read in.
    rank => "rank";
    /// Sorted set of pending ids with a deadline, scored by the deadline in unix ms.
    due => "due";
    /// The events stream: one entry per event, fields `p` (the previous entry's id),
    /// `n` (the event name) and `d` (its JSON data).
    events => "events";
    /// Hash of the idempotency records of one interaction: `f:<key>` the request fingerprint,
    /// `b:<key>` the interaction as that request resolved it.
    idempotency(id) => "idem:";
    /// Hash of one inline media blob: `ct` (content type) and `bytes`.
    media(id), media_prefix => "media:";
    /// String holding a callback ticket's record (its interaction id and verifier, as JSON),
    /// keyed by the ticket's SHA-256 and expiring with the ticket (`PXAT`).
    ticket(ticket_hash) => "ticket:";
    /// Counter of an asker's pending questions (the pending-per-asker cap).
    pending_of(asker) => "pending-of:";
    /// Sorted set of resolved interaction ids, scored by when they left pending (unix ms), so
    /// pruning finds the old ones without a scan.
    resolved => "resolved";
    /// Hash of one park: `body` (the Park as created, JSON), `status`, `total`, `resolved`
    /// (resolutions recorded), `resolved_at`/`resumed_at` (unix ms), `claim_k`/`claim_f` (the
    /// winning claim's key and fingerprint) and `r:<interaction id>` (each Resolution, JSON).
    park(id) => "park:";
    /// Sorted set of webhook parks due for delivery, scored by when (unix ms); a lease moves
    /// the score to the lease's end, so a dead dispatcher's delivery comes due again.
    deliveries => "deliveries";
    /// Sorted set of parks that have left `parked`, scored by when (unix ms): what pruning
    /// walks once their retention has passed.
    parks_settled => "parks:settled";
    /// The lease key of one park's delivery (a token with `PX`).
    lease(park_id), lease_prefix => "lease:";
    /// Hash of one notification: `head` (its JSON up to the changing fields, see
    /// `store::notification::head_json`), `asker`, `rank`, `read_at`/`dismissed_at` (each a
    /// JSON string, absent while unset), `count` (submissions), `media` (its media ids,
    /// space-separated) and `idem` (the create `Idempotency-Key`, for pruning).
    notification(id), notification_prefix => "nt:";
    /// Counter handing out notification ranks.
    notification_rank => "nt-rank";
    /// Sorted set of outstanding (not dismissed) notification ids by rank: the list door.
    notifications_outstanding => "nt-outstanding";
    /// Counter of an asker's outstanding notifications (the per-asker cap).
    outstanding_of(asker), outstanding_of_prefix => "nt-outstanding-of:";
    /// Sorted set of dismissed notification ids by when (unix ms), for pruning.
    notifications_dismissed => "nt-dismissed";
    /// List of one notification's submissions (JSON), oldest first.
    submissions(id) => "nt-sub:";
    /// Hash of idempotency records (`f:<key>` fingerprint, `b:<key>` result) of the create
    /// door for one asker.
    create_idempotency(asker), create_idempotency_prefix => "nt-idem-create:";
    /// Hash of idempotency records of the submit door for one notification.
    submit_idempotency(id) => "nt-idem-submit:";
    /// Hash of one AG-UI run: `body` (the AguiRun as its last turn reported it, JSON), `live`
    /// (the run as the current turn streams), `input` (JSON) and `headers` (JSON, secrets:
    /// never returned by a read).
    agui_run(id) => "agui:run:";
    /// Sorted set of AG-UI runs with a turn due, scored by when (unix ms); leased like
    /// `deliveries`.
    agui_turns => "agui:turns";
    /// Hash of failed attempts at each run's current turn, by run id.
    agui_attempts => "agui:attempts";
    /// Final runs, scored by when they ended (unix ms): what the pruning sweep reads.
    agui_finished => "agui:finished";
    /// The lease key of one AG-UI run's turn.
    agui_lease(run_id), agui_lease_prefix => "agui:lease:";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_the_prefix_then_the_part_then_the_id() {
        let keys = Keys::new("inbox:");
        for (key, expected) in [
            (keys.interaction("ia_1"), "inbox:ia:ia_1"),
            (keys.interaction_prefix(), "inbox:ia:"),
            (keys.rank(), "inbox:rank"),
            (keys.index(StatusFilter::All), "inbox:idx:all"),
            (keys.status_index(Status::Pending), "inbox:idx:pending"),
            (keys.lease("pk_1"), "inbox:lease:pk_1"),
            (keys.agui_lease_prefix(), "inbox:agui:lease:"),
            (keys.agui_turns(), "inbox:agui:turns"),
        ] {
            assert_eq!(key, expected);
        }
    }
}
