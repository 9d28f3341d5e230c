//! Remote media through the app's own `load_media` (what the window calls), against a real
//! server on loopback: refused before the reviewer allows it, and after consent still refused
//! by the SSRF guard when the media host is this machine — which never sees a connection.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use inbox_client::{ApiClient, Token};
use inbox_desktop::desk::{Desk, LAUNCH_ACCOUNT_ID};
use inbox_desktop::launch::LaunchOptions;
use inbox_protocol::{AnswerFormat, AskRequest, MediaItem, MediaKind};
use inbox_server::{Role, ServerConfig, TokenSpec};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

const REVIEWER: &str = "reviewer-token-0123456789";
const ASKER: &str = "asker-token-0123456789";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loopback_image_is_refused_before_and_after_consent_and_never_contacted() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = ServerConfig::new("127.0.0.1:0".parse().unwrap(), dir.path().join("server"));
    config.tokens = vec![
        TokenSpec {
            name: "alice".into(),
            role: Role::Reviewer,
            secret: REVIEWER.into(),
        },
        TokenSpec {
            name: "design-bot".into(),
            role: Role::Asker,
            secret: ASKER.into(),
        },
    ];
    let server = inbox_server::start(config).await.unwrap();

    // The "image host": this machine, serving a picture to whoever connects.
    let host = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = host.local_addr().unwrap().port();
    let hits = Arc::new(AtomicUsize::new(0));
    tokio::spawn({
        let hits = hits.clone();
        async move {
            while let Ok((mut socket, _)) = host.accept().await {
                hits.fetch_add(1, Ordering::SeqCst);
                let _ = socket
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: image/png\r\ncontent-length: 3\r\n\r\nPNG")
                    .await;
            }
        }
    });

    let options = LaunchOptions {
        data_dir: Some(dir.path().join("desk")),
        url: Some(server.base_url.clone()),
        token: Some(REVIEWER.into()),
        label: "Server".into(),
        demo: false,
        local_port: None,
        link: None,
    };
    let desk = Desk::open(
        &options,
        dir.path().join("unused"),
        dir.path().join("unused-config"),
    )
    .await
    .unwrap();

    let image = format!("https://127.0.0.1:{port}/a.png");
    let mut ask = AskRequest::new("Ship this design?", AnswerFormat::Confirm);
    ask.media = Some(vec![MediaItem {
        kind: MediaKind::Image,
        url: image.clone(),
        caption: Some("Mock-up".into()),
        filename: None,
    }]);
    let asker = ApiClient::new(&server.base_url, Token::new(ASKER)).unwrap();
    let question = asker.ask(&ask).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !desk
        .engine
        .snapshot_of(LAUNCH_ACCOUNT_ID)
        .await
        .unwrap()
        .cards
        .iter()
        .any(|c| c.interaction.id == question.id)
    {
        assert!(Instant::now() < deadline, "the question reached the inbox");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let before = desk
        .load_media(LAUNCH_ACCOUNT_ID, &image)
        .await
        .unwrap_err();
    assert_eq!(before.code.as_str(), "remote_images_blocked", "{before}");

    desk.allow_remote_images(LAUNCH_ACCOUNT_ID, Some(question.id.clone()), None)
        .unwrap();
    let after = desk
        .load_media(LAUNCH_ACCOUNT_ID, &image)
        .await
        .unwrap_err();
    assert_eq!(after.code.as_str(), "remote_media_refused", "{after}");
    assert!(after.message.contains("127.0.0.1"), "{after}");

    // Allowing the sender instead changes nothing for a loopback host either.
    desk.allow_remote_images(LAUNCH_ACCOUNT_ID, None, Some("design-bot".into()))
        .unwrap();
    let by_sender = desk
        .load_media(LAUNCH_ACCOUNT_ID, &image)
        .await
        .unwrap_err();
    assert_eq!(
        by_sender.code.as_str(),
        "remote_media_refused",
        "{by_sender}"
    );

    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "the loopback host was contacted"
    );
    desk.shutdown().await;
    server.shutdown().await;
}

