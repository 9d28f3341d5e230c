//! `POST /api/interactions` — an asker asks. Validated whole before anything is stored; inline
//! images are stored by reference and an external link gets its callback URL. An async ask is
//! a park of one (`routes/park/`): its `park_id` is on the interaction.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use inbox_protocol::validate::{
    AcceptedAsk, CALLBACK_URL_PLACEHOLDER, decode_data_image, validate_ask,
};
use inbox_protocol::{
    AnswerFormat, AskRequest, Continuation, ErrorCode, Interaction, MediaItem, Mode, Park,
    ParkPlace, ParkStatus, Status, ValidationError, paths,
};

use inbox_protocol::caps::PENDING_PER_ASKER_MAX;

use crate::error::ApiError;
use crate::ids;
use crate::routes::asker_write::{AskerWrite, Judged};
use crate::state::AppState;
use crate::store::{MediaBlob, NewAsk, NewPark, NewTicket};

impl Judged for AskRequest {
    type Accepted = AcceptedAsk;

    fn rules(
        _: &AppState,
        now: DateTime<Utc>,
    ) -> impl FnOnce(&Self) -> Result<AcceptedAsk, ValidationError> + Send + 'static {
        move |req| validate_ask(req, now)
    }
}

pub async fn ask(
    State(state): State<AppState>,
    write: AskerWrite<AskRequest>,
) -> Result<(StatusCode, Json<Interaction>), ApiError> {
    let (asker, now, req, accepted) = (write.principal.name, write.now, write.req, write.accepted);
    if req.mode == Mode::Async {
        if let Some(at) = accepted.expires_at {
            state.park_retention().check(at, now, "expiry_at")?;
        }
        let park_id = ids::park_id();
        let place = ParkPlace {
            size: 1,
            index: 0,
            run: ParkPlace::run_of(req.metadata.as_ref()),
        };
        let ask = prepare(
            &state,
            &asker,
            req,
            &accepted,
            now,
            "",
            Some((&park_id, place)),
        )?;
        let interaction = ask.interaction.clone();
        let park = new_park(
            park_id,
            &asker,
            now,
            vec![ask],
            Continuation::Claim {},
            None,
        );
        let stored = state.store().insert_park(park).await?;
        tracing::info!(park = %stored.id, interaction = %interaction.id, "asked async: a park of one");
        return Ok((StatusCode::CREATED, Json(interaction)));
    }
    let ask = prepare(&state, &asker, req, &accepted, now, "", None)?;
    let stored = state.store().insert_ask(ask).await?;
    tracing::info!(interaction = %stored.id, format = stored.answer_format.as_str(), "asked");
    Ok((StatusCode::CREATED, Json(stored)))
}

/// A park as stored before anything resolves, with its questions in order.
pub(crate) fn new_park(
    id: String,
    asker: &str,
    now: DateTime<Utc>,
    asks: Vec<NewAsk>,
    continuation: Continuation,
    metadata: Option<serde_json::Map<String, serde_json::Value>>,
) -> NewPark {
    NewPark {
        park: Park {
            id,
            asker: asker.to_owned(),
            created_at: now,
            status: ParkStatus::Parked,
            interactions: asks.iter().map(|a| a.interaction.id.clone()).collect(),
            resolutions: Vec::new(),
            continuation,
            metadata: metadata.unwrap_or_default(),
            resolved_at: None,
            resumed_at: None,
            attempts: None,
            last_error: None,
        },
        asks,
    }
}

/// An accepted ask, ready to store: the interaction, its inline media and its ticket.
/// `field_prefix` names where the ask sits in the request (`asks[2].` in a park, `` alone).
pub(crate) fn prepare(
    state: &AppState,
    asker: &str,
    req: AskRequest,
    accepted: &AcceptedAsk,
    now: DateTime<Utc>,
    field_prefix: &str,
    park: Option<(&str, ParkPlace)>,
) -> Result<NewAsk, ApiError> {
    let external = if req.answer_format == AnswerFormat::External {
        // Without a public URL no one outside could ever reach the callback.
        let base = state.public_base_url().ok_or_else(|| {
            ApiError::new(
                ErrorCode::FieldNotAllowed,
                "external questions need the server's public base URL, and none is set \
                 (--public-url / INTERACTIONS_PUBLIC_BASE_URL)",
            )
            .with_field(format!("{field_prefix}answer_format"))
        })?;
        Some(base.to_owned())
    } else {
        None
    };
    let (media, blobs) = store_inline_media(req.media.unwrap_or_default(), field_prefix)?;
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
        asker: asker.to_owned(),
        created_at: now,
        answer: None,
        metadata: req.metadata.unwrap_or_default(),
        park_id: park.as_ref().map(|(id, _)| (*id).to_owned()),
        park: park.map(|(_, place)| place),
    };
    Ok(NewAsk {
        interaction,
        pending_limit: PENDING_PER_ASKER_MAX,
        media: blobs,
        ticket,
    })
}

/// Replace each inline `data:image/*` URL by a same-origin media reference and return the
/// bytes to store. Validation already admitted these URIs; a refusal here is a safety net.
pub(super) fn store_inline_media(
    items: Vec<MediaItem>,
    field_prefix: &str,
) -> Result<(Vec<MediaItem>, Vec<MediaBlob>), ApiError> {
    let mut blobs = Vec::new();
    let mut media = Vec::with_capacity(items.len());
    for (i, mut item) in items.into_iter().enumerate() {
        if item.url.starts_with("data:") {
            let (content_type, bytes) = decode_data_image(&item.url).ok_or_else(|| {
                ApiError::new(ErrorCode::InvalidMedia, "not an admitted data:image URI")
                    .with_field(format!("{field_prefix}media[{i}].url"))
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
