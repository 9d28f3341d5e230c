//! `load_media`: the window asks for a media item's bytes and gets a `data:` URL back, so it
//! never needs the account's token and never contacts an image host on its own.
//!
//! - Same-origin references (`/api/interactions/media/<id>`) are fetched with the account's
//!   token by the engine.
//! - Remote `https:` images, video and audio are fetched only once the reviewer allowed remote
//!   media for that question or its asker (a remote fetch discloses the reader's IP to the
//!   host), and then by [`RemoteFetcher`] under its SSRF guard (public addresses only, no
//!   redirects, type and size checked). The web view itself never contacts a remote host:
//!   the CSP (tauri.conf.json) admits no remote source.
//! - Nothing else is fetched (no `http:`, no `file:`, no other origins' relative paths, no
//!   remote documents — those open in the browser).

use std::collections::HashSet;

use base64::Engine as _;
use inbox_client::remote_media::{RemoteKind, RemoteMediaError};
use inbox_client::{AppCode, CommandCode};
use inbox_protocol::ErrorCode;
use inbox_protocol::{MediaKind, paths};
use inbox_sync::Card;

use crate::CommandError;

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
            return Err(
                CommandError::new(AppCode::InvalidUrl, "not a media reference").with_field("url"),
            );
        }
        return Ok(MediaSource::SameOrigin(raw.to_owned()));
    }
    match url::Url::parse(raw) {
        Ok(url) if url.scheme() == "https" && url.host_str().is_some() => {
            Ok(MediaSource::Remote(url))
        }
        _ => Err(CommandError::new(
            AppCode::InvalidUrl,
            "only the server's own media and https URLs are loaded",
        )
        .with_field("url")),
    }
}

/// The reviewer's permissions for remote media (images, video, audio) on one account.
#[derive(Debug, Default)]
pub struct RemoteMediaPolicy {
    /// Questions (by id) whose remote media may load.
    pub questions: HashSet<String>,
    /// Askers whose remote media may always load.
    pub senders: HashSet<String>,
}

impl RemoteMediaPolicy {
    /// What a remote URL may be loaded as: the kind of the media item showing it on a card the
    /// reviewer allowed (by its id or its asker), if that kind is one the window plays or draws.
    /// The kind comes from the question, not from the window's request.
    pub fn allowed_kind(&self, url: &str, cards: &[Card]) -> Option<RemoteKind> {
        cards
            .iter()
            .filter(|card| {
                self.questions.contains(&card.interaction.id)
                    || self.senders.contains(&card.interaction.asker)
            })
            .flat_map(|card| card.interaction.media.iter())
            .filter(|m| m.url == url)
            .find_map(|m| match m.kind {
                MediaKind::Image => Some(RemoteKind::Image),
                MediaKind::Video => Some(RemoteKind::Video),
                MediaKind::Audio => Some(RemoteKind::Audio),
                MediaKind::Document | MediaKind::Link => None,
            })
    }
}

/// What the window is told when a remote fetch fails; the codes are what it switches on.
pub fn remote_error(e: RemoteMediaError) -> CommandError {
    let code: CommandCode = match &e {
        RemoteMediaError::TooLarge { .. } => ErrorCode::MediaTooLarge.into(),
        RemoteMediaError::NotHttps
        | RemoteMediaError::NoHost
        | RemoteMediaError::NotPublic { .. }
        | RemoteMediaError::Redirected { .. }
        | RemoteMediaError::WrongType { .. } => AppCode::RemoteMediaRefused.into(),
        RemoteMediaError::Resolve { .. }
        | RemoteMediaError::Status { .. }
        | RemoteMediaError::Transport(_) => ErrorCode::Unavailable.into(),
    };
    tracing::info!(error = %e, "remote media not loaded");
    CommandError::new(code, e.to_string())
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
            assert_eq!(e.code, AppCode::InvalidUrl, "{bad}");
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
    fn remote_media_loads_only_for_allowed_questions_or_askers_as_the_kind_the_question_says() {
        let card: Card = serde_json::from_value(serde_json::json!({
            "account": "acme",
            "interaction": {
                "id": "ia_1", "kind": "question", "prompt": "Look", "answer_format": "confirm",
                "mode": "sync", "status": "pending", "asker": "design-bot",
                "created_at": "2026-11-29T10:00:00Z", "options": [], "schema": null, "data": null,
                "pages": null, "link": null, "expires_at": null, "answer": null, "metadata": {},
                "media": [
                    {"kind": "image", "url": "https://img.example.com/a.png", "caption": null, "filename": null},
                    {"kind": "video", "url": "https://media.example.com/w.mp4", "caption": null, "filename": null},
                    {"kind": "audio", "url": "https://media.example.com/v.ogg", "caption": null, "filename": null},
                    {"kind": "document", "url": "https://files.example.com/r.pdf", "caption": null, "filename": null}
                ]
            },
            "unread": true, "delivery": null, "outgoing": null, "expired_locally": false
        }))
        .unwrap();
        let cards = vec![card];
        let url = "https://img.example.com/a.png";
        let mut policy = RemoteMediaPolicy::default();
        assert_eq!(policy.allowed_kind(url, &cards), None);
        assert_eq!(
            policy.allowed_kind("https://media.example.com/w.mp4", &cards),
            None,
            "video needs consent too"
        );
        policy.questions.insert("ia_2".into());
        assert_eq!(
            policy.allowed_kind(url, &cards),
            None,
            "another question's permission"
        );
        policy.questions.insert("ia_1".into());
        assert_eq!(policy.allowed_kind(url, &cards), Some(RemoteKind::Image));
        assert_eq!(
            policy.allowed_kind("https://media.example.com/w.mp4", &cards),
            Some(RemoteKind::Video)
        );
        assert_eq!(
            policy.allowed_kind("https://media.example.com/v.ogg", &cards),
            Some(RemoteKind::Audio)
        );
        assert_eq!(
            policy.allowed_kind("https://files.example.com/r.pdf", &cards),
            None,
            "documents open in the browser, never fetched into the window"
        );
        assert_eq!(
            policy.allowed_kind("https://img.example.com/other.png", &cards),
            None,
            "not on any card"
        );
        let by_sender = RemoteMediaPolicy {
            senders: ["design-bot".to_owned()].into(),
            ..Default::default()
        };
        assert_eq!(by_sender.allowed_kind(url, &cards), Some(RemoteKind::Image));
    }
}
