//! What the desk tests share: a real server on loopback with one reviewer and one asker, and a
//! desk that follows it for one run (`--url`), as the app would be started.

#![allow(dead_code)] // each test file uses its own part

use std::path::Path;
use std::time::{Duration, Instant};

use inbox_client::{ApiClient, Engine};
use inbox_desktop::desk::{Desk, LAUNCH_ACCOUNT_ID};
use inbox_desktop::launch::LaunchOptions;
use inbox_protocol::{AnswerFormat, AskRequest, Interaction};
use inbox_server::{Role, RunningServer, ServerConfig, TokenSpec};

pub const REVIEWER: &str = "reviewer-token-0123456789";
pub const ASKER: &str = "asker-token-0123456789";

/// A server on 127.0.0.1:0 whose data lives under `dir/server`; `asker` names the asker token.
pub async fn server(dir: &Path, asker: &str) -> RunningServer {
    let mut config = ServerConfig::new("127.0.0.1:0".parse().unwrap(), dir.join("server"));
    config.tokens = vec![
        TokenSpec {
            name: "alice".into(),
            role: Role::Reviewer,
            secret: REVIEWER.into(),
        },
        TokenSpec {
            name: asker.into(),
            role: Role::Asker,
            secret: ASKER.into(),
        },
    ];
    inbox_server::start(config).await.unwrap()
}

/// The launch options of a run that follows `base_url` with the reviewer token.
pub fn following(dir: &Path, base_url: &str) -> LaunchOptions {
    LaunchOptions {
        data_dir: Some(dir.join("desk")),
        url: Some(base_url.to_owned()),
        token: Some(REVIEWER.into()),
        label: "Server".into(),
        ..LaunchOptions::default()
    }
}

/// A desk started with `options`; the default dirs are never used (the data dir is given).
pub async fn open(dir: &Path, options: &LaunchOptions) -> Desk {
    Desk::open(options, dir.join("unused"), dir.join("unused-config"))
        .await
        .unwrap()
}

/// Ask `prompt` in `format` as `asker`; the question as the server stored it.
pub async fn ask(asker: &ApiClient, prompt: &str, format: AnswerFormat) -> Interaction {
    asker.ask(&AskRequest::new(prompt, format)).await.unwrap()
}

/// Poll `holds` every 50 ms until it does; fail with `what` once `timeout` has passed.
pub async fn eventually(what: &str, timeout: Duration, mut holds: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !holds().await {
        assert!(Instant::now() < deadline, "{what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Wait until question `id` is in `account`'s inbox.
pub async fn wait_for_card_in(engine: &Engine, account: &str, id: &str) {
    eventually(
        "the question reached the inbox",
        Duration::from_secs(10),
        async || {
            engine
                .snapshot_of(account)
                .await
                .is_ok_and(|s| s.cards.iter().any(|c| c.interaction.id == id))
        },
    )
    .await;
}

/// Wait until question `id` is in the followed server's inbox.
pub async fn wait_for_card(desk: &Desk, id: &str) {
    wait_for_card_in(&desk.engine, LAUNCH_ACCOUNT_ID, id).await;
}
