//! The commands the window may call (and nothing else: see `capabilities/main.json`; the
//! build script declares the same names).
//! Each is a thin adapter onto [`Desk`]; arguments arrive as the UI's top-level keys.

use inbox_protocol::ErrorCode;
use serde_json::{Map, Value};
use tauri::{AppHandle, State, Wry};
use tauri_plugin_autostart::ManagerExt;
use tauri_plugin_opener::OpenerExt;

use crate::desk::Desk;
use crate::settings::Preferences;
use crate::views::{
    AnswerArgs, DeclineArgs, InboxSnapshot, NewAccount, RemoteImagesArgs, RemoteSender,
    SettingsView, SubmitArgs,
};
use inbox_desktop_core::CommandError;
use inbox_desktop_core::urls::check_browser_url;

type Reply<T> = Result<T, CommandError>;

#[tauri::command]
pub async fn inbox_snapshot(desk: State<'_, Desk>) -> Reply<InboxSnapshot> {
    Ok(desk.snapshot().await)
}

#[tauri::command]
pub async fn answer_interaction(
    desk: State<'_, Desk>,
    account: String,
    id: String,
    value: Value,
    params: Option<Map<String, Value>>,
) -> Reply<inbox_sync::Delivery> {
    let args = AnswerArgs {
        account,
        id,
        value,
        params,
    };
    // Which question, never what was answered (see `logs`).
    tracing::info!(account = %args.account, id = %args.id, "answer");
    Ok(desk
        .engine
        .answer(&args.account, &args.id, args.value, args.params)
        .await?)
}

#[tauri::command]
pub async fn decline_interaction(
    desk: State<'_, Desk>,
    account: String,
    id: String,
    reason: Option<String>,
) -> Reply<inbox_sync::Delivery> {
    let args = DeclineArgs {
        account,
        id,
        reason,
    };
    tracing::info!(account = %args.account, id = %args.id, "decline");
    Ok(desk
        .engine
        .decline(&args.account, &args.id, args.reason)
        .await?)
}

#[tauri::command]
pub async fn mark_read(desk: State<'_, Desk>, account: String, id: String) -> Reply<()> {
    Ok(desk.engine.mark_read(&account, &id).await?)
}

/// Open an http(s) link in the system browser; anything else is refused.
#[tauri::command]
pub async fn open_external(app: AppHandle<Wry>, url: String) -> Reply<()> {
    let parsed = check_browser_url(&url)?;
    app.opener()
        .open_url(parsed.as_str(), None::<&str>)
        .map_err(|e| {
            CommandError::new(
                ErrorCode::Unavailable,
                format!("could not open the browser: {e}"),
            )
        })
}

#[tauri::command]
pub async fn load_media(desk: State<'_, Desk>, account: String, url: String) -> Reply<String> {
    desk.load_media(&account, &url).await
}

#[tauri::command]
pub async fn allow_remote_images(
    app: AppHandle<Wry>,
    desk: State<'_, Desk>,
    account: String,
    id: Option<String>,
    sender: Option<String>,
) -> Reply<SettingsView> {
    let args = RemoteImagesArgs {
        account,
        id,
        sender,
    };
    desk.allow_remote_images(&args.account, args.id, args.sender)?;
    Ok(settings_view(&app, &desk))
}

/// The desk's settings with whether the OS starts the app at login (asked of the plugin).
fn settings_view(app: &AppHandle<Wry>, desk: &Desk) -> SettingsView {
    let mut view = desk.settings_view();
    view.autostart = match app.autolaunch().is_enabled() {
        Ok(on) => Some(on),
        Err(e) => {
            tracing::warn!(error = %e, "could not tell whether the app starts at login");
            None
        }
    };
    view
}

#[tauri::command]
pub async fn settings(app: AppHandle<Wry>, desk: State<'_, Desk>) -> Reply<SettingsView> {
    Ok(settings_view(&app, &desk))
}

