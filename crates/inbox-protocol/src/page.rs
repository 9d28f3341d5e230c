//! The paged list door.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::interaction::{Interaction, Status};

/// `GET /api/interactions?status=…&limit=…&cursor=…`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct InteractionPage {
    /// Newest first.
    pub items: Vec<Interaction>,
    /// Pass back as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
    /// The events-stream id at the moment the page was read: open the stream here for no gap.
    pub stream_cursor: String,
}

/// Which statuses a list request returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum StatusFilter {
    #[default]
    Pending,
    Answered,
    Declined,
    Expired,
    Cancelled,
    /// Every status.
    All,
}

impl StatusFilter {
    pub fn parse(s: &str) -> Option<StatusFilter> {
        match s {
            "all" => Some(StatusFilter::All),
            other => Status::parse(other).map(StatusFilter::from),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            StatusFilter::All => "all",
            StatusFilter::Pending => "pending",
            StatusFilter::Answered => "answered",
            StatusFilter::Declined => "declined",
            StatusFilter::Expired => "expired",
            StatusFilter::Cancelled => "cancelled",
        }
    }

    /// The single status this filter selects, or `None` for all.
    pub fn status(self) -> Option<Status> {
        match self {
            StatusFilter::All => None,
            StatusFilter::Pending => Some(Status::Pending),
            StatusFilter::Answered => Some(Status::Answered),
            StatusFilter::Declined => Some(Status::Declined),
            StatusFilter::Expired => Some(Status::Expired),
            StatusFilter::Cancelled => Some(Status::Cancelled),
        }
    }
}

impl From<Status> for StatusFilter {
    fn from(s: Status) -> Self {
        match s {
            Status::Pending => StatusFilter::Pending,
            Status::Answered => StatusFilter::Answered,
            Status::Declined => StatusFilter::Declined,
            Status::Expired => StatusFilter::Expired,
            Status::Cancelled => StatusFilter::Cancelled,
        }
    }
}
