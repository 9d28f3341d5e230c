//! Media on a question: which sources each kind admits, the caption and filename rules, and the
//! byte caps. The inbox content-security policy admits `https:`, `data:` and same-origin sources,
//! so a file source outside those could never render and is refused up front.

use base64::Engine;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use url::Url;

use super::{check_cap, check_text, has_unsafe_url_chars, starts_with_scheme};
use crate::caps::{
    MEDIA_CAPTION_MAX_CHARS, MEDIA_DATA_URI_MAX_BYTES, MEDIA_FILENAME_MAX_CHARS, MEDIA_MAX_ITEMS,
    MEDIA_TOTAL_MAX_BYTES, MEDIA_URL_MAX_BYTES,
};
use crate::error::{ErrorCode, ValidationError};
use crate::media::{MediaItem, MediaKind};
use crate::paths::MEDIA_PREFIX;

/// Inline image types an asker may submit. SVG is left out on purpose: it can carry script.
const DATA_IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// Standard base64, tolerant of missing padding (some encoders drop it) but of nothing else.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The content type (`image/png`, ...) and bytes of an inline `data:image/<type>;base64,<data>`
/// URI of an admitted type, or `None`. The server stores such an image by reference.
pub fn decode_data_image(url: &str) -> Option<(String, Vec<u8>)> {
    parse_data_image(url).ok()
}

/// Whether a client may render `url` as media of `kind`: an https URL, a same-origin
/// `/api/interactions/media/<id>` reference, or (image only) an admitted `data:image/*` URI;
/// a link may also be plain http. Within the byte caps.
pub fn is_renderable_media_url(kind: MediaKind, url: &str) -> bool {
    url_size_problem(url).is_none() && check_source(kind, url).is_ok()
}

/// Every rule of the media list; `items` is what the ask carried (`Some`).
pub(super) fn check_media(items: &[MediaItem]) -> Result<(), ValidationError> {
    if items.is_empty() {
        return Err(ValidationError::new(
            ErrorCode::InvalidMedia,
            "media",
            "an empty media list is refused; leave media out instead",
        ));
    }
    check_cap(
        items.len(),
        MEDIA_MAX_ITEMS,
        "media",
        ErrorCode::MediaTooLarge,
        ("carries", "items"),
    )?;
    for (i, item) in items.iter().enumerate() {
        check_item(i, item)?;
    }
    let total: usize = items.iter().map(|item| item.url.len()).sum();
    check_cap(
        total,
        MEDIA_TOTAL_MAX_BYTES,
        "media",
        ErrorCode::MediaTooLarge,
        ("its urls total", "bytes"),
    )
}

fn check_item(i: usize, item: &MediaItem) -> Result<(), ValidationError> {
    let url_field = format!("media[{i}].url");
    // Size before shape, so an oversized data URI is never decoded.
    if let Some(message) = url_size_problem(&item.url) {
        return Err(ValidationError::new(
            ErrorCode::MediaTooLarge,
            url_field,
            message,
        ));
    }
    check_source(item.kind, &item.url)
        .map_err(|message| ValidationError::new(ErrorCode::InvalidMedia, url_field, message))?;
    if let Some(caption) = &item.caption {
        check_text(
            caption,
            &format!("media[{i}].caption"),
            MEDIA_CAPTION_MAX_CHARS,
            ErrorCode::InvalidMedia,
        )?;
    }
    if let Some(filename) = &item.filename {
        check_filename(i, item.kind, filename)?;
    }
    Ok(())
}

fn check_filename(i: usize, kind: MediaKind, filename: &str) -> Result<(), ValidationError> {
    let field = format!("media[{i}].filename");
    if kind != MediaKind::Document {
        return Err(ValidationError::new(
            ErrorCode::FieldNotAllowed,
            field,
            format!(
                "a filename is meaningful only on a document, not on {}",
                kind.as_str()
            ),
        ));
    }
    check_text(
        filename,
        &field,
        MEDIA_FILENAME_MAX_CHARS,
        ErrorCode::InvalidMedia,
    )?;
    // A suggested download name, never a path: a client saving it must not leave its folder.
    let is_path = filename.contains(['/', '\\'])
        || filename.chars().any(char::is_control)
        || matches!(filename, "." | "..");
    if is_path {
        return Err(ValidationError::new(
            ErrorCode::InvalidMedia,
            field,
            "must be a plain file name, without path separators or control characters",
        ));
    }
    Ok(())
}

