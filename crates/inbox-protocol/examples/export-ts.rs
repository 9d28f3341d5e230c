//! Regenerate the UI's TypeScript contract types: `cargo run -p inbox-protocol --example export-ts`.

use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/generated");
    // Start clean so a type removed from the contract does not linger as a stale file.
    let _ = std::fs::remove_dir_all(&dir);
    inbox_protocol::typescript::export_all(&dir).expect("write TypeScript bindings");
    println!("wrote {}", dir.display());
}
