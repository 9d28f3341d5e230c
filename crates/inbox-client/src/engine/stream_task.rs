//! The stream task: one SSE connection of an account, read on a task of its own that
//! forwards every signal to the account's task. When to open and close it, when to try
//! again, and how long it may stay silent, is the machine's to say ([`inbox_sync::Session`]):
//! this only connects and reads (keepalives included, without a timeout of its own).

use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tracing::{Instrument, debug};

use super::report::Report;
use crate::api::ApiClient;
use crate::stream::{SseConnection, StreamEnd, StreamSignal};

/// `SseConnection`'s own silence limit, which `next_untimed` does not apply.
const SILENCE_UNUSED: Duration = Duration::MAX;

/// The account's current connection, if any.
#[derive(Default)]
pub(super) struct StreamTask {
    task: Option<JoinHandle<()>>,
    /// Bumped on every close, so the signals of a connection we left are told apart.
    generation: u64,
}

impl StreamTask {
    /// Connect (closing any current connection first), resuming after `last_event_id`.
    pub(super) fn open(
        &mut self,
        api: &ApiClient,
        last_event_id: Option<String>,
        reports: &mpsc::Sender<Report>,
    ) {
        self.close();
        let generation = self.generation;
        let (api, tx) = (api.clone(), reports.clone());
        debug!(resume = ?last_event_id, "opening the stream");
        let read = async move {
            let mut connection =
                match SseConnection::open(&api, last_event_id.as_deref(), SILENCE_UNUSED) {
                    Ok(connection) => connection,
                    Err(e) => {
                        let signal = StreamSignal::Closed(StreamEnd::Transport(e.to_string()));
                        let _ = tx.send(Report::Stream { generation, signal }).await;
                        return;
                    }
                };
            loop {
                let (report, closed) = match connection.next_untimed().await {
                    Some(signal) => {
                        let closed = matches!(signal, StreamSignal::Closed(_));
                        (Report::Stream { generation, signal }, closed)
                    }
                    None => (Report::Alive { generation }, false),
                };
                if tx.send(report).await.is_err() || closed {
                    return;
                }
            }
        };
        self.task = Some(tokio::spawn(read.in_current_span()));
    }

    pub(super) fn close(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
        self.generation += 1;
    }

    /// The connection reported its end (its task is finishing by itself).
    pub(super) fn ended(&mut self) {
        self.task = None;
    }

    /// Whether a signal of connection `generation` is from the current one.
    pub(super) fn is_current(&self, generation: u64) -> bool {
        generation == self.generation
    }
}
