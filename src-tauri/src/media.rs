//! `load_media`: the window asks for a media item's bytes and gets a `data:` URL back, so it
//! never needs the account's token and never contacts an image host on its own.
//!
//! - Same-origin references (`/api/interactions/media/<id>`) are fetched with the account's
//!   token by the engine.
//! - Remote `https:` media is fetched only once the reviewer allowed remote images for that
//!   question or its asker (a remote fetch discloses the reader's IP to the image host).
//! - Nothing else is fetched (no `http:`, no `file:`, no other origins' relative paths).

use std::collections::HashSet;
use std::time::Duration;

use base64::Engine as _;
use inbox_protocol::paths;
use inbox_sync::Card;

use crate::command_error::CommandError;

/// Larger bodies are refused rather than inlined into the page.
pub const MAX_MEDIA_BYTES: usize = 16 * 1024 * 1024;

/// Where a media URL may be loaded from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MediaSource {
    /// The account's own server, with its token.
    SameOrigin(String),
    /// A remote https URL (needs the reviewer's permission).
    Remote(url::Url),
}

/// Sort a URL the window asked for into what may be fetched.
pub fn classify(raw: &str) -> Result<MediaSource, CommandError> {
    if let Some(rest) = raw.strip_prefix(paths::MEDIA_PREFIX) {
        if rest.is_empty() || rest.contains(['/', '?', '#', '\\']) || rest.contains("..") {
            return Err(CommandError::new("invalid_url", "not a media reference").with_field("url"));
        }
        return Ok(MediaSource::SameOrigin(raw.to_owned()));
    }
    match url::Url::parse(raw) {
        Ok(url) if url.scheme() == "https" && url.host_str().is_some() => {
            Ok(MediaSource::Remote(url))
        }
        _ => Err(CommandError::new(
            "invalid_url",
            "only the server's own media and https URLs are loaded",
        )
        .with_field("url")),
    }
}

/// The reviewer's permissions for remote images on one account.
#[derive(Debug, Default)]
pub struct RemoteImagePolicy {
    /// Questions (by id) whose remote images may load.
    pub questions: HashSet<String>,
    /// Askers whose remote images may always load.
    pub senders: HashSet<String>,
}

impl RemoteImagePolicy {
    /// A remote URL may load when some card showing it is allowed, by its id or its asker.
    pub fn allows(&self, url: &str, cards: &[Card]) -> bool {
        cards.iter().any(|card| {
            let shows_it = card.interaction.media.iter().any(|m| m.url == url);
            shows_it
                && (self.questions.contains(&card.interaction.id)
                    || self.senders.contains(&card.interaction.asker))
        })
    }
}

/// A `data:` URL of the bytes.
pub fn data_url(content_type: &str, bytes: &[u8]) -> String {
    // Only the media type itself; parameters are not needed to render.
    let media_type = content_type.split(';').next().unwrap_or("").trim();
    let media_type = if media_type.is_empty() || media_type.contains([',', ' ']) {
        "application/octet-stream"
    } else {
        media_type
    };
    format!(
        "data:{media_type};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// Fetch a remote https media item (no cookies, no credentials, bounded size and time).
pub async fn fetch_remote(
    http: &reqwest::Client,
    url: url::Url,
) -> Result<(String, Vec<u8>), CommandError> {
    let unavailable = |e: reqwest::Error| {
        CommandError::new("unavailable", format!("could not load the media: {e}"))
    };
    let mut resp = http
        .get(url)
        .timeout(Duration::from_secs(30))
        .send()
        .await
        .map_err(unavailable)?
        .error_for_status()
        .map_err(unavailable)?;
    let content_type = resp
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/octet-stream")
        .to_owned();
    let mut bytes = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(unavailable)? {
        bytes.extend_from_slice(&chunk);
        if bytes.len() > MAX_MEDIA_BYTES {
            return Err(CommandError::new(
                "media_too_large",
                "the media is larger than 16 MiB",
            ));
        }
    }
    Ok((content_type, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_media_references_and_https_are_loadable() {
        assert_eq!(
            classify("/api/interactions/media/md_1").unwrap(),
            MediaSource::SameOrigin("/api/interactions/media/md_1".into())
        );
        assert!(matches!(
            classify("https://img.example.com/a.png"),
            Ok(MediaSource::Remote(_))
        ));
        for bad in [
            "http://img.example.com/a.png",
            "file:///etc/passwd",
            "/api/interactions/ia_1",
            "/api/interactions/media/../ia_1/answer",
            "/api/interactions/media/md_1?x=1",
            "/api/interactions/media/",
            "data:image/png;base64,AAAA",
            "javascript:alert(1)",
        ] {
            let e = classify(bad).unwrap_err();
            assert_eq!(e.code, "invalid_url", "{bad}");
        }
    }

    #[test]
    fn data_urls_carry_only_the_media_type() {
        assert_eq!(
            data_url("image/png; charset=binary", b"hi"),
            "data:image/png;base64,aGk="
        );
        assert_eq!(data_url("", b""), "data:application/octet-stream;base64,");
        assert_eq!(
            data_url("text/html,evil", b""),
            "data:application/octet-stream;base64,"
        );
    }

    #[test]
    fn remote_images_load_only_for_allowed_questions_or_askers() {
        let card: Card = serde_json::from_value(serde_json::json!({
            "account": "acme",
            "interaction": {
                "id": "ia_1", "kind": "question", "prompt": "Look", "answer_format": "confirm",
                "mode": "sync", "status": "pending", "asker": "design-bot",
                "created_at": "2026-11-29T10:00:00Z", "options": [], "schema": null, "data": null,
                "pages": null, "link": null, "expires_at": null, "answer": null, "metadata": {},
                "media": [{"kind": "image", "url": "https://img.example.com/a.png", "caption": null, "filename": null}]
            },
            "unread": true, "delivery": null, "outgoing": null, "expired_locally": false
        }))
        .unwrap();
        let cards = vec![card];
        let url = "https://img.example.com/a.png";
        let mut policy = RemoteImagePolicy::default();
        assert!(!policy.allows(url, &cards));
        policy.questions.insert("ia_2".into());
        assert!(!policy.allows(url, &cards), "another question's permission");
        policy.questions.insert("ia_1".into());
        assert!(policy.allows(url, &cards));
        assert!(
            !policy.allows("https://img.example.com/other.png", &cards),
            "not on any card"
        );
        let by_sender = RemoteImagePolicy {
            senders: ["design-bot".to_owned()].into(),
            ..Default::default()
        };
        assert!(by_sender.allows(url, &cards));
    }
}
