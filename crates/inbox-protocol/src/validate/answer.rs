//! Answer values by format. Messages never echo the submitted value: answers are private, and
//! a refusal may well end up in a log.

use jsonschema::Validator;
use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use super::check_max_chars;
use super::form::{check_value_bounds, compile_checked, effective_schema, instance_field};
use crate::caps::{ANSWER_TEXT_MAX_CHARS, ANSWER_VALUE_MAX_BYTES};
use crate::error::{ErrorCode, ValidationError};
use crate::interaction::{AnswerFormat, Interaction};

/// The field a refusal names when the answer as a whole is at fault.
const ANSWER: &str = "answer";

/// What an answer to one question is checked against, compiled once so a server can keep it
/// for the question's life instead of compiling the schema again for every answer.
pub struct AnswerRules {
    /// The compiled schema of a form or external question that declares one.
    validator: Option<Validator>,
}

impl AnswerRules {
    /// Compile the question's schema (with its per-send choice lists). A stored schema passes
    /// the same safety checks as an asked one, so a record written before a check existed
    /// still cannot make validation run away.
    pub fn for_question(interaction: &Interaction) -> Result<AnswerRules, ValidationError> {
        let schema = match interaction.answer_format {
            AnswerFormat::Form | AnswerFormat::External => interaction.schema.as_ref(),
            _ => None,
        };
        let validator = match schema {
            Some(schema) => {
                let effective = effective_schema(schema, interaction.data.as_ref());
                Some(compile_checked(&effective).map_err(|e| {
                    ValidationError::new(
                        ErrorCode::Internal,
                        "schema",
                        format!("the question's stored schema cannot be used: {}", e.message),
                    )
                })?)
            }
            None => None,
        };
        Ok(AnswerRules { validator })
    }

    /// Check an answer value against the question's format, options and schema.
    pub fn check(&self, interaction: &Interaction, value: &Value) -> Result<(), ValidationError> {
        validate(interaction, self.validator.as_ref(), value)
    }
}

fn validate(
    interaction: &Interaction,
    validator: Option<&Validator>,
    value: &Value,
) -> Result<(), ValidationError> {
    match interaction.answer_format {
        AnswerFormat::Text => {
            let text = value
                .as_str()
                .ok_or_else(|| refuse(ANSWER, "a text answer is a JSON string"))?;
            check_max_chars(
                text,
                ANSWER,
                ANSWER_TEXT_MAX_CHARS,
                ErrorCode::InvalidAnswer,
            )
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
        AnswerFormat::Form if !value.is_object() => {
            Err(refuse(ANSWER, "a form answer is a JSON object"))
        }
        // Ask-time validation requires a form schema; a record without one constrains nothing
        // beyond the object shape. An external answer is the callback's payload, valid
        // against the schema when one is declared.
        AnswerFormat::Form | AnswerFormat::External => {
            check_value_bounds(
                value,
                ANSWER,
                ANSWER_VALUE_MAX_BYTES,
                ErrorCode::InvalidAnswer,
            )?;
            validator.map_or(Ok(()), |v| check_against_schema(v, value))
        }
    }
}

/// The first schema error, named by where it sits in the answer. A missing required property is
/// named by the property itself, since that is the field a person has to fill in.
fn check_against_schema(validator: &Validator, value: &Value) -> Result<(), ValidationError> {
    let Some(error) = validator.iter_errors(value).next() else {
        return Ok(());
    };
    let mut field = instance_field(error.instance_path(), "");
    if let ValidationErrorKind::Required { property } = error.kind()
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
