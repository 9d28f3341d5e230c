//! What the requests an account's task started report back to it.

use inbox_protocol::{Interaction, InteractionPage, Notification};

use super::delivery::SendOutcome;
use crate::error::ClientError;
use crate::stream::StreamSignal;

pub(super) enum Report {
    Page {
        cursor: Option<String>,
        result: Result<InteractionPage, ClientError>,
    },
    /// From the stream task of connection `generation` (older ones are ignored).
    Stream {
        generation: u64,
        signal: StreamSignal,
    },
    /// A keepalive on connection `generation`.
    Alive {
        generation: u64,
    },
    Fetched {
        id: String,
        result: Result<Box<Interaction>, ClientError>,
    },
    Sent {
        key: String,
        outcome: SendOutcome,
    },
    /// Every page of a notifications list read.
    Notifications {
        result: Result<Vec<Notification>, ClientError>,
    },
    /// One try at telling the server of a dismissed notification.
    Dismissed {
        id: String,
        result: Result<(), ClientError>,
    },
}
