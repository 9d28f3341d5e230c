//! Local mode: with no account configured, the app runs the interactions server in-process on
//! loopback, with its SQLite data in the app's data dir, and signs in as its reviewer.
//!
//! It listens where `inbox` looks by default (`127.0.0.1:8790`), or on the next free port when
//! that is taken, and keeps the port it got (`port` beside its data) so that the links of its
//! external questions, which name the port, still work after a restart. The default instance
//! also writes the discovery file (`inbox_client::local_discovery`) so a bare `inbox ask` on
//! this machine reaches it.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};

use anyhow::Context;
use inbox_client::Token;
use inbox_client::local_discovery::LocalDiscovery;
use inbox_server::{Role, RunningServer, ServerConfig, ServerError};

/// The account id of the in-process server.
pub const ACCOUNT_ID: &str = "local";

/// The port `inbox` tries when told nothing (its default URL is `http://127.0.0.1:8790`).
pub const DEFAULT_PORT: u16 = 8790;

/// How many ports after the wanted one are tried when it is taken.
const PORT_ATTEMPTS: u16 = 32;

/// File beside the server's data that remembers the port it last listened on.
const PORT_FILE: &str = "port";

/// Where to listen and whether to announce it.
#[derive(Debug, Clone, Default)]
pub struct LocalServerOptions {
    /// Port asked for (`--local-port`); overrides the remembered one. `None`: the remembered
    /// port, else [`DEFAULT_PORT`]. `Some(0)`: any free port (tests).
    pub port: Option<u16>,
    /// Write the discovery file here while serving (the default instance only: a test or a
    /// second instance with its own data dir must not take over the user's bare `inbox`).
    pub discovery_file: Option<PathBuf>,
}

pub struct LocalServer {
    server: RunningServer,
    pub base_url: String,
    pub tokens_file: PathBuf,
    reviewer: Token,
    asker: Token,
    /// The discovery file written for this server (removed again on shutdown).
    announced: Option<(PathBuf, LocalDiscovery)>,
}

