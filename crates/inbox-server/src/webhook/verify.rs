//! Checking a Standard Webhooks signature: the one check both the callback door (a provider's
//! signed answer) and `inbox webhook verify` (a receiver checking this server's resume) run.
//! Tags are compared in constant time (`Mac::verify_slice`), every candidate of a rotated list
//! is tried, so the time taken does not tell which one matched.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, Utc};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The three Standard Webhooks headers, as received.
#[derive(Debug, Clone, Copy)]
pub struct SignedHeaders<'a> {
    /// `webhook-id`: the message's id (for a resume, the park's one delivery id).
    pub id: &'a str,
    /// `webhook-timestamp`: unix seconds when it was signed.
    pub timestamp: &'a str,
    /// `webhook-signature`: space-separated `v1,<base64>` tags (more than one while a key rotates).
    pub signature: &'a str,
}

/// Why a signature was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    #[error("the secret is not whsec_ followed by base64")]
    MalformedSecret,
    #[error("webhook-timestamp is not a unix timestamp")]
    MalformedTimestamp,
    #[error(
        "webhook-timestamp is {skew_s} s from this clock, beyond the tolerance of {tolerance_s} s \
         (a replay, or a skewed clock)"
    )]
    OutsideTolerance { skew_s: i64, tolerance_s: i64 },
    #[error("no v1 signature in webhook-signature matches the body")]
    Mismatch,
}

/// The HMAC key of a `whsec_<base64>` secret.
pub fn secret_key(secret: &str) -> Result<Vec<u8>, VerifyError> {
    secret
        .trim()
        .strip_prefix(inbox_protocol::validate::STANDARD_WEBHOOKS_SECRET_PREFIX)
        .and_then(|k| STANDARD.decode(k).ok())
        .filter(|k| !k.is_empty())
        .ok_or(VerifyError::MalformedSecret)
}

/// `Ok` only when `body` is signed by `key` under `headers`, within `tolerance_s` of `now`.
/// The timestamp is checked first: a stale message is refused whatever its signature.
pub fn verify(
    key: &[u8],
    headers: SignedHeaders<'_>,
    body: &[u8],
    now: DateTime<Utc>,
    tolerance_s: i64,
) -> Result<(), VerifyError> {
    let seconds: i64 = headers
        .timestamp
        .trim()
        .parse()
        .map_err(|_| VerifyError::MalformedTimestamp)?;
    let skew_s = now.timestamp().saturating_sub(seconds).saturating_abs();
    if skew_s > tolerance_s {
        return Err(VerifyError::OutsideTolerance {
            skew_s,
            tolerance_s,
        });
    }
    // HMAC takes a key of any length, so this cannot fail.
    let mut mac = Hmac::<Sha256>::new_from_slice(key).map_err(|_| VerifyError::MalformedSecret)?;
    mac.update(headers.id.trim().as_bytes());
    mac.update(b".");
    mac.update(headers.timestamp.trim().as_bytes());
    mac.update(b".");
    mac.update(body);
    let mut matched = false;
    for candidate in headers.signature.split(' ') {
        if let Some(tag) = candidate
            .strip_prefix("v1,")
            .and_then(|b| STANDARD.decode(b).ok())
        {
            matched |= mac.clone().verify_slice(&tag).is_ok();
        }
    }
    if matched {
        Ok(())
    } else {
        Err(VerifyError::Mismatch)
    }
}

#[cfg(test)]
mod tests {
    use super::VerifyError::{MalformedTimestamp, Mismatch};
    use super::*;

    #[test]
    fn verifies_what_sign_signs_and_nothing_else() {
        let key = b"a key for the verify test".to_vec();
        let now = Utc::now();
        let ts = now.timestamp().to_string();
        let body = br#"{"type":"park.resolved"}"#;
        let good = super::super::sign(&key, "msg_pk_1", now.timestamp(), body);
        let rotated = format!("v1,AAAA v2,zz {good}");
        let signed = |signature: &str| -> Result<(), VerifyError> {
            let headers = SignedHeaders {
                id: "msg_pk_1",
                timestamp: &ts,
                signature,
            };
            verify(&key, headers, body, now, 300)
        };
        assert_eq!(signed(&good), Ok(()));
        assert_eq!(signed(&rotated), Ok(()));
        assert_eq!(
            signed(good.trim_start_matches("v1,")),
            Err(VerifyError::Mismatch)
        );
        let headers = SignedHeaders {
            id: "msg_pk_1",
            timestamp: &ts,
            signature: &good,
        };
        let later = now + chrono::Duration::seconds(301);
        let other_id = SignedHeaders {
            id: "msg_pk_2",
            ..headers
        };
        let bad_ts = SignedHeaders {
            timestamp: "yesterday",
            ..headers
        };
        let too_late = VerifyError::OutsideTolerance {
            skew_s: 301,
            tolerance_s: 300,
        };
        // (case, key, headers, body, checked at, the refusal)
        type Row<'a> = (
            &'a str,
            &'a [u8],
            SignedHeaders<'a>,
            &'a [u8],
            DateTime<Utc>,
            VerifyError,
        );
        let refused: [Row<'_>; 5] = [
            ("another body", &key, headers, b"{}", now, Mismatch),
            ("another key", b"another key", headers, body, now, Mismatch),
            ("another id", &key, other_id, body, now, Mismatch),
            ("past the tolerance", &key, headers, body, later, too_late),
            ("no timestamp", &key, bad_ts, body, now, MalformedTimestamp),
        ];
        for (case, key, headers, body, at, refusal) in refused {
            assert_eq!(verify(key, headers, body, at, 300), Err(refusal), "{case}");
        }
        assert_eq!(secret_key("whsec_"), Err(VerifyError::MalformedSecret));
        assert_eq!(secret_key("sk_abc"), Err(VerifyError::MalformedSecret));
        assert_eq!(secret_key(" whsec_AAEC\n").unwrap(), vec![0, 1, 2]);
    }
}
