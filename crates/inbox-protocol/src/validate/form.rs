//! Form questions: the JSON Schema of the answer, the per-send `data` overlay (prefilled values
//! and choice lists) and the `pages` that split the form into steps. The schema helpers here also
//! serve an external question's optional schema and answer validation.

use std::borrow::Cow;
use std::collections::HashSet;

use jsonschema::paths::{Location, LocationSegment};
use jsonschema::{PatternOptions, Validator};
use serde_json::{Map, Value};

use super::schema_guard::check_schema_safety;
use super::{check_cap, check_serialised_size, check_text, options};
use crate::caps::{
    ANSWER_MAX_DEPTH, DATA_MAX_BYTES, PAGE_TITLE_MAX_CHARS, PAGES_MAX_ITEMS, SCHEMA_MAX_BYTES,
};
use crate::error::{ErrorCode, ValidationError};
use crate::interaction::{FormData, FormPage};

/// The schema a send is answered against: the declared schema with each `data.options` list
/// replacing its property's `enum`, so a per-send choice list constrains the answer exactly as
/// a published enum would. Borrowed when the send carries no choice lists.
pub fn effective_schema<'a>(schema: &'a Value, data: Option<&FormData>) -> Cow<'a, Value> {
    let Some(data) = data.filter(|d| !d.options.is_empty()) else {
        return Cow::Borrowed(schema);
    };
    let mut schema = schema.clone();
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        for (name, choices) in &data.options {
            if let Some(Value::Object(property)) = properties.get_mut(name) {
                let values = choices.iter().map(|c| Value::String(c.value.clone()));
                property.insert("enum".to_owned(), Value::Array(values.collect()));
            }
        }
    }
    Cow::Owned(schema)
}

/// Bytes the linear-time engine may spend on one compiled pattern.
const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// The pattern engine every schema is compiled with: `regex`, which runs in time linear in the
/// input, so no pattern can make a validation backtrack (lookaround and backreferences are not
/// supported, and such patterns are refused at ask time).
fn pattern_options() -> PatternOptions<jsonschema::Regex> {
    PatternOptions::regex()
        .size_limit(PATTERN_SIZE_LIMIT)
        .dfa_size_limit(PATTERN_SIZE_LIMIT)
}

/// Compile a schema the way every answer is validated: formats (`date`, `email`, ...) are
/// asserted, as the inbox's form renderer asserts them, rather than treated as annotations.
/// Callers check [`check_schema_safety`] first. The error is jsonschema's account of why the
/// schema does not compile.
pub(super) fn compile(schema: &Value) -> Result<Validator, String> {
    jsonschema::options()
        .should_validate_formats(true)
        .with_pattern_options(pattern_options())
        .build(schema)
        .map_err(|e| e.to_string())
}

/// Whether the pattern engine can run `pattern` (as jsonschema translates ECMA-262 syntax).
pub(super) fn pattern_engine_accepts(pattern: &str) -> Result<(), String> {
    jsonschema::options()
        .with_pattern_options(pattern_options())
        .build(&serde_json::json!({ "pattern": pattern }))
        .map(drop)
        .map_err(|e| e.to_string())
}

/// A schema that passed the safety checks, compiled: what a stored question is validated with.
pub fn compile_checked(schema: &Value) -> Result<Validator, ValidationError> {
    check_schema_safety(schema)?;
    compile(schema).map_err(|e| {
        ValidationError::new(
            ErrorCode::InvalidField,
            "schema",
            format!("does not compile: {e}"),
        )
    })
}

/// Nesting levels of a JSON value (a scalar is 0), without recursing.
pub(super) fn json_depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((value, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|v| (v, depth + 1))),
            _ => {}
        }
    }
    deepest
}

/// A value within [`ANSWER_MAX_DEPTH`] levels and `max_bytes` serialised.
pub(super) fn check_value_bounds(
    value: &Value,
    field: &str,
    max_bytes: usize,
    code: ErrorCode,
) -> Result<(), ValidationError> {
    check_cap(
        json_depth(value),
        ANSWER_MAX_DEPTH,
        field,
        code,
        ("nests", "levels deep"),
    )?;
    check_serialised_size(value, field, max_bytes, code)
}

/// A schema an asker submits: a JSON object within its byte cap, safe to validate against
/// (see `schema_guard`), that compiles. Remote `$ref`s cannot resolve (no HTTP or file
/// retrieval is built in), so a schema that needs one is refused.
pub(super) fn check_schema(schema: &Value) -> Result<Validator, ValidationError> {
    let invalid =
        |message: String| ValidationError::new(ErrorCode::InvalidField, "schema", message);
    if !schema.is_object() {
        return Err(invalid("must be a JSON Schema object".to_owned()));
    }
    check_serialised_size(schema, "schema", SCHEMA_MAX_BYTES, ErrorCode::InvalidField)?;
    compile_checked(schema)
}

/// A form's schema, then its `data` and `pages` against the schema's top-level properties.
pub(super) fn check_form(
    schema: &Value,
    data: Option<&FormData>,
    pages: Option<&[FormPage]>,
) -> Result<(), ValidationError> {
    check_schema(schema)?;
    check_object_root(schema)?;
    let no_properties = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&no_properties);
    if let Some(data) = data {
        let value = serde_json::to_value(data).unwrap_or(Value::Null);
        check_value_bounds(&value, "data", DATA_MAX_BYTES, ErrorCode::InvalidField)?;
        check_data(schema, properties, data)?;
    }
    if let Some(pages) = pages {
        check_pages(pages, properties)?;
    }
    Ok(())
}

