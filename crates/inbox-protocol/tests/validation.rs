//! The validation contract as tables: every ask-time and answer-time rule has a row naming the
//! error code and the exact field path, and every format has rows that must pass. Asks are
//! written as the JSON bodies an asker would send.

use chrono::{DateTime, Duration, TimeZone, Utc};
use inbox_protocol::caps::{
    ANSWER_TEXT_MAX_CHARS, DECLINE_REASON_MAX_CHARS, LINK_MAX_CHARS, MEDIA_CAPTION_MAX_CHARS,
    MEDIA_DATA_URI_MAX_BYTES, MEDIA_FILENAME_MAX_CHARS, MEDIA_MAX_ITEMS, MEDIA_TOTAL_MAX_BYTES,
    MEDIA_URL_MAX_BYTES, METADATA_MAX_BYTES, OPTION_MAX_CHARS, OPTIONS_MAX_ITEMS, PAGES_MAX_ITEMS,
    PROMPT_MAX_CHARS, SCHEMA_MAX_BYTES, TIMEOUT_MAX_SECONDS,
};
use inbox_protocol::validate::{validate_answer, validate_ask, validate_decline};
use inbox_protocol::{
    AskRequest, DeclineRequest, ErrorBody, ErrorCode, Interaction, ValidationError,
};
use serde_json::{Value, json};
use support::{form_schema, now, question_from, with};

mod support;

use ErrorCode::{
    FieldNotAllowed, InvalidAnswer, InvalidField, InvalidMedia, MediaTooLarge, MissingField,
    UnknownProperty,
};

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

fn ask(body: &Value) -> AskRequest {
    serde_json::from_value(body.clone()).unwrap_or_else(|e| panic!("not an ask body: {e}\n{body}"))
}

fn text() -> Value {
    json!({"prompt": "Anything to add before the release?", "answer_format": "text"})
}
fn confirm() -> Value {
    json!({"prompt": "Deploy build 42?", "answer_format": "confirm"})
}
fn select() -> Value {
    json!({
        "prompt": "Which region?",
        "answer_format": "select",
        "options": [{"value": "eu", "label": "Europe"}, {"value": "us"}]
    })
}
fn form() -> Value {
    json!({"prompt": "Book the rooms", "answer_format": "form", "schema": form_schema()})
}
/// The seed's example: the count arrives prefilled, the date offers this send's two labelled
/// choices, and the form reads as two steps.
fn two_page_form() -> Value {
    with(
        &form(),
        json!({
            "data": {
                "values": {"count": 3},
                "options": {"date": [
                    {"value": "2026-12-01", "label": "Monday"},
                    {"value": "2026-12-02", "label": "Tuesday"}
                ]}
            },
            "pages": [
                {"title": "Basics", "fields": ["count", "date"]},
                {"title": "Notes", "fields": ["note"]}
            ]
        }),
    )
}
fn external() -> Value {
    json!({
        "prompt": "Sign the contract",
        "answer_format": "external",
        "link": "https://sign.example/start?return={callback_url}"
    })
}
/// A confirm question in async mode, due at `expiry_at`.
fn async_until(expiry_at: &str) -> Value {
    with(&confirm(), json!({"mode": "async", "expiry_at": expiry_at}))
}
/// The form question answered against `schema`.
fn form_of(schema: Value) -> Value {
    with(&form(), json!({ "schema": schema }))
}
/// The form question split into `pages`.
fn paged(pages: Value) -> Value {
    with(&form(), json!({ "pages": pages }))
}
/// The form question with `data` as its per-send overlay.
fn prefilled(data: Value) -> Value {
    with(&form(), json!({ "data": data }))
}
/// A confirm question showing one document offered for download as `filename`.
fn document_named(filename: impl Into<Value>) -> Value {
    let filename: Value = filename.into();
    media(json!([{"kind": "document", "url": "https://files.example/r.pdf", "filename": filename}]))
}
fn media(items: Value) -> Value {
    with(&confirm(), json!({ "media": items }))
}
fn image(url: &str) -> Value {
    json!({"kind": "image", "url": url})
}
fn data_png() -> String {
    format!("data:image/png;base64,{PNG}")
}
/// A `data:image/png` URI of exactly `bytes` bytes whose payload is valid base64.
fn data_png_of(bytes: usize) -> String {
    let prefix = "data:image/png;base64,";
    let payload = bytes - prefix.len();
    format!("{prefix}{}", "A".repeat(payload - payload % 4))
}