/// A sender allowed for good is listed in the settings, kept across a restart, and once
/// revoked their remote media is blocked again (the policy refuses before any fetch).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_sender_allowance_blocks_that_senders_remote_media_again_and_stays_revoked() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = ServerConfig::new("127.0.0.1:0".parse().unwrap(), dir.path().join("server"));
    config.tokens = vec![
        TokenSpec {
            name: "alice".into(),
            role: Role::Reviewer,
            secret: REVIEWER.into(),
        },
        TokenSpec {
            name: "design-bot".into(),
            role: Role::Asker,
            secret: ASKER.into(),
        },
    ];
    let server = inbox_server::start(config).await.unwrap();
    let options = LaunchOptions {
        data_dir: Some(dir.path().join("desk")),
        url: Some(server.base_url.clone()),
        token: Some(REVIEWER.into()),
        label: "Server".into(),
        demo: false,
        local_port: None,
        link: None,
    };
    let open = || {
        Desk::open(
            &options,
            dir.path().join("unused"),
            dir.path().join("unused-cfg"),
        )
    };
    let desk = open().await.unwrap();

    // A loopback https URL: past the policy, the SSRF guard refuses it, so "refused" (not
    // "blocked") is how the test sees that the allowance let it through.
    let image = "https://127.0.0.1:9/a.png".to_owned();
    let mut ask = AskRequest::new("Ship this design?", AnswerFormat::Confirm);
    ask.media = Some(vec![MediaItem {
        kind: MediaKind::Image,
        url: image.clone(),
        caption: None,
        filename: None,
    }]);
    let question = ApiClient::new(&server.base_url, Token::new(ASKER))
        .unwrap()
        .ask(&ask)
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !desk
        .engine
        .snapshot_of(LAUNCH_ACCOUNT_ID)
        .await
        .unwrap()
        .cards
        .iter()
        .any(|c| c.interaction.id == question.id)
    {
        assert!(Instant::now() < deadline, "the question reached the inbox");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    desk.allow_remote_images(LAUNCH_ACCOUNT_ID, None, Some("design-bot".into()))
        .unwrap();
    let listed = desk.settings_view().remote_senders;
    assert_eq!(listed.len(), 1);
    assert_eq!(
        (listed[0].account.as_str(), listed[0].sender.as_str()),
        (LAUNCH_ACCOUNT_ID, "design-bot")
    );
    let allowed = desk
        .load_media(LAUNCH_ACCOUNT_ID, &image)
        .await
        .unwrap_err();
    assert_eq!(allowed.code.as_str(), "remote_media_refused", "{allowed}");
    desk.shutdown().await;
    drop(desk);

    // Restart: still allowed; then revoked.
    let desk = open().await.unwrap();
    assert_eq!(
        desk.settings_view().remote_senders,
        listed,
        "kept across a restart"
    );
    desk.revoke_remote_sender(LAUNCH_ACCOUNT_ID, "design-bot")
        .unwrap();
    assert!(desk.settings_view().remote_senders.is_empty());
    wait_for_card(&desk, &question.id).await;
    let blocked = desk
        .load_media(LAUNCH_ACCOUNT_ID, &image)
        .await
        .unwrap_err();
    assert_eq!(blocked.code.as_str(), "remote_images_blocked", "{blocked}");
    let again = desk
        .revoke_remote_sender(LAUNCH_ACCOUNT_ID, "design-bot")
        .unwrap_err();
    assert_eq!(again.field.as_deref(), Some("sender"));
    desk.shutdown().await;
    drop(desk);

    let desk = open().await.unwrap();
    assert!(
        desk.settings_view().remote_senders.is_empty(),
        "the revocation was saved"
    );
    desk.shutdown().await;
    server.shutdown().await;
}

async fn wait_for_card(desk: &Desk, id: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !desk
        .engine
        .snapshot_of(LAUNCH_ACCOUNT_ID)
        .await
        .map(|s| s.cards.iter().any(|c| c.interaction.id == id))
        .unwrap_or(false)
    {
        assert!(Instant::now() < deadline, "the question reached the inbox");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
