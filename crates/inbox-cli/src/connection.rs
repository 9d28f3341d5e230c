//! Where the server is and who we are: flags, then env; with neither, the running desktop app's
//! discovery file, then the tokens file a local `inbox serve` left in the default data dir.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use inbox_client::local_discovery::{self, LocalDiscovery};
use inbox_client::{ApiClient, ClientOptions, Token};

/// The role a command acts in; picks the matching token from a local tokens file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acting {
    Reviewer,
    Asker,
}

impl Acting {
    fn role_name(self) -> &'static str {
        match self {
            Acting::Reviewer => "reviewer",
            Acting::Asker => "asker",
        }
    }
}

pub const DEFAULT_URL: &str = "http://127.0.0.1:8790";

#[derive(clap::Args, Debug, Clone)]
pub struct ConnectionArgs {
    /// Server URL. Without it (and without --token/--data-dir), the desktop app running on this
    /// machine is found through its discovery file; with no app running, http://127.0.0.1:8790.
    #[arg(long, env = "INBOX_URL", global = true)]
    pub url: Option<String>,
    /// Bearer token. Without it, the token a local `inbox serve` generated for this role is used.
    #[arg(long, env = "INBOX_TOKEN", hide_env_values = true, global = true)]
    pub token: Option<String>,
    /// Data dir of the local server, to find its generated tokens when no token is given.
    #[arg(long, env = "INBOX_DATA_DIR", global = true)]
    pub data_dir: Option<PathBuf>,
    /// Allow a plain http:// URL to a host that is not this machine. Without it such a URL is
    /// refused: the token would cross the network unencrypted. (http to loopback is always fine.)
    /// The env var takes 1/0, true/false, yes/no, on/off.
    #[arg(
        long,
        env = "INBOX_ALLOW_INSECURE_HTTP",
        global = true,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub allow_insecure_http: bool,
}

impl ConnectionArgs {
    pub fn client(&self, acting: Acting) -> anyhow::Result<ApiClient> {
        let (url, token) = self.resolve(acting)?;
        // Proxies come from HTTP_PROXY/HTTPS_PROXY/ALL_PROXY/NO_PROXY, but never for loopback.
        let options = ClientOptions {
            allow_insecure_http: self.allow_insecure_http,
            ..ClientOptions::default()
        };
        Ok(ApiClient::with_options(&url, token, &options)?)
    }

    /// The server URL and token this command uses.
    fn resolve(&self, acting: Acting) -> anyhow::Result<(String, Token)> {
        let told = self.url.is_some() || self.token.is_some() || self.data_dir.is_some();
        let discovery_path = local_discovery::default_path();
        if !told && let Some(found) = LocalDiscovery::read(&discovery_path)? {
            found.check_listening(&discovery_path)?;
            let token = token_in(&found.tokens_file, acting).with_context(|| {
                format!(
                    "the desktop app at {} (found through {}) left no `{}` token in {}",
                    found.url,
                    discovery_path.display(),
                    acting.role_name(),
                    found.tokens_file.display()
                )
            })?;
            return Ok((found.url, token));
        }
        let url = self.url.clone().unwrap_or_else(|| DEFAULT_URL.to_owned());
        let token = match &self.token {
            Some(t) => Token::new(t.clone()),
            None => {
                let file = self
                    .data_dir
                    .clone()
                    .unwrap_or_else(default_data_dir)
                    .join("tokens.json");
                token_in(&file, acting).with_context(|| {
                    if told {
                        format!(
                            "no token given (--token or INBOX_TOKEN) and none found for role `{}` in {}",
                            acting.role_name(),
                            file.display()
                        )
                    } else {
                        format!(
                            "no server found: no desktop app is running (no {}) and no local \
                             `inbox serve` left tokens in {}. Start the desktop app \
                             (inbox-desktop) or `inbox serve`, or give --url and --token",
                            discovery_path.display(),
                            file.display()
                        )
                    }
                })?
            }
        };
        Ok((url, token))
    }
}

/// The per-user data dir: `$XDG_DATA_HOME/interactions-inbox`, else `~/.local/share/interactions-inbox`.
pub fn default_data_dir() -> PathBuf {
    local_discovery::user_data_dir()
}

#[derive(serde::Deserialize)]
struct TokenEntry {
    role: String,
    secret: String,
}

fn token_in(path: &Path, acting: Acting) -> anyhow::Result<Token> {
    let text = std::fs::read_to_string(path)?;
    let entries: Vec<TokenEntry> = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a tokens file", path.display()))?;
    let pick = entries
        .iter()
        .find(|e| e.role == acting.role_name())
        .or_else(|| entries.iter().find(|e| e.role == "admin"));
    match pick {
        Some(e) => Ok(Token::new(e.secret.clone())),
        None => bail!(
            "no `{}` or `admin` token in {}",
            acting.role_name(),
            path.display()
        ),
    }
}
