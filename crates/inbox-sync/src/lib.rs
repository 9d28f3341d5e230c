//! inbox-sync
