//! Choice lists: a select's options, a text question's suggested replies and a form property's
//! per-send `data.options` all share one shape.

use std::collections::HashSet;

use super::{check_cap, check_text};
use crate::caps::{OPTION_MAX_CHARS, OPTIONS_MAX_ITEMS};
use crate::error::{ErrorCode, ValidationError};
use crate::interaction::ChoiceOption;

/// A non-empty, bounded list of options with distinct, non-blank values; a label, when given,
/// is non-blank too. `field` is the list's path (`options`, `data.options.date`).
pub(super) fn check_choices(choices: &[ChoiceOption], field: &str) -> Result<(), ValidationError> {
    if choices.is_empty() {
        return Err(ValidationError::new(
            ErrorCode::InvalidField,
            field,
            "must list at least one option",
        ));
    }
    check_cap(
        choices.len(),
        OPTIONS_MAX_ITEMS,
        field,
        ErrorCode::InvalidField,
        ("lists", "options"),
    )?;
    let mut seen = HashSet::with_capacity(choices.len());
    for (i, choice) in choices.iter().enumerate() {
        let value_field = format!("{field}[{i}].value");
        check_text(
            &choice.value,
            &value_field,
            OPTION_MAX_CHARS,
            ErrorCode::InvalidField,
        )?;
        if let Some(label) = &choice.label {
            check_text(
                label,
                &format!("{field}[{i}].label"),
                OPTION_MAX_CHARS,
                ErrorCode::InvalidField,
            )?;
        }
        // An answer carries the value alone, so two options with one value could not be told
        // apart once answered.
        if !seen.insert(choice.value.as_str()) {
            return Err(ValidationError::new(
                ErrorCode::InvalidField,
                value_field,
                "repeats the value of an earlier option",
            ));
        }
    }
    Ok(())
}
