//! SSE ids of the events stream: which of two is newer, and which ones were already applied.
//!
//! The contract says ids are monotonic: the embedded store uses a sequence number (`42`), the
//! Redis store a stream id (`1700000000000-3`). Both are runs of digits separated by `-`, so
//! they compare as tuples of numbers. Anything else falls back to (length, bytes), which orders
//! zero-padded or fixed-width ids correctly and is at least deterministic otherwise.

use std::cmp::Ordering;
use std::collections::{HashSet, VecDeque};

/// Compare two SSE ids by stream position.
pub fn compare(a: &str, b: &str) -> Ordering {
    match (numeric_parts(a), numeric_parts(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => (a.len(), a).cmp(&(b.len(), b)),
    }
}

/// Whether `a` comes after `b`, when both are numeric ids (`None`: not comparable for sure).
pub fn is_after(a: &str, b: &str) -> Option<bool> {
    Some(numeric_parts(a)? > numeric_parts(b)?)
}

/// The newer of two optional positions (`None` is older than any id).
pub fn newest(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if compare(&a, &b) == Ordering::Less {
            b
        } else {
            a
        }),
        (a, b) => a.or(b),
    }
}

fn numeric_parts(id: &str) -> Option<Vec<u128>> {
    if id.is_empty() {
        return None;
    }
    id.split('-')
        .map(|part| {
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                None
            } else {
                part.parse::<u128>().ok()
            }
        })
        .collect()
}

/// The ids of the most recent events applied, so a frame delivered twice (an overlapping
/// resume) is applied once. Bounded: a resume replays at most the server's retention window,
/// and anything older is caught by the position check instead.
#[derive(Debug, Clone)]
pub(crate) struct SeenEvents {
    order: VecDeque<String>,
    ids: HashSet<String>,
    capacity: usize,
}

impl SeenEvents {
    pub(crate) fn new(capacity: usize) -> SeenEvents {
        SeenEvents {
            order: VecDeque::new(),
            ids: HashSet::new(),
            capacity,
        }
    }

    /// Record `id`; false when it was already seen.
    pub(crate) fn insert(&mut self, id: &str) -> bool {
        if self.ids.contains(id) {
            return false;
        }
        if self.order.len() == self.capacity
            && let Some(old) = self.order.pop_front()
        {
            self.ids.remove(&old);
        }
        self.order.push_back(id.to_owned());
        self.ids.insert(id.to_owned());
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_compare_numerically_not_textually() {
        let rows = [
            ("9", "10", Ordering::Less),
            ("42", "42", Ordering::Equal),
            ("1700000000000-9", "1700000000000-10", Ordering::Less),
            ("1700000000001-0", "1700000000000-99", Ordering::Greater),
            ("abc", "abd", Ordering::Less),
            ("b", "aa", Ordering::Less),
        ];
        for (a, b, want) in rows {
            assert_eq!(compare(a, b), want, "{a} vs {b}");
        }
        assert_eq!(
            newest(Some("9".into()), Some("10".into())).as_deref(),
            Some("10")
        );
        assert_eq!(newest(None, Some("3".into())).as_deref(), Some("3"));
        assert_eq!(newest(Some("3".into()), None).as_deref(), Some("3"));
    }

    #[test]
    fn seen_events_forget_the_oldest_beyond_capacity() {
        let mut seen = SeenEvents::new(2);
        assert!(seen.insert("1"));
        assert!(!seen.insert("1"));
        assert!(seen.insert("2"));
        assert!(seen.insert("3"));
        assert!(seen.insert("1"), "1 was forgotten when 3 arrived");
        assert!(!seen.insert("3"));
    }
}
