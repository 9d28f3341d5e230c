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

    /// Hash of one interaction: `body` (the JSON clients see), `status`, `rank`.
    pub fn interaction(&self, id: &str) -> String {
        format!("{}{id}", self.interaction_prefix())
    }

    /// The part of [`Keys::interaction`] before the id (the list script appends ids itself).
    pub fn interaction_prefix(&self) -> String {
        format!("{}:ia:", self.prefix)
    }

    /// Counter handing out creation ranks: the order pages are read in.
    pub fn rank(&self) -> String {
        format!("{}:rank", self.prefix)
    }

    /// Sorted set of ids by rank, one per status plus one for all of them.
    pub fn index(&self, filter: StatusFilter) -> String {
        format!("{}:idx:{}", self.prefix, filter.as_str())
    }

    pub fn status_index(&self, status: Status) -> String {
        self.index(StatusFilter::from(status))
    }

    /// Sorted set of pending ids with a deadline, scored by the deadline in unix ms.
    pub fn due(&self) -> String {
        format!("{}:due", self.prefix)
    }

    /// The events stream: one entry per event, fields `p` (the previous entry's id),
    /// `n` (the event name) and `d` (its JSON data).
    pub fn events(&self) -> String {
        format!("{}:events", self.prefix)
    }

    /// Hash of the idempotency records of one interaction: `f:<key>` the request fingerprint,
    /// `b:<key>` the interaction as that request resolved it.
    pub fn idempotency(&self, id: &str) -> String {
        format!("{}:idem:{id}", self.prefix)
    }

    /// Hash of one inline media blob: `ct` (content type) and `bytes`.
    pub fn media(&self, id: &str) -> String {
        format!("{}:media:{id}", self.prefix)
    }

    /// String holding a callback ticket's record (its interaction id and verifier, as JSON),
    /// keyed by the ticket's SHA-256 and expiring with the ticket (`PXAT`).
    pub fn ticket(&self, ticket_hash: &str) -> String {
        format!("{}:ticket:{ticket_hash}", self.prefix)
    }

    /// Counter of an asker's pending questions (the pending-per-asker cap).
    pub fn pending_of(&self, asker: &str) -> String {
        format!("{}:pending-of:{asker}", self.prefix)
    }

    /// Sorted set of resolved interaction ids, scored by when they left pending (unix ms), so
    /// pruning finds the old ones without a scan.
    pub fn resolved(&self) -> String {
        format!("{}:resolved", self.prefix)
    }

    /// Hash of one park: `body` (the Park as created, JSON), `status`, `total`, `resolved`
    /// (resolutions recorded), `resolved_at`/`resumed_at` (unix ms), `claim_k`/`claim_f` (the
    /// winning claim's key and fingerprint) and `r:<interaction id>` (each Resolution, JSON).
    pub fn park(&self, id: &str) -> String {
        format!("{}:park:{id}", self.prefix)
    }

    /// Sorted set of webhook parks due for delivery, scored by when (unix ms); a lease moves
    /// the score to the lease's end, so a dead dispatcher's delivery comes due again.
    pub fn deliveries(&self) -> String {
        format!("{}:deliveries", self.prefix)
    }

    /// The prefix of each delivery's lease key (`…:lease:<park id>`, a token with `PX`).
    pub fn lease_prefix(&self) -> String {
        format!("{}:lease:", self.prefix)
    }

    /// The lease key of one park's delivery.
    pub fn lease(&self, park_id: &str) -> String {
        format!("{}{park_id}", self.lease_prefix())
    }

    /// Hash of one AG-UI run: `body` (the AguiRun as its last turn reported it, JSON), `live`
    /// (the run as the current turn streams), `input` (JSON) and `headers` (JSON, secrets:
    /// never returned by a read).
    pub fn agui_run(&self, id: &str) -> String {
        format!("{}:agui:run:{id}", self.prefix)
    }

    /// Sorted set of AG-UI runs with a turn due, scored by when (unix ms); leased like
    /// `deliveries`.
    pub fn agui_turns(&self) -> String {
        format!("{}:agui:turns", self.prefix)
    }

    /// Hash of failed attempts at each run's current turn, by run id.
    pub fn agui_attempts(&self) -> String {
        format!("{}:agui:attempts", self.prefix)
    }

    /// The prefix of each turn's lease key (`…:agui:lease:<run id>`).
    pub fn agui_lease_prefix(&self) -> String {
        format!("{}:agui:lease:", self.prefix)
    }

    pub fn agui_lease(&self, run_id: &str) -> String {
        format!("{}{run_id}", self.agui_lease_prefix())
    }
}
