//! inbox-client
