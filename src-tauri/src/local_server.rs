//! Local mode: with no account configured, the app runs the interactions server in-process on
//! loopback, with its SQLite data in the app's data dir, and signs in as its reviewer.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};

use anyhow::Context;
use inbox_client::Token;
use inbox_server::{Role, RunningServer, ServerConfig};

/// The account id of the in-process server.
pub const ACCOUNT_ID: &str = "local";

pub struct LocalServer {
    server: RunningServer,
    pub base_url: String,
    pub tokens_file: PathBuf,
    reviewer: Token,
    asker: Token,
}

impl LocalServer {
    /// Start the server on `127.0.0.1:0` with its data in `data_dir`.
    pub async fn start(data_dir: &Path) -> anyhow::Result<LocalServer> {
        inbox_client::private_files::create_dir(data_dir)
            .with_context(|| format!("create {}", data_dir.display()))?;
        let bind = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
        let server = inbox_server::start(ServerConfig::new(bind, data_dir.to_owned()))
            .await
            .context("start the local interactions server")?;
        let tokens_file = server
            .tokens_file
            .clone()
            .context("the local server generated no tokens file")?;
        let reviewer = server
            .token_for(Role::Reviewer)
            .context("no reviewer token")?;
        let asker = server.token_for(Role::Asker).context("no asker token")?;
        tracing::info!(url = %server.base_url, "local server started");
        Ok(LocalServer {
            base_url: server.base_url.clone(),
            server,
            tokens_file,
            reviewer: Token::new(reviewer),
            asker: Token::new(asker),
        })
    }

    pub fn reviewer(&self) -> Token {
        self.reviewer.clone()
    }

    pub fn asker(&self) -> Token {
        self.asker.clone()
    }

    /// The command line that asks this server a test question (for the empty state). `inbox`
    /// finds the asker token itself in the tokens file of `INBOX_DATA_DIR`, so the hint holds no
    /// secret and needs no other tool.
    pub fn hint(&self) -> String {
        ask_hint(&self.base_url, &self.tokens_file)
    }

    pub async fn shutdown(self) {
        self.server.shutdown().await;
    }
}

fn ask_hint(base_url: &str, tokens_file: &Path) -> String {
    let dir = tokens_file.parent().unwrap_or(Path::new("."));
    let dir = dir.display().to_string().replace('\'', r"'\''");
    format!(
        "INBOX_URL={base_url} INBOX_DATA_DIR='{dir}' \
         inbox ask --format confirm \"Deploy build 42 to production?\""
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn local_mode_serves_on_loopback_and_the_hint_names_only_the_tokens_file() {
        let dir = tempfile::tempdir().unwrap();
        let local = LocalServer::start(dir.path()).await.unwrap();
        assert!(
            local.base_url.starts_with("http://127.0.0.1:"),
            "{}",
            local.base_url
        );
        let hint = local.hint();
        assert!(hint.contains(&local.base_url));
        assert!(hint.contains("INBOX_DATA_DIR="));
        assert!(hint.contains(&local.tokens_file.parent().unwrap().display().to_string()));
        assert!(
            !hint.contains(local.asker().expose()),
            "the hint must not carry the asker token"
        );
        assert!(
            !hint.contains(local.reviewer().expose()),
            "nor the reviewer token"
        );
        // The reviewer token works against the server it came from.
        let api = inbox_client::ApiClient::new(&local.base_url, local.reviewer()).unwrap();
        let page = api
            .list(inbox_protocol::StatusFilter::Pending, None, None)
            .await
            .unwrap();
        assert!(page.items.is_empty());
        local.shutdown().await;
    }

    #[test]
    fn the_hint_quotes_a_path_with_a_quote() {
        let hint = ask_hint("http://127.0.0.1:1", Path::new("/tmp/it's/tokens.json"));
        assert!(hint.contains(r"INBOX_DATA_DIR='/tmp/it'\''s' "), "{hint}");
    }
}
