//! Regenerate the desktop app's TypeScript bindings into `ui/src/generated/desktop/`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::path::PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR")
            .expect("run by cargo, which sets CARGO_MANIFEST_DIR"),
    )
    .join("../ui/src/generated");
    for name in inbox_desktop::bindings::export_all(&dir)? {
        println!("wrote ui/src/generated/{name}");
    }
    Ok(())
}
