//! The wait discipline: a sync ask may bound its wait with `timeout_s`; an async ask must carry a
//! timezone-aware `expiry_at` and nothing else.

use chrono::{DateTime, Duration, Utc};

use super::refuse_present;
use crate::ask::AskRequest;
use crate::caps::TIMEOUT_MAX_SECONDS;
use crate::error::{ErrorCode, ValidationError};
use crate::interaction::Mode;

/// The deadline of the question in UTC, or `None` for a sync ask without a timeout.
pub(super) fn deadline(
    req: &AskRequest,
    now: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>, ValidationError> {
    match req.mode {
        Mode::Sync => {
            refuse_present(
                req.expiry_at.is_some(),
                "expiry_at",
                "is valid only with mode \"async\"; a sync ask bounds its wait with timeout_s",
            )?;
            let Some(seconds) = req.timeout_s else {
                return Ok(None);
            };
            if seconds == 0 || seconds > TIMEOUT_MAX_SECONDS {
                return Err(ValidationError::new(
                    ErrorCode::InvalidField,
                    "timeout_s",
                    format!("must be between 1 and {TIMEOUT_MAX_SECONDS} seconds"),
                ));
            }
            // In range by the check above, so the conversion and the addition cannot overflow.
            let timeout = Duration::seconds(i64::try_from(seconds).unwrap_or(i64::MAX));
            Ok(Some(now + timeout))
        }
        Mode::Async => {
            // A timeout and an expiry bound the same wait from two sides; the seed makes them
            // mutually exclusive rather than picking one silently.
            refuse_present(
                req.timeout_s.is_some(),
                "timeout_s",
                "is not allowed with mode \"async\"; an async ask carries expiry_at instead",
            )?;
            let raw = req.expiry_at.as_deref().ok_or_else(|| {
                ValidationError::new(
                    ErrorCode::MissingField,
                    "expiry_at",
                    "an async ask needs a deadline: a park with none could never expire",
                )
            })?;
            // RFC 3339 requires an offset, so a naive datetime fails to parse here.
            let at = DateTime::parse_from_rfc3339(raw).map_err(|_| {
                ValidationError::new(
                    ErrorCode::InvalidField,
                    "expiry_at",
                    "must be an RFC 3339 moment with an explicit offset, e.g. 2026-11-29T16:00:00Z",
                )
            })?;
            let at = at.with_timezone(&Utc);
            if at <= now {
                return Err(ValidationError::new(
                    ErrorCode::InvalidField,
                    "expiry_at",
                    "must be in the future",
                ));
            }
            Ok(Some(at))
        }
    }
}
