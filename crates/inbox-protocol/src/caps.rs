//! Bounds of the wire contract. They bound what an asker submits (not a replay) and are part of
//! the contract, not operator settings; `docs/api.md` lists them.

/// Characters in a prompt.
pub const PROMPT_MAX_CHARS: usize = 8_000;
/// Items in `options` (select choices, text suggested replies, one property's `data.options`).
pub const OPTIONS_MAX_ITEMS: usize = 100;
/// Characters in an option's `value` or `label`.
pub const OPTION_MAX_CHARS: usize = 500;
/// Bytes of a form's JSON Schema once serialised.
pub const SCHEMA_MAX_BYTES: usize = 64 * 1024;
/// JSON values (objects, arrays, strings, numbers, ...) in a schema document.
pub const SCHEMA_MAX_NODES: usize = 10_000;
/// Nesting levels of a schema document.
pub const SCHEMA_MAX_DEPTH: usize = 64;
/// `pattern`s and `patternProperties` keys in one schema.
pub const SCHEMA_MAX_PATTERNS: usize = 64;
/// Characters in one pattern.
pub const SCHEMA_PATTERN_MAX_CHARS: usize = 1_000;
/// Subschemas that may apply at any one place in an answer, counting every reference followed
/// (the bound that keeps validation linear in the answer's size).
pub const SCHEMA_MAX_APPLICATIONS: u64 = 2_000;
/// Nesting levels of an answer value, a prefill or callback `params`.
pub const ANSWER_MAX_DEPTH: usize = 32;
/// Bytes of a form or external answer value once serialised.
pub const ANSWER_VALUE_MAX_BYTES: usize = 256 * 1024;
/// Bytes of a form's `data` (prefilled values and per-send choice lists) once serialised.
pub const DATA_MAX_BYTES: usize = 64 * 1024;
/// Bytes of the opaque `params` carried beside an answer once serialised.
pub const PARAMS_MAX_BYTES: usize = 8 * 1024;
/// Pages of a multi-page form.
pub const PAGES_MAX_ITEMS: usize = 50;
/// Characters in a page title.
pub const PAGE_TITLE_MAX_CHARS: usize = 200;
/// Bytes of `metadata` once serialised.
pub const METADATA_MAX_BYTES: usize = 8 * 1024;
/// Characters of an external `link` template.
pub const LINK_MAX_CHARS: usize = 2_048;

/// A loose abuse guard on the number of media items on one ask.
pub const MEDIA_MAX_ITEMS: usize = 10;
/// Bytes of a media URL that is not a data URI.
pub const MEDIA_URL_MAX_BYTES: usize = 2_048;
/// Bytes of one inline `data:image/*` URI (base64 text as submitted).
pub const MEDIA_DATA_URI_MAX_BYTES: usize = 2 * 1024 * 1024;
/// Bytes of all media URLs of one ask together.
pub const MEDIA_TOTAL_MAX_BYTES: usize = 4 * 1024 * 1024;
/// Characters in a caption.
pub const MEDIA_CAPTION_MAX_CHARS: usize = 500;
/// Characters in a document's filename.
pub const MEDIA_FILENAME_MAX_CHARS: usize = 255;

