//! Regenerate the desktop app's TypeScript bindings into `ui/src/generated/desktop/`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/generated");
    for name in inbox_desktop::bindings::export_all(&dir)? {
        println!("wrote ui/src/generated/{name}");
    }
    Ok(())
}
