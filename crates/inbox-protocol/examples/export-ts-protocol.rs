//! Regenerate the UI's TypeScript contract types: `scripts/generate-ts.sh`.

fn main() {
    inbox_protocol::typescript::write_generated(inbox_protocol::typescript::export_all);
}
