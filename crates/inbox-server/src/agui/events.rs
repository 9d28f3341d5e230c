//! Reading one AG-UI event stream: `text/event-stream` framing (bounded per event and per
//! stream), each `data:` payload decoded as an `ag_ui::Event`, text messages and tool calls
//! folded into the run's transcript, until `RUN_FINISHED` or `RUN_ERROR`.

use std::collections::HashMap;

use ag_ui::{Event, RunOutcome};
use inbox_protocol::AguiTranscriptItem;
use inbox_protocol::caps::{
    AGUI_EVENT_MAX_BYTES, AGUI_STREAM_MAX_BYTES, AGUI_TRANSCRIPT_MAX_BYTES,
    AGUI_TRANSCRIPT_MAX_ITEMS,
};

/// How a stream ended.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEnd {
    /// `RUN_FINISHED`; `None` when the agent gave no outcome (an old agent: success).
    Finished(Option<RunOutcome>),
    /// `RUN_ERROR` with its message.
    Error(String),
}

/// Why a stream could not be read to its end.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StreamFault {
    /// The connection broke or went quiet: worth another attempt.
    #[error("{0}")]
    Transport(String),
    /// The agent broke the protocol or a bound: another attempt would do the same.
    #[error("protocol error: {0}")]
    Protocol(String),
}

/// The transcript of a run as it grows; `start` is where this turn's entries begin.
pub struct Transcript {
    items: Vec<AguiTranscriptItem>,
    bytes: usize,
    messages: Opened,
    calls: Opened,
}

/// The two kinds of transcript entry a stream opens by id and then appends to.
#[derive(Clone, Copy)]
enum Entry {
    Message,
    ToolCall,
}

/// The entries of one kind opened so far, by their id.
#[derive(Default)]
struct Opened {
    at: HashMap<String, usize>,
    /// The last one opened, for chunk events that omit their id.
    last: Option<usize>,
}

impl Transcript {
    pub fn continuing(items: Vec<AguiTranscriptItem>) -> Self {
        let bytes = serde_json::to_vec(&items).map_or(0, |v| v.len());
        Transcript {
            items,
            bytes,
            messages: Opened::default(),
            calls: Opened::default(),
        }
    }

    pub fn into_items(self) -> Vec<AguiTranscriptItem> {
        self.items
    }

    pub fn items(&self) -> &[AguiTranscriptItem] {
        &self.items
    }

    /// The arguments streamed for `tool_call_id`, and its name.
    pub fn tool_call(&self, tool_call_id: &str) -> Option<(&str, &str)> {
        self.items.iter().rev().find_map(|item| match item {
            AguiTranscriptItem::ToolCall {
                tool_call_id: id,
                name,
                arguments,
            } if id == tool_call_id => Some((name.as_str(), arguments.as_str())),
            _ => None,
        })
    }

    /// The text of the last non-empty text message.
    pub fn last_message(&self) -> Option<&str> {
        self.items.iter().rev().find_map(|item| match item {
            AguiTranscriptItem::Message { text, .. } if !text.trim().is_empty() => {
                Some(text.as_str())
            }
            _ => None,
        })
    }

    fn grow(&mut self, by: usize) -> Result<(), StreamFault> {
        self.bytes += by;
        if self.bytes > AGUI_TRANSCRIPT_MAX_BYTES {
            return Err(StreamFault::Protocol(format!(
                "the transcript grew past {AGUI_TRANSCRIPT_MAX_BYTES} bytes"
            )));
        }
        Ok(())
    }

    fn push(&mut self, item: AguiTranscriptItem) -> Result<usize, StreamFault> {
        if self.items.len() >= AGUI_TRANSCRIPT_MAX_ITEMS {
            return Err(StreamFault::Protocol(format!(
                "the transcript grew past {AGUI_TRANSCRIPT_MAX_ITEMS} entries"
            )));
        }
        self.grow(serde_json::to_vec(&item).map_or(0, |v| v.len()))?;
        self.items.push(item);
        Ok(self.items.len() - 1)
    }

    fn opened(&mut self, entry: Entry) -> &mut Opened {
        match entry {
            Entry::Message => &mut self.messages,
            Entry::ToolCall => &mut self.calls,
        }
    }

