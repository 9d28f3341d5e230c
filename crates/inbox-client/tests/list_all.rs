//! `ApiClient::list_all` against a scripted server: it follows `next_cursor` to the end, and it
//! refuses a server that leads it back to a cursor it was already given instead of looping.

use std::sync::{Arc, Mutex};

use inbox_client::{ApiClient, ClientError, Token};
use inbox_protocol::StatusFilter;
use inbox_test_net::read_head;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

/// Serves the list door from `script`: the request whose `cursor` is `k` (or none: `-`) gets a
/// page with no items and the `next_cursor` the script names for `k`. Records every cursor asked.
async fn scripted(
    script: &'static [(&'static str, Option<&'static str>)],
) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = asked.clone();
    tokio::spawn(async move {
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            let log = log.clone();
            tokio::spawn(async move {
                loop {
                    let mut head = Vec::new();
                    if read_head(&mut socket, &mut head).await.is_err() {
                        return;
                    }
                    let head = String::from_utf8(head).unwrap();
                    let target = head.split(' ').nth(1).unwrap().to_owned();
                    let cursor = target
                        .split(['?', '&'])
                        .find_map(|p| p.strip_prefix("cursor="))
                        .unwrap_or("-")
                        .to_owned();
                    log.lock().unwrap().push(cursor.clone());
                    let next = script
                        .iter()
                        .find(|(k, _)| *k == cursor)
                        .unwrap_or_else(|| panic!("no page scripted for cursor {cursor}"))
                        .1;
                    let body = serde_json::json!({
                        "items": [], "next_cursor": next, "stream_cursor": "0"
                    })
                    .to_string();
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                        body.len()
                    );
                    if socket.write_all(reply.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (url, asked)
}

fn client(url: &str) -> ApiClient {
    ApiClient::new(url, Token::new("reviewer-token")).unwrap()
}

#[tokio::test]
async fn it_follows_the_cursors_to_the_last_page() {
    let (url, asked) = scripted(&[("-", Some("c1")), ("c1", Some("c2")), ("c2", None)]).await;
    let all = client(&url).list_all(StatusFilter::Pending).await.unwrap();
    assert!(all.is_empty());
    assert_eq!(*asked.lock().unwrap(), ["-", "c1", "c2"]);
}

#[tokio::test]
async fn a_cursor_handed_back_twice_is_refused_not_followed_forever() {
    let (url, asked) = scripted(&[("-", Some("c1")), ("c1", Some("c2")), ("c2", Some("c1"))]).await;
    let refused = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        client(&url).list_all(StatusFilter::Pending),
    )
    .await
    .expect("list_all returns instead of looping")
    .unwrap_err();
    assert!(
        matches!(&refused, ClientError::RepeatedCursor { cursor } if cursor == "c1"),
        "{refused:?}"
    );
    assert!(
        refused
            .to_string()
            .contains("repeated the page cursor `c1`"),
        "{refused}"
    );
    assert_eq!(
        *asked.lock().unwrap(),
        ["-", "c1", "c2"],
        "c1 is not asked again"
    );
}
