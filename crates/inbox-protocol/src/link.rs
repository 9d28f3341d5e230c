//! `inbox://open/<id>`: the link that opens one question in the desktop app. `inbox ask` prints
//! it; the app's desktop entry registers the `inbox` scheme, so a click on it (in a terminal, a
//! chat, a browser) opens the question in the running app, or starts the app on it. The same
//! link opens a question whatever account holds it: the app finds the account.

/// The URL scheme the desktop app handles.
pub const LINK_SCHEME: &str = "inbox";

/// Longest question id a link may carry; real ids are far shorter.
const LINK_ID_MAX: usize = 128;

/// Why a link was not one the app opens.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    #[error("not an {LINK_SCHEME}:// link")]
    Scheme,
    #[error("{LINK_SCHEME}:// links open a question: {LINK_SCHEME}://open/<id>")]
    Action,
    #[error("`{0}` is not a question id")]
    Id(String),
}

/// The link that opens question `id`.
pub fn open_link(id: &str) -> String {
    format!("{LINK_SCHEME}://open/{id}")
}

/// The question id an `inbox://open/<id>` link names. Strict: anything else in the link (a
/// query, a fragment, more path) is refused rather than guessed at, since links come from
/// anywhere.
pub fn parse_open_link(link: &str) -> Result<String, LinkError> {
    let rest = link
        .strip_prefix(LINK_SCHEME)
        .and_then(|r| r.strip_prefix("://"))
        .ok_or(LinkError::Scheme)?;
    let id = rest.strip_prefix("open/").ok_or(LinkError::Action)?;
    let id = id.strip_suffix('/').unwrap_or(id);
    let well_formed = id.starts_with("ia_")
        && id.len() > 3
        && id.len() <= LINK_ID_MAX
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !well_formed {
        return Err(LinkError::Id(id.chars().take(LINK_ID_MAX).collect()));
    }
    Ok(id.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_names_one_question_or_says_what_is_wrong() {
        let cases: &[(&str, Result<&str, LinkError>)] = &[
            ("inbox://open/ia_7k3q2m", Ok("ia_7k3q2m")),
            ("inbox://open/ia_7k3q2m/", Ok("ia_7k3q2m")),
            ("https://open/ia_7k3q2m", Err(LinkError::Scheme)),
            ("inbox:open/ia_7k3q2m", Err(LinkError::Scheme)),
            ("inbox://answer/ia_7k3q2m", Err(LinkError::Action)),
            ("inbox://open/", Err(LinkError::Id(String::new()))),
            ("inbox://open/ia_", Err(LinkError::Id("ia_".into()))),
            ("inbox://open/nt_42", Err(LinkError::Id("nt_42".into()))),
            (
                "inbox://open/ia_x?account=a",
                Err(LinkError::Id("ia_x?account=a".into())),
            ),
            (
                "inbox://open/ia_x/more",
                Err(LinkError::Id("ia_x/more".into())),
            ),
            (
                "inbox://open/ia_%2e%2e",
                Err(LinkError::Id("ia_%2e%2e".into())),
            ),
        ];
        for (link, want) in cases {
            assert_eq!(
                parse_open_link(link),
                want.clone().map(str::to_owned),
                "{link}"
            );
        }
        assert_eq!(parse_open_link(&open_link("ia_abc")), Ok("ia_abc".into()));
        let long = format!("inbox://open/ia_{}", "a".repeat(500));
        assert!(
            matches!(parse_open_link(&long), Err(LinkError::Id(id)) if id.len() == LINK_ID_MAX)
        );
    }
}
