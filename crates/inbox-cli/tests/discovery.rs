//! A bare `inbox` (no URL, token or data dir anywhere) finds the server the desktop app runs
//! through the discovery file in the per-user data dir, and says plainly when none runs.
//! The server is a real `inbox serve` process; `HOME`/`XDG_DATA_HOME` point into a temp dir.

mod support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use inbox_client::local_discovery::{self, LocalDiscovery};
use support::{INBOX, start_server};

/// `inbox …` with nothing configured: only `home` (as HOME and XDG_DATA_HOME) to look in.
fn bare(home: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(INBOX);
    cmd.args(args)
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("share"))
        .env_remove("INBOX_URL")
        .env_remove("INBOX_TOKEN")
        .env_remove("INBOX_DATA_DIR");
    cmd
}

/// Where `inbox` run by [`bare`] looks for the discovery file.
fn discovery_path(home: &Path) -> PathBuf {
    home.join("share")
        .join("interactions-inbox")
        .join(local_discovery::FILE_NAME)
}

#[test]
fn a_bare_ask_and_answer_reach_the_server_named_by_the_discovery_file() {
    let server = start_server();
    let home = tempfile::tempdir().unwrap();
    LocalDiscovery {
        url: server.url.clone(),
        tokens_file: server.dir.path().join("tokens.json"),
    }
    .write(&discovery_path(home.path()))
    .unwrap();

    let mut asker = bare(home.path(), &["ask", "Deploy?", "--format", "confirm"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = BufReader::new(asker.stderr.take().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    let id = line
        .split_whitespace()
        .find(|w| w.starts_with("ia_"))
        .unwrap_or_else(|| panic!("no id in `{line}`"))
        .to_owned();

    // The reviewer side is bare too: the reviewer token comes from the same tokens file.
    let answered = bare(home.path(), &["answer", &id, "yes"]).output().unwrap();
    assert!(answered.status.success(), "{answered:?}");
    let out = asker.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "true");
}

#[test]
fn a_stale_discovery_file_says_no_server_is_running_and_where_it_looked() {
    let server = start_server();
    let home = tempfile::tempdir().unwrap();
    let path = discovery_path(home.path());
    LocalDiscovery {
        url: server.url.clone(),
        tokens_file: server.dir.path().join("tokens.json"),
    }
    .write(&path)
    .unwrap();
    let url = server.url.clone();
    drop(server); // the "app" crashed: the file stays, nothing listens

    let out = bare(home.path(), &["ask", "Deploy?", "--format", "confirm"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("no Interactions Inbox server is running at {url}")),
        "{stderr}"
    );
    assert!(stderr.contains(&path.display().to_string()), "{stderr}");
}

#[test]
fn with_no_app_and_no_local_serve_the_error_says_what_to_start() {
    let home = tempfile::tempdir().unwrap();
    let out = bare(home.path(), &["list"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no server found"), "{stderr}");
    assert!(
        stderr.contains(&discovery_path(home.path()).display().to_string()),
        "{stderr}"
    );
    assert!(stderr.contains("inbox-desktop"), "{stderr}");
}

#[test]
fn an_explicit_url_wins_over_the_discovery_file() {
    let server = start_server();
    let home = tempfile::tempdir().unwrap();
    // A stale file that would fail the command if it were consulted.
    LocalDiscovery {
        url: "http://127.0.0.1:9".into(),
        tokens_file: home.path().join("nowhere.json"),
    }
    .write(&discovery_path(home.path()))
    .unwrap();
    let out = bare(home.path(), &["list", "--json"])
        .env("INBOX_URL", &server.url)
        .env("INBOX_DATA_DIR", server.dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}
