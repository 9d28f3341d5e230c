//! How the client reaches a server: which URLs it sends a token to, and whether a proxy sits
//! in between. One decision, made once per [`crate::ApiClient`], that the HTTP requests and the
//! SSE stream both follow — they once disagreed, and the requests sent the reviewer's token to
//! an `HTTP_PROXY` even for a server on this machine.
//!
//! - A server on this machine (loopback) is reached directly, whatever the proxy setting: a
//!   proxy has no business seeing a token meant for a local process.
//! - Plain `http://` to any other host is refused unless [`ClientOptions::allow_insecure_http`]
//!   says so: the token would cross the network in the clear.
//! - Otherwise the proxy comes from [`ProxySetting`]: the environment by default, read here by
//!   one set of rules (reqwest and the stream's transport read it differently).

use std::net::{IpAddr, Ipv6Addr};

use url::{Host, Url};

use crate::error::ClientError;

/// What the caller decides about reaching a server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientOptions {
    /// Send requests (and the token) over plain `http://` to a host that is not this machine.
    /// The CLI sets it from `--allow-insecure-http` / `INBOX_ALLOW_INSECURE_HTTP`.
    pub allow_insecure_http: bool,
    /// Which proxy to use for servers that are not on this machine.
    pub proxy: ProxySetting,
}

/// Where the proxy for a non-loopback server comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ProxySetting {
    /// `https_proxy`/`HTTPS_PROXY` for https, `http_proxy`/`HTTP_PROXY` for http, then
    /// `all_proxy`/`ALL_PROXY`; `no_proxy`/`NO_PROXY` lists hosts reached directly (`*`, exact
    /// names, domain suffixes, exact IPs; CIDR ranges are not read).
    #[default]
    Environment,
    /// Always connect directly.
    Off,
    /// This proxy for every non-loopback server.
    Url(Url),
}

/// How requests to one server travel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Direct,
    Proxy(Url),
}

/// True when `url` names this machine: `localhost`, 127.0.0.0/8, `::1` (also IPv4-mapped).
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(name)) => {
            let name = name.strip_suffix('.').unwrap_or(name);
            name.eq_ignore_ascii_case("localhost")
        }
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ipv6_is_loopback(ip),
        None => false,
    }
}

fn ipv6_is_loopback(ip: Ipv6Addr) -> bool {
    ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
}

/// Refuse what the client will not send a token to: a scheme other than http(s), or plain
/// http to another machine without the caller's explicit consent.
pub(crate) fn check_url(url: &Url, options: &ClientOptions) -> Result<(), ClientError> {
    match url.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(url) || options.allow_insecure_http => Ok(()),
        "http" => Err(ClientError::InsecureHttp {
            host: url.host_str().unwrap_or_default().to_owned(),
        }),
        _ => Err(ClientError::InvalidUrl {
            url: url.to_string(),
            reason: "the scheme must be http or https".into(),
        }),
    }
}

