//! The floor of the SSE fan-out: a bare axum server that broadcasts each `POST /pub` body to
//! every `GET /sub` EventSource, with no auth, no storage and no resume. Each frame is
//! formatted once and shared by every subscriber, so what it costs is the transport alone.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::header;
use axum::response::Response;
use axum::routing::{get, post};
use clap::Parser;
use futures::StreamExt;
use tokio::sync::broadcast;
use tokio_stream::wrappers::BroadcastStream;

/// Frames the bus holds for a subscriber that is behind (it skips on overflow).
const BUS: usize = 4096;

#[derive(Parser)]
#[command(about = "Bare broadcast SSE server: POST /pub fans the body out to every GET /sub")]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8799")]
    bind: std::net::SocketAddr,
}

#[derive(Clone)]
struct Bus {
    frames: broadcast::Sender<Bytes>,
    next_id: Arc<AtomicU64>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let (frames, _) = broadcast::channel(BUS);
    let bus = Bus {
        frames,
        next_id: Arc::default(),
    };
    let app = Router::new()
        .route("/pub", post(publish))
        .route("/sub", get(subscribe))
        .with_state(bus);
    let listener = tokio::net::TcpListener::bind(args.bind).await?;
    axum::serve(listener, app).await?;
    Ok(())
}

async fn publish(State(bus): State<Bus>, body: Bytes) -> &'static str {
    let id = bus.next_id.fetch_add(1, Ordering::Relaxed);
    let frame = format!("id: {id}\ndata: {}\n\n", String::from_utf8_lossy(&body));
    let _ = bus.frames.send(Bytes::from(frame));
    "ok"
}

async fn subscribe(State(bus): State<Bus>) -> Response {
    let frames = BroadcastStream::new(bus.frames.subscribe())
        .filter_map(|f| async move { f.ok().map(Ok::<_, Infallible>) });
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(frames))
        .expect("static headers")
}
