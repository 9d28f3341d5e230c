//! Opening one question in the window: from a notification click, and from an
//! `inbox://open/<id>` link (`inbox_protocol::link`). A link reaches the app two ways: as the
//! app's argument when it starts for it (the desktop entry's `Exec=inbox-desktop %u`), or, while
//! it runs, forwarded from that second start by the single-instance plugin to the deep-link
//! plugin's `on_open_url`. Either way it ends where a notification click does: [`open_question`].

use std::time::Duration;

use tauri::{AppHandle, Emitter, Manager, Wry};

use crate::desk::Desk;
use crate::notifications::QuestionRef;
use crate::views::{OPEN_EVENT, OpenRequest};
use crate::window;

/// How long a link waits for its question to reach this app (asked a moment ago, still syncing).
const FIND_FOR: Duration = Duration::from_secs(5);

/// Show the window and open `question` in it.
pub fn open_question(app: &AppHandle<Wry>, question: QuestionRef) {
    window::reveal(app);
    let request = OpenRequest {
        account: question.account,
        id: question.id,
    };
    if let Err(e) = app.emit(OPEN_EVENT, &request) {
        tracing::warn!(error = %e, "could not ask the window to open a question");
    }
}

/// A link that arrived while the app runs: find which account holds the question, then open it.
pub fn open_link(app: &AppHandle<Wry>, link: &str) {
    let id = match inbox_protocol::parse_open_link(link) {
        Ok(id) => id,
        Err(e) => {
            // The link is not logged: it came from anywhere.
            tracing::warn!(error = %e, "ignored a link the app does not open");
            window::reveal(app);
            return;
        }
    };
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let deadline = tokio::time::Instant::now() + FIND_FOR;
        loop {
            let snapshots = app.state::<Desk>().engine.snapshot().await;
            let holder = snapshots
                .into_iter()
                .find(|s| s.cards.iter().any(|c| c.interaction.id == id));
            if let Some(snapshot) = holder {
                return open_question(
                    &app,
                    QuestionRef {
                        account: snapshot.account,
                        id,
                    },
                );
            }
            if tokio::time::Instant::now() >= deadline {
                tracing::warn!(%id, "a link named a question no account of this app holds");
                window::reveal(&app);
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
}

/// The app was started for `link`: the window opens on that question as it first loads
/// (its `?select=` start parameter), whichever account it is in.
pub fn open_at_launch(app: &AppHandle<Wry>, link: &str) {
    let id = match inbox_protocol::parse_open_link(link) {
        Ok(id) => id,
        Err(e) => {
            tracing::warn!(error = %e, "started with a link the app does not open");
            return;
        }
    };
    let Some(main) = app.get_webview_window(window::MAIN) else {
        return;
    };
    let Ok(mut url) = main.url() else { return };
    url.query_pairs_mut().clear().append_pair("select", &id);
    if let Err(e) = main.navigate(url) {
        tracing::warn!(error = %e, "could not open the window on the linked question");
    }
}
