//! The `--image` and `--media` flags `inbox ask` and `inbox notify` share, as the media list
//! of the request.

use std::path::Path;

use anyhow::{Context, bail};
use base64::Engine as _;
use inbox_protocol::{MediaItem, MediaKind};

use crate::commands::parse_json_flag;

/// The `--image` sources, then the `--media` items, in the order given; `None` when there are
/// none (the field is left out of the body).
pub fn media_flags(images: &[String], media: &[String]) -> anyhow::Result<Option<Vec<MediaItem>>> {
    let mut items = Vec::new();
    for image in images {
        items.push(image_item(image)?);
    }
    for text in media {
        let item: MediaItem = serde_json::from_value(parse_json_flag("media", text)?)
            .context("--media must look like {\"kind\": \"image\", \"url\": …, \"caption\": …}")?;
        items.push(item);
    }
    Ok((!items.is_empty()).then_some(items))
}

/// An `--image`: an https URL as is, or a local file inlined as a `data:image/*` URI.
fn image_item(source: &str) -> anyhow::Result<MediaItem> {
    if source.starts_with("https://")
        || source.starts_with("http://")
        || source.starts_with("data:")
    {
        return Ok(MediaItem {
            kind: MediaKind::Image,
            url: source.to_owned(),
            caption: None,
            filename: None,
        });
    }
    let path = Path::new(source);
    let content_type = match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        _ => bail!("--image {source}: use a .png, .jpg, .gif or .webp file, or an https URL"),
    };
    let bytes = std::fs::read(path).with_context(|| format!("--image: cannot read {source}"))?;
    let caption = path.file_name().map(|n| n.to_string_lossy().into_owned());
    Ok(MediaItem {
        kind: MediaKind::Image,
        url: format!(
            "data:{content_type};base64,{}",
            base64::engine::general_purpose::STANDARD.encode(bytes)
        ),
        caption,
        filename: None,
    })
}
