//! Which route a token takes: never through a proxy to a server on this machine (requests,
//! stream and engine alike), never over plain http to another machine unless allowed.
//!
//! The proxy is configured explicitly ([`ProxySetting::Url`]) rather than through
//! `HTTP_PROXY`, because the environment is shared by every test thread of this process; the
//! CLI tests set the variables on a child process instead (crates/inbox-cli/tests/cli.rs).

mod common;

use std::time::Duration;

use common::*;
use inbox_client::stream::{SseConnection, StreamEnd, StreamSignal};
use inbox_client::{ApiClient, ClientError, ClientOptions, ProxySetting, Token};
use inbox_protocol::StatusFilter;
use inbox_sync::ConnectionStatus;
use inbox_test_net::recording_proxy::RecordingProxy;
use url::Url;

fn through(proxy: &RecordingProxy) -> ClientOptions {
    ClientOptions {
        proxy: ProxySetting::Url(Url::parse(&proxy.url).unwrap()),
        ..ClientOptions::default()
    }
}

async fn first_signal(connection: &mut SseConnection) -> StreamSignal {
    tokio::time::timeout(Duration::from_secs(10), connection.next())
        .await
        .expect("the stream answers")
}

#[tokio::test]
async fn a_token_for_a_loopback_server_never_reaches_the_proxy() {
    let server = TestServer::start().await;
    let proxy = RecordingProxy::start();
    let port = server.addr.port();
    for base in [
        format!("http://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
    ] {
        let api = ApiClient::with_options(&base, Token::new(ALICE), &through(&proxy)).unwrap();
        api.list(StatusFilter::Pending, Some(10), None)
            .await
            .unwrap_or_else(|e| panic!("list from {base}: {e}"));
        let mut stream = SseConnection::open(&api, None, Duration::from_secs(5)).unwrap();
        assert_eq!(
            first_signal(&mut stream).await,
            StreamSignal::Opened,
            "{base}"
        );
    }

    // The engine (what the desktop runs) takes the same route for pages and stream.
    let state = tempfile::tempdir().unwrap();
    let mut config = inbox_client::EngineConfig::new(state.path());
    config.client = through(&proxy);
    let engine = inbox_client::Engine::new(config, inbox_client::Keyring::in_memory().unwrap());
    add_account(&engine, "local", &server.url(), ALICE).await;
    wait_status(&engine, "local", Duration::from_secs(10), |s| {
        *s == ConnectionStatus::Online
    })
    .await;
    engine.shutdown().await;

    assert_eq!(
        proxy.heads(),
        Vec::<String>::new(),
        "the proxy saw requests"
    );
}

/// The control for the test above: the same setting does send another host's requests and
/// stream through the proxy, so an empty recording there means something.
#[tokio::test]
async fn the_same_setting_routes_a_remote_server_through_the_proxy() {
    let proxy = RecordingProxy::start();
    let options = ClientOptions {
        allow_insecure_http: true,
        ..through(&proxy)
    };
    let api = ApiClient::with_options(
        "http://inbox.example.invalid:8790",
        Token::new("remote-token-0123"),
        &options,
    )
    .unwrap();
    let refused = api
        .list(StatusFilter::Pending, None, None)
        .await
        .unwrap_err();
    assert_eq!(refused.status(), Some(502), "{refused}");
    let mut stream = SseConnection::open(&api, None, Duration::from_secs(5)).unwrap();
    assert_eq!(
        first_signal(&mut stream).await,
        StreamSignal::Closed(StreamEnd::Refused { status: 502 })
    );

    let heads = proxy.heads();
    assert_eq!(heads.len(), 2, "{heads:?}");
    assert!(
        heads[0].starts_with("GET http://inbox.example.invalid:8790/api/interactions?"),
        "{}",
        heads[0]
    );
    assert!(
        heads[1].starts_with("GET http://inbox.example.invalid:8790/api/interactions/stream"),
        "{}",
        heads[1]
    );
    for head in &heads {
        assert!(
            head.to_ascii_lowercase()
                .contains("authorization: bearer remote-token-0123"),
            "{head}"
        );
    }
}

#[tokio::test]
async fn plain_http_to_another_machine_is_refused_with_the_host_and_the_flag() {
    for base in ["http://203.0.113.9:8790", "http://inbox.example.com/"] {
        let refused = ApiClient::new(base, Token::new(ALICE)).unwrap_err();
        let host = Url::parse(base).unwrap().host_str().unwrap().to_owned();
        assert!(
            matches!(&refused, ClientError::InsecureHttp { host: h } if *h == host),
            "{refused:?}"
        );
        let message = refused.to_string();
        assert!(
            message.contains(&host) && message.contains("--allow-insecure-http"),
            "{message}"
        );
    }
    // An account in the engine with such a URL never gets a connection either.
    let state = tempfile::tempdir().unwrap();
    let engine = engine(state.path());
    let added = engine
        .add_account(
            account("remote", "http://203.0.113.9:8790"),
            Some(Token::new(ALICE)),
        )
        .await;
    assert!(added.is_err(), "an http account to another machine started");
    engine.shutdown().await;
}
