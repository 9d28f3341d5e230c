// Generated from src-tauri/src/command_names.rs by `cargo run -p inbox-desktop --example export-ts-desktop`; do not edit.

export const COMMAND_NAMES = ["inbox_snapshot", "answer_interaction", "decline_interaction", "mark_read", "open_external", "load_media", "allow_remote_images", "set_do_not_disturb", "add_account", "remove_account", "open_notification", "dismiss_notification", "submit_notification", "settings", "save_preferences", "revoke_remote_sender", "set_autostart", "rename_account", "test_account", "open_logs_folder"] as const;

export type CommandName = (typeof COMMAND_NAMES)[number];
