include!("src/command_names.rs");

fn main() {
    println!("cargo:rerun-if-changed=src/command_names.rs");
    // The window's files are embedded by `generate_context!`, but nothing tells cargo they are
    // an input: without this a rebuilt `ui/dist` alone left the old UI inside the binary. Cargo
    // scans a directory named here for any changed file below it.
    println!("cargo:rerun-if-changed=../ui/dist");
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .config_path("../tauri.conf.json")
            .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS)),
    )
    .expect("tauri-build failed");
}
