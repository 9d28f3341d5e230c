//! Regenerate the UI's TypeScript types for the inbox list:
//! `scripts/generate-ts.sh`.

fn main() {
    inbox_protocol::typescript::write_generated(inbox_sync::typescript::export_all);
}
