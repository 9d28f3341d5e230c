//! One SSE connection against the real server: a refused token (401) is told apart from a
//! network failure and ends the subscription after one request.

mod common;

use std::time::Duration;

use common::*;
use inbox_client::connection::{LinkState, Subscription, Update};
use inbox_client::stream::{SseConnection, StreamEnd, StreamSignal};
use inbox_client::{ApiClient, BackoffPolicy, Token};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_token_is_told_apart_and_ends_the_subscription() {
    let mut server = TestServer::start().await;
    let api = ApiClient::new(&server.url(), Token::new("nope")).unwrap();
    let mut connection = SseConnection::open(&api, None, Duration::from_secs(5)).unwrap();
    assert_eq!(
        connection.next().await,
        StreamSignal::Closed(StreamEnd::Unauthorized)
    );

    let mut subscription = Subscription::new(
        api,
        None,
        BackoffPolicy {
            base: Duration::from_millis(10),
            cap: Duration::from_millis(20),
        },
        Duration::from_secs(5),
    );
    let mut updates = Vec::new();
    while let Some(update) = subscription.next().await {
        updates.push(update);
    }
    assert_eq!(
        updates,
        vec![
            Update::Link(LinkState::Connecting {
                last_event_id: None
            }),
            Update::Link(LinkState::SignedOut),
        ],
        "one request, then nothing"
    );
    server.stop().await;
}
