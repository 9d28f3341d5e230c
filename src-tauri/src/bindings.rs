//! TypeScript for the desktop commands and events, written into `ui/src/generated/desktop/`.
//!
//! `cargo run -p inbox-desktop --example export-ts-desktop` regenerates them; the test below fails when
//! the committed files are stale. Only this crate's own files are written: the types they
//! reference (`Card`, `Counts`, …) belong to inbox-sync and inbox-protocol.

use std::path::Path;

use ts_rs::TS;

use crate::settings::{NotificationPrefs, Preferences, QuietHours, Theme};
use crate::views::{
    AccountView, AnswerArgs, DeclineArgs, InboxSnapshot, NewAccount, OpenRequest, RemoteImagesArgs,
    RemoteQuestion, RemoteSender, SettingsView, SubmitArgs,
};
use inbox_desktop_core::CommandError;

/// Write `text` as `dir/name` (creating its folder) and note the name.
fn write_binding(
    dir: &Path,
    name: &str,
    text: &str,
    written: &mut Vec<String>,
) -> Result<(), ts_rs::ExportError> {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&path, text)?;
    written.push(name.to_owned());
    Ok(())
}

fn export_one<T: TS + 'static>(
    dir: &Path,
    written: &mut Vec<String>,
) -> Result<(), ts_rs::ExportError> {
    let name = T::output_path().ok_or(ts_rs::ExportError::CannotBeExported(
        std::any::type_name::<T>(),
    ))?;
    write_binding(
        dir,
        &name.to_string_lossy(),
        &T::export_to_string()?,
        written,
    )
}

/// `export_one` for each type listed, in order.
macro_rules! export_each {
    ($dir:expr, $written:expr; $($ty:ty),+ $(,)?) => {
        $(export_one::<$ty>($dir, $written)?;)+
    };
}

/// Write every desktop type into `dir` (the `ui/src/generated` folder); returns the file names.
pub fn export_all(dir: &Path) -> Result<Vec<String>, ts_rs::ExportError> {
    let mut written = Vec::new();
    export_each!(dir, &mut written;
        // What the window is shown and what its commands take.
        AccountView, InboxSnapshot, OpenRequest,
        AnswerArgs, DeclineArgs, SubmitArgs, RemoteImagesArgs, NewAccount,
        // The commands' error; its codes live in inbox-client (the engine's errors map onto them)
        // but are the commands'.
        CommandError, inbox_client::CommandCode, inbox_client::AppCode,
    );
    export_command_names(dir, &mut written)?;
    export_each!(dir, &mut written;
        // The settings page.
        SettingsView, RemoteSender, RemoteQuestion,
        Preferences, NotificationPrefs, QuietHours, Theme,
    );
    Ok(written)
}

/// `desktop/commandNames.ts`: the window's command list, so the UI's tests can hold the real and
/// the fake backend to the names the app registers (`command_names.rs`), and `CommandName`, the
/// only names the real backend's `invoke` takes (a command Rust does not register fails `tsc`).
/// The list is written on one line: it is the twin of the Rust list, not a second one to read.
fn export_command_names(dir: &Path, written: &mut Vec<String>) -> Result<(), ts_rs::ExportError> {
    let list = crate::command_names::COMMANDS
        .iter()
        .map(|c| format!("\"{c}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let text = format!(
        "// Generated from src-tauri/src/command_names.rs by \
         `cargo run -p inbox-desktop --example export-ts-desktop`; do not edit.\n\n\
         export const COMMAND_NAMES = [{list}] as const;\n\n\
         export type CommandName = (typeof COMMAND_NAMES)[number];\n"
    );
    write_binding(dir, "desktop/commandNames.ts", &text, written)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    #[test]
    fn committed_typescript_bindings_are_fresh() {
        let committed = PathBuf::from(
            std::env::var_os("CARGO_MANIFEST_DIR")
                .expect("run by cargo, which sets CARGO_MANIFEST_DIR"),
        )
        .join("../ui/src/generated");
        let fresh = std::env::temp_dir().join(format!("inbox-desktop-ts-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&fresh);
        let written = super::export_all(&fresh).expect("export bindings");
        assert!(
            written.iter().all(|name| name.starts_with("desktop/")),
            "{written:?}"
        );
        for name in written {
            let want = std::fs::read_to_string(fresh.join(&name)).expect("fresh binding");
            let have = std::fs::read_to_string(committed.join(&name)).ok();
            assert_eq!(
                Some(want),
                have,
                "ui/src/generated/{name} is stale: run `cargo run -p inbox-desktop --example export-ts-desktop`"
            );
        }
        let _ = std::fs::remove_dir_all(&fresh);
    }
}
