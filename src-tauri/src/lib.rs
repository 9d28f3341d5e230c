//! The Interactions Inbox desktop app (Tauri 2): the window, the tray, native notifications and
//! local mode, as thin glue over the sync engine (`inbox-client`) and the server
//! (`inbox-server`, run in-process in local mode).
//!
//! - [`desk`]: the state behind the commands; [`commands`]: what the window may call;
//! - [`views`]: the shapes it receives (TypeScript via [`bindings`]);
//! - [`notifications`]: what pops up and when it is withdrawn; [`tray`];
//! - [`local_server`]: local mode.
//!
//! What needs no window (command errors, the notification planner, the tray badge, URL and
//! media checks) is in `inbox-desktop-core`, which does not depend on Tauri.

pub mod bindings;
pub mod command_names;
pub mod commands;
pub mod desk;
pub mod launch;
pub mod links;
pub mod local_server;
pub mod logs;
pub mod notifications;
pub mod settings;
pub mod tray;
pub mod views;
pub mod window;

use std::sync::Arc;

use anyhow::Context;
use tauri::{AppHandle, Emitter, Manager, RunEvent, Wry};
use tauri_plugin_deep_link::DeepLinkExt;
use tauri_plugin_window_state::StateFlags;
use tokio::sync::broadcast::error::RecvError;

use desk::Desk;
use inbox_desktop_core::{CommandError, tray_count};
use launch::LaunchOptions;
use notifications::{NoticeHandlers, Notifier, QuestionRef};
use views::CHANGES_EVENT;

/// Build and run the app until Quit. `logs_dir`: where [`logs::init`] writes the log files.
pub fn run(options: LaunchOptions, logs_dir: Option<std::path::PathBuf>) -> anyhow::Result<()> {
    let mut builder = tauri::Builder::default();
    // An app with its own --data-dir (tests, benchmarks) is a separate instance by design.
    if options.data_dir.is_none() {
        // A second start shows this one; a link it was started for reaches the deep-link
        // plugin here (the single-instance plugin's `deep-link` feature) and opens below.
        builder = builder.plugin(tauri_plugin_single_instance::init(|app, _argv, _cwd| {
            window::reveal(app);
        }));
    }
    let app = builder
        .plugin(tauri_plugin_deep_link::init())
        // Size, position and maximised state are remembered; visibility is not, or quitting
        // from the tray while the window is hidden would start the next run without a window.
        .plugin(
            tauri_plugin_window_state::Builder::default()
                .with_state_flags(StateFlags::all() & !StateFlags::VISIBLE)
                .build(),
        )
        .plugin(tauri_plugin_opener::init())
        // Start at login through an XDG autostart entry; the Settings view switches it.
        .plugin(
            tauri_plugin_autostart::Builder::new()
                .app_name("inbox-desktop")
                .build(),
        )
        .invoke_handler(tauri::generate_handler![
            commands::inbox_snapshot,
            commands::answer_interaction,
            commands::decline_interaction,
            commands::mark_read,
            commands::open_external,
            commands::load_media,
            commands::allow_remote_images,
            commands::set_do_not_disturb,
            commands::add_account,
            commands::remove_account,
            commands::open_notification,
            commands::dismiss_notification,
            commands::submit_notification,
            commands::settings,
            commands::save_preferences,
            commands::revoke_remote_sender,
            commands::set_autostart,
            commands::rename_account,
            commands::test_account,
            commands::open_logs_folder,
        ])
        .on_window_event(window::on_event)
        .setup(move |app| {
            setup(app.handle(), &options, logs_dir.clone())?;
            Ok(())
        })
        .build(tauri::generate_context!("../tauri.conf.json"))
        .context("build the app")?;
    app.run(|app, event| {
        if let RunEvent::Exit = event {
            let desk = app.state::<Desk>();
            tauri::async_runtime::block_on(desk.shutdown());
        }
    });
    Ok(())
}

