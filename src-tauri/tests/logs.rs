//! The log file of a real run: local mode (the in-process server), a question asked by the
//! asker and answered through the app, then every log file scanned for the tokens and the
//! answer's text — neither may be there, while the run itself must be.

use std::time::Duration;

mod support;

use inbox_client::{ApiClient, Token};
use inbox_desktop::desk::Desk;
use inbox_desktop::launch::LaunchOptions;
use inbox_desktop::local_server::ACCOUNT_ID;
use inbox_protocol::AnswerFormat;

#[derive(serde::Deserialize)]
struct TokenEntry {
    role: String,
    secret: String,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_file_records_the_run_but_never_a_token_or_an_answer() {
    let dir = tempfile::tempdir().unwrap();
    let options = LaunchOptions {
        data_dir: Some(dir.path().join("desk")),
        local_port: Some(0),
        label: "Server".into(),
        ..LaunchOptions::default()
    };
    let logs = inbox_desktop::logs::logs_dir(&options).unwrap();
    let (used, guard) = inbox_desktop::logs::init(Some(&logs));
    assert_eq!(used.as_deref(), Some(logs.as_path()));

    let desk = Desk::open(&options, dir.path().join("unused"), dir.path().join("cfg"))
        .await
        .unwrap();
    let tokens_file = dir.path().join("desk/local-server/tokens.json");
    let tokens: Vec<TokenEntry> =
        serde_json::from_str(&std::fs::read_to_string(&tokens_file).unwrap()).unwrap();
    let secret = |role: &str| {
        tokens
            .iter()
            .find(|t| t.role == role)
            .map(|t| t.secret.clone())
            .unwrap()
    };
    let (reviewer, asker) = (secret("reviewer"), secret("asker"));
    let base = desk.engine.accounts()[0].server_url.clone();
    let api = ApiClient::new(&base, Token::new(asker.clone())).unwrap();
    let question = support::ask(&api, "What is the launch code?", AnswerFormat::Text).await;
    support::wait_for_card_in(&desk.engine, ACCOUNT_ID, &question.id).await;
    let answer = "zebra-umbrella-4417 is the answer";
    desk.engine
        .answer(ACCOUNT_ID, &question.id, serde_json::json!(answer), None)
        .await
        .unwrap();
    support::eventually(
        "the answer reached the server",
        Duration::from_secs(10),
        async || api.get(&question.id).await.unwrap().answer.is_some(),
    )
    .await;
    desk.shutdown().await;
    drop(desk);
    drop(guard); // flush

    let mut text = String::new();
    for entry in std::fs::read_dir(&logs).unwrap() {
        let path = entry.unwrap().path();
        assert!(
            path.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(inbox_desktop::logs::FILE_PREFIX),
            "{}",
            path.display()
        );
        text.push_str(&std::fs::read_to_string(&path).unwrap());
    }
    assert!(
        text.contains("local server started"),
        "the run is logged: {text}"
    );
    assert!(
        text.contains(&question.id),
        "which question was answered is logged"
    );
    for (what, secret) in [
        ("reviewer token", reviewer.as_str()),
        ("asker token", asker.as_str()),
        ("answer", "zebra-umbrella-4417"),
    ] {
        assert!(!text.contains(secret), "the log holds the {what}:\n{text}");
    }
}