/// A form's answer is an object, so a root declaring some other type could never be answered.
fn check_object_root(schema: &Value) -> Result<(), ValidationError> {
    let is_object = |t: &Value| t.as_str() == Some("object");
    let answerable = match schema.get("type") {
        None => true,
        Some(Value::Array(types)) => types.iter().any(is_object),
        Some(t) => is_object(t),
    };
    if answerable {
        Ok(())
    } else {
        Err(ValidationError::new(
            ErrorCode::InvalidField,
            "schema",
            "a form's answer is an object: the schema's \"type\" must be \"object\"",
        ))
    }
}

fn check_data(
    schema: &Value,
    properties: &Map<String, Value>,
    data: &FormData,
) -> Result<(), ValidationError> {
    for name in data.values.keys() {
        if !properties.contains_key(name) {
            return Err(unknown_property(format!("data.values.{name}"), name));
        }
    }
    for (name, choices) in &data.options {
        let field = format!("data.options.{name}");
        let property = properties
            .get(name)
            .ok_or_else(|| unknown_property(field.clone(), name))?;
        if property.get("type").and_then(Value::as_str) != Some("string") {
            return Err(ValidationError::new(
                ErrorCode::FieldNotAllowed,
                field,
                format!(
                    "per-send options replace a string property's enum, and `{name}` is not \
                     \"type\": \"string\""
                ),
            ));
        }
        options::check_choices(choices, &field)?;
    }
    if data.values.is_empty() {
        return Ok(());
    }
    // Validate the prefill as a partial answer against the schema as this send presents it
    // (per-send options included): errors inside a property name it, while object-level errors
    // such as a `required` property the prefill leaves for the person are not a fault.
    let effective = effective_schema(schema, Some(data));
    let validator = compile(&effective).map_err(|e| {
        ValidationError::new(
            ErrorCode::InvalidField,
            "data.options",
            format!("the schema with these options does not compile: {e}"),
        )
    })?;
    let prefill = Value::Object(data.values.clone());
    for error in validator.iter_errors(&prefill) {
        if let Some(LocationSegment::Property(name)) = error.instance_path().into_iter().next() {
            return Err(ValidationError::new(
                ErrorCode::InvalidField,
                format!("data.values.{name}"),
                format!("does not fit its property's schema: {}", error.masked()),
            ));
        }
    }
    Ok(())
}

fn check_pages(pages: &[FormPage], properties: &Map<String, Value>) -> Result<(), ValidationError> {
    let invalid = |field: String, message: String| {
        ValidationError::new(ErrorCode::InvalidField, field, message)
    };
    if pages.is_empty() {
        return Err(invalid(
            "pages".to_owned(),
            "must list at least one page; leave pages out for a single-page form".to_owned(),
        ));
    }
    check_cap(
        pages.len(),
        PAGES_MAX_ITEMS,
        "pages",
        ErrorCode::InvalidField,
        ("lists", "pages"),
    )?;
    let mut placed: HashSet<&str> = HashSet::with_capacity(properties.len());
    for (i, page) in pages.iter().enumerate() {
        check_text(
            &page.title,
            &format!("pages[{i}].title"),
            PAGE_TITLE_MAX_CHARS,
            ErrorCode::InvalidField,
        )?;
        if page.fields.is_empty() {
            return Err(invalid(
                format!("pages[{i}].fields"),
                "a page groups at least one field".to_owned(),
            ));
        }
        for (j, name) in page.fields.iter().enumerate() {
            let field = format!("pages[{i}].fields[{j}]");
            if !properties.contains_key(name) {
                return Err(unknown_property(field, name));
            }
            if !placed.insert(name.as_str()) {
                return Err(invalid(
                    field,
                    format!("`{name}` appears more than once; each property sits on one page"),
                ));
            }
        }
    }
    let missing: Vec<&str> = properties
        .keys()
        .map(String::as_str)
        .filter(|name| !placed.contains(name))
        .collect();
    if !missing.is_empty() {
        return Err(invalid(
            "pages".to_owned(),
            format!(
                "every property must appear on a page; missing: {}",
                missing.join(", ")
            ),
        ));
    }
    Ok(())
}

fn unknown_property(field: String, name: &str) -> ValidationError {
    ValidationError::new(
        ErrorCode::UnknownProperty,
        field,
        format!("the schema declares no top-level property `{name}`"),
    )
}

/// A dotted field path for a location inside an answer (`count`, `rows[2].name`); `root` when
/// the location is the answer itself.
pub(super) fn instance_field(location: &Location, root: &str) -> String {
    let mut field = String::new();
    for segment in location {
        match segment {
            LocationSegment::Property(name) => {
                if !field.is_empty() {
                    field.push('.');
                }
                field.push_str(&name);
            }
            LocationSegment::Index(index) => {
                field.push('[');
                field.push_str(&index.to_string());
                field.push(']');
            }
        }
    }
    if field.is_empty() {
        root.to_owned()
    } else {
        field
    }
}
