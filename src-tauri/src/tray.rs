//! The tray icon: the pending count drawn onto the icon, and a menu with Open inbox, the count,
//! Do not disturb and Quit. Clicking the icon opens the window.

use tauri::image::Image;
use tauri::menu::{CheckMenuItem, Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::{MouseButton, MouseButtonState, TrayIcon, TrayIconBuilder, TrayIconEvent};
use tauri::{AppHandle, Manager, Wry};

use crate::desk::Desk;

use crate::window;
use inbox_desktop_core::tray_badge;
use inbox_desktop_core::tray_count::count_label;

const OPEN: &str = "open";
const COUNT: &str = "count";
const DND: &str = "do-not-disturb";
const QUIT: &str = "quit";

/// The parts of the tray that change.
pub struct Tray {
    icon: TrayIcon<Wry>,
    count: MenuItem<Wry>,
    dnd: CheckMenuItem<Wry>,
}

impl Tray {
    /// `toggle_do_not_disturb` runs when the menu's switch is clicked: the owner of the setting
    /// (the desk) flips it and saves it, [`set_do_not_disturb`] shows it here again — the
    /// tray only reports the click.
    pub fn build(
        app: &AppHandle<Wry>,
        do_not_disturb: bool,
        toggle_do_not_disturb: impl Fn(&AppHandle<Wry>) + Send + Sync + 'static,
    ) -> tauri::Result<Tray> {
        let open = MenuItem::with_id(app, OPEN, "Open inbox", true, None::<&str>)?;
        let count = MenuItem::with_id(app, COUNT, count_label(0), false, None::<&str>)?;
        let dnd = CheckMenuItem::with_id(
            app,
            DND,
            "Do not disturb",
            true,
            do_not_disturb,
            None::<&str>,
        )?;
        let quit = MenuItem::with_id(app, QUIT, "Quit", true, None::<&str>)?;
        let separator = PredefinedMenuItem::separator(app)?;
        let menu = Menu::with_items(app, &[&open, &count, &dnd, &separator, &quit])?;
        let icon = TrayIconBuilder::with_id("inbox")
            .icon(badge_image(0))
            .tooltip("Interactions Inbox")
            .menu(&menu)
            .show_menu_on_left_click(false)
            .on_menu_event(move |app, event| match event.id().as_ref() {
                OPEN => window::reveal(app),
                DND => toggle_do_not_disturb(app),
                QUIT => app.exit(0),
                _ => {}
            })
            .on_tray_icon_event(|tray, event| {
                if let TrayIconEvent::Click {
                    button: MouseButton::Left,
                    button_state: MouseButtonState::Up,
                    ..
                } = event
                {
                    window::reveal(tray.app_handle());
                }
            })
            .build(app)?;
        Ok(Tray { icon, count, dnd })
    }

    /// Redraw the badge and the count line.
    pub fn show_pending(&self, pending: u32) {
        let _ = self.icon.set_icon(Some(badge_image(pending)));
        let _ = self.count.set_text(count_label(pending));
        let tooltip = format!("Interactions Inbox — {}", count_label(pending));
        let _ = self.icon.set_tooltip(Some(tooltip));
    }

    pub fn show_do_not_disturb(&self, on: bool) {
        let _ = self.dnd.set_checked(on);
    }
}

/// Switch Do not disturb (the desk keeps and saves it) and show it on the tray's switch; the
/// window's command and the tray's own menu both come here.
pub fn set_do_not_disturb(app: &AppHandle<Wry>, on: bool) {
    app.state::<Desk>().set_do_not_disturb(on);
    if let Some(tray) = app.try_state::<Tray>() {
        tray.show_do_not_disturb(on);
    }
}

fn badge_image(pending: u32) -> Image<'static> {
    let badge = tray_badge::render(pending);
    Image::new_owned(badge.rgba, badge.width, badge.height)
}
