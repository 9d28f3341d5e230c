//! The two gates every request passes before a door runs: the `Host` allow-list (`hosts.rs`
//! decides which names are this server's) and, in front of each door that configuration may
//! make public, the public-door gate (`public_doors.rs` holds the configured list). The lists
//! are plain data; the gates read them from the request's state.

use axum::extract::{FromRequestParts, Request, State};
use axum::http::header::HOST;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use inbox_protocol::{ErrorCode, paths};

use crate::error::ApiError;
use crate::principal::Principal;
use crate::public_doors::Door;
use crate::state::AppState;

/// Refuse a request whose `Host` (or HTTP/2 `:authority`) is not on the list, before any
/// door runs. The health doors are exempt: load balancers probe them by whatever address they
/// use, and they reveal nothing.
pub async fn host_guard(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    if path == paths::HEALTHZ || path == paths::READYZ {
        return next.run(req).await;
    }
    let authority = req
        .uri()
        .authority()
        .map(|a| a.as_str().to_owned())
        .or_else(|| {
            req.headers()
                .get(HOST)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        });
    match authority {
        Some(authority) if state.allowed_hosts().allows(&authority) => next.run(req).await,
        // The refused name is not echoed back: nothing from the request is reflected.
        _ => ApiError::new(
            ErrorCode::HostNotAllowed,
            "this server does not serve the host named in the request; \
             add the name with --allowed-host if it is really this server's",
        )
        .with_field("Host")
        .into_response(),
    }
}

/// What the gate in front of one door needs to decide.
#[derive(Clone)]
pub struct Gate {
    pub state: AppState,
    pub door: Door,
}

/// A listed door passes straight through; an unlisted one needs a valid bearer token (`401`
/// otherwise, in the contract's error shape), checked before the door reads anything.
pub async fn gate(State(gate): State<Gate>, request: Request, next: Next) -> Response {
    if gate.state.public_doors().contains(gate.door) {
        return next.run(request).await;
    }
    let (mut parts, body) = request.into_parts();
    if let Err(refusal) = Principal::from_request_parts(&mut parts, &gate.state).await {
        return refusal.into_response();
    }
    next.run(Request::from_parts(parts, body)).await
}
