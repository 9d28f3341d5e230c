//! Remote media (an image, video or audio at an `https:` URL a question carries), fetched by
//! the app rather than by the web view, and only once the reviewer allowed it (the desktop
//! decides that; this module only fetches).
//!
//! The URL is chosen by whoever asked, so the fetch is guarded against being turned on the
//! reviewer's own network (SSRF):
//! - `https:` only, no proxy (a proxy would resolve the name itself, past the check below);
//! - the host is resolved here and every address must be public ([`address::is_public`]);
//!   the connection then goes to exactly those vetted addresses (reqwest's `resolve`
//!   override), so a second DNS answer cannot swap in a private one (DNS rebinding);
//! - redirects are not followed (a hop could lead to http or to a private address);
//! - the body is capped at [`MAX_REMOTE_MEDIA_BYTES`], the whole fetch at [`FETCH_TIMEOUT`];
//! - the response's `Content-Type` must be of the kind asked for (`image/*` for an image…);
//! - no cookies, no credentials, no referrer.

pub mod address;

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use url::{Host, Url};

use crate::api::MediaBody;

/// Larger bodies are refused rather than inlined into the page (the same cap as the server's
/// own media).
pub const MAX_REMOTE_MEDIA_BYTES: usize = 16 * 1024 * 1024;
/// The whole fetch, connect to last byte.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(30);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// What the question says the media is; the response must agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoteKind {
    Image,
    Video,
    Audio,
}

impl RemoteKind {
    /// The top-level media type a response of this kind must have.
    pub fn media_type(self) -> &'static str {
        match self {
            RemoteKind::Image => "image",
            RemoteKind::Video => "video",
            RemoteKind::Audio => "audio",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RemoteMediaError {
    #[error("remote media is fetched over https only")]
    NotHttps,
    #[error("the media URL has no host")]
    NoHost,
    #[error("could not resolve {host}: {source}")]
    Resolve {
        host: String,
        #[source]
        source: std::io::Error,
    },
    /// The host is (or resolves to) an address that is not on the public internet.
    #[error(
        "{host} is not a public address ({address}); remote media is never fetched from this machine or its networks"
    )]
    NotPublic { host: String, address: IpAddr },
    #[error("the media host redirected ({status}); redirects are not followed")]
    Redirected { status: u16 },
    #[error("the media host answered {status}")]
    Status { status: u16 },
    #[error("the media host sent `{content_type}`, not {expected}")]
    WrongType {
        expected: &'static str,
        content_type: String,
    },
    #[error("the media is larger than {limit} bytes")]
    TooLarge { limit: usize },
    #[error("could not load the media: {0}")]
    Transport(#[source] reqwest::Error),
}

/// Fetches remote media under the guard above.
#[derive(Debug, Clone)]
pub struct RemoteFetcher {
    /// Which addresses may be connected to.
    vet: fn(IpAddr) -> bool,
    /// Plain http is accepted only by the module's own tests (their server has no TLS).
    https_only: bool,
    limit: usize,
}

impl Default for RemoteFetcher {
    fn default() -> Self {
        RemoteFetcher {
            vet: address::is_public,
            https_only: true,
            limit: MAX_REMOTE_MEDIA_BYTES,
        }
    }
}

impl RemoteFetcher {
    pub fn new() -> RemoteFetcher {
        RemoteFetcher::default()
    }

