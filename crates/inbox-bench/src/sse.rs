//! One EventSource subscriber over a plain TCP connection: an HTTP/1.1 `GET`, then the body
//! (chunked or not) read frame by frame. Written by hand rather than through an HTTP client so
//! that ten thousand of them cost the load generator a socket and two small buffers each, the
//! same for every server measured.

use std::io;
use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The marker the publisher writes into every payload, followed by the sequence number.
pub const SEQ_MARKER: &[u8] = b"bench-seq=";

/// Where and how to subscribe.
#[derive(Debug, Clone)]
pub struct SubscribeSpec {
    pub addr: SocketAddr,
    /// Path and query of the EventSource door.
    pub path: String,
    /// Extra request headers (e.g. `Authorization`).
    pub headers: Vec<(String, String)>,
}

/// One frame that carried data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub id: Option<String>,
    /// The publisher's sequence number, when the data carries [`SEQ_MARKER`].
    pub seq: Option<u32>,
    pub data_len: usize,
}

enum Body {
    /// Waiting for a chunk-size line.
    ChunkSize,
    /// Bytes of the current chunk still to come, then its CRLF.
    ChunkData(usize),
    ChunkEnd,
    /// No transfer coding: the body runs until the connection closes.
    Plain,
}

pub struct Subscription {
    stream: TcpStream,
    /// Bytes read and not yet decoded from the transfer coding.
    raw: Vec<u8>,
    /// Decoded event-stream text not yet parsed into frames.
    text: Vec<u8>,
    body: Body,
}

impl Subscription {
    /// Connects and reads the response head; fails unless it is a `200`.
    pub async fn open(spec: &SubscribeSpec, last_event_id: Option<&str>) -> io::Result<Self> {
        let mut stream = TcpStream::connect(spec.addr).await?;
        stream.set_nodelay(true)?;
        let mut request = format!(
            "GET {} HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\nCache-Control: no-cache\r\n",
            spec.path, spec.addr
        );
        for (name, value) in &spec.headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        if let Some(id) = last_event_id {
            request.push_str(&format!("Last-Event-ID: {id}\r\n"));
        }
        request.push_str("\r\n");
        stream.write_all(request.as_bytes()).await?;

        let mut raw = Vec::with_capacity(2048);
        let head_end = loop {
            if let Some(end) = find(&raw, b"\r\n\r\n") {
                break end;
            }
            if raw.len() > 64 * 1024 {
                return Err(io::Error::other("response head over 64 KiB"));
            }
            if stream.read_buf(&mut raw).await? == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "closed before the response head",
                ));
            }
        };
        let head = String::from_utf8_lossy(&raw[..head_end]).to_ascii_lowercase();
        let status = head.lines().next().unwrap_or_default().to_owned();
        if !status.starts_with("http/1.1 200") && !status.starts_with("http/1.0 200") {
            return Err(io::Error::other(format!("subscribe refused: {status}")));
        }
        let chunked = head
            .lines()
            .any(|l| l.starts_with("transfer-encoding:") && l.contains("chunked"));
        raw.drain(..head_end + 4);
        Ok(Subscription {
            stream,
            raw,
            text: Vec::with_capacity(1024),
            body: if chunked {
                Body::ChunkSize
            } else {
                Body::Plain
            },
        })
    }

    /// The next frame with data; `None` once the server closed the stream.
    pub async fn next_frame(&mut self) -> io::Result<Option<Frame>> {
        loop {
            self.decode()?;
            if let Some(frame) = self.parse_frame() {
                return Ok(Some(frame));
            }
            if self.raw.capacity() - self.raw.len() < 1024 {
                self.raw.reserve(4096);
            }
            if self.stream.read_buf(&mut self.raw).await? == 0 {
                return Ok(None);
            }
        }
    }

    /// Moves what the transfer coding allows from `raw` to `text`.
    fn decode(&mut self) -> io::Result<()> {
        let mut at = 0;
        loop {
            match self.body {
                Body::Plain => {
                    self.text.extend_from_slice(&self.raw[at..]);
                    at = self.raw.len();
                    break;
                }
                Body::ChunkSize => {
                    let Some(end) = find(&self.raw[at..], b"\r\n") else {
                        break;
                    };
                    let line = String::from_utf8_lossy(&self.raw[at..at + end]);
                    let size = line.split(';').next().unwrap_or_default().trim();
                    let size = usize::from_str_radix(size, 16)
                        .map_err(|_| io::Error::other(format!("bad chunk size {size:?}")))?;
                    at += end + 2;
                    if size == 0 {
                        return Err(io::Error::new(
                            io::ErrorKind::UnexpectedEof,
                            "the stream ended",
                        ));
                    }
                    self.body = Body::ChunkData(size);
                }
                Body::ChunkData(left) => {
                    let take = left.min(self.raw.len() - at);
                    if take == 0 {
                        break;
                    }
                    self.text.extend_from_slice(&self.raw[at..at + take]);
                    at += take;
                    self.body = if take == left {
                        Body::ChunkEnd
                    } else {
                        Body::ChunkData(left - take)
                    };
                }
                Body::ChunkEnd => {
                    if self.raw.len() - at < 2 {
                        break;
                    }
                    at += 2;
                    self.body = Body::ChunkSize;
                }
            }
        }
        self.raw.drain(..at);
        Ok(())
    }

    /// Takes the first complete frame with data out of `text`, skipping comments and
    /// data-less frames (keep-alives, `retry:`).
    fn parse_frame(&mut self) -> Option<Frame> {
        loop {
            let (block_len, consumed) = block_end(&self.text)?;
            let frame = parse_block(&self.text[..block_len]);
            self.text.drain(..consumed);
            if frame.is_some() {
                return frame;
            }
        }
    }
}

