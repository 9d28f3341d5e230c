//! How `inbox` on this machine finds the desktop app's local server without being told: the
//! app writes `desktop-server.json` (its URL and the path of the tokens file, never a token)
//! into the per-user data dir when its in-process server is listening, and removes it when it
//! stops. The file is 0600 and replaced atomically (see `inbox_files`), so a reader
//! sees either the old or the new content, never half of one.
//!
//! A file left by an app that crashed is *stale*: it names a port nobody listens on.
//! [`LocalDiscovery::check_listening`] tells that apart so the CLI can say so plainly.

use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// File name inside [`user_data_dir`].
pub const FILE_NAME: &str = "desktop-server.json";

/// How long a connect to the named port may take before the server counts as not running.
/// Loopback answers (or refuses) in microseconds; this only bounds a wedged host.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// Largest discovery file read: it holds one URL and one path.
const MAX_FILE_BYTES: u64 = 64 * 1024;

/// The per-user data dir shared by `inbox serve` (its default data dir) and the desktop app's
/// discovery file: `$XDG_DATA_HOME/interactions-inbox`, else `~/.local/share/interactions-inbox`.
pub fn user_data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("interactions-inbox");
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    home.join(".local/share/interactions-inbox")
}

/// Where the running app's discovery file is looked for.
pub fn default_path() -> PathBuf {
    user_data_dir().join(FILE_NAME)
}

/// What the discovery file says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalDiscovery {
    /// Base URL of the app's local server, e.g. `http://127.0.0.1:8790`.
    pub url: String,
    /// The server's generated `tokens.json` (itself 0600); the tokens stay there.
    pub tokens_file: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum DiscoveryError {
    #[error("could not read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a discovery file ({reason}); remove it, the app rewrites it on start")]
    Damaged { path: PathBuf, reason: String },
    #[error(
        "no Interactions Inbox server is running at {url}: {path} names it, but nothing listens \
         there (the app was closed or crashed). Start the desktop app (inbox-desktop) or \
         `inbox serve`, or give --url and --token"
    )]
    NotRunning { url: String, path: PathBuf },
}

impl LocalDiscovery {
    /// Read the file at `path`; `Ok(None)` when there is none (no app has run its server).
    pub fn read(path: &Path) -> Result<Option<LocalDiscovery>, DiscoveryError> {
        let read_error = |source| DiscoveryError::Read {
            path: path.to_owned(),
            source,
        };
        let file = match std::fs::File::open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(read_error(e)),
        };
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(
            &mut std::io::Read::take(file, MAX_FILE_BYTES + 1),
            &mut bytes,
        )
        .map_err(read_error)?;
        let damaged = |reason: String| DiscoveryError::Damaged {
            path: path.to_owned(),
            reason,
        };
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(damaged(format!("larger than {MAX_FILE_BYTES} bytes")));
        }
        let found: LocalDiscovery =
            serde_json::from_slice(&bytes).map_err(|e| damaged(e.to_string()))?;
        found.socket_addr().map_err(damaged)?;
        Ok(Some(found))
    }

    /// Write to `path` (its directory made 0700 if missing), atomically and 0600.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            inbox_files::private_dir(dir)?;
        }
        let mut text = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        text.push(b'\n');
        inbox_files::write_atomically(path, &text)
    }

    /// Remove `path` if it still names this server (a newer app may have replaced it).
    pub fn remove_if_current(&self, path: &Path) {
        if let Ok(Some(current)) = LocalDiscovery::read(path)
            && current == *self
            && let Err(e) = std::fs::remove_file(path)
        {
            tracing::warn!(path = %path.display(), error = %e, "could not remove the discovery file");
        }
    }

    /// `Ok` when something accepts connections at the URL; [`DiscoveryError::NotRunning`] when
    /// the file is stale. `path` is only for the message.
    pub fn check_listening(&self, path: &Path) -> Result<(), DiscoveryError> {
        let not_running = || DiscoveryError::NotRunning {
            url: self.url.clone(),
            path: path.to_owned(),
        };
        let addr = self.socket_addr().map_err(|_| not_running())?;
        TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT)
            .map(drop)
            .map_err(|_| not_running())
    }

    /// The loopback address in the URL. Only `http://` to this machine is accepted: the file
    /// must not be able to send the local tokens anywhere else.
    fn socket_addr(&self) -> Result<SocketAddr, String> {
        let url = url::Url::parse(&self.url).map_err(|e| format!("url: {e}"))?;
        if url.scheme() != "http" {
            return Err("url: not http://".into());
        }
        let host = url.host_str().ok_or("url: no host")?;
        let port = url.port_or_known_default().ok_or("url: no port")?;
        let addr = (host.trim_matches(['[', ']']), port)
            .to_socket_addrs()
            .map_err(|e| format!("url: {e}"))?
            .next()
            .ok_or("url: host has no address")?;
        if !addr.ip().is_loopback() {
            return Err("url: not a loopback address".into());
        }
        Ok(addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_private_read_back_and_removed_only_while_current() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested").join(FILE_NAME);
        assert!(LocalDiscovery::read(&path).unwrap().is_none());
        let ours = LocalDiscovery {
            url: "http://127.0.0.1:8790".into(),
            tokens_file: "/tmp/x/tokens.json".into(),
        };
        ours.write(&path).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert_eq!(LocalDiscovery::read(&path).unwrap(), Some(ours.clone()));

        let newer = LocalDiscovery {
            url: "http://127.0.0.1:8791".into(),
            ..ours.clone()
        };
        newer.write(&path).unwrap();
        ours.remove_if_current(&path);
        assert!(path.exists(), "another app's file is left alone");
        newer.remove_if_current(&path);
        assert!(!path.exists());
    }

    #[test]
    fn a_file_pointing_off_this_machine_or_garbled_is_refused_with_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        for (content, why) in [
            (
                r#"{"url":"http://10.1.2.3:8790","tokens_file":"/t"}"#,
                "loopback",
            ),
            (
                r#"{"url":"https://127.0.0.1:8790","tokens_file":"/t"}"#,
                "http",
            ),
            ("{nope", "key must be a string"),
        ] {
            std::fs::write(&path, content).unwrap();
            let err = LocalDiscovery::read(&path).unwrap_err().to_string();
            assert!(err.contains(&path.display().to_string()), "{err}");
            assert!(err.contains(why), "{err}");
        }
    }

    #[test]
    fn a_stale_file_says_nothing_is_running() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let found = LocalDiscovery {
            url: format!("http://127.0.0.1:{port}"),
            tokens_file: "/t".into(),
        };
        found.check_listening(Path::new("/d.json")).unwrap();
        drop(listener);
        let err = found
            .check_listening(Path::new("/d.json"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("no Interactions Inbox server is running"),
            "{err}"
        );
        assert!(err.contains("/d.json"), "{err}");
    }
}
