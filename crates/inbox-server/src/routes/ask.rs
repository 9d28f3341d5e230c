//! `POST /api/interactions` — an asker asks. Validated whole before anything is stored; inline
//! images are stored by reference and an external link gets its callback URL.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::Utc;
use inbox_protocol::validate::{CALLBACK_URL_PLACEHOLDER, decode_data_image, validate_ask};
use inbox_protocol::{AnswerFormat, AskRequest, ErrorCode, Interaction, MediaItem, Status, paths};

use crate::auth::AsAsker;
use crate::body::JsonBody;
use crate::error::ApiError;
use crate::ids;
use crate::state::AppState;
use crate::store::{MediaBlob, NewAsk, NewTicket};

pub async fn ask(
    State(state): State<AppState>,
    AsAsker(principal): AsAsker,
    JsonBody(req): JsonBody<AskRequest>,
) -> Result<(StatusCode, Json<Interaction>), ApiError> {
    let now = Utc::now();
    // Compiling the schema and checking a prefill against it is CPU work: off the runtime.
    let (req, accepted) = state
        .validation()
        .run(move || {
            let accepted = validate_ask(&req, now);
            (req, accepted)
        })
        .await?;
    let accepted = accepted?;
    let external = if req.answer_format == AnswerFormat::External {
        // Without a public URL no one outside could ever reach the callback.
        let base = state.public_base_url().ok_or_else(|| {
            ApiError::new(
                ErrorCode::FieldNotAllowed,
                "external questions need the server's public base URL, and none is set \
                 (--public-url / INTERACTIONS_PUBLIC_BASE_URL)",
            )
            .with_field("answer_format")
        })?;
        Some(base.to_owned())
    } else {
        None
    };
    let (media, blobs) = store_inline_media(req.media.unwrap_or_default())?;
    let (link, ticket) = match external {
        Some(base) => {
            let ticket = ids::callback_ticket();
            let callback_url = format!("{base}{}{ticket}", paths::CALLBACK_PREFIX);
            let link = req
                .link
                .map(|template| template.replace(CALLBACK_URL_PLACEHOLDER, &callback_url));
            // Only the hash is kept: the plain ticket exists in the link alone.
            let stored = NewTicket {
                hash: crate::ticket::hash(&ticket),
                expires_at: crate::ticket::expires_at(
                    now,
                    accepted.expires_at,
                    state.ticket_max_ttl(),
                ),
                verifier: req.verifier,
            };
            (link, Some(stored))
        }
        None => (req.link, None),
    };
    let interaction = Interaction {
        id: ids::interaction_id(),
        kind: req.kind,
        prompt: req.prompt,
        answer_format: req.answer_format,
        options: req.options.unwrap_or_default(),
        schema: req.schema,
        data: req.data,
        pages: req.pages,
        link,
        media,
        mode: req.mode,
        expires_at: accepted.expires_at,
        status: Status::Pending,
        asker: principal.name,
        created_at: now,
        answer: None,
        metadata: req.metadata.unwrap_or_default(),
        park_id: None,
    };
    let stored = state
        .store()
        .insert_ask(NewAsk {
            interaction,
            media: blobs,
            ticket,
        })
        .await?;
    tracing::info!(interaction = %stored.id, format = stored.answer_format.as_str(), "asked");
    Ok((StatusCode::CREATED, Json(stored)))
}

/// Replace each inline `data:image/*` URL by a same-origin media reference and return the
/// bytes to store. Validation already admitted these URIs; a refusal here is a safety net.
fn store_inline_media(items: Vec<MediaItem>) -> Result<(Vec<MediaItem>, Vec<MediaBlob>), ApiError> {
    let mut blobs = Vec::new();
    let mut media = Vec::with_capacity(items.len());
    for (i, mut item) in items.into_iter().enumerate() {
        if item.url.starts_with("data:") {
            let (content_type, bytes) = decode_data_image(&item.url).ok_or_else(|| {
                ApiError::new(ErrorCode::InvalidMedia, "not an admitted data:image URI")
                    .with_field(format!("media[{i}].url"))
            })?;
            let id = ids::media_id();
            item.url = format!("{}{id}", paths::MEDIA_PREFIX);
            blobs.push(MediaBlob {
                id,
                content_type,
                bytes,
            });
        }
        media.push(item);
    }
    Ok((media, blobs))
}
