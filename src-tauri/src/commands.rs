//! The commands the window may call (and nothing else: see `capabilities/main.json`; the
//! build script declares the same names).
//! Each is a thin adapter onto [`Desk`]; arguments arrive as the UI's top-level keys.

use serde_json::{Map, Value};
use tauri::{AppHandle, State, Wry};
use tauri_plugin_opener::OpenerExt;

use crate::command_error::CommandError;
use crate::desk::Desk;
use crate::views::{
    AnswerArgs, DeclineArgs, InboxSnapshot, NewAccount, RemoteImagesArgs, SubmitArgs,
};

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
    tracing::info!(account = %args.account, id = %args.id, "answer");
    desk.answer(&args.account, &args.id, args.value, args.params)
        .await
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
    let parsed = url::Url::parse(&url)
        .map_err(|_| CommandError::new("invalid_url", "not a URL").with_field("url"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(
            CommandError::new("invalid_url", "only http and https links open").with_field("url"),
        );
    }
    app.opener()
        .open_url(parsed.as_str(), None::<&str>)
        .map_err(|e| CommandError::new("unavailable", format!("could not open the browser: {e}")))
}

#[tauri::command]
pub async fn load_media(desk: State<'_, Desk>, account: String, url: String) -> Reply<String> {
    desk.load_media(&account, &url).await
}

#[tauri::command]
pub async fn allow_remote_images(
    desk: State<'_, Desk>,
    account: String,
    id: Option<String>,
    sender: Option<String>,
) -> Reply<()> {
    let args = RemoteImagesArgs {
        account,
        id,
        sender,
    };
    desk.allow_remote_images(&args.account, args.id, args.sender)
}

#[tauri::command]
pub async fn set_do_not_disturb(desk: State<'_, Desk>, on: bool) -> Reply<()> {
    desk.set_do_not_disturb(on);
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