#[tauri::command]
pub async fn save_preferences(
    app: AppHandle<Wry>,
    desk: State<'_, Desk>,
    preferences: Preferences,
) -> Reply<SettingsView> {
    desk.save_preferences(preferences)?;
    Ok(settings_view(&app, &desk))
}

#[tauri::command]
pub async fn revoke_remote_sender(
    app: AppHandle<Wry>,
    desk: State<'_, Desk>,
    account: String,
    sender: String,
) -> Reply<SettingsView> {
    let args = RemoteSender { account, sender };
    desk.revoke_remote_sender(&args.account, &args.sender)?;
    Ok(settings_view(&app, &desk))
}

/// Start at login: writes or removes the XDG autostart entry (`~/.config/autostart`).
#[tauri::command]
pub async fn set_autostart(
    app: AppHandle<Wry>,
    desk: State<'_, Desk>,
    on: bool,
) -> Reply<SettingsView> {
    let launcher = app.autolaunch();
    let done = if on {
        launcher.enable()
    } else {
        launcher.disable()
    };
    done.map_err(|e| {
        CommandError::new(
            ErrorCode::Unavailable,
            format!("could not change starting at login: {e}"),
        )
    })?;
    Ok(settings_view(&app, &desk))
}

#[tauri::command]
pub async fn rename_account(desk: State<'_, Desk>, account: String, label: String) -> Reply<()> {
    desk.rename_account(&account, &label)
}

#[tauri::command]
pub async fn test_account(desk: State<'_, Desk>, account: String) -> Reply<String> {
    desk.test_account(&account).await
}

/// Show the log folder in the file manager.
#[tauri::command]
pub async fn open_logs_folder(app: AppHandle<Wry>, desk: State<'_, Desk>) -> Reply<()> {
    let Some(dir) = desk.logs_dir() else {
        return Err(CommandError::new(
            ErrorCode::Unavailable,
            "this run logs to the terminal only",
        ));
    };
    app.opener()
        .open_path(dir.display().to_string(), None::<&str>)
        .map_err(|e| {
            CommandError::new(
                ErrorCode::Unavailable,
                format!("could not open the folder: {e}"),
            )
        })
}

#[tauri::command]
pub async fn set_do_not_disturb(app: AppHandle<Wry>, on: bool) -> Reply<()> {
    crate::tray::set_do_not_disturb(&app, on);
    Ok(())
}

#[tauri::command]
pub async fn add_account(
    desk: State<'_, Desk>,
    url: String,
    token: String,
    label: String,
) -> Reply<()> {
    desk.add_account(NewAccount { url, token, label })
        .await
        .map(|_| ())
}

#[tauri::command]
pub async fn remove_account(desk: State<'_, Desk>, account: String) -> Reply<()> {
    desk.remove_account(&account).await
}

/// The reviewer opened a notification: read everywhere.
#[tauri::command]
pub async fn open_notification(desk: State<'_, Desk>, account: String, id: String) -> Reply<()> {
    Ok(desk.engine.open_notification(&account, &id).await?)
}

/// The reviewer dismissed a notification: gone from every window.
#[tauri::command]
pub async fn dismiss_notification(desk: State<'_, Desk>, account: String, id: String) -> Reply<()> {
    tracing::info!(%account, %id, "dismiss notification");
    Ok(desk.engine.dismiss_notification(&account, &id).await?)
}

/// Submit a notification's form; a value the schema refuses comes back naming the field.
#[tauri::command]
pub async fn submit_notification(
    desk: State<'_, Desk>,
    account: String,
    id: String,
    value: Value,
) -> Reply<inbox_protocol::Submission> {
    let args = SubmitArgs { account, id, value };
    tracing::info!(account = %args.account, id = %args.id, "submit notification");
    Ok(desk
        .engine
        .submit_notification(&args.account, &args.id, args.value)
        .await?)
}