fn setup(
    app: &AppHandle<Wry>,
    options: &LaunchOptions,
    logs_dir: Option<std::path::PathBuf>,
) -> anyhow::Result<()> {
    let default_dir = app.path().app_data_dir().context("no app data dir")?;
    let config_dir = app.path().app_config_dir().context("no app config dir")?;
    let mut desk = tauri::async_runtime::block_on(Desk::open(options, default_dir, config_dir))?;
    if let Some(dir) = logs_dir {
        desk.set_logs_dir(dir);
    }
    let engine = desk.engine.clone();
    let presence = desk.presence.clone();
    app.manage(desk);
    app.manage(presence.clone());

    if let Some(link) = &options.link {
        links::open_at_launch(app, link);
    }
    let linker = app.clone();
    app.deep_link().on_open_url(move |event| {
        for url in event.urls() {
            links::open_link(&linker, url.as_str());
        }
    });

    let tray = tray::Tray::build(app, presence.do_not_disturb(), |app| {
        let on = !app.state::<Desk>().presence.do_not_disturb();
        tray::set_do_not_disturb(app, on);
        // The window's own switch must show what the tray just did.
        if let Err(e) = app.emit(views::DO_NOT_DISTURB_EVENT, on) {
            tracing::warn!(error = %e, "could not tell the window about Do not disturb");
        }
    })
    .context("build the tray icon")?;
    app.manage(tray);
    // The tray's number is the engine's counts, followed as they change.
    let badge = app.clone();
    tauri::async_runtime::spawn(tray_count::follow(engine.counts(), move |pending| {
        badge.state::<tray::Tray>().show_pending(pending);
    }));

    if let Some(main) = app.get_webview_window(window::MAIN) {
        presence.set_window_attentive(window::attentive(&main));
        presence.set_window_visible(main.is_visible().unwrap_or(false));
    }

    let opener = app.clone();
    let answerer = app.clone();
    let notifier = Notifier::spawn(
        "Interactions Inbox",
        presence,
        NoticeHandlers {
            open: Arc::new(move |question: QuestionRef| links::open_question(&opener, question)),
            // The window's own path: the engine's answer (validation, outbox, Idempotency-Key),
            // refused with the command's message. This runs on a notification thread, so it may
            // block.
            answer: Arc::new(move |question: QuestionRef, value| {
                let desk = answerer.state::<Desk>();
                tauri::async_runtime::block_on(desk.engine.answer(
                    &question.account,
                    &question.id,
                    value,
                    None,
                ))
                .map_err(|e| CommandError::from(e).message)
            }),
        },
    );

    // Engine → window: every coalesced batch, as it is.
    let mut changes = engine.subscribe();
    let forward = app.clone();
    tauri::async_runtime::spawn(async move {
        loop {
            match changes.recv().await {
                Ok(batch) => {
                    if let Err(e) = forward.emit(CHANGES_EVENT, &batch) {
                        tracing::warn!(error = %e, "could not send changes to the window");
                    }
                }
                // Fell behind: send every account's whole list so the window is whole again.
                Err(RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "change batches lagged; resending the lists");
                    for snapshot in forward.state::<Desk>().engine.snapshot().await {
                        let batch = inbox_sync::Changes {
                            account: snapshot.account,
                            upserted: snapshot.cards,
                            removed: Vec::new(),
                            status: Some(snapshot.status),
                            counts: snapshot.counts,
                            notifications: Some(snapshot.notifications),
                        };
                        let _ = forward.emit(CHANGES_EVENT, &batch);
                    }
                }
                Err(RecvError::Closed) => break,
            }
        }
    });

    // Engine → notifications.
    let mut notices = engine.notifications();
    tauri::async_runtime::spawn(async move {
        loop {
            match notices.recv().await {
                Ok(event) => notifier.handle(event),
                Err(RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "notification events lagged")
                }
                Err(RecvError::Closed) => break,
            }
        }
    });
    Ok(())
}
