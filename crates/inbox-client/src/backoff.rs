//! Capped exponential backoff with full jitter. It is defined once, in the pure machine
//! ([`inbox_sync::backoff`]), which times every retry of the sync engine; `inbox tail`'s
//! [`crate::connection::Subscription`] uses the same one.

pub use inbox_sync::backoff::{Backoff, BackoffPolicy};
