//! A park as a whole: every question async with its own `expiry_at` (and inside the server's
//! retention horizon), at least one and at most `PARK_MAX_ASKS`, and a continuation the server
//! can honour. Each question is checked by the ordinary ask rules, its field names prefixed
//! with `asks[i].`.

use chrono::{DateTime, Duration, Utc};
use url::Url;

use super::{
    AcceptedAsk, ask, check_cap, check_max_chars, has_unsafe_url_chars, refuse_present,
    starts_with_scheme,
};
use crate::caps::{PARK_MAX_ASKS, WEBHOOK_URL_MAX_CHARS};
use crate::error::{ErrorCode, ValidationError};
use crate::interaction::{InteractionKind, Mode};
use crate::park::{Continuation, ParkRequest};

/// How long the server keeps what a park needs to resume; `None` is "forever" (no horizon).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention(pub Option<Duration>);

impl Retention {
    /// The protocol's default: 30 days.
    pub const DEFAULT: Retention = Retention(Some(Duration::days(30)));

    /// The latest `expiry_at` a park asked at `now` may carry.
    pub fn horizon(self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.0.and_then(|d| now.checked_add_signed(d))
    }

    /// Refuse `expires_at` past the horizon, naming `field`, the expiry and the horizon.
    pub fn check(
        self,
        expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
        field: &str,
    ) -> Result<(), ValidationError> {
        let (Some(retention), Some(horizon)) = (self.0, self.horizon(now)) else {
            return Ok(());
        };
        if expires_at <= horizon {
            return Ok(());
        }
        Err(ValidationError::new(
            ErrorCode::BeyondRetention,
            field,
            format!(
                "{field} {} lies beyond the park retention horizon {} ({} from now, \
                 --park-retention): the park would be pruned before it could resume",
                expires_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                horizon.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                describe(retention),
            ),
        ))
    }
}

/// "30 days", "1 hour", "90 seconds": the retention as an operator would have written it.
fn describe(d: Duration) -> String {
    let s = d.num_seconds();
    let (n, unit) = if s % 86_400 == 0 {
        (s / 86_400, "day")
    } else if s % 3_600 == 0 {
        (s / 3_600, "hour")
    } else {
        (s, "second")
    };
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{n} {unit}s")
    }
}

/// What an accepted park resolves to: each question's deadline, in `asks` order.
#[derive(Debug, Clone, PartialEq)]
pub struct AcceptedPark {
    pub asks: Vec<AcceptedAsk>,
}

pub(super) fn validate(
    req: &ParkRequest,
    now: DateTime<Utc>,
    retention: Retention,
) -> Result<AcceptedPark, ValidationError> {
    if req.asks.is_empty() {
        return Err(ValidationError::new(
            ErrorCode::MissingField,
            "asks",
            "a park needs at least one question",
        ));
    }
    check_cap(
        req.asks.len(),
        PARK_MAX_ASKS,
        "asks",
        ErrorCode::InvalidField,
        ("holds", "questions"),
    )?;
    let mut accepted = Vec::with_capacity(req.asks.len());
    for (i, one) in req.asks.iter().enumerate() {
        let prefixed = |e: ValidationError| ValidationError {
            field: format!("asks[{i}].{}", e.field),
            ..e
        };
        refuse_present(
            one.kind == InteractionKind::Notification,
            &format!("asks[{i}].kind"),
            "a notification is ask-less: nobody parks on it",
        )?;
        // Named before the ask rules run: a sync question in a park is a confusion about
        // parking, not a missing timeout.
        if one.mode != Mode::Async {
            return Err(ValidationError::new(
                ErrorCode::InvalidField,
                format!("asks[{i}].mode"),
                "every question in a park is mode \"async\", with its own expiry_at",
            ));
        }
        let ok = ask::validate(one, now).map_err(prefixed)?;
        if let Some(at) = ok.expires_at {
            retention.check(at, now, &format!("asks[{i}].expiry_at"))?;
        }
        accepted.push(ok);
    }
    if let Some(continuation) = &req.continuation {
        check_continuation(continuation)?;
    }
    ask::check_metadata(req.metadata.as_ref())?;
    Ok(AcceptedPark { asks: accepted })
}

/// A webhook URL must be `https://`, or `http://` to a loopback address: the body carries the
/// answers, and plain http off the machine would hand them to anyone on the path.
pub(super) fn check_continuation(c: &Continuation) -> Result<(), ValidationError> {
    let url = match c {
        Continuation::Claim {} => return Ok(()),
        Continuation::Agui { .. } => {
            return Err(ValidationError::new(
                ErrorCode::InvalidField,
                "continuation.kind",
                "agui parks are opened by the server's AG-UI driver (POST /api/agui/runs), \
                 not asked for directly",
            ));
        }
        Continuation::Webhook { url } => url,
    };
    let field = "continuation.url";
    let invalid = |message: &str| ValidationError::new(ErrorCode::InvalidField, field, message);
    if url.trim().is_empty() {
        return Err(invalid("must not be blank"));
    }
    check_max_chars(url, field, WEBHOOK_URL_MAX_CHARS, ErrorCode::InvalidField)?;
    if has_unsafe_url_chars(url) {
        return Err(invalid("must not contain whitespace or control characters"));
    }
    let parsed = Url::parse(url).map_err(|_| invalid("must be an absolute https URL"))?;
    if !starts_with_scheme(url, "http://") && !starts_with_scheme(url, "https://") {
        return Err(invalid(
            "must be written as an absolute URL, https://host/...",
        ));
    }
    let Some(host) = parsed.host() else {
        return Err(invalid("must name a host"));
    };
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(invalid("must not carry credentials"));
    }
    if parsed.fragment().is_some() {
        return Err(invalid("must not carry a fragment"));
    }
    let loopback = match host {
        url::Host::Domain(name) => name.eq_ignore_ascii_case("localhost"),
        url::Host::Ipv4(ip) => ip.is_loopback(),
        url::Host::Ipv6(ip) => ip.is_loopback(),
    };
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        "http" => Err(invalid(
            "must be https:// (plain http is accepted only to a loopback address)",
        )),
        _ => Err(invalid("must be an https:// URL")),
    }
}