impl LocalServer {
    /// Start the server on loopback with its data in `data_dir` (see the module docs for the
    /// port it picks).
    pub async fn start(
        data_dir: &Path,
        options: &LocalServerOptions,
    ) -> anyhow::Result<LocalServer> {
        inbox_files::private_dir(data_dir)
            .with_context(|| format!("create {}", data_dir.display()))?;
        let port_file = data_dir.join(PORT_FILE);
        let wanted = options
            .port
            .or_else(|| remembered_port(&port_file))
            .unwrap_or(DEFAULT_PORT);
        let server = listen_from(wanted, data_dir).await?;
        let port = server.addr.port();
        if let Err(e) = inbox_files::write_atomically(&port_file, format!("{port}\n").as_bytes()) {
            tracing::warn!(path = %port_file.display(), error = %e, "could not remember the local port");
        }
        let tokens_file = server
            .tokens_file
            .clone()
            .context("the local server generated no tokens file")?;
        let reviewer = server
            .token_for(Role::Reviewer)
            .context("no reviewer token")?;
        let asker = server.token_for(Role::Asker).context("no asker token")?;
        tracing::info!(url = %server.base_url, "local server started");
        let announced = options.discovery_file.as_ref().and_then(|path| {
            let discovery = LocalDiscovery {
                url: server.base_url.clone(),
                tokens_file: tokens_file.clone(),
            };
            match discovery.write(path) {
                Ok(()) => {
                    tracing::info!(path = %path.display(), "discovery file written");
                    Some((path.clone(), discovery))
                }
                Err(e) => {
                    tracing::warn!(path = %path.display(), error = %e, "could not write the discovery file; a bare `inbox` will not find this app");
                    None
                }
            }
        });
        Ok(LocalServer {
            base_url: server.base_url.clone(),
            server,
            tokens_file,
            reviewer: Token::new(reviewer),
            asker: Token::new(asker),
            announced,
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
        if self.announced.is_some() {
            BARE_HINT.to_owned()
        } else {
            ask_hint(&self.base_url, &self.tokens_file)
        }
    }

    pub async fn shutdown(self) {
        if let Some((path, discovery)) = &self.announced {
            discovery.remove_if_current(path);
        }
        self.server.shutdown().await;
    }
}

/// The empty state's command when this app owns the discovery file: nothing to set.
const BARE_HINT: &str = "inbox ask --format confirm \"Deploy build 42 to production?\"";

/// Bind `wanted`, else the next free port after it.
async fn listen_from(wanted: u16, data_dir: &Path) -> anyhow::Result<RunningServer> {
    let last = wanted.saturating_add(PORT_ATTEMPTS - 1);
    for port in wanted..=last {
        let bind = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        match inbox_server::start(ServerConfig::new(bind, data_dir.to_owned())).await {
            Ok(server) => {
                if port != wanted {
                    tracing::info!(
                        wanted,
                        port,
                        "the wanted local port was taken; using the next free one"
                    );
                }
                return Ok(server);
            }
            Err(ServerError::Bind { source, .. })
                if source.kind() == std::io::ErrorKind::AddrInUse && port < last => {}
            Err(e) => return Err(e).context("start the local interactions server"),
        }
    }
    unreachable!("the last attempt returns")
}

fn remembered_port(path: &Path) -> Option<u16> {
    let text = std::fs::read_to_string(path).ok()?;
    text.trim().parse().ok().filter(|p| *p != 0)
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

    fn free_port() -> u16 {
        std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    }

    #[tokio::test]
    async fn without_discovery_the_hint_names_url_and_tokens_dir_but_no_token() {
        let dir = tempfile::tempdir().unwrap();
        let options = LocalServerOptions {
            port: Some(free_port()),
            discovery_file: None,
        };
        let local = LocalServer::start(dir.path(), &options).await.unwrap();
        assert_eq!(
            local.base_url,
            format!("http://127.0.0.1:{}", options.port.unwrap())
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

    #[tokio::test]
    async fn a_taken_port_moves_to_the_next_and_the_port_got_is_kept_for_the_next_start() {
        let dir = tempfile::tempdir().unwrap();
        // Hold a port, and make sure the one after it is free for the server to move to.
        let (held, wanted) = loop {
            let held = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let wanted = held.local_addr().unwrap().port();
            if wanted < u16::MAX && std::net::TcpListener::bind(("127.0.0.1", wanted + 1)).is_ok() {
                break (held, wanted);
            }
        };
        let discovery = dir.path().join("share").join("desktop-server.json");
        let options = LocalServerOptions {
            port: Some(wanted),
            discovery_file: Some(discovery.clone()),
        };
        let data = dir.path().join("local-server");
        let local = LocalServer::start(&data, &options).await.unwrap();
        assert_eq!(local.base_url, format!("http://127.0.0.1:{}", wanted + 1));
        assert_eq!(
            local.hint(),
            BARE_HINT,
            "with discovery the bare command is enough"
        );
        let found = LocalDiscovery::read(&discovery).unwrap().unwrap();
        assert_eq!(found.url, local.base_url);
        assert_eq!(found.tokens_file, local.tokens_file);
        local.shutdown().await;
        assert!(
            !discovery.exists(),
            "shutdown takes the discovery file away"
        );

        // Next start with nothing asked: the remembered port, though the wanted one is free.
        drop(held);
        let again = LocalServer::start(
            &data,
            &LocalServerOptions {
                port: None,
                discovery_file: None,
            },
        )
        .await
        .unwrap();
        assert_eq!(again.base_url, format!("http://127.0.0.1:{}", wanted + 1));
        again.shutdown().await;
    }

    #[test]
    fn the_hint_quotes_a_path_with_a_quote() {
        let hint = ask_hint("http://127.0.0.1:1", Path::new("/tmp/it's/tokens.json"));
        assert!(hint.contains(r"INBOX_DATA_DIR='/tmp/it'\''s' "), "{hint}");
    }
}
