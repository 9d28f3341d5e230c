//! `<data_dir>/tokens.json`: the reviewer and asker tokens generated on first start when no
//! tokens are configured, reused on every later start. Mode 0600; the secrets never reach a log.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::config::{Role, TokenSpec};
use crate::ids;
use crate::server::ServerError;

pub const FILE_NAME: &str = "tokens.json";

/// The tokens in the data dir, generated first if the file does not exist yet.
pub fn load_or_generate(data_dir: &Path) -> Result<(Vec<TokenSpec>, PathBuf), ServerError> {
    let path = data_dir.join(FILE_NAME);
    let failed = |message: String| ServerError::TokensFile {
        path: path.clone(),
        message,
    };
    if path.exists() {
        let text = std::fs::read_to_string(&path).map_err(|e| failed(e.to_string()))?;
        let tokens: Vec<TokenSpec> =
            serde_json::from_str(&text).map_err(|e| failed(e.to_string()))?;
        if tokens.is_empty() {
            return Err(failed("lists no tokens".into()));
        }
        return Ok((tokens, path));
    }
    let tokens = vec![
        TokenSpec {
            name: "local-reviewer".into(),
            role: Role::Reviewer,
            secret: ids::token_secret(),
        },
        TokenSpec {
            name: "local-asker".into(),
            role: Role::Asker,
            secret: ids::token_secret(),
        },
    ];
    let text = serde_json::to_string_pretty(&tokens).map_err(|e| failed(e.to_string()))?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&path).map_err(|e| failed(e.to_string()))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.write_all(b"\n"))
        .and_then(|()| file.sync_all())
        .map_err(|e| failed(e.to_string()))?;
    Ok((tokens, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generates_once_with_private_mode_and_reuses() {
        let dir = tempfile::tempdir().unwrap();
        let (first, path) = load_or_generate(dir.path()).unwrap();
        assert_eq!(first.len(), 2);
        assert_eq!(first[0].role, Role::Reviewer);
        assert_eq!(first[1].name, "local-asker");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(r#""role": "reviewer""#));
        let (again, _) = load_or_generate(dir.path()).unwrap();
        assert_eq!(first, again);
    }
}
