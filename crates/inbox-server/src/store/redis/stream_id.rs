//! Redis stream ids (`<milliseconds>-<sequence>`) as the events-stream cursor.

use std::fmt;

/// A parsed stream id. Orders the way Redis orders entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct StreamId {
    pub millis: u64,
    pub seq: u64,
}

impl StreamId {
    /// The id before any entry: the tail of an empty stream.
    pub const ZERO: StreamId = StreamId { millis: 0, seq: 0 };

    /// Strictly `<digits>-<digits>`, each part fitting in a u64. Anything else (a bare number,
    /// `$`, `+`, a SQLite cursor) is not a cursor this stream issued.
    pub fn parse(text: &str) -> Option<StreamId> {
        let (millis, seq) = text.split_once('-')?;
        let part = |s: &str| {
            if s.is_empty() || s.len() > 20 || !s.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            s.parse::<u64>().ok()
        };
        Some(StreamId {
            millis: part(millis)?,
            seq: part(seq)?,
        })
    }
}

impl fmt::Display for StreamId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.millis, self.seq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_only_full_stream_ids() {
        assert_eq!(
            StreamId::parse("1732890000000-3"),
            Some(StreamId {
                millis: 1_732_890_000_000,
                seq: 3
            })
        );
        assert_eq!(StreamId::parse("0-0"), Some(StreamId::ZERO));
        for bad in [
            "",
            "12",
            "-1",
            "1-",
            "a-1",
            "1-1-1",
            "1 -1",
            "99999999999999999999-0",
            "$",
        ] {
            assert_eq!(StreamId::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn orders_by_millis_then_sequence() {
        let id = |s| StreamId::parse(s).unwrap();
        assert!(id("10-0") > id("9-99"));
        assert!(id("10-2") > id("10-1"));
        assert_eq!(id("10-2").to_string(), "10-2");
    }
}