/// The route to `url` under `setting`, reading the environment through `env`.
pub(crate) fn route(
    url: &Url,
    setting: &ProxySetting,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Route, ClientError> {
    if is_loopback(url) {
        return Ok(Route::Direct);
    }
    match setting {
        ProxySetting::Off => Ok(Route::Direct),
        ProxySetting::Url(proxy) => Ok(Route::Proxy(proxy.clone())),
        ProxySetting::Environment => from_environment(url, env),
    }
}

/// The route the process environment gives.
pub(crate) fn route_from_process(url: &Url, setting: &ProxySetting) -> Result<Route, ClientError> {
    route(url, setting, |name| std::env::var(name).ok())
}

fn from_environment(url: &Url, env: impl Fn(&str) -> Option<String>) -> Result<Route, ClientError> {
    let read = |names: &[&'static str]| -> Option<(&'static str, String)> {
        names.iter().find_map(|name| {
            env(name)
                .filter(|v| !v.trim().is_empty())
                .map(|v| (*name, v))
        })
    };
    if let Some((_, list)) = read(&["no_proxy", "NO_PROXY"])
        && bypassed(url, &list)
    {
        return Ok(Route::Direct);
    }
    let scheme_vars: &[&str] = if url.scheme() == "https" {
        &["https_proxy", "HTTPS_PROXY"]
    } else {
        &["http_proxy", "HTTP_PROXY"]
    };
    let Some((name, value)) = read(scheme_vars).or_else(|| read(&["all_proxy", "ALL_PROXY"]))
    else {
        return Ok(Route::Direct);
    };
    let value = value.trim();
    // `proxy.corp:3128` means an http proxy, as curl and reqwest read it.
    let with_scheme = if value.contains("://") {
        value.to_owned()
    } else {
        format!("http://{value}")
    };
    let proxy = Url::parse(&with_scheme).map_err(|e| ClientError::InvalidProxy {
        source_name: format!("${name}"),
        reason: e.to_string(),
    })?;
    Ok(Route::Proxy(proxy))
}

/// Whether a `NO_PROXY` list names the host of `url`.
fn bypassed(url: &Url, list: &str) -> bool {
    let Some(host) = url.host() else {
        return false;
    };
    let host_ip: Option<IpAddr> = match host {
        Host::Ipv4(ip) => Some(IpAddr::V4(ip)),
        Host::Ipv6(ip) => Some(IpAddr::V6(ip)),
        Host::Domain(_) => None,
    };
    let name = url.host_str().unwrap_or_default().to_ascii_lowercase();
    list.split(',').map(str::trim).any(|entry| {
        if entry == "*" {
            return true;
        }
        let bare = entry.trim_start_matches(['[']).trim_end_matches([']']);
        if let (Some(ip), Ok(listed)) = (host_ip, bare.parse::<IpAddr>()) {
            return ip == listed;
        }
        // `host:port` entries: the port does not matter for one server.
        let entry = match entry.rsplit_once(':') {
            Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) => h,
            _ => entry,
        };
        let domain = entry
            .trim_start_matches("*.")
            .trim_start_matches('.')
            .to_ascii_lowercase();
        !domain.is_empty() && (name == domain || name.ends_with(&format!(".{domain}")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    const EVERY_PROXY: &[(&str, &str)] = &[
        ("http_proxy", "http://proxy.corp:3128"),
        ("HTTP_PROXY", "http://proxy.corp:3128"),
        ("https_proxy", "http://proxy.corp:3128"),
        ("HTTPS_PROXY", "http://proxy.corp:3128"),
        ("ALL_PROXY", "socks5://proxy.corp:1080"),
    ];

    #[test]
    fn loopback_hosts() {
        for (u, loopback) in [
            ("http://127.0.0.1:8790", true),
            ("http://127.1.2.3", true),
            ("http://localhost:1", true),
            ("http://LOCALHOST./", true),
            ("http://[::1]:8790", true),
            ("http://[::ffff:127.0.0.1]", true),
            ("http://[::ffff:10.0.0.1]", false),
            ("http://10.0.0.1", false),
            ("http://0.0.0.0", false),
            ("http://localhost.example.com", false),
            ("http://inbox.example.com", false),
        ] {
            assert_eq!(is_loopback(&url(u)), loopback, "{u}");
        }
    }

    #[test]
    fn a_loopback_server_is_reached_directly_whatever_the_setting() {
        let explicit = ProxySetting::Url(url("http://proxy.corp:3128"));
        for u in [
            "http://127.0.0.1:8790",
            "https://localhost",
            "http://[::1]:1",
        ] {
            for setting in [&ProxySetting::Environment, &explicit, &ProxySetting::Off] {
                assert_eq!(
                    route(&url(u), setting, env(EVERY_PROXY)).unwrap(),
                    Route::Direct,
                    "{u} with {setting:?}"
                );
            }
        }
    }

    /// Proxy variables as a process would have them.
    type Vars = &'static [(&'static str, &'static str)];

    #[test]
    fn the_environment_is_read_by_one_set_of_rules() {
        let via = |p: &str| Route::Proxy(url(p));
        let direct_or_via = |proxy: Option<&str>| proxy.map_or(Route::Direct, via);
        const HTTPS: &str = "https://inbox.example.com";
        const HTTP: &str = "http://inbox.example.com";
        // (target, the variables, the proxy it goes through: None is direct)
        let cases: &[(&str, Vars, Option<&str>)] = &[
            (HTTPS, &[], None),
            (HTTPS, &[("HTTPS_PROXY", "http://p:1")], Some("http://p:1")),
            // An http proxy variable does not cover https…
            (HTTPS, &[("HTTP_PROXY", "http://p:1")], None),
            // …but ALL_PROXY covers both, below the scheme's own variable.
            (
                HTTPS,
                &[("ALL_PROXY", "http://all:1")],
                Some("http://all:1"),
            ),
            (
                HTTP,
                &[("ALL_PROXY", "http://all:1"), ("http_proxy", "http://h:1")],
                Some("http://h:1"),
            ),
            (
                HTTPS,
                &[("https_proxy", "proxy.corp:3128")],
                Some("http://proxy.corp:3128"),
            ),
            (HTTPS, &[("https_proxy", "  ")], None),
        ];
        for &(target, vars, proxy) in cases {
            let got = route(&url(target), &ProxySetting::Environment, env(vars)).unwrap();
            assert_eq!(got, direct_or_via(proxy), "{target} with {vars:?}");
        }

        // NO_PROXY, beside HTTPS_PROXY=http://p:1: a domain suffix, with or without the dot, an
        // exact IP, `*`. (target, the NO_PROXY variable, whether it goes direct)
        let exemptions: &[(&str, (&str, &str), bool)] = &[
            (HTTPS, ("NO_PROXY", "example.com"), true),
            (HTTPS, ("no_proxy", "other, .example.com"), true),
            (HTTPS, ("NO_PROXY", "ample.com"), false),
            ("https://10.1.2.3:8790", ("NO_PROXY", "10.1.2.3"), true),
            ("https://[2001:db8::1]", ("NO_PROXY", "[2001:db8::1]"), true),
            (HTTPS, ("NO_PROXY", "inbox.example.com:443"), true),
            (HTTPS, ("NO_PROXY", "*"), true),
        ];
        for &(target, no_proxy, direct) in exemptions {
            let vars = [("HTTPS_PROXY", "http://p:1"), no_proxy];
            let expected = if direct {
                Route::Direct
            } else {
                via("http://p:1")
            };
            let got = route(&url(target), &ProxySetting::Environment, env(&vars)).unwrap();
            assert_eq!(got, expected, "{target} with {vars:?}");
        }
    }

    #[test]
    fn explicit_settings_override_the_environment() {
        let target = url("https://inbox.example.com");
        assert_eq!(
            route(&target, &ProxySetting::Off, env(EVERY_PROXY)).unwrap(),
            Route::Direct
        );
        let mine = url("http://mine:8080");
        assert_eq!(
            route(&target, &ProxySetting::Url(mine.clone()), env(EVERY_PROXY)).unwrap(),
            Route::Proxy(mine)
        );
    }

    #[test]
    fn plain_http_only_to_this_machine_unless_allowed() {
        let strict = ClientOptions::default();
        let lax = ClientOptions {
            allow_insecure_http: true,
            ..ClientOptions::default()
        };
        for ok in [
            "http://127.0.0.1:8790",
            "http://localhost",
            "http://[::1]",
            "https://inbox.example.com",
        ] {
            check_url(&url(ok), &strict).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
        let refused = check_url(&url("http://inbox.example.com:8790/"), &strict).unwrap_err();
        let message = refused.to_string();
        assert!(
            matches!(&refused, ClientError::InsecureHttp { host } if host == "inbox.example.com"),
            "{refused:?}"
        );
        assert!(
            message.contains("inbox.example.com") && message.contains("--allow-insecure-http"),
            "{message}"
        );
        check_url(&url("http://inbox.example.com"), &lax).unwrap();
        assert!(check_url(&url("ftp://inbox.example.com"), &lax).is_err());
    }
}