    /// Fetch `url` as media of `kind`.
    pub async fn fetch(&self, url: &Url, kind: RemoteKind) -> Result<MediaBody, RemoteMediaError> {
        if url.scheme() != "https" && (self.https_only || url.scheme() != "http") {
            return Err(RemoteMediaError::NotHttps);
        }
        let host = url.host().ok_or(RemoteMediaError::NoHost)?;
        let port = url
            .port_or_known_default()
            .ok_or(RemoteMediaError::NoHost)?;
        let host_name = url.host_str().unwrap_or_default().to_owned();
        let addresses = self.vetted_addresses(&host, &host_name, port).await?;

        let mut builder = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(FETCH_TIMEOUT)
            .https_only(self.https_only)
            .referer(false);
        if let Host::Domain(domain) = &host {
            // Connect to the addresses checked above and nothing else: no second lookup.
            builder = builder.resolve_to_addrs(domain, &addresses);
        }
        let http = builder.build().map_err(RemoteMediaError::Transport)?;
        let accept = format!("{}/*", kind.media_type());
        let mut resp = http
            .get(url.clone())
            .header(reqwest::header::ACCEPT, accept)
            .send()
            .await
            .map_err(RemoteMediaError::Transport)?;
        let status = resp.status();
        if status.is_redirection() {
            return Err(RemoteMediaError::Redirected {
                status: status.as_u16(),
            });
        }
        if !status.is_success() {
            return Err(RemoteMediaError::Status {
                status: status.as_u16(),
            });
        }
        let content_type = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .trim()
            .to_owned();
        if !is_of_kind(&content_type, kind) {
            return Err(RemoteMediaError::WrongType {
                expected: kind.media_type(),
                content_type,
            });
        }
        let too_large = RemoteMediaError::TooLarge { limit: self.limit };
        if resp.content_length().is_some_and(|n| n > self.limit as u64) {
            return Err(too_large);
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(RemoteMediaError::Transport)? {
            if bytes.len() + chunk.len() > self.limit {
                return Err(too_large);
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(MediaBody {
            content_type,
            bytes,
        })
    }

    async fn vetted_addresses(
        &self,
        host: &Host<&str>,
        host_name: &str,
        port: u16,
    ) -> Result<Vec<SocketAddr>, RemoteMediaError> {
        let addresses: Vec<SocketAddr> = match host {
            Host::Ipv4(ip) => vec![SocketAddr::new(IpAddr::V4(*ip), port)],
            Host::Ipv6(ip) => vec![SocketAddr::new(IpAddr::V6(*ip), port)],
            Host::Domain(domain) => tokio::net::lookup_host((*domain, port))
                .await
                .map_err(|source| RemoteMediaError::Resolve {
                    host: host_name.to_owned(),
                    source,
                })?
                .collect(),
        };
        if addresses.is_empty() {
            return Err(RemoteMediaError::Resolve {
                host: host_name.to_owned(),
                source: std::io::Error::other("no address"),
            });
        }
        // One private answer among public ones is refused too: such a name is not a plain
        // media host, and picking the public ones would still let it probe what answers.
        if let Some(bad) = addresses.iter().find(|a| !(self.vet)(a.ip())) {
            return Err(RemoteMediaError::NotPublic {
                host: host_name.to_owned(),
                address: bad.ip(),
            });
        }
        Ok(addresses)
    }
}

/// `image/png; charset=…` is an image; `text/html`, `image` and `image/` are not.
fn is_of_kind(content_type: &str, kind: RemoteKind) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim();
    let Some((top, sub)) = essence.split_once('/') else {
        return false;
    };
    top.eq_ignore_ascii_case(kind.media_type())
        && !sub.is_empty()
        && sub
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    #[test]
    fn content_types_must_match_the_kind() {
        for (ct, kind, ok) in [
            ("image/png", RemoteKind::Image, true),
            ("IMAGE/JPEG; charset=binary", RemoteKind::Image, true),
            ("image/svg+xml", RemoteKind::Image, true),
            ("video/mp4", RemoteKind::Video, true),
            ("audio/ogg", RemoteKind::Audio, true),
            ("video/mp4", RemoteKind::Image, false),
            ("text/html", RemoteKind::Image, false),
            ("image", RemoteKind::Image, false),
            ("image/", RemoteKind::Image, false),
            ("image/png,text/html", RemoteKind::Image, false),
            ("", RemoteKind::Audio, false),
        ] {
            assert_eq!(is_of_kind(ct, kind), ok, "{ct} as {kind:?}");
        }
    }

    /// A loopback HTTP server answering every request with `response`; counts connections.
    async fn serve(response: Vec<u8>) -> (u16, Arc<AtomicUsize>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let hits = Arc::new(AtomicUsize::new(0));
        let counted = hits.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                let response = response.clone();
                tokio::spawn(async move {
                    let mut buf = [0u8; 4096];
                    let _ = socket.read(&mut buf).await;
                    let _ = socket.write_all(&response).await;
                });
            }
        });
        (port, hits)
    }

