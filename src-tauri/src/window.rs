//! The main window: closing hides it to the tray, and whether the reviewer is looking at it
//! decides whether a new question also pops up a notification.

use std::sync::Arc;

use tauri::{AppHandle, Manager, Runtime, WebviewWindow, WindowEvent};

use crate::notifications::Presence;

pub const MAIN: &str = "main";

/// Bring the window back from the tray (or from behind other windows).
pub fn reveal<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window(MAIN) {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
}

/// Handle the main window's events.
pub fn on_event<R: Runtime>(window: &tauri::Window<R>, event: &WindowEvent) {
    if window.label() != MAIN {
        return;
    }
    // Presence is managed on its own at set-up, so the window needs nothing else of the app.
    let Some(presence) = window.try_state::<Arc<Presence>>() else {
        return;
    };
    match event {
        WindowEvent::CloseRequested { api, .. } => {
            // The app lives on in the tray; Quit is in the tray menu.
            api.prevent_close();
            if let Err(e) = window.hide() {
                tracing::warn!(error = %e, "could not hide the window to the tray");
            } else {
                tracing::info!("window closed to the tray");
            }
            presence.set_window_attentive(false);
            presence.set_window_visible(false);
        }
        WindowEvent::Focused(focused) => {
            let showing =
                window.is_visible().unwrap_or(false) && !window.is_minimized().unwrap_or(false);
            presence.set_window_attentive(*focused && showing);
            presence.set_window_visible(showing);
        }
        _ => {}
    }
}

/// Whether the reviewer is looking at the window right now (asked at start-up).
pub fn attentive<R: Runtime>(window: &WebviewWindow<R>) -> bool {
    window.is_visible().unwrap_or(false) && window.is_focused().unwrap_or(false)
}