/// Longest sync `timeout_s` (7 days).
pub const TIMEOUT_MAX_SECONDS: u64 = 7 * 24 * 3600;
/// Characters in a text answer (a reviewer's free-text reply).
pub const ANSWER_TEXT_MAX_CHARS: usize = 32_000;
/// Characters in a decline reason.
pub const DECLINE_REASON_MAX_CHARS: usize = 2_000;
/// Bytes of a request body on any door (an ask at its media caps fits with room to spare).
pub const REQUEST_BODY_MAX_BYTES: usize = 6 * 1024 * 1024;
/// Questions one asker may have pending at once (`429 too_many_pending` past it), so one
/// asker cannot fill the store or every reviewer's list.
pub const PENDING_PER_ASKER_MAX: usize = 1_000;
/// Items in one page of the list door.
pub const PAGE_LIMIT_MAX: usize = 500;
/// Bytes of the items of one list page, serialised: a page of large questions ends early, with
/// a `next_cursor`, rather than grow without bound (it always holds at least one item).
pub const PAGE_MAX_BYTES: usize = 4 * 1024 * 1024;
/// Items in a page when `limit` is absent.
pub const PAGE_LIMIT_DEFAULT: usize = 50;
/// Characters of an `Idempotency-Key`.
pub const IDEMPOTENCY_KEY_MAX_CHARS: usize = 200;
/// Longest `wait?timeout_s=` a long-poll may hold.
pub const WAIT_MAX_SECONDS: u64 = 60;

/// Bytes of a body on the public callback door. Much smaller than `REQUEST_BODY_MAX_BYTES`:
/// the door is unauthenticated, and a provider's answer payload is small.
pub const CALLBACK_BODY_MAX_BYTES: usize = 64 * 1024;
/// Bytes of a verifier's secret on an external question.
pub const VERIFIER_SECRET_MAX_BYTES: usize = 1_024;
/// Questions in one park (`POST /api/parks`, `asks`).
pub const PARK_MAX_ASKS: usize = 50;
/// Characters of a webhook continuation's `url`.
pub const WEBHOOK_URL_MAX_CHARS: usize = 2_048;

/// Characters of an AG-UI run's `agent_url`.
pub const AGUI_URL_MAX_CHARS: usize = 2_048;
/// Characters of an AG-UI `thread_id`, and of an interrupt's `id` the agent sends.
pub const AGUI_ID_MAX_CHARS: usize = 200;
/// Bytes of an AG-UI run's `input` once serialised.
pub const AGUI_INPUT_MAX_BYTES: usize = 256 * 1024;
/// Extra request headers on one AG-UI run.
pub const AGUI_HEADERS_MAX_ITEMS: usize = 20;
/// Bytes of one extra header (name and value together).
pub const AGUI_HEADER_MAX_BYTES: usize = 4 * 1024;
/// Entries in an AG-UI run's transcript; an agent that streams more fails the run.
pub const AGUI_TRANSCRIPT_MAX_ITEMS: usize = 1_000;
/// Bytes of an AG-UI run's transcript once serialised; past it the run fails.
pub const AGUI_TRANSCRIPT_MAX_BYTES: usize = 512 * 1024;
/// Bytes of one event stream the server reads from an agent; past it the turn fails.
pub const AGUI_STREAM_MAX_BYTES: usize = 4 * 1024 * 1024;
/// Bytes of one SSE event (its `data:` lines together) from an agent.
pub const AGUI_EVENT_MAX_BYTES: usize = 512 * 1024;
/// Times one AG-UI run may interrupt (parks it may open); one more fails the run.
/// (Interrupts in one outcome are bounded by `PARK_MAX_ASKS`: one question each.)
pub const AGUI_INTERRUPTS_MAX_ROUNDS: usize = 100;

/// How far a Standard Webhooks `webhook-timestamp` may be from the server's clock (replay guard).
pub const SIGNATURE_TOLERANCE_SECONDS: i64 = 5 * 60;

#[cfg(test)]
mod tests {
    /// The API reference is what users read: every cap must be listed there.
    #[test]
    fn every_cap_is_documented_in_the_api_reference() {
        let caps = include_str!("caps.rs");
        let api = include_str!("../../../docs/api.md");
        let names: Vec<&str> = caps
            .lines()
            .filter_map(|l| l.strip_prefix("pub const "))
            .filter_map(|l| l.split(':').next())
            .collect();
        assert!(names.len() > 10, "found the caps: {names:?}");
        for name in names {
            assert!(
                api.contains(&format!("`{name}`")),
                "docs/api.md does not list `{name}`"
            );
        }
    }
}
