//! Fixtures the integration tests of this crate share: the fixed clock, the example form
//! schema, the ask-body patch, and the question an accepted ask becomes.

#![allow(dead_code, reason = "each test file uses a part of it")]

use chrono::{DateTime, TimeZone, Utc};
use inbox_protocol::{AskRequest, Interaction};
use serde_json::{Value, json};

/// The moment every fixed-clock check runs at.
pub fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0).unwrap()
}

/// A form's schema: a required count and date, and an optional short note.
pub fn form_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "count": {"type": "integer", "minimum": 1},
            "date": {"type": "string"},
            "note": {"type": "string", "maxLength": 200}
        },
        "required": ["count", "date"]
    })
}

/// `base` with `patch`'s top-level keys set (a `null` removes the key).
pub fn with(base: &Value, patch: Value) -> Value {
    let mut out = base.as_object().expect("object").clone();
    for (key, value) in patch.as_object().expect("object") {
        if value.is_null() {
            out.remove(key);
        } else {
            out.insert(key.clone(), value.clone());
        }
    }
    Value::Object(out)
}

/// The interaction an accepted ask becomes, as the answer door sees it: asked by `asker` at
/// [`now`], with the deadline the validator resolved.
pub fn question_from(
    id: &str,
    asker: &str,
    req: AskRequest,
    expires_at: Option<DateTime<Utc>>,
) -> Interaction {
    Interaction::builder(id)
        .ask(req)
        .expires_at(expires_at)
        .asker(asker)
        .created_at(now())
        .build()
}
