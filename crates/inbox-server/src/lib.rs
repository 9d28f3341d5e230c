//! inbox-server