/// The byte cap a url breaks, if any: a data URI has its own, larger cap.
fn url_size_problem(url: &str) -> Option<String> {
    let (cap, what) = if is_data_uri(url) {
        (MEDIA_DATA_URI_MAX_BYTES, "data URI")
    } else {
        (MEDIA_URL_MAX_BYTES, "url")
    };
    (url.len() > cap).then(|| format!("the {what} is {} bytes; the limit is {cap}", url.len()))
}

fn is_data_uri(url: &str) -> bool {
    url.get(..5)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("data:"))
}

/// Whether `url` is a source `kind` may render; the error is the message naming why not.
fn check_source(kind: MediaKind, url: &str) -> Result<(), String> {
    if url.is_empty() {
        return Err("must not be empty".to_owned());
    }
    if has_unsafe_url_chars(url) {
        return Err("must not contain whitespace or control characters".to_owned());
    }
    if kind == MediaKind::Link {
        return check_link_url(url);
    }
    if let Some(id) = url.strip_prefix(MEDIA_PREFIX) {
        return check_media_id(id);
    }
    if is_data_uri(url) {
        if kind != MediaKind::Image {
            return Err(format!(
                "an inline data: URI is admitted on an image only, not on {}",
                kind.as_str()
            ));
        }
        return parse_data_image(url).map(|_| ());
    }
    let parsed = Url::parse(url).map_err(|_| {
        format!(
            "a {} is an absolute https URL or a same-origin {MEDIA_PREFIX}<id> reference",
            kind.as_str()
        )
    })?;
    match parsed.scheme() {
        "https" if starts_with_scheme(url, "https://") => Ok(()),
        "https" => Err("an https URL is written https://host/...".to_owned()),
        "http" => Err(
            "http: file media cannot render under the inbox content-security policy; use https"
                .to_owned(),
        ),
        other => Err(format!(
            "the {other}: scheme is refused; a {} is an https URL or a {MEDIA_PREFIX}<id> reference",
            kind.as_str()
        )),
    }
}

/// A link is an anchor, outside the content-security policy: any absolute http(s) URL, and
/// nothing that would run or inline content when clicked (`javascript:`, `data:`).
fn check_link_url(url: &str) -> Result<(), String> {
    let parsed = Url::parse(url).map_err(|_| "a link is an absolute http(s) URL".to_owned())?;
    match parsed.scheme() {
        "http" | "https"
            if starts_with_scheme(url, "http://") || starts_with_scheme(url, "https://") =>
        {
            Ok(())
        }
        "http" | "https" => Err("a link is written http(s)://host/...".to_owned()),
        other => Err(format!(
            "the {other}: scheme is refused; a link is an http or https URL"
        )),
    }
}

/// The id of a same-origin media reference: URL-safe characters only, and nothing after it (no
/// further path, query or fragment), so the reference can only ever name the media route.
fn check_media_id(id: &str) -> Result<(), String> {
    let url_safe = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if !id.is_empty() && id.chars().all(url_safe) {
        Ok(())
    } else {
        Err(format!(
            "a media reference is {MEDIA_PREFIX}<id>, the id made of letters, digits, - and _ only"
        ))
    }
}

