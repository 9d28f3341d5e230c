//! Which URLs the app accepts from the window: a server to follow, a link to open in the
//! browser, and the account id a server's URL gives. (Media URLs are [`crate::media`]'s.)

use std::collections::HashSet;

use inbox_client::AppCode;

use crate::CommandError;

fn bad(message: &str) -> CommandError {
    CommandError::new(AppCode::InvalidUrl, message).with_field("url")
}

/// `https:` always; plain `http:` only to this machine (a token must not cross a network in
/// the clear).
pub fn check_server_url(raw: &str) -> Result<url::Url, CommandError> {
    let url = url::Url::parse(raw.trim()).map_err(|_| bad("not a URL"))?;
    let loopback = match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        None => false,
    };
    match url.scheme() {
        "https" if url.host().is_some() => Ok(url),
        "http" if loopback => Ok(url),
        "http" => Err(bad(
            "use https (plain http is only for servers on this machine)",
        )),
        _ => Err(bad("the server URL must start with https://")),
    }
}

/// A link the system browser may open: http(s) only (no `file:`, no custom schemes).
pub fn check_browser_url(raw: &str) -> Result<url::Url, CommandError> {
    let url = url::Url::parse(raw).map_err(|_| bad("not a URL"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad("only http and https links open"));
    }
    Ok(url)
}

/// A file-name-safe account id from the host (and port), unique among `taken`.
pub fn account_id(url: &url::Url, taken: &HashSet<String>) -> String {
    let mut base: String = url
        .host_str()
        .unwrap_or("server")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    if let Some(port) = url.port() {
        base.push_str(&format!("-{port}"));
    }
    let base = base
        .trim_start_matches('.')
        .chars()
        .take(56)
        .collect::<String>();
    let base = if base.is_empty() {
        "server".to_owned()
    } else {
        base
    };
    if !taken.contains(&base) {
        return base;
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|c| !taken.contains(c))
        .expect("a free id")
}

#[cfg(test)]
mod tests {
    use super::*;

    type Check = fn(&str) -> Result<url::Url, CommandError>;

    /// `check` takes every URL of `accepted` and refuses every one of `refused` as an
    /// `invalid_url` on the field `url`.
    fn assert_checks(check: Check, accepted: &[&str], refused: &[&str]) {
        for ok in accepted {
            assert!(check(ok).is_ok(), "{ok}");
        }
        for bad in refused {
            let e = check(bad).unwrap_err();
            assert_eq!(
                (e.code.as_str(), e.field.as_deref()),
                ("invalid_url", Some("url")),
                "{bad}"
            );
        }
    }

    #[test]
    fn https_is_required_except_on_this_machine() {
        assert_checks(
            check_server_url,
            &[
                "https://inbox.example.com",
                "http://127.0.0.1:8790",
                "http://localhost:1",
                "http://[::1]:9",
            ],
            &[
                "http://inbox.example.com",
                "http://10.0.0.2",
                "ftp://x",
                "inbox.example.com",
                "file:///tmp",
            ],
        );
    }

    #[test]
    fn only_web_links_open_in_the_browser() {
        assert_checks(
            check_browser_url,
            &["https://example.com/a?b=1", "http://example.com"],
            &[
                "file:///etc/passwd",
                "javascript:alert(1)",
                "inbox://open?id=1",
                "not a url",
            ],
        );
    }

    #[test]
    fn account_ids_come_from_the_host_and_never_collide() {
        let url = url::Url::parse("https://Inbox.Work.Acme:8443/x").unwrap();
        let mut taken = HashSet::new();
        let first = account_id(&url, &taken);
        assert_eq!(first, "inbox.work.acme-8443");
        taken.insert(first);
        assert_eq!(account_id(&url, &taken), "inbox.work.acme-8443-2");
        let account = inbox_client::Account::new(
            account_id(&url, &taken),
            "x",
            "https://inbox.work.acme:8443",
        );
        assert!(account.is_ok());
    }
}