    /// The entry `id` names, opened (empty) if it is new; `label` is a message's role or a
    /// tool call's name.
    fn open(&mut self, entry: Entry, id: &str, label: &str) -> Result<usize, StreamFault> {
        if let Some(&at) = self.opened(entry).at.get(id) {
            return Ok(at);
        }
        let item = match entry {
            Entry::Message => AguiTranscriptItem::Message {
                message_id: id.to_owned(),
                role: label.to_owned(),
                text: String::new(),
            },
            Entry::ToolCall => AguiTranscriptItem::ToolCall {
                tool_call_id: id.to_owned(),
                name: label.to_owned(),
                arguments: String::new(),
            },
        };
        let at = self.push(item)?;
        let opened = self.opened(entry);
        opened.at.insert(id.to_owned(), at);
        opened.last = Some(at);
        Ok(at)
    }

    /// Appends `delta` to a message's text or a tool call's arguments.
    fn append(&mut self, at: usize, delta: &str) -> Result<(), StreamFault> {
        self.grow(delta.len())?;
        if let Some(
            AguiTranscriptItem::Message { text: grown, .. }
            | AguiTranscriptItem::ToolCall {
                arguments: grown, ..
            },
        ) = self.items.get_mut(at)
        {
            grown.push_str(delta);
        }
        Ok(())
    }

    /// A chunk event's `delta`, appended to the entry `id` names (opened if new); without an
    /// id, to the last entry of its kind, or else to `unnamed` (id, label) opened afresh. With
    /// neither, the chunk has nowhere to go and is dropped.
    fn chunk(
        &mut self,
        entry: Entry,
        id: Option<&str>,
        label: &str,
        unnamed: Option<(&str, &str)>,
        delta: Option<&str>,
    ) -> Result<(), StreamFault> {
        let at = match (id, self.opened(entry).last, unnamed) {
            (Some(id), _, _) => self.open(entry, id, label)?,
            (None, Some(at), _) => at,
            (None, None, Some((id, label))) => self.open(entry, id, label)?,
            (None, None, None) => return Ok(()),
        };
        if let Some(delta) = delta {
            self.append(at, delta)?;
        }
        Ok(())
    }

    /// Fold one event in; `Some` when it ends the run.
    pub fn apply(&mut self, event: Event) -> Result<Option<StreamEnd>, StreamFault> {
        match event {
            Event::TextMessageStart(e) => {
                let role = role_name(&e.role);
                self.open(Entry::Message, e.message_id.as_ref(), &role)?;
            }
            Event::TextMessageContent(e) => {
                let at = self.open(Entry::Message, e.message_id.as_ref(), "assistant")?;
                self.append(at, &e.delta)?;
            }
            Event::TextMessageChunk(e) => {
                let role = e.role.as_ref().map_or("assistant".into(), role_name);
                let id = e.message_id.as_ref().map(|id| id.as_ref());
                let unnamed = Some(("message", "assistant"));
                self.chunk(Entry::Message, id, &role, unnamed, e.delta.as_deref())?;
            }
            Event::ToolCallStart(e) => {
                self.open(Entry::ToolCall, e.tool_call_id.as_ref(), &e.tool_call_name)?;
            }
            Event::ToolCallArgs(e) => {
                let at = self.open(Entry::ToolCall, e.tool_call_id.as_ref(), "")?;
                self.append(at, &e.delta)?;
            }
            Event::ToolCallChunk(e) => {
                let name = e.tool_call_name.as_deref().unwrap_or("");
                let id = e.tool_call_id.as_ref().map(|id| id.as_ref());
                self.chunk(Entry::ToolCall, id, name, None, e.delta.as_deref())?;
            }
            Event::RunFinished(e) => return Ok(Some(StreamEnd::Finished(e.outcome))),
            Event::RunError(e) => return Ok(Some(StreamEnd::Error(e.message))),
            _ => {}
        }
        Ok(None)
    }
}

fn role_name(role: &ag_ui::TextMessageRole) -> String {
    serde_json::to_value(role)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "assistant".into())
}

