//! The engine-against-server suites live in `tests/` beside this file: each starts a real
//! `inbox-server` in-process on loopback (`tests/common`) and drives `inbox-client`'s engine,
//! connection and transport against it. A package of its own, so that `inbox-client` does
//! not build the server for its own tests. This library is intentionally empty.