    fn response(head: &str, body: &[u8]) -> Vec<u8> {
        let mut r = format!(
            "HTTP/1.1 {head}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        )
        .into_bytes();
        r.extend_from_slice(body);
        r
    }

    /// The fetch logic after the guard, against a plain-http loopback server: only these
    /// tests may skip the guard (and TLS), through this constructor.
    fn trusting_loopback(limit: usize) -> RemoteFetcher {
        RemoteFetcher {
            vet: |ip| ip.is_loopback(),
            https_only: false,
            limit,
        }
    }

    fn local(port: u16, path: &str) -> Url {
        Url::parse(&format!("http://127.0.0.1:{port}{path}")).unwrap()
    }

    #[tokio::test]
    async fn the_guard_refuses_a_loopback_image_before_connecting() {
        let (port, hits) = serve(response("200 OK\r\ncontent-type: image/png", b"PNG")).await;
        let fetcher = RemoteFetcher::new();
        for url in [
            format!("https://127.0.0.1:{port}/a.png"),
            format!("https://localhost:{port}/a.png"),
            format!("https://[::ffff:127.0.0.1]:{port}/a.png"),
        ] {
            let refused = fetcher
                .fetch(&Url::parse(&url).unwrap(), RemoteKind::Image)
                .await
                .unwrap_err();
            assert!(
                matches!(refused, RemoteMediaError::NotPublic { address, .. } if !address::is_public(address)),
                "{url}: {refused:?}"
            );
        }
        let plain = fetcher
            .fetch(&local(port, "/a.png"), RemoteKind::Image)
            .await
            .unwrap_err();
        assert!(matches!(plain, RemoteMediaError::NotHttps), "{plain:?}");
        assert_eq!(hits.load(Ordering::SeqCst), 0, "the server was reached");

        // The control: past the guard, the same server does answer (so 0 above means refused).
        let fetched = trusting_loopback(1024)
            .fetch(&local(port, "/a.png"), RemoteKind::Image)
            .await
            .unwrap();
        assert_eq!(fetched.bytes, b"PNG");
        assert_eq!(fetched.content_type, "image/png");
        assert_eq!(hits.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn redirects_wrong_types_and_oversize_bodies_are_refused() {
        use RemoteKind::{Image, Video};
        use RemoteMediaError::{Redirected, Status, TooLarge, WrongType};
        let redirect = response(
            "302 Found\r\nlocation: http://169.254.169.254/latest/meta-data/",
            b"",
        );
        let html = response("200 OK\r\ncontent-type: text/html", b"<script>");
        let image = response("200 OK\r\ncontent-type: image/png", b"PNG");
        let oversized = response("200 OK\r\ncontent-type: image/png", b"0123456789");
        // A body longer than its announced length is cut at the cap too.
        let mut unannounced =
            b"HTTP/1.1 200 OK\r\ncontent-type: image/png\r\nconnection: close\r\n\r\n".to_vec();
        unannounced.extend_from_slice(&[0u8; 64]);
        let not_found = response("404 Not Found\r\ncontent-type: image/png", b"");

        type Refusal = fn(&RemoteMediaError) -> bool;
        let redirected: Refusal = |e| matches!(e, Redirected { status: 302 });
        let wrong_type: Refusal = |e| matches!(e, WrongType { .. });
        let over_the_cap: Refusal = |e| matches!(e, TooLarge { limit: 8 });
        let too_large: Refusal = |e| matches!(e, TooLarge { .. });
        let status_404: Refusal = |e| matches!(e, Status { status: 404 });
        // (case, what the server answers, the kind the question says, the refusal)
        let cases = [
            ("a redirect", redirect, Image, redirected),
            ("html as an image", html, Image, wrong_type),
            ("an image as a video", image, Video, wrong_type),
            ("a body over the cap", oversized, Image, over_the_cap),
            ("a body beyond its length", unannounced, Image, too_large),
            ("a 404", not_found, Image, status_404),
        ];
        let fetcher = trusting_loopback(8);
        for (case, served, kind, refused_as) in cases {
            let (port, _) = serve(served).await;
            // The path plays no part: the kind is judged by the response's type.
            let e = fetcher
                .fetch(&local(port, "/media"), kind)
                .await
                .unwrap_err();
            assert!(refused_as(&e), "{case}: {e:?}");
        }
    }
}
