//! Where the server is and who we are: flags, then env, then the local server's tokens file.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
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
    /// Server URL.
    #[arg(long, env = "INBOX_URL", default_value = DEFAULT_URL, global = true)]
    pub url: String,
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
        let token = match &self.token {
            Some(t) => Token::new(t.clone()),
            None => {
                let dir = self.data_dir.clone().unwrap_or_else(default_data_dir);
                local_token(&dir, acting).with_context(|| {
                    format!(
                        "no token given (--token or INBOX_TOKEN) and none found for role `{}` in {}",
                        acting.role_name(),
                        dir.join("tokens.json").display()
                    )
                })?
            }
        };
        // Proxies come from HTTP_PROXY/HTTPS_PROXY/ALL_PROXY/NO_PROXY, but never for loopback.
        let options = ClientOptions {
            allow_insecure_http: self.allow_insecure_http,
            ..ClientOptions::default()
        };
        Ok(ApiClient::with_options(&self.url, token, &options)?)
    }
}

/// The per-user data dir: `$XDG_DATA_HOME/interactions-inbox`, else `~/.local/share/interactions-inbox`.
pub fn default_data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("interactions-inbox");
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    home.join(".local/share/interactions-inbox")
}

#[derive(serde::Deserialize)]
struct TokenEntry {
    role: String,
    secret: String,
}

fn local_token(dir: &Path, acting: Acting) -> anyhow::Result<Token> {
    let path = dir.join("tokens.json");
    let text = std::fs::read_to_string(&path)?;
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
