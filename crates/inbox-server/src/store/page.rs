//! Paging the list, the same for every store: items carry a creation `rank`, pages run
//! newest first, and the cursor is the rank of the last item served, written `r<rank>`.

use inbox_protocol::{Interaction, InteractionPage};

use super::StoreError;

/// The rank a `cursor` from an earlier page points at.
pub(crate) fn parse_cursor(cursor: &str) -> Result<i64, StoreError> {
    cursor
        .strip_prefix('r')
        .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|digits| digits.parse().ok())
        .ok_or(StoreError::InvalidCursor)
}

/// A page from up to `limit + 1` rows read newest first: the extra row only tells that there is
/// more. A row whose record is gone (`None`) is not shown but still moves the cursor on.
pub(crate) fn assemble(
    mut rows: Vec<(i64, Option<Interaction>)>,
    limit: usize,
    stream_cursor: String,
) -> InteractionPage {
    let more = rows.len() > limit;
    rows.truncate(limit);
    let next_cursor = if more {
        rows.last().map(|(rank, _)| format!("r{rank}"))
    } else {
        None
    };
    InteractionPage {
        items: rows.into_iter().filter_map(|(_, ia)| ia).collect(),
        next_cursor,
        stream_cursor,
    }
}