/// The end of the first frame: its length and the bytes to drop (with the blank line).
fn block_end(text: &[u8]) -> Option<(usize, usize)> {
    let mut line_start = 0;
    for (i, &b) in text.iter().enumerate() {
        if b == b'\n' {
            let line = &text[line_start..i];
            if line.is_empty() || line == b"\r" {
                return Some((line_start, i + 1));
            }
            line_start = i + 1;
        }
    }
    None
}

fn parse_block(block: &[u8]) -> Option<Frame> {
    let mut id = None;
    let mut seq = None;
    let mut data_len = 0;
    let mut has_data = false;
    for line in block.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let Some(v) = field(line, b"id") {
            id = Some(String::from_utf8_lossy(v).into_owned());
        } else if let Some(v) = field(line, b"data") {
            has_data = true;
            data_len += v.len();
            if seq.is_none()
                && let Some(at) = find(v, SEQ_MARKER)
            {
                let digits = &v[at + SEQ_MARKER.len()..];
                let n = digits.iter().take_while(|b| b.is_ascii_digit()).count();
                seq = std::str::from_utf8(&digits[..n])
                    .ok()
                    .and_then(|s| s.parse().ok());
            }
        }
    }
    has_data.then_some(Frame { id, seq, data_len })
}

/// The value of `name: value` (one optional space after the colon), per the SSE grammar.
fn field<'a>(line: &'a [u8], name: &[u8]) -> Option<&'a [u8]> {
    let rest = line.strip_prefix(name)?;
    let rest = rest.strip_prefix(b":")?;
    Some(rest.strip_prefix(b" ").unwrap_or(rest))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_parsed_with_id_and_seq() {
        let f =
            parse_block(b"id: 7-0\nevent: add\ndata: {\"prompt\":\"bench-seq=42; x\"}").unwrap();
        assert_eq!(f.id.as_deref(), Some("7-0"));
        assert_eq!(f.seq, Some(42));
        assert!(parse_block(b":keepalive").is_none());
        assert_eq!(block_end(b"data: a\r\n\r\nrest"), Some((9, 11)));
        assert_eq!(block_end(b"data: a\n"), None);
    }
}
