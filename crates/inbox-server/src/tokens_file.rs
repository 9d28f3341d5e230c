//! `<data_dir>/tokens.json`: the reviewer and asker tokens generated on first start when no
//! tokens are configured, reused on every later start. Mode 0600, written atomically (a crash
//! mid-write leaves no half file); the secrets never reach a log. A damaged file stops the
//! start with its path, what is wrong and how to recover — never silently replaced, since
//! clients hold the tokens it lists.

use std::path::{Path, PathBuf};

use crate::config::{Role, TokenSpec};
use crate::ids;

pub const FILE_NAME: &str = "tokens.json";

/// The tokens file could not be read or written: its path, and what is wrong and what to do.
#[derive(Debug, thiserror::Error)]
#[error("tokens file {path}: {message}")]
pub struct TokensFileError {
    pub path: PathBuf,
    pub message: String,
}

/// The tokens in the data dir, generated first if the file does not exist yet.
pub fn load_or_generate(data_dir: &Path) -> Result<(Vec<TokenSpec>, PathBuf), TokensFileError> {
    let path = data_dir.join(FILE_NAME);
    let failed = |message: String| TokensFileError {
        path: path.clone(),
        message,
    };
    let damaged = |what: String| {
        failed(format!(
            "is damaged: {what}. Repair it (a JSON list of {{\"name\", \"role\", \"secret\"}}), \
             or move it aside to generate new tokens on the next start (clients then need the new ones)"
        ))
    };
    if path.exists() {
        inbox_files::narrow_if_present(&path, inbox_files::FILE_MODE)
            .map_err(|e| failed(e.to_string()))?;
        let text = std::fs::read_to_string(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => damaged("it is not UTF-8 text".into()),
            _ => failed(e.to_string()),
        })?;
        let tokens: Vec<TokenSpec> = serde_json::from_str(&text).map_err(|e| {
            damaged(format!(
                "{} at line {}, column {}",
                describe(&e),
                e.line(),
                e.column()
            ))
        })?;
        if tokens.is_empty() {
            return Err(damaged("it lists no tokens".into()));
        }
        if let Some(t) = tokens
            .iter()
            .find(|t| t.name.is_empty() || t.secret.is_empty())
        {
            let which = if t.name.is_empty() {
                "a name"
            } else {
                "a secret"
            };
            return Err(damaged(format!("a token has an empty {which}")));
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
    let mut text = serde_json::to_string_pretty(&tokens).map_err(|e| failed(e.to_string()))?;
    text.push('\n');
    inbox_files::write_atomically(&path, text.as_bytes()).map_err(|e| failed(e.to_string()))?;
    Ok((tokens, path))
}

/// A serde error without its position (reported apart), said plainly.
fn describe(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let plain = text.split(" at line ").next().unwrap_or(&text).to_owned();
    match e.classify() {
        serde_json::error::Category::Eof => format!("it ends early ({plain})"),
        serde_json::error::Category::Syntax => format!("it is not valid JSON ({plain})"),
        _ => format!("it does not list tokens ({plain})"),
    }
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

    #[test]
    fn a_damaged_file_is_reported_with_its_path_what_and_how_to_fix() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        for (content, what) in [
            (
                &b"[{\"name\": \"a\", \"role\": \"reviewer\", \"sec"[..],
                "ends early",
            ),
            (b"not json", "not valid JSON"),
            (
                b"[{\"name\": \"a\", \"role\": \"boss\", \"secret\": \"s\"}]",
                "does not list tokens",
            ),
            (b"[]", "lists no tokens"),
            (b"\xff\xfe", "not UTF-8"),
        ] {
            std::fs::write(&path, content).unwrap();
            let err = load_or_generate(dir.path()).expect_err("a damaged file stops the start");
            let message = err.to_string();
            assert!(message.contains(&path.display().to_string()), "{message}");
            assert!(message.contains(what), "{message}");
            assert!(message.contains("move it aside"), "{message}");
            assert_eq!(
                std::fs::read(&path).unwrap(),
                content,
                "the file is left as it was"
            );
        }
    }
}
