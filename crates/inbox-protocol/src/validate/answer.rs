//! Answer values by format. Messages never echo the submitted value: answers are private, and
//! a refusal may well end up in a log.

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use super::form::{compile, effective_schema, instance_field};
use crate::caps::ANSWER_TEXT_MAX_CHARS;
use crate::error::{ErrorCode, ValidationError};
use crate::interaction::{AnswerFormat, Interaction};

/// The field a refusal names when the answer as a whole is at fault.
const ANSWER: &str = "answer";

pub(super) fn validate(interaction: &Interaction, value: &Value) -> Result<(), ValidationError> {
    match interaction.answer_format {
        AnswerFormat::Text => {
            let text = value
                .as_str()
                .ok_or_else(|| refuse(ANSWER, "a text answer is a JSON string"))?;
            let chars = text.chars().count();
            if chars > ANSWER_TEXT_MAX_CHARS {
                return Err(refuse(
                    ANSWER,
                    format!("is {chars} characters long; the limit is {ANSWER_TEXT_MAX_CHARS}"),
                ));
            }
            Ok(())
        }
        AnswerFormat::Confirm => match value {
            Value::Bool(_) => Ok(()),
            _ => Err(refuse(ANSWER, "a confirm answer is true or false")),
        },
        AnswerFormat::Select => {
            let chosen = value.as_str().ok_or_else(|| {
                refuse(
                    ANSWER,
                    "a select answer is the chosen option's value, a string",
                )
            })?;
            if interaction.options.iter().any(|o| o.value == chosen) {
                Ok(())
            } else {
                Err(refuse(ANSWER, "is not one of the question's option values"))
            }
        }
        AnswerFormat::Form => {
            if !value.is_object() {
                return Err(refuse(ANSWER, "a form answer is a JSON object"));
            }
            match &interaction.schema {
                Some(schema) => check_against_schema(
                    &effective_schema(schema, interaction.data.as_ref()),
                    value,
                ),
                // Ask-time validation requires a form schema; a record without one constrains
                // nothing beyond the object shape.
                None => Ok(()),
            }
        }
        AnswerFormat::External => match &interaction.schema {
            Some(schema) => check_against_schema(schema, value),
            None => Ok(()),
        },
    }
}

/// The first schema error, named by where it sits in the answer. A missing required property is
/// named by the property itself, since that is the field a person has to fill in.
fn check_against_schema(schema: &Value, value: &Value) -> Result<(), ValidationError> {
    let validator = compile(schema).map_err(|_| {
        ValidationError::new(
            ErrorCode::Internal,
            "schema",
            "the question's stored schema does not compile",
        )
    })?;
    let Some(error) = validator.iter_errors(value).next() else {
        return Ok(());
    };
    let mut field = instance_field(&error.instance_path, "");
    if let ValidationErrorKind::Required { property } = &error.kind
        && let Some(name) = property.as_str()
    {
        if !field.is_empty() {
            field.push('.');
        }
        field.push_str(name);
    }
    if field.is_empty() {
        field.push_str(ANSWER);
    }
    Err(refuse(field, error.masked().to_string()))
}

fn refuse(field: impl Into<String>, message: impl Into<String>) -> ValidationError {
    ValidationError::new(ErrorCode::InvalidAnswer, field, message)
}