/// Splits `text/event-stream` bytes into event payloads (the `data:` lines of one event,
/// joined by newlines), bounded per event and in total.
#[derive(Default)]
pub struct SseDecoder {
    line: Vec<u8>,
    data: Vec<u8>,
    has_data: bool,
    total: usize,
}

impl SseDecoder {
    /// Feed a chunk; returns the payloads it completed.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<String>, StreamFault> {
        self.total += chunk.len();
        if self.total > AGUI_STREAM_MAX_BYTES {
            return Err(StreamFault::Protocol(format!(
                "the event stream grew past {AGUI_STREAM_MAX_BYTES} bytes"
            )));
        }
        let mut out = Vec::new();
        for &b in chunk {
            if b != b'\n' {
                self.line.push(b);
                if self.line.len() + self.data.len() > AGUI_EVENT_MAX_BYTES {
                    return Err(StreamFault::Protocol(format!(
                        "an event is larger than {AGUI_EVENT_MAX_BYTES} bytes"
                    )));
                }
                continue;
            }
            let mut line = std::mem::take(&mut self.line);
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if line.is_empty() {
                if self.has_data {
                    let data = std::mem::take(&mut self.data);
                    self.has_data = false;
                    out.push(
                        String::from_utf8(data)
                            .map_err(|_| StreamFault::Protocol("an event is not UTF-8".into()))?,
                    );
                }
            } else if let Some(rest) = line.strip_prefix(b"data:") {
                let rest = rest.strip_prefix(b" ").unwrap_or(rest);
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(rest);
                self.has_data = true;
            }
            // Comments (`:` keep-alives), `event:`, `id:` and `retry:` carry nothing we need.
        }
        Ok(out)
    }
}

/// Decode one payload. An event type this SDK does not know is skipped (a newer agent may
/// send more); a `RUN_FINISHED` or `RUN_ERROR` that does not decode is a protocol error,
/// since skipping it would lose the run's end.
pub fn decode(payload: &str) -> Result<Option<Event>, StreamFault> {
    match serde_json::from_str::<Event>(payload) {
        Ok(event) => Ok(Some(event)),
        Err(e) => {
            let kind = serde_json::from_str::<serde_json::Value>(payload)
                .ok()
                .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_owned));
            match kind.as_deref() {
                Some("RUN_FINISHED" | "RUN_ERROR") => Err(StreamFault::Protocol(format!(
                    "a {} event does not decode: {e}",
                    kind.unwrap_or_default()
                ))),
                _ => {
                    tracing::debug!(error = %e, "skipped an event that does not decode");
                    Ok(None)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_on_blank_lines_across_chunks() {
        let mut d = SseDecoder::default();
        assert!(d.feed(b": keep-alive\n\ndata: {\"a\"").unwrap().is_empty());
        let out = d.feed(b":1}\r\n\r\ndata: x\ndata: y\n\n").unwrap();
        assert_eq!(out, vec!["{\"a\":1}".to_owned(), "x\ny".to_owned()]);
    }

    #[test]
    fn an_oversized_event_is_a_protocol_error() {
        let mut d = SseDecoder::default();
        let big = vec![b'x'; AGUI_EVENT_MAX_BYTES + 10];
        assert!(matches!(d.feed(&big), Err(StreamFault::Protocol(_))));
    }

    #[test]
    fn text_and_tool_calls_fold_into_the_transcript() {
        let mut t = Transcript::continuing(Vec::new());
        for e in [
            Event::text_message_start("m1", ag_ui::TextMessageRole::Assistant),
            Event::text_message_content("m1", "Deploy "),
            Event::text_message_content("m1", "now?"),
        ] {
            assert_eq!(t.apply(e).unwrap(), None);
        }
        let start =
            decode(r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"deploy"}"#)
                .unwrap()
                .unwrap();
        t.apply(start).unwrap();
        let args =
            decode(r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"build\":42}"}"#)
                .unwrap()
                .unwrap();
        t.apply(args).unwrap();
        assert_eq!(t.last_message(), Some("Deploy now?"));
        assert_eq!(t.tool_call("c1"), Some(("deploy", "{\"build\":42}")));
        assert!(decode(r#"{"type":"SOMETHING_NEW"}"#).unwrap().is_none());
        assert!(decode(r#"{"type":"RUN_FINISHED"}"#).is_err());
    }
}
