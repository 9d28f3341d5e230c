//! The interactions server: the HTTP doors of the wire contract, the SSE stream, the expiry
//! sweeper and the stores behind them (embedded SQLite by default).

pub mod store;

mod ids;
