//! The media door made private by the server's configuration (`--public-doors callback,health`):
//! the desktop still shows media, because the engine fetches same-origin media with the
//! account's token; a tokenless fetch is refused.

use std::time::Duration;

use inbox_client::{Account, ApiClient, Engine, EngineConfig, Keyring, Token};
use inbox_protocol::{AnswerFormat, AskRequest, MediaItem, MediaKind};
use inbox_server::{Role, ServerConfig, TokenSpec};
use inbox_sync::ConnectionStatus;

const ALICE: &str = "alice-token-0123456789";
const BOT: &str = "bot-token-0123456789";

const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn media_on_a_private_media_door_is_fetched_with_the_accounts_token() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = ServerConfig::new("127.0.0.1:0".parse().unwrap(), dir.path().to_owned());
    config.tokens = vec![
        TokenSpec {
            name: "alice".into(),
            role: Role::Reviewer,
            secret: ALICE.into(),
        },
        TokenSpec {
            name: "bot".into(),
            role: Role::Asker,
            secret: BOT.into(),
        },
    ];
    config.public_doors = "callback,health".parse().unwrap();
    let server = inbox_server::start(config).await.unwrap();
    let url = server.base_url.clone();

    let bot = ApiClient::new(&url, Token::new(BOT)).unwrap();
    let mut ask = AskRequest::new("this chart?", AnswerFormat::Confirm);
    ask.media = Some(vec![MediaItem {
        kind: MediaKind::Image,
        url: format!("data:image/png;base64,{PNG}"),
        caption: None,
        filename: None,
    }]);
    let asked = bot.ask(&ask).await.unwrap();
    let reference = asked.media[0].url.clone();
    assert!(reference.starts_with(inbox_protocol::paths::MEDIA_PREFIX));

    // Without a token the door is closed now…
    let tokenless = reqwest::get(format!("{url}{reference}")).await.unwrap();
    assert_eq!(tokenless.status(), reqwest::StatusCode::UNAUTHORIZED);

    // …and the engine (what the desktop's `load_media` calls) still gets the bytes.
    let state = tempfile::tempdir().unwrap();
    let engine = Engine::new(
        EngineConfig::new(state.path()),
        Keyring::in_memory().unwrap(),
    );
    engine
        .add_account(
            Account::new("work", "work", url.as_str()).unwrap(),
            Some(Token::new(ALICE)),
        )
        .await
        .unwrap();
    let mut statuses = engine.statuses();
    tokio::time::timeout(
        Duration::from_secs(5),
        statuses.wait_for(|s| s.get("work") == Some(&ConnectionStatus::Online)),
    )
    .await
    .expect("the account comes online")
    .unwrap();
    let media = engine.media("work", &reference).await.unwrap();
    assert_eq!(media.content_type, "image/png");
    assert!(media.bytes.starts_with(b"\x89PNG"));
    engine.shutdown().await;
    server.shutdown().await;
}