struct Refusal {
    rule: &'static str,
    body: Value,
    code: ErrorCode,
    field: String,
}

fn no(rule: &'static str, body: Value, code: ErrorCode, field: &str) -> Refusal {
    Refusal {
        rule,
        body,
        code,
        field: field.to_owned(),
    }
}

fn ask_refusals() -> Vec<Refusal> {
    let many_options: Vec<Value> = (0..=OPTIONS_MAX_ITEMS)
        .map(|i| json!({"value": format!("v{i}")}))
        .collect();
    let long_option = "x".repeat(OPTION_MAX_CHARS + 1);
    let big_schema = json!({
        "type": "object",
        "description": "d".repeat(SCHEMA_MAX_BYTES),
        "properties": {}
    });
    let too_many_pages: Vec<Value> = (0..=PAGES_MAX_ITEMS)
        .map(|i| json!({"title": format!("Step {i}"), "fields": ["count"]}))
        .collect();
    let eleven_images: Vec<Value> = (0..=MEDIA_MAX_ITEMS)
        .map(|i| image(&format!("https://cdn.example/{i}.png")))
        .collect();
    let each_third = MEDIA_TOTAL_MAX_BYTES / 3 + 16;

    vec![
        // prompt
        no(
            "blank prompt",
            with(&text(), json!({"prompt": " \n\t"})),
            InvalidField,
            "prompt",
        ),
        no(
            "empty prompt",
            with(&text(), json!({"prompt": ""})),
            InvalidField,
            "prompt",
        ),
        no(
            "prompt over the cap",
            with(&text(), json!({"prompt": "p".repeat(PROMPT_MAX_CHARS + 1)})),
            InvalidField,
            "prompt",
        ),
        // options: select requires them, text takes them as suggested replies, same shape
        no(
            "select without options",
            with(&select(), json!({"options": null})),
            MissingField,
            "options",
        ),
        no(
            "select with empty options",
            with(&select(), json!({"options": []})),
            InvalidField,
            "options",
        ),
        no(
            "select over the option cap",
            with(&select(), json!({"options": many_options})),
            InvalidField,
            "options",
        ),
        no(
            "select with a repeated value",
            with(
                &select(),
                json!({"options": [{"value": "eu"}, {"value": "eu", "label": "Again"}]}),
            ),
            InvalidField,
            "options[1].value",
        ),
        no(
            "select with a blank value",
            with(&select(), json!({"options": [{"value": "  "}]})),
            InvalidField,
            "options[0].value",
        ),
        no(
            "select with a blank label",
            with(
                &select(),
                json!({"options": [{"value": "eu"}, {"value": "us", "label": ""}]}),
            ),
            InvalidField,
            "options[1].label",
        ),
        no(
            "select with an over-long value",
            with(&select(), json!({"options": [{"value": long_option}]})),
            InvalidField,
            "options[0].value",
        ),
        no(
            "select with an over-long label",
            with(
                &select(),
                json!({"options": [{"value": "eu", "label": long_option}]}),
            ),
            InvalidField,
            "options[0].label",
        ),
        no(
            "text with empty suggested replies",
            with(&text(), json!({"options": []})),
            InvalidField,
            "options",
        ),
        no(
            "text with a blank suggested reply",
            with(
                &text(),
                json!({"options": [{"value": "ok"}, {"value": ""}]}),
            ),
            InvalidField,
            "options[1].value",
        ),
        no(
            "a notification sent to the ask door",
            with(&form(), json!({"kind": "notification"})),
            FieldNotAllowed,
            "kind",
        ),
        no(
            "confirm with options",
            with(&confirm(), json!({"options": [{"value": "y"}]})),
            FieldNotAllowed,
            "options",
        ),
        no(
            "form with options",
            with(&form(), json!({"options": [{"value": "y"}]})),
            FieldNotAllowed,
            "options",
        ),
        no(
            "external with options",
            with(&external(), json!({"options": [{"value": "y"}]})),
            FieldNotAllowed,
            "options",
        ),
        // schema: form requires one, external may carry one, the others refuse it
        no(
            "text with a schema",
            with(&text(), json!({"schema": form_schema()})),
            FieldNotAllowed,
            "schema",
        ),
        no(
            "confirm with a schema",
            with(&confirm(), json!({"schema": form_schema()})),
            FieldNotAllowed,
            "schema",
        ),
        no(
            "select with a schema",
            with(&select(), json!({"schema": form_schema()})),
            FieldNotAllowed,
            "schema",
        ),
        no(
            "form without a schema",
            with(&form(), json!({"schema": null})),
            MissingField,
            "schema",
        ),
        no(
            "form schema that does not compile",
            form_of(json!({"type": "object", "properties": {"count": {"type": "integre"}}})),
            InvalidField,
            "schema",
        ),
        no(
            "form schema with a remote $ref",
            form_of(json!({"$ref": "https://schemas.example/booking.json"})),
            InvalidField,
            "schema.$ref",
        ),
        no(
            "form schema whose $defs entry refers to itself in place",
            form_of(
                json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}},
                    "$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}]}}}),
            ),
            InvalidField,
            "schema.$defs.a.allOf[0].$ref",
        ),
        no(
            "form schema with a lookahead pattern",
            form_of(json!({"type": "object", "properties": {
                    "x": {"type": "string", "pattern": "^(?!admin)"}}})),
            InvalidField,
            "schema.properties.x.pattern",
        ),
        no(
            "form prefill over the data byte cap",
            with(
                &form(),
                json!({"schema": {"type": "object", "properties": {"x": {"type": "string"}}},
                    "data": {"values": {"x": "v".repeat(70_000)}}}),
            ),
            InvalidField,
            "data",
        ),
        no(
            "form schema that is not an object",
            form_of(json!(true)),
            InvalidField,
            "schema",
        ),
        no(
            "form schema of a non-object answer",
            form_of(json!({"type": "array"})),
            InvalidField,
            "schema",
        ),
        no(
            "form schema over the byte cap",
            form_of(big_schema),
            InvalidField,
            "schema",
        ),
        no(
            // The callback page's renderable subset is checked first (tests/external.rs).
            "external schema that does not compile",
            with(&external(), json!({"schema": {"type": 7}})),
            InvalidField,
            "schema.type",
        ),
        // data and pages only on form; link only on external
        no(
            "data on text",
            with(&text(), json!({"data": {"values": {}}})),
            FieldNotAllowed,
            "data",
        ),
        no(
            "data on select",
            with(&select(), json!({"data": {"values": {}}})),
            FieldNotAllowed,
            "data",
        ),
        no(
            "data on external",
            with(&external(), json!({"data": {"values": {}}})),
            FieldNotAllowed,
            "data",
        ),
        no(
            "pages on confirm",
            with(
                &confirm(),
                json!({"pages": [{"title": "A", "fields": ["x"]}]}),
            ),
            FieldNotAllowed,
            "pages",
        ),
        no(
            "pages on external",
            with(&external(), json!({"pages": []})),
            FieldNotAllowed,
            "pages",
        ),
        no(
            "link on text",
            with(&text(), json!({"link": "https://example.com"})),
            FieldNotAllowed,
            "link",
        ),
        no(
            "link on form",
            with(&form(), json!({"link": "https://example.com"})),
            FieldNotAllowed,
            "link",
        ),
        // link
        no(
            "external without a link",
            with(&external(), json!({"link": null})),
            MissingField,
            "link",
        ),
        no(
            "external with a relative link",
            with(&external(), json!({"link": "/sign?cb={callback_url}"})),
            InvalidField,
            "link",
        ),
        no(
            "external with a javascript: link",
            with(&external(), json!({"link": "javascript:alert(1)"})),
            InvalidField,
            "link",
        ),
        no(
            "external with an ftp link",
            with(&external(), json!({"link": "ftp://files.example/x"})),
            InvalidField,
            "link",
        ),
        no(
            "external with the placeholder as host",
            with(&external(), json!({"link": "https://{callback_url}"})),
            InvalidField,
            "link",
        ),
        no(
            "external with a blank link",
            with(&external(), json!({"link": " "})),
            InvalidField,
            "link",
        ),
        no(
            "external link over the cap",
            with(
                &external(),
                json!({"link": format!("https://sign.example/{}", "a".repeat(LINK_MAX_CHARS))}),
            ),
            InvalidField,
            "link",
        ),
        // form data
        no(
            "prefill of an undeclared property",
            prefilled(json!({"values": {"colour": "red"}})),
            UnknownProperty,
            "data.values.colour",
        ),
        no(
            "prefill of the wrong type",
            prefilled(json!({"values": {"count": "three"}})),
            InvalidField,
            "data.values.count",
        ),
        no(
            "prefill below the property's minimum",
            prefilled(json!({"values": {"date": "2026-12-01", "count": 0}})),
            InvalidField,
            "data.values.count",
        ),
        no(
            "prefill outside this send's options",
            with(
                &two_page_form(),
                json!({"data": {
                    "values": {"date": "2027-01-01"},
                    "options": {"date": [{"value": "2026-12-01"}]}
                }}),
            ),
            InvalidField,
            "data.values.date",
        ),
        no(
            "options for an undeclared property",
            prefilled(json!({"options": {"colour": [{"value": "red"}]}})),
            UnknownProperty,
            "data.options.colour",
        ),
        no(
            "options for a non-string property",
            prefilled(json!({"options": {"count": [{"value": "1"}]}})),
            FieldNotAllowed,
            "data.options.count",
        ),
        no(
            "an empty per-send option list",
            prefilled(json!({"options": {"date": []}})),
            InvalidField,
            "data.options.date",
        ),
        no(
            "a repeated per-send option",
            prefilled(json!({"options": {"date": [{"value": "d"}, {"value": "d"}]}})),
            InvalidField,
            "data.options.date[1].value",
        ),
        no(
            "a blank per-send option label",
            prefilled(json!({"options": {"date": [{"value": "d", "label": " "}]}})),
            InvalidField,
            "data.options.date[0].label",
        ),
        // pages
        no(
            "an empty page list",
            paged(json!([])),
            InvalidField,
            "pages",
        ),
        no(
            "a page naming an unknown field",
            paged(json!([
                {"title": "Basics", "fields": ["count", "date"]},
                {"title": "More", "fields": ["colour", "note"]}
            ])),
            UnknownProperty,
            "pages[1].fields[0]",
        ),
        no(
            "a field on two pages",
            paged(json!([
                {"title": "Basics", "fields": ["count", "date"]},
                {"title": "More", "fields": ["note", "count"]}
            ])),
            InvalidField,
            "pages[1].fields[1]",
        ),
        no(
            "a field twice on one page",
            paged(json!([{"title": "All", "fields": ["count", "date", "note", "date"]}])),
            InvalidField,
            "pages[0].fields[3]",
        ),
        no(
            "a property on no page",
            paged(json!([{"title": "Basics", "fields": ["count", "date"]}])),
            InvalidField,
            "pages",
        ),
        no(
            "a blank page title",
            paged(json!([{"title": "", "fields": ["count", "date", "note"]}])),
            InvalidField,
            "pages[0].title",
        ),
        no(
            "a page without fields",
            paged(json!([
                {"title": "All", "fields": ["count", "date", "note"]},
                {"title": "Empty", "fields": []}
            ])),
            InvalidField,
            "pages[1].fields",
        ),
        no(
            "over the page cap",
            paged(json!(too_many_pages)),
            InvalidField,
            "pages",
        ),
        // media: the list
        no(
            "an empty media list",
            media(json!([])),
            InvalidMedia,
            "media",
        ),
        no(
            "more media than the cap",
            media(json!(eleven_images)),
            MediaTooLarge,
            "media",
        ),
        // media: file sources
        no(
            "an http image",
            media(json!([image("http://cdn.example/a.png")])),
            InvalidMedia,
            "media[0].url",
        ),
        no(
            "an http video",
            media(json!([{"kind": "video", "url": "http://v.example/a.mp4"}])),
            InvalidMedia,
            "media[0].url",
        ),
        no(
            "an ftp audio",
            media(json!([{"kind": "audio", "url": "ftp://a.example/a.ogg"}])),
            InvalidMedia,
            "media[0].url",
        ),
        no(
            "a relative image outside the media route",
            media(json!([image("/img/a.png")])),
            InvalidMedia,
            "media[0].url",
        ),
        no(
            "a media reference without an id",
            media(json!([image("/api/interactions/media/")])),
            InvalidMedia,
            "media[0].url",
        ),
        no(
            "a media reference with a path after the id",
            media(json!([image("/api/interactions/media/abc/../../secrets")])),
            InvalidMedia,
            "media[0].url",
        ),
        no(
            "a media reference with a query",
            media(json!([image("/api/interactions/media/abc?size=big")])),
            InvalidMedia,
            "media[0].url",
        ),
        no(
            "a media reference with encoded characters",
            media(json!([image("/api/interactions/media/%2e%2e")])),
            InvalidMedia,
            "media[0].url",
        ),
        no(
            "an inline svg image",
            media(json!([image(&format!("data:image/svg+xml;base64,{PNG}"))])),
            InvalidMedia,
            "media[0].url",
        ),
        no(
            "an inline image of an unlisted type",
            media(json!([image(&format!("data:image/tiff;base64,{PNG}"))])),
            InvalidMedia,
            "media[0].url",
        ),
        no(
            "inline image data that does not decode",
            media(json!([image("data:image/png;base64,@@not base64@@")])),
            InvalidMedia,
            "media[0].url",
        ),
        no(
            "an inline data URI on a document",
            media(json!([{"kind": "document", "url": data_png()}])),
            InvalidMedia,
            "media[0].url",
        ),
        no(
            "an inline data URI on a link",
            media(json!([{"kind": "link", "url": data_png()}])),
            InvalidMedia,
            "media[0].url",
        ),
        no(
            "a javascript: link",
            media(json!([{"kind": "link", "url": "javascript:alert(1)"}])),
            InvalidMedia,
            "media[0].url",
        ),
        no(
            "a relative link",
            media(json!([{"kind": "link", "url": "/docs/page"}])),
            InvalidMedia,
            "media[0].url",
        ),
        no(
            "the third item at fault is named by index",
            media(json!([
                image("https://cdn.example/1.png"),
                {"kind": "link", "url": "https://example.com"},
                image("http://cdn.example/3.png")
            ])),
            InvalidMedia,
            "media[2].url",
        ),
        // media: caption and filename
        no(
            "a blank caption",
            media(json!([{"kind": "image", "url": "https://cdn.example/a.png", "caption": "  "}])),
            InvalidMedia,
            "media[0].caption",
        ),
        no(
            "a caption over the cap",
            media(json!([{"kind": "image", "url": "https://cdn.example/a.png",
                          "caption": "c".repeat(MEDIA_CAPTION_MAX_CHARS + 1)}])),
            InvalidMedia,
            "media[0].caption",
        ),
        no(
            "a filename on an image",
            media(
                json!([{"kind": "image", "url": "https://cdn.example/a.png", "filename": "a.png"}]),
            ),
            FieldNotAllowed,
            "media[0].filename",
        ),
        no(
            "a filename on a link",
            media(json!([{"kind": "link", "url": "https://example.com", "filename": "page.html"}])),
            FieldNotAllowed,
            "media[0].filename",
        ),
        no(
            "a blank filename",
            document_named(""),
            InvalidMedia,
            "media[0].filename",
        ),
        no(
            "a filename with a slash",
            document_named("../etc/passwd"),
            InvalidMedia,
            "media[0].filename",
        ),
        no(
            "a filename with a backslash",
            document_named("C:\\r.pdf"),
            InvalidMedia,
            "media[0].filename",
        ),
        no(
            "a filename over the cap",
            document_named(format!("{}.pdf", "f".repeat(MEDIA_FILENAME_MAX_CHARS))),
            InvalidMedia,
            "media[0].filename",
        ),
        // media: byte caps
        no(
            "a url over the cap",
            media(json!([image(&format!(
                "https://cdn.example/{}",
                "a".repeat(MEDIA_URL_MAX_BYTES)
            ))])),
            MediaTooLarge,
            "media[0].url",
        ),
        no(
            "a data URI over the cap",
            media(json!([image(&data_png_of(MEDIA_DATA_URI_MAX_BYTES + 8))])),
            MediaTooLarge,
            "media[0].url",
        ),
        no(
            "media urls over the total cap",
            media(json!([
                image(&data_png_of(each_third)),
                image(&data_png_of(each_third)),
                image(&data_png_of(each_third))
            ])),
            MediaTooLarge,
            "media",
        ),
        // timing
        no(
            "a sync ask with expiry_at",
            with(&confirm(), json!({"expiry_at": "2026-06-02T12:00:00Z"})),
            FieldNotAllowed,
            "expiry_at",
        ),
        no(
            "a zero timeout",
            with(&confirm(), json!({"timeout_s": 0})),
            InvalidField,
            "timeout_s",
        ),
        no(
            "a timeout over the cap",
            with(&confirm(), json!({"timeout_s": TIMEOUT_MAX_SECONDS + 1})),
            InvalidField,
            "timeout_s",
        ),
        no(
            "an async ask without expiry_at",
            with(&confirm(), json!({"mode": "async"})),
            MissingField,
            "expiry_at",
        ),
        no(
            "an async ask with a timeout",
            with(
                &confirm(),
                json!({"mode": "async", "timeout_s": 60, "expiry_at": "2026-06-02T12:00:00Z"}),
            ),
            FieldNotAllowed,
            "timeout_s",
        ),
        no(
            "a naive expiry_at",
            async_until("2026-06-02T12:00:00"),
            InvalidField,
            "expiry_at",
        ),
        no(
            "an expiry_at that is no date",
            async_until("tomorrow"),
            InvalidField,
            "expiry_at",
        ),
        no(
            "an expiry_at in the past",
            async_until("2026-06-01T11:59:59Z"),
            InvalidField,
            "expiry_at",
        ),
        no(
            "an expiry_at of this very moment",
            async_until("2026-06-01T14:00:00+02:00"),
            InvalidField,
            "expiry_at",
        ),
        // metadata
        no(
            "metadata over the cap",
            with(
                &confirm(),
                json!({"metadata": {"reason": "r".repeat(METADATA_MAX_BYTES)}}),
            ),
            InvalidField,
            "metadata",
        ),
    ]
}

