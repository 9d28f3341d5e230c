//! Regenerate the UI's TypeScript contract types: `scripts/generate-ts.sh`.

use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR")
            .expect("run by cargo, which sets CARGO_MANIFEST_DIR"),
    )
    .join("../../ui/src/generated");
    inbox_protocol::typescript::export_all(&dir).expect("write TypeScript bindings");
    println!("wrote {}", dir.display());
}
