//! Media shown with a question. Display-only: it never becomes part of the answer.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

// The source rules live with the rest of media validation; re-exported here because the server
// (storing inline images by reference) and clients (re-checking before render) look for them
// next to the media types.
pub use crate::validate::{decode_data_image, is_renderable_media_url};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct MediaItem {
    pub kind: MediaKind,
    /// `https://…`, a same-origin `/api/interactions/media/<id>`, or (image only, at ask time)
    /// a `data:image/*` URI; a `link` is any absolute http(s) URL.
    pub url: String,
    /// Accessibility text: an image's alt text, a file's label, a link's display label.
    #[serde(default)]
    pub caption: Option<String>,
    /// Suggested download name; `document` only.
    #[serde(default)]
    pub filename: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum MediaKind {
    Image,
    Document,
    Video,
    Audio,
    Link,
}

impl MediaKind {
    /// File kinds carry a fetchable body; a link is clicked through.
    pub fn is_file(self) -> bool {
        self != MediaKind::Link
    }

    pub fn as_str(self) -> &'static str {
        match self {
            MediaKind::Image => "image",
            MediaKind::Document => "document",
            MediaKind::Video => "video",
            MediaKind::Audio => "audio",
            MediaKind::Link => "link",
        }
    }
}
