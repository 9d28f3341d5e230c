//! The server's files are private: the data dir 0700; the database, its WAL and SHM, and the
//! generated tokens 0600 — on a fresh start, and narrowed on a start over an open old dir. A
//! damaged tokens file stops the start with a message that says where, what and how to fix.

#![cfg(unix)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::json;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

fn assert_private(data: &Path) {
    assert_eq!(mode(data), 0o700, "data dir");
    for file in [
        "inbox.sqlite3",
        "inbox.sqlite3-wal",
        "inbox.sqlite3-shm",
        "tokens.json",
    ] {
        assert_eq!(mode(&data.join(file)), 0o600, "{file}");
    }
}

#[tokio::test]
async fn a_fresh_data_dir_is_private_from_the_start() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("nested/data");
    let server = common::start_in(&data, |c| c.tokens.clear()).await;
    // Write something, so the WAL has content.
    let asker = server.server.token_for(inbox_server::Role::Asker).unwrap();
    let resp = server
        .request(reqwest::Method::POST, "/api/interactions", Some(&asker))
        .json(&json!({"prompt": "private?", "answer_format": "confirm"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), reqwest::StatusCode::CREATED);
    assert_private(&data);
    assert!(
        std::fs::metadata(data.join("inbox.sqlite3-wal"))
            .unwrap()
            .len()
            > 0
    );
    server.shutdown().await;
}

#[tokio::test]
async fn an_open_old_data_dir_is_narrowed_on_start() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let first = common::start_in(&data, |c| c.tokens.clear()).await;
    first.shutdown().await;
    let open = |path: &Path, m: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(m)).unwrap()
    };
    open(&data, 0o755);
    for file in ["inbox.sqlite3", "tokens.json"] {
        open(&data.join(file), 0o644);
    }
    for file in ["inbox.sqlite3-wal", "inbox.sqlite3-shm"] {
        if data.join(file).exists() {
            open(&data.join(file), 0o666);
        }
    }
    let again = common::start_in(&data, |c| c.tokens.clear()).await;
    let (status, _) = again.get_json("/readyz", None).await;
    assert_eq!(status, reqwest::StatusCode::OK);
    assert_private(&data);
    again.shutdown().await;
}

#[tokio::test]
async fn a_damaged_tokens_file_stops_the_start_and_says_how_to_fix_it() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let path = data.join("tokens.json");
    // What a crash in the middle of an in-place write would leave.
    std::fs::write(
        &path,
        br#"[{"name": "local-reviewer", "role": "reviewer", "secr"#,
    )
    .unwrap();
    let mut config = inbox_server::ServerConfig::new("127.0.0.1:0".parse().unwrap(), data.clone());
    config.tokens.clear();
    let err = match inbox_server::start(config).await {
        Ok(_) => panic!("a damaged tokens file must stop the start"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(
        err.contains("damaged") && err.contains("ends early"),
        "{err}"
    );
    assert!(err.contains("line 1, column"), "{err}");
    assert!(err.contains("move it aside"), "{err}");
}

/// `/readyz` reports the store, not just the process: 503 `unavailable` while another process
/// holds the database's write lock (a backup tool, a `sqlite3` shell), 200 again once it lets
/// go. A ping that only ran `SELECT 1` answered 200 throughout.
#[tokio::test]
async fn readyz_is_503_while_the_sqlite_store_cannot_serve() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let server = common::start_in(&data, |_| {}).await;
    let (status, _) = server.get_json("/readyz", None).await;
    assert_eq!(status, reqwest::StatusCode::OK);

    let db = data.join(inbox_server::DATABASE_FILE);
    let holder = rusqlite::Connection::open(&db).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let (status, body) = server.get_json("/readyz", None).await;
    assert_eq!(status, reqwest::StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["error"]["code"], "unavailable");
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);
    let (status, _) = server.get_json("/readyz", None).await;
    assert_eq!(status, reqwest::StatusCode::OK);

    server.shutdown().await;
}
