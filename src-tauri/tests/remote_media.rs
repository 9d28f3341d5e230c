//! Remote media through the app's own `load_media` (what the window calls), against a real
//! server on loopback: refused before the reviewer allows it, and after consent still refused
//! by the SSRF guard when the media host is this machine — which never sees a connection.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

mod support;

use inbox_client::{ApiClient, Token};
use inbox_desktop::desk::{Desk, LAUNCH_ACCOUNT_ID};
use inbox_desktop_core::CommandError;
use inbox_protocol::{AnswerFormat, AskRequest, MediaItem, MediaKind};
use support::{ASKER, wait_for_card};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

/// "Ship this design?" with one remote image at `url`.
fn with_image(url: &str, caption: Option<&str>) -> AskRequest {
    let mut ask = AskRequest::new("Ship this design?", AnswerFormat::Confirm);
    ask.media = Some(vec![MediaItem {
        kind: MediaKind::Image,
        url: url.to_owned(),
        caption: caption.map(str::to_owned),
        filename: None,
    }]);
    ask
}

/// What the window is told when it asks the desk for `url`: a refusal with `code`.
async fn refusal(desk: &Desk, url: &str, code: &str) -> CommandError {
    let refused = desk.load_media(LAUNCH_ACCOUNT_ID, url).await.unwrap_err();
    assert_eq!(refused.code.as_str(), code, "{refused}");
    refused
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loopback_image_is_refused_before_and_after_consent_and_never_contacted() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::server(dir.path(), "design-bot").await;

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

    let options = support::following(dir.path(), &server.base_url);
    let desk = support::open(dir.path(), &options).await;

    let image = format!("https://127.0.0.1:{port}/a.png");
    let asker = ApiClient::new(&server.base_url, Token::new(ASKER)).unwrap();
    let question = asker
        .ask(&with_image(&image, Some("Mock-up")))
        .await
        .unwrap();
    wait_for_card(&desk, &question.id).await;

    refusal(&desk, &image, "remote_images_blocked").await;

    desk.allow_remote_images(LAUNCH_ACCOUNT_ID, Some(question.id.clone()), None)
        .unwrap();
    let after = refusal(&desk, &image, "remote_media_refused").await;
    assert!(after.message.contains("127.0.0.1"), "{after}");

    // Allowing the sender instead changes nothing for a loopback host either.
    desk.allow_remote_images(LAUNCH_ACCOUNT_ID, None, Some("design-bot".into()))
        .unwrap();
    refusal(&desk, &image, "remote_media_refused").await;

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
    let server = support::server(dir.path(), "design-bot").await;
    let options = support::following(dir.path(), &server.base_url);
    let open = || support::open(dir.path(), &options);
    let desk = open().await;

    // A loopback https URL: past the policy, the SSRF guard refuses it, so "refused" (not
    // "blocked") is how the test sees that the allowance let it through.
    let image = "https://127.0.0.1:9/a.png".to_owned();
    let question = ApiClient::new(&server.base_url, Token::new(ASKER))
        .unwrap()
        .ask(&with_image(&image, None))
        .await
        .unwrap();
    wait_for_card(&desk, &question.id).await;

    desk.allow_remote_images(LAUNCH_ACCOUNT_ID, None, Some("design-bot".into()))
        .unwrap();
    let listed = desk.settings_view().remote_senders;
    assert_eq!(listed.len(), 1);
    assert_eq!(
        (listed[0].account.as_str(), listed[0].sender.as_str()),
        (LAUNCH_ACCOUNT_ID, "design-bot")
    );
    refusal(&desk, &image, "remote_media_refused").await;
    desk.shutdown().await;
    drop(desk);

    // Restart: still allowed; then revoked.
    let desk = open().await;
    assert_eq!(
        desk.settings_view().remote_senders,
        listed,
        "kept across a restart"
    );
    desk.revoke_remote_sender(LAUNCH_ACCOUNT_ID, "design-bot")
        .unwrap();
    assert!(desk.settings_view().remote_senders.is_empty());
    wait_for_card(&desk, &question.id).await;
    refusal(&desk, &image, "remote_images_blocked").await;
    let again = desk
        .revoke_remote_sender(LAUNCH_ACCOUNT_ID, "design-bot")
        .unwrap_err();
    assert_eq!(again.field.as_deref(), Some("sender"));
    desk.shutdown().await;
    drop(desk);

    let desk = open().await;
    assert!(
        desk.settings_view().remote_senders.is_empty(),
        "the revocation was saved"
    );
    desk.shutdown().await;
    server.shutdown().await;
}
