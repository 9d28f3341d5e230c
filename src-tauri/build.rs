fn main() {
    // The app's own commands, declared so the capability can grant exactly these.
    const COMMANDS: &[&str] = &[
        "inbox_snapshot",
        "answer_interaction",
        "decline_interaction",
        "mark_read",
        "open_external",
        "load_media",
        "allow_remote_images",
        "set_do_not_disturb",
        "add_account",
        "remove_account",
    ];
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .config_path("../tauri.conf.json")
            .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS)),
    )
    .expect("tauri-build failed");
}
