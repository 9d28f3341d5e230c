// The names of the app's own commands: the one list. `build.rs` includes this file to declare
// them in the app manifest (so the capability can grant exactly these), and the config test
// checks the capability against it. Keep it free of `use` lines: build.rs includes it as is.

/// Every command the window may call, in the order of `commands.rs`.
pub const COMMANDS: &[&str] = &[
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
    "open_notification",
    "dismiss_notification",
    "submit_notification",
    "settings",
    "save_preferences",
    "revoke_remote_sender",
    "set_autostart",
    "rename_account",
    "test_account",
    "open_logs_folder",
];
