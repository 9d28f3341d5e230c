//! The ask as a whole: the prompt, which fields each answer format takes, the external link and
//! the metadata bound. Media, form, options and timing rules live in their own files.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use url::Url;

use super::{
    AcceptedAsk, check_serialised_size, check_text, external, form, has_unsafe_url_chars, media,
    options, starts_with_scheme, timing,
};
use crate::ask::AskRequest;
use crate::caps::{LINK_MAX_CHARS, METADATA_MAX_BYTES, PROMPT_MAX_CHARS};
use crate::error::{ErrorCode, ValidationError};
use crate::interaction::AnswerFormat;

/// The placeholder an external link template may carry; the server substitutes the minted
/// callback URL for it.
pub const CALLBACK_URL_PLACEHOLDER: &str = "{callback_url}";

pub(super) fn validate(
    req: &AskRequest,
    now: DateTime<Utc>,
) -> Result<AcceptedAsk, ValidationError> {
    check_text(
        &req.prompt,
        "prompt",
        PROMPT_MAX_CHARS,
        ErrorCode::InvalidField,
    )?;
    check_format_fields(req)?;
    if let Some(items) = &req.media {
        media::check_media(items)?;
    }
    let expires_at = timing::deadline(req, now)?;
    check_metadata(req.metadata.as_ref())?;
    Ok(AcceptedAsk { expires_at })
}

/// Which optional fields a format takes, then the fields it requires.
fn check_format_fields(req: &AskRequest) -> Result<(), ValidationError> {
    use AnswerFormat::{Confirm, External, Form, Select, Text};
    let format = req.answer_format;

    // Refuse misplaced fields first, so a confused ask is told what it should not send rather
    // than only what it forgot.
    only_on(req.options.is_some(), "options", format, &[Text, Select])?;
    only_on(req.schema.is_some(), "schema", format, &[Form, External])?;
    only_on(req.data.is_some(), "data", format, &[Form])?;
    only_on(req.pages.is_some(), "pages", format, &[Form])?;
    only_on(req.link.is_some(), "link", format, &[External])?;
    only_on(req.verifier.is_some(), "verifier", format, &[External])?;

    match format {
        Confirm => Ok(()),
        // On text the options are suggested replies: optional, but shaped like choices.
        Text => match &req.options {
            Some(choices) => options::check_choices(choices, "options"),
            None => Ok(()),
        },
        Select => {
            let choices = req.options.as_ref().ok_or_else(|| {
                ValidationError::new(
                    ErrorCode::MissingField,
                    "options",
                    "a select question needs its options",
                )
            })?;
            options::check_choices(choices, "options")
        }
        Form => {
            let schema = req.schema.as_ref().ok_or_else(|| {
                ValidationError::new(
                    ErrorCode::MissingField,
                    "schema",
                    "a form question needs the JSON Schema of its answer",
                )
            })?;
            form::check_form(schema, req.data.as_ref(), req.pages.as_deref())
        }
        External => {
            let link = req.link.as_deref().ok_or_else(|| {
                ValidationError::new(
                    ErrorCode::MissingField,
                    "link",
                    "an external question needs the link where the person acts",
                )
            })?;
            check_link(link)?;
            external::check(req)?;
            match &req.schema {
                Some(schema) => form::check_schema(schema).map(|_| ()),
                None => Ok(()),
            }
        }
    }
}

fn only_on(
    present: bool,
    field: &str,
    format: AnswerFormat,
    allowed: &[AnswerFormat],
) -> Result<(), ValidationError> {
    if present && !allowed.contains(&format) {
        let on: Vec<&str> = allowed.iter().map(|f| f.as_str()).collect();
        return Err(ValidationError::new(
            ErrorCode::FieldNotAllowed,
            field,
            format!(
                "is not allowed on a {} question (only on: {})",
                format.as_str(),
                on.join(", ")
            ),
        ));
    }
    Ok(())
}

/// An external link: an absolute http(s) URL, possibly with the `{callback_url}` placeholder.
fn check_link(link: &str) -> Result<(), ValidationError> {
    let invalid = |message: &str| ValidationError::new(ErrorCode::InvalidField, "link", message);
    check_text(link, "link", LINK_MAX_CHARS, ErrorCode::InvalidField)?;
    if has_unsafe_url_chars(link) {
        return Err(invalid("must not contain whitespace or control characters"));
    }
    // Probe with a percent-encoded URL in the placeholder's place: that is what a query
    // parameter receives, and it cannot pass for a host, so `https://{callback_url}` is refused.
    let probe = link.replace(
        CALLBACK_URL_PLACEHOLDER,
        "https%3A%2F%2Fcallback.invalid%2Fcb",
    );
    let url = Url::parse(&probe).map_err(|_| invalid("must be an absolute http(s) URL"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid("must be an http or https URL"));
    }
    if !starts_with_scheme(link, "http://") && !starts_with_scheme(link, "https://") {
        return Err(invalid(
            "must be written as an absolute URL, http(s)://host/...",
        ));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(invalid("must name a host"));
    }
    Ok(())
}

/// Opaque metadata (an ask's, a park's), bounded so it cannot carry bulk data.
pub(super) fn check_metadata(metadata: Option<&Map<String, Value>>) -> Result<(), ValidationError> {
    match metadata {
        Some(metadata) => check_serialised_size(
            metadata,
            "metadata",
            METADATA_MAX_BYTES,
            ErrorCode::InvalidField,
        ),
        None => Ok(()),
    }
}
