//! Paging the list, the same for every store: items carry a creation `rank`, pages run
//! newest first, and the cursor is the rank of the last item served, written `r<rank>`.

use inbox_protocol::caps::PAGE_MAX_BYTES;
use inbox_protocol::{Interaction, InteractionPage, Notification, NotificationPage};
use serde::Serialize;

use super::StoreError;

/// The rank a `cursor` from an earlier page points at.
pub(crate) fn parse_cursor(cursor: &str) -> Result<i64, StoreError> {
    cursor
        .strip_prefix('r')
        .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|digits| digits.parse().ok())
        .ok_or(StoreError::InvalidCursor)
}

/// The rank a page starts below: the cursor's, or past every rank for the first page.
pub(crate) fn before(cursor: Option<&str>) -> Result<i64, StoreError> {
    cursor.map_or(Ok(i64::MAX), parse_cursor)
}

/// A page of the list doors: interactions or notifications.
pub(crate) trait Page: Sized {
    type Item: Serialize;
    fn new(items: Vec<Self::Item>, next_cursor: Option<String>, stream_cursor: String) -> Self;
}

/// Both pages are the same three fields around their items.
macro_rules! page_of {
    ($($page:ident of $item:ident),+) => {
        $(impl Page for $page {
            type Item = $item;
            fn new(items: Vec<$item>, next_cursor: Option<String>, stream_cursor: String) -> Self {
                $page {
                    items,
                    next_cursor,
                    stream_cursor,
                }
            }
        })+
    };
}

page_of!(InteractionPage of Interaction, NotificationPage of Notification);

/// A page from up to `limit + 1` rows read newest first: the extra row only tells that there is
/// more. A row whose record is gone (`None`) is not shown but still moves the cursor on. The
/// page also ends early, with a cursor, once its items reach [`PAGE_MAX_BYTES`] serialised
/// (always serving at least one), so a page of large questions stays a bounded response.
pub(crate) fn assemble<P: Page>(
    rows: Vec<(i64, Option<P::Item>)>,
    limit: usize,
    stream_cursor: String,
) -> P {
    let (items, next_cursor) = take(rows, limit);
    P::new(items, next_cursor, stream_cursor)
}

/// The items of one page and the cursor of the next (see [`assemble`]).
fn take<T: Serialize>(rows: Vec<(i64, Option<T>)>, limit: usize) -> (Vec<T>, Option<String>) {
    let mut more = rows.len() > limit;
    let mut items = Vec::new();
    let mut last_rank = None;
    let mut bytes = 0usize;
    for (rank, item) in rows.into_iter().take(limit) {
        if let Some(item) = item {
            let size = serde_json::to_vec(&item).map_or(0, |v| v.len());
            if !items.is_empty() && bytes + size > PAGE_MAX_BYTES {
                more = true;
                break;
            }
            bytes += size;
            items.push(item);
        }
        last_rank = Some(rank);
    }
    let next_cursor = if more {
        last_rank.map(|rank| format!("r{rank}"))
    } else {
        None
    };
    (items, next_cursor)
}
