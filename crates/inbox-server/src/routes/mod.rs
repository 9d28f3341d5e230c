//! The HTTP doors, one file each, and the router that puts them at the contract's paths.

mod agui;
mod answer;
pub(crate) mod ask;
mod asker_write;
mod callback;
mod decline;
mod found;
mod gates;
mod health;
mod list;
mod media;
mod notification;
mod park;
mod poll;
mod read;
mod resolution;
mod wait;
mod withdraw;

use axum::Router;
use axum::extract::{DefaultBodyLimit, MatchedPath};
use axum::http::Request;
use axum::middleware;
use axum::routing::{get, post};
use inbox_protocol::caps::REQUEST_BODY_MAX_BYTES;
use inbox_protocol::paths;
use tower_http::trace::TraceLayer;

use crate::error::ApiError;
use crate::public_doors::Door;
use crate::state::AppState;
use gates::Gate;

/// Every door of the contract. The park and notification families list their own doors
/// (`park::routes`, `notification::routes`); the gates and layers below cover them all. Tests
/// drive this directly or behind a listener on 127.0.0.1:0.
pub fn router(state: AppState) -> Router {
    // The doors that may be public pass a gate that reads the configured list; the others
    // check their role themselves (`auth.rs`).
    let gate = |door| {
        middleware::from_fn_with_state(
            Gate {
                state: state.clone(),
                door,
            },
            gates::gate,
        )
    };
    Router::new()
        .route(paths::INTERACTIONS, get(list::list).post(ask::ask))
        .route(paths::STREAM, get(crate::stream::stream))
        .route(
            "/api/interactions/{id}",
            get(read::read).delete(withdraw::withdraw),
        )
        .route("/api/interactions/{id}/answer", post(answer::answer))
        .route("/api/interactions/{id}/decline", post(decline::decline))
        .route("/api/interactions/{id}/wait", get(wait::wait))
        .route(
            "/api/interactions/media/{id}",
            get(media::media).route_layer(gate(Door::Media)),
        )
        .route(
            "/api/interactions/callback/{ticket}",
            get(callback::confirm_page)
                .post(callback::submit)
                .route_layer(gate(Door::Callback)),
        )
        .route(
            paths::HEALTHZ,
            get(health::healthz).route_layer(gate(Door::Health)),
        )
        .route(
            paths::READYZ,
            get(health::readyz).route_layer(gate(Door::Health)),
        )
        .merge(park::routes())
        .merge(notification::routes())
        .route(paths::AGUI_RUNS, post(agui::create))
        .route("/api/agui/runs/{id}", get(agui::read))
        .route("/api/agui/runs/{id}/retry", post(agui::retry))
        .fallback(unknown_route)
        .layer(DefaultBodyLimit::max(REQUEST_BODY_MAX_BYTES))
        // Before any door (and before a body is read): a foreign Host is refused.
        .layer(middleware::from_fn_with_state(
            state.clone(),
            gates::host_guard,
        ))
        .layer(TraceLayer::new_for_http().make_span_with(request_span))
        .with_state(state)
}

/// A span per request naming the route template, never the concrete URI: URIs can hold a
/// callback ticket or a media id, both bearer capabilities.
fn request_span<B>(req: &Request<B>) -> tracing::Span {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", MatchedPath::as_str);
    tracing::info_span!("request", method = %req.method(), route)
}

async fn unknown_route() -> ApiError {
    ApiError::new(inbox_protocol::ErrorCode::NotFound, "no such door")
}