#[test]
fn every_ask_rule_refuses_with_its_code_and_field() {
    let mut wrong = Vec::new();
    for row in ask_refusals() {
        match validate_ask(&ask(&row.body), now()) {
            Err(e) if e.code == row.code && e.field == row.field => {
                assert!(!e.message.is_empty(), "{}: empty message", row.rule);
            }
            Err(e) => wrong.push(format!(
                "{}: expected {} at `{}`, got {} at `{}` ({})",
                row.rule, row.code, row.field, e.code, e.field, e.message
            )),
            Ok(_) => wrong.push(format!(
                "{}: expected {} at `{}`, but the ask was accepted",
                row.rule, row.code, row.field
            )),
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

/// Valid asks, with the deadline each must resolve to.
fn ask_acceptances() -> Vec<(&'static str, Value, Option<DateTime<Utc>>)> {
    let every_kind = json!([
        {"kind": "image", "url": "https://cdn.example/build.png", "caption": "Build graph"},
        {"kind": "image", "url": data_png(), "caption": "Inline chart"},
        {"kind": "image", "url": "/api/interactions/media/md_9fK-x2"},
        {"kind": "document", "url": "https://files.example/report.pdf", "filename": "report.pdf"},
        {"kind": "document", "url": "/api/interactions/media/doc1", "caption": "Signed copy"},
        {"kind": "video", "url": "https://v.example/demo.mp4"},
        {"kind": "audio", "url": "https://a.example/note.ogg", "caption": "Voice note"},
        {"kind": "link", "url": "https://example.com/pr/42", "caption": "The pull request"},
        {"kind": "link", "url": "http://intranet.example/run/7"}
    ]);
    let at_cap: Vec<Value> = (0..MEDIA_MAX_ITEMS)
        .map(|i| image(&format!("https://cdn.example/{i}.png")))
        .collect();
    vec![
        ("a text question", text(), None),
        (
            "a text question with suggested replies",
            with(
                &text(),
                json!({"options": [{"value": "Looks good"}, {"value": "Wait", "label": "Hold on"}]}),
            ),
            None,
        ),
        ("a confirm question", confirm(), None),
        ("a select question", select(), None),
        ("a form question", form(), None),
        (
            "a two-page prefilled form with per-send options",
            two_page_form(),
            None,
        ),
        (
            "per-send options replacing the schema's enum",
            with(
                &form(),
                json!({
                    "schema": {"type": "object", "properties": {"date": {"type": "string", "enum": ["any"]}}},
                    "data": {"values": {"date": "2026-12-01"}, "options": {"date": [{"value": "2026-12-01"}]}}
                }),
            ),
            None,
        ),
        (
            "a prefill that leaves a required property to the person",
            prefilled(json!({"values": {"note": "bring snacks"}})),
            None,
        ),
        (
            "a schema whose properties refer to $defs",
            with(
                &form(),
                json!({
                    "schema": {
                        "type": "object",
                        "$defs": {"positive": {"type": "integer", "minimum": 1}},
                        "properties": {"count": {"$ref": "#/$defs/positive"}}
                    },
                    "data": {"values": {"count": 2}}
                }),
            ),
            None,
        ),
        ("an external question", external(), None),
        (
            "an external question with an answer schema",
            with(
                &external(),
                json!({
                    "link": "http://approvals.example/req/9?cb={callback_url}",
                    "schema": {"type": "object", "properties": {"signed": {"type": "boolean"}}}
                }),
            ),
            None,
        ),
        ("media of every kind", media(every_kind.clone()), None),
        (
            "media of every kind on a select",
            with(&select(), json!({"media": every_kind})),
            None,
        ),
        (
            "an inline png image alone",
            media(json!([image(&data_png())])),
            None,
        ),
        ("media at the item cap", media(json!(at_cap)), None),
        (
            "a sync timeout",
            with(&confirm(), json!({"timeout_s": 300})),
            Some(now() + Duration::seconds(300)),
        ),
        (
            "the longest sync timeout",
            with(&confirm(), json!({"timeout_s": TIMEOUT_MAX_SECONDS})),
            Some(now() + Duration::days(7)),
        ),
        (
            "an async ask with an offset expiry, resolved to UTC",
            with(
                &select(),
                json!({"mode": "async", "expiry_at": "2026-06-02T16:00:00+02:00"}),
            ),
            Some(Utc.with_ymd_and_hms(2026, 6, 2, 14, 0, 0).unwrap()),
        ),
        (
            "metadata within the cap",
            with(
                &confirm(),
                json!({"metadata": {"run_id": "r1", "tool_call_id": "t7"}}),
            ),
            None,
        ),
    ]
}

#[test]
fn valid_asks_of_every_format_pass_with_their_deadline() {
    let mut wrong = Vec::new();
    for (name, body, expires_at) in ask_acceptances() {
        match validate_ask(&ask(&body), now()) {
            Ok(accepted) if accepted.expires_at == expires_at => {}
            Ok(accepted) => wrong.push(format!(
                "{name}: deadline {:?}, expected {expires_at:?}",
                accepted.expires_at
            )),
            Err(e) => wrong.push(format!("{name}: refused: {e} ({})", e.code)),
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn a_missing_page_is_named_in_the_message() {
    let body = paged(json!([{"title": "Basics", "fields": ["count"]}]));
    let e = validate_ask(&ask(&body), now()).unwrap_err();
    assert_eq!((e.code, e.field.as_str()), (InvalidField, "pages"));
    assert!(
        e.message.contains("date") && e.message.contains("note"),
        "{}",
        e.message
    );
}

#[test]
fn a_refusal_becomes_a_400_error_body_naming_the_field() {
    let e = validate_ask(&ask(&with(&select(), json!({"options": null}))), now()).unwrap_err();
    assert_eq!(e.code.http_status(), 400);
    let body = serde_json::to_value(ErrorBody::from(e)).unwrap();
    assert_eq!(body["error"]["code"], "missing_field");
    assert_eq!(body["error"]["field"], "options");
}

/// The interaction a validated ask becomes, as the answer door sees it.
fn question(body: Value) -> Interaction {
    let req = ask(&body);
    let accepted = validate_ask(&req, now()).expect("fixture asks are valid");
    question_from("ia_test", "deploy-bot", req, accepted.expires_at)
}

#[test]
fn answers_that_fit_their_format_pass() {
    let rows: Vec<(&str, Value, Value)> = vec![
        ("any text", text(), json!("Ship it")),
        ("empty text", text(), json!("")),
        (
            "text that ignores the suggested replies",
            with(&text(), json!({"options": [{"value": "ok"}]})),
            json!("something else"),
        ),
        (
            "text at the cap",
            text(),
            json!("t".repeat(ANSWER_TEXT_MAX_CHARS)),
        ),
        ("confirm yes", confirm(), json!(true)),
        ("confirm no", confirm(), json!(false)),
        ("an option's value", select(), json!("us")),
        (
            "a complete form",
            form(),
            json!({"count": 2, "date": "any day"}),
        ),
        (
            "a form with this send's option",
            two_page_form(),
            json!({"count": 3, "date": "2026-12-02", "note": "ok"}),
        ),
        (
            "any external payload",
            external(),
            json!({"status": "signed", "ids": [1, 2]}),
        ),
        ("an external scalar", external(), json!("done")),
        (
            "an external payload fitting its schema",
            with(
                &external(),
                json!({"schema": {"type": "object", "properties": {"signed": {"type": "boolean"}}}}),
            ),
            json!({"signed": true}),
        ),
    ];
    for (name, body, answer) in rows {
        let q = question(body);
        if let Err(e) = validate_answer(&q, &answer) {
            panic!("{name}: refused: {e} ({})", e.code);
        }
    }
}

#[test]
fn answers_that_do_not_fit_are_refused_naming_the_field() {
    let nested = form_of(json!({
        "type": "object",
        "properties": {
            "rows": {"type": "array", "items": {
                "type": "object",
                "properties": {"name": {"type": "string", "minLength": 1}}
            }},
            "when": {"type": "string", "format": "date"}
        }
    }));
    let signed = with(
        &external(),
        json!({"schema": {"type": "object", "properties": {"signed": {"type": "boolean"}}, "required": ["signed"]}}),
    );
    let rows: Vec<(&str, Value, Value, &str)> = vec![
        ("a number for text", text(), json!(42), "answer"),
        ("null for text", text(), Value::Null, "answer"),
        (
            "text over the cap",
            text(),
            json!("t".repeat(ANSWER_TEXT_MAX_CHARS + 1)),
            "answer",
        ),
        ("a string for confirm", confirm(), json!("yes"), "answer"),
        ("a number for confirm", confirm(), json!(1), "answer"),
        (
            "a label instead of a value",
            select(),
            json!("Europe"),
            "answer",
        ),
        ("no option at all", select(), json!("asia"), "answer"),
        ("a list for select", select(), json!(["eu"]), "answer"),
        ("an array for a form", form(), json!([1, 2]), "answer"),
        ("a string for a form", form(), json!("count=2"), "answer"),
        (
            "a property of the wrong type",
            form(),
            json!({"count": "two", "date": "d"}),
            "count",
        ),
        (
            "a property below its minimum",
            form(),
            json!({"count": 0, "date": "d"}),
            "count",
        ),
        (
            "a missing required property",
            form(),
            json!({"count": 2}),
            "date",
        ),
        (
            "a value outside this send's options",
            two_page_form(),
            json!({"count": 3, "date": "2027-01-01"}),
            "date",
        ),
        (
            "a nested item",
            nested.clone(),
            json!({"rows": [{"name": "a"}, {"name": ""}]}),
            "rows[1].name",
        ),
        (
            "a malformed date",
            nested,
            json!({"when": "next tuesday"}),
            "when",
        ),
        (
            "an external payload against its schema",
            signed.clone(),
            json!({"signed": "yes"}),
            "signed",
        ),
        (
            "an external payload missing a property",
            signed,
            json!({}),
            "signed",
        ),
    ];
    let mut wrong = Vec::new();
    for (name, body, answer, field) in rows {
        match validate_answer(&question(body), &answer) {
            Err(ValidationError {
                code: InvalidAnswer,
                field: f,
                ..
            }) if f == field => {}
            Err(e) => wrong.push(format!(
                "{name}: expected invalid_answer at `{field}`, got {} at `{}` ({})",
                e.code, e.field, e.message
            )),
            Ok(()) => wrong.push(format!(
                "{name}: expected invalid_answer at `{field}`, but it passed"
            )),
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn answer_refusals_do_not_echo_the_answer() {
    let secret = "hunter2-private-detail";
    let q = question(form());
    let e = validate_answer(&q, &json!({"count": secret, "date": "d"})).unwrap_err();
    assert_eq!(e.field, "count");
    assert!(!e.message.contains(secret), "{}", e.message);

    let e = validate_answer(&question(select()), &json!(secret)).unwrap_err();
    assert!(!e.message.contains(secret), "{}", e.message);
}

#[test]
fn decline_reason_is_optional_and_bounded() {
    let decline = |reason: Option<String>| validate_decline(&DeclineRequest { reason });
    assert_eq!(decline(None), Ok(()));
    assert_eq!(decline(Some("Wrong environment".to_owned())), Ok(()));
    assert_eq!(decline(Some(String::new())), Ok(()));
    assert_eq!(decline(Some("r".repeat(DECLINE_REASON_MAX_CHARS))), Ok(()));
    let e = decline(Some("r".repeat(DECLINE_REASON_MAX_CHARS + 1))).unwrap_err();
    assert_eq!((e.code, e.field.as_str()), (InvalidField, "reason"));
}
