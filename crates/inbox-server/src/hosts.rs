//! The `Host` allow-list. A page on a foreign site can make a browser send requests to a
//! loopback server by rebinding its own DNS name to 127.0.0.1 (DNS rebinding); the request then
//! carries the foreign name in `Host`. Serving only the names this server is known by stops
//! that before any door runs.
//!
//! Allowed: the bound address itself (for a loopback bind also `127.0.0.1`, `localhost` and
//! `[::1]` on the bound port), the public URL's host, and configured names. For an unspecified
//! bind (`0.0.0.0`, `[::]`) the server cannot know its own addresses, so any IP literal on the
//! bound port is served: an IP literal cannot be rebound, only a name can.

use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;

use axum::http::uri::Authority;

/// One allowed name; without a port it matches every port.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Allowed {
    host: String,
    port: Option<u16>,
}

/// The names this server answers to.
#[derive(Debug, Clone)]
pub struct AllowedHosts {
    names: Vec<Allowed>,
    /// For an unspecified bind: IP literals on this port are served.
    any_ip_on: Option<u16>,
}

#[derive(Debug, thiserror::Error)]
#[error("allowed host `{0}` is not a host name or address, optionally with :port")]
pub struct AllowedHostError(pub String);

impl AllowedHosts {
    /// What a server bound to `bind` (the actual address, port known) with `public_url`
    /// serves, plus `configured` (`name` or `name:port`).
    pub fn for_server(
        bind: SocketAddr,
        public_url: Option<&url::Url>,
        configured: &[String],
    ) -> Result<AllowedHosts, AllowedHostError> {
        let port = Some(bind.port());
        let mut names = Vec::new();
        let mut any_ip_on = None;
        if bind.ip().is_unspecified() {
            any_ip_on = port;
        } else {
            names.push(Allowed {
                host: normalise(&bind.ip().to_string()),
                port,
            });
        }
        if bind.ip().is_loopback() || bind.ip().is_unspecified() {
            for host in ["127.0.0.1", "localhost", "::1"] {
                names.push(Allowed {
                    host: host.to_owned(),
                    port,
                });
            }
        }
        if let Some(url) = public_url
            && let Some(host) = url.host_str()
        {
            names.push(Allowed {
                host: normalise(host),
                port: url.port_or_known_default(),
            });
        }
        for entry in configured {
            names.push(parse_entry(entry).ok_or_else(|| AllowedHostError(entry.clone()))?);
        }
        Ok(AllowedHosts { names, any_ip_on })
    }

    /// For a router built without a listener (tests, embedding): the loopback names on any
    /// port and the public URL's host.
    pub fn loopback_and(public_url: &str) -> AllowedHosts {
        let mut names: Vec<Allowed> = ["127.0.0.1", "localhost", "::1"]
            .iter()
            .map(|h| Allowed {
                host: (*h).to_owned(),
                port: None,
            })
            .collect();
        if let Ok(url) = url::Url::parse(public_url)
            && let Some(host) = url.host_str()
        {
            names.push(Allowed {
                host: normalise(host),
                port: url.port_or_known_default(),
            });
        }
        AllowedHosts {
            names,
            any_ip_on: None,
        }
    }

    /// Whether a request naming `authority` (a `Host` header value) is served.
    pub fn allows(&self, authority: &str) -> bool {
        let Ok(parsed) = Authority::from_str(authority) else {
            return false;
        };
        // Userinfo has no place in a Host header.
        if authority.contains('@') {
            return false;
        }
        let host = normalise(parsed.host());
        let port = parsed.port_u16();
        if let Some(any_port) = self.any_ip_on
            && host.parse::<IpAddr>().is_ok()
            && port == Some(any_port)
        {
            return true;
        }
        self.names.iter().any(|allowed| {
            allowed.host == host
                && match (allowed.port, port) {
                    (None, _) => true,
                    (Some(want), Some(got)) => want == got,
                    // No port in Host means the scheme's default: http behind us, or https at
                    // a TLS proxy in front.
                    (Some(want), None) => want == 80 || want == 443,
                }
        })
    }
}

/// Lowercase, without IPv6 brackets or a trailing dot, so `LOCALHOST.`, `[::1]` and `::1` compare equal.
fn normalise(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

fn parse_entry(entry: &str) -> Option<Allowed> {
    let entry = entry.trim();
    if entry.is_empty() || entry.contains(['/', '@', ' ']) {
        return None;
    }
    // A bare IPv6 address has colons of its own; only a bracketed one can carry a port.
    if let Ok(ip) = entry.parse::<IpAddr>() {
        return Some(Allowed {
            host: normalise(&ip.to_string()),
            port: None,
        });
    }
    let parsed = Authority::from_str(entry).ok()?;
    Some(Allowed {
        host: normalise(parsed.host()),
        port: parsed.port_u16(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loopback() -> AllowedHosts {
        AllowedHosts::for_server("127.0.0.1:8790".parse().unwrap(), None, &[]).unwrap()
    }

    #[test]
    fn a_loopback_server_serves_its_own_names_on_its_port() {
        let hosts = loopback();
        for ok in [
            "127.0.0.1:8790",
            "localhost:8790",
            "LOCALHOST.:8790",
            "[::1]:8790",
        ] {
            assert!(hosts.allows(ok), "{ok}");
        }
        for refused in [
            "evil.example:8790",
            "127.0.0.1:9999",
            "localhost",
            "localhost.evil.example:8790",
            "user@localhost:8790",
            "",
            "127.0.0.1:8790/x",
        ] {
            assert!(!hosts.allows(refused), "{refused}");
        }
    }

    #[test]
    fn the_public_url_and_configured_names_are_served() {
        let public = url::Url::parse("https://inbox.example.org").unwrap();
        let hosts = AllowedHosts::for_server(
            "127.0.0.1:8790".parse().unwrap(),
            Some(&public),
            &[
                "inbox.internal".into(),
                "lb.example:8443".into(),
                "10.0.0.7".into(),
            ],
        )
        .unwrap();
        for ok in [
            "inbox.example.org",
            "inbox.example.org:443",
            "inbox.internal:1234",
            "lb.example:8443",
            "10.0.0.7:8790",
        ] {
            assert!(hosts.allows(ok), "{ok}");
        }
        for refused in ["inbox.example.org:8443", "lb.example:80", "lb.example"] {
            assert!(!hosts.allows(refused), "{refused}");
        }
        assert!(
            AllowedHosts::for_server("127.0.0.1:1".parse().unwrap(), None, &["a/b".into()])
                .is_err()
        );
    }

    #[test]
    fn an_unspecified_bind_serves_ip_literals_but_no_foreign_name() {
        let hosts = AllowedHosts::for_server("0.0.0.0:8790".parse().unwrap(), None, &[]).unwrap();
        assert!(hosts.allows("192.168.1.20:8790"));
        assert!(hosts.allows("[fe80::1]:8790"));
        assert!(hosts.allows("localhost:8790"));
        assert!(!hosts.allows("192.168.1.20:8791"));
        assert!(!hosts.allows("rebind.evil.example:8790"));
    }
}
