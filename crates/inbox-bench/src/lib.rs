//! Side-by-side benchmarks of the interactions server's SSE fan-out (issue #12).
//!
//! One load generator ([`fanout`]) holds thousands of SSE subscribers, many per task, on any
//! server that speaks EventSource; a publisher ([`publisher`]) sends at a fixed rate; the same
//! client and the same payload size run against `inbox serve` (SQLite, Redis), a bare broadcast
//! floor (`bench-floor`) and nginx-nchan ([`target`]). Every figure lands in one
//! [`measure::Results`] file that `bench-report` turns into docs/benchmarks.md.

pub mod clock;
pub mod fanout;
pub mod measure;
pub mod memory;
pub mod plot;
pub mod publisher;
pub mod report;
pub mod sse;
pub mod stats;
pub mod target;