/// `data:image/<type>;base64,<data>` with an admitted type and data that decodes.
fn parse_data_image(url: &str) -> Result<(String, Vec<u8>), String> {
    let Some((header, payload)) = url.split_once(',') else {
        return Err("a data URI is data:image/<type>;base64,<data>".to_owned());
    };
    let header = header.to_ascii_lowercase();
    let content_type = header
        .strip_prefix("data:")
        .and_then(|rest| rest.strip_suffix(";base64"))
        .ok_or_else(|| "an inline image is data:image/<type>;base64,<data>".to_owned())?;
    if content_type == "image/svg+xml" {
        return Err("an inline SVG is refused: it can carry script".to_owned());
    }
    if !DATA_IMAGE_TYPES.contains(&content_type) {
        return Err(format!(
            "an inline image is one of {}",
            DATA_IMAGE_TYPES.join(", ")
        ));
    }
    let bytes = BASE64
        .decode(payload)
        .map_err(|_| "the data URI's base64 does not decode".to_owned())?;
    if bytes.is_empty() {
        return Err("the data URI carries no image bytes".to_owned());
    }
    Ok((content_type.to_owned(), bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1×1 PNG.
    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

    #[test]
    fn decode_data_image_returns_type_and_bytes() {
        let (content_type, bytes) =
            decode_data_image(&format!("data:image/png;base64,{PNG}")).expect("decodes");
        assert_eq!(content_type, "image/png");
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");

        let (content_type, _) =
            decode_data_image(&format!("DATA:IMAGE/PNG;BASE64,{PNG}")).expect("case-insensitive");
        assert_eq!(content_type, "image/png");
        let unpadded = PNG.trim_end_matches('=');
        assert!(decode_data_image(&format!("data:image/png;base64,{unpadded}")).is_some());
    }

    #[test]
    fn decode_data_image_refuses_everything_else() {
        for url in [
            format!("data:image/svg+xml;base64,{PNG}"),
            format!("data:image/bmp;base64,{PNG}"),
            format!("data:text/html;base64,{PNG}"),
            format!("data:image/png,{PNG}"),
            format!("data:image/png;charset=utf-8;base64,{PNG}"),
            "data:image/png;base64,not*base64".to_owned(),
            "data:image/png;base64,".to_owned(),
            "https://example.com/a.png".to_owned(),
        ] {
            assert_eq!(decode_data_image(&url), None, "{url}");
        }
    }

    #[test]
    fn renderable_urls_by_kind() {
        let data_png = format!("data:image/png;base64,{PNG}");
        let data_png = data_png.as_str();
        // Per kind: the sources it renders, then the ones it refuses.
        let cases: [(MediaKind, &[&str], &[&str]); 5] = [
            (
                MediaKind::Image,
                &[
                    "https://cdn.example/a.png",
                    "/api/interactions/media/md_Ab-9_x",
                    data_png,
                    "HTTPS://cdn.example/a.png",
                ],
                &[
                    "http://cdn.example/a.png",
                    "data:image/svg+xml;base64,PHN2Zz4=",
                    "/api/interactions/media/",
                    "/api/interactions/media/a/../b",
                    "/api/interactions/media/a?x=1",
                    "/other/a.png",
                    "javascript:alert(1)",
                    "https:cdn.example/a.png",
                    "https:\\\\cdn.example/a.png",
                ],
            ),
            (
                MediaKind::Document,
                &["https://files.example/r.pdf", "/api/interactions/media/abc"],
                &[data_png],
            ),
            (MediaKind::Video, &["https://v.example/a.mp4"], &[]),
            (
                MediaKind::Audio,
                &["https://a.example/a.ogg"],
                &["ftp://a.example/a.ogg"],
            ),
            (
                MediaKind::Link,
                &["https://example.com/page", "http://example.com/page"],
                &[
                    "javascript:alert(1)",
                    data_png,
                    "/api/interactions/media/abc",
                    "example.com/page",
                    "https://example.com/a b",
                    "https:example.com",
                ],
            ),
        ];
        for (kind, renders, refused) in cases {
            for (urls, expected) in [(renders, true), (refused, false)] {
                for url in urls {
                    assert_eq!(
                        is_renderable_media_url(kind, url),
                        expected,
                        "{kind:?} {url}"
                    );
                }
            }
        }
        let long = format!("https://example.com/{}", "a".repeat(MEDIA_URL_MAX_BYTES));
        assert!(!is_renderable_media_url(MediaKind::Image, &long));
    }
}
