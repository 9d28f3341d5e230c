//! The AG-UI driver: the server as the AG-UI client of the runs its askers start
//! (`POST /api/agui/runs`). On every worker a task leases due turns from the store's durable
//! turn queue ([`crate::store::agui`]), sends each one request (`RunAgentInput`, plus `resume`
//! when the run's park has resolved), reads the event stream ([`events`]), and reports the
//! turn in one atomic store step: a new park for an interrupt ([`interrupt`] maps each
//! `Interrupt` to a question), a final status, or a retry with backoff.

pub mod driver;
pub mod events;
pub mod interrupt;

pub use driver::{Policy, spawn};
