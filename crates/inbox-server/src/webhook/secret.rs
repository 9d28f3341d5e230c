//! The webhook signing secret, `whsec_<base64 key>`: `--webhook-secret` /
//! `INBOX_WEBHOOK_SECRET`, or generated once into `<data_dir>/webhook_secret` (mode 0600,
//! beside `tokens.json`) and reused on every later start. Never logged.

use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use inbox_protocol::validate::STANDARD_WEBHOOKS_SECRET_PREFIX;
use rand::RngCore;

pub const FILE_NAME: &str = "webhook_secret";

#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error(
        "webhook secret (--webhook-secret / INBOX_WEBHOOK_SECRET, or {0}) must be whsec_ followed by base64"
    )]
    Malformed(String),
    #[error("webhook secret file {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The HMAC key: from `configured`, else from the data dir's file (generated when absent).
pub fn load_or_generate(configured: Option<&str>, data_dir: &Path) -> Result<Vec<u8>, SecretError> {
    let path = data_dir.join(FILE_NAME);
    if let Some(secret) = configured {
        return decode(secret.trim()).ok_or_else(|| SecretError::Malformed("the flag".into()));
    }
    let io = |source| SecretError::Io {
        path: path.clone(),
        source,
    };
    if path.exists() {
        inbox_files::narrow_if_present(&path, inbox_files::FILE_MODE).map_err(io)?;
        let text = std::fs::read_to_string(&path).map_err(io)?;
        return decode(text.trim())
            .ok_or_else(|| SecretError::Malformed(path.display().to_string()));
    }
    let mut key = vec![0u8; 32];
    rand::rng().fill_bytes(&mut key);
    let text = format!(
        "{STANDARD_WEBHOOKS_SECRET_PREFIX}{}\n",
        STANDARD.encode(&key)
    );
    inbox_files::write_atomically(&path, text.as_bytes()).map_err(io)?;
    tracing::info!(path = %path.display(), "generated the webhook signing secret (mode 0600)");
    Ok(key)
}

fn decode(secret: &str) -> Option<Vec<u8>> {
    super::verify::secret_key(secret).ok()
}
