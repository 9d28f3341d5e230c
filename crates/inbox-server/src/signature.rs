//! Checking a provider's signature on a callback body against the question's bound verifier.
//! Fails closed: a missing, malformed, stale or wrong signature is a refusal, never a pass.
//! Tags are compared in constant time (`Mac::verify_slice`). Nothing about the presented
//! signature or the secret is logged or echoed.

use axum::http::HeaderMap;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, Utc};
use hmac::{Hmac, KeyInit, Mac};
use inbox_protocol::caps::SIGNATURE_TOLERANCE_SECONDS;
use inbox_protocol::{ErrorCode, SignatureEncoding, Verifier};
use sha2::Sha256;

use crate::error::ApiError;
use crate::webhook::verify::{SignedHeaders, VerifyError, secret_key, verify as standard_webhooks};

type HmacSha256 = Hmac<Sha256>;

/// Standard Webhooks headers.
const WEBHOOK_ID: &str = "webhook-id";
const WEBHOOK_TIMESTAMP: &str = "webhook-timestamp";
const WEBHOOK_SIGNATURE: &str = "webhook-signature";

/// `Ok` only when `body` carries a valid signature under `verifier`.
pub fn verify(
    verifier: &Verifier,
    headers: &HeaderMap,
    body: &[u8],
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    match verifier {
        Verifier::HmacSha256 {
            header,
            prefix,
            encoding,
            secret,
        } => {
            let refuse = |why: &str| refused(header, why);
            let value = single_header(headers, header).ok_or_else(|| refuse("is missing"))?;
            let encoded = value
                .strip_prefix(prefix.as_deref().unwrap_or(""))
                .ok_or_else(|| refuse("does not start with the expected prefix"))?;
            let tag = match encoding.unwrap_or_default() {
                SignatureEncoding::Hex => decode_hex(encoded),
                SignatureEncoding::Base64 => STANDARD.decode(encoded).ok(),
            }
            .ok_or_else(|| refuse("is not in the expected encoding"))?;
            let mut mac = keyed(secret.as_bytes())?;
            mac.update(body);
            mac.verify_slice(&tag).map_err(|_| refuse("does not match"))
        }
        Verifier::StandardWebhooks { secret } => {
            let refuse = |field: &str, why: &str| refused(field, why);
            let id = single_header(headers, WEBHOOK_ID)
                .ok_or_else(|| refuse(WEBHOOK_ID, "is missing"))?;
            let timestamp = single_header(headers, WEBHOOK_TIMESTAMP)
                .ok_or_else(|| refuse(WEBHOOK_TIMESTAMP, "is missing"))?;
            let signature = single_header(headers, WEBHOOK_SIGNATURE)
                .ok_or_else(|| refuse(WEBHOOK_SIGNATURE, "is missing"))?;
            // Validated at ask time; a stored secret that no longer decodes fails closed.
            let key =
                secret_key(secret).map_err(|_| refuse(WEBHOOK_SIGNATURE, "cannot be checked"))?;
            let signed = SignedHeaders {
                id,
                timestamp,
                signature,
            };
            standard_webhooks(&key, signed, body, now, SIGNATURE_TOLERANCE_SECONDS).map_err(|e| {
                match e {
                    VerifyError::MalformedTimestamp => {
                        refuse(WEBHOOK_TIMESTAMP, "is not a unix timestamp")
                    }
                    VerifyError::OutsideTolerance { .. } => refuse(
                        WEBHOOK_TIMESTAMP,
                        "is too far from the server's clock (a replay, or a skewed clock)",
                    ),
                    VerifyError::MalformedSecret => refuse(WEBHOOK_SIGNATURE, "cannot be checked"),
                    VerifyError::Mismatch => refuse(WEBHOOK_SIGNATURE, "does not match"),
                }
            })
        }
    }
}

fn keyed(key: &[u8]) -> Result<HmacSha256, ApiError> {
    // HMAC takes a key of any length; this cannot fail, but it must not panic either.
    HmacSha256::new_from_slice(key)
        .map_err(|_| ApiError::new(ErrorCode::Internal, "internal error"))
}

/// The header's value if it is present exactly once and is text.
fn single_header<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    let mut values = headers.get_all(name).iter();
    let first = values.next()?;
    if values.next().is_some() {
        return None;
    }
    first.to_str().ok().map(str::trim)
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

fn refused(field: &str, why: &str) -> ApiError {
    ApiError::new(
        ErrorCode::InvalidSignature,
        format!("the signature header {why}; the answer was not accepted"),
    )
    .with_field(field)
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn hmac_hex(key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
        let mut mac = HmacSha256::new_from_slice(key).unwrap();
        for p in parts {
            mac.update(p);
        }
        mac.finalize().into_bytes().to_vec()
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn hmac_signatures_are_checked_against_the_raw_body() {
        let verifier = Verifier::HmacSha256 {
            header: "X-Hub-Signature-256".into(),
            prefix: Some("sha256=".into()),
            encoding: Some(SignatureEncoding::Hex),
            secret: "It's a Secret to Everybody".into(),
        };
        let body = b"Hello, World!";
        // GitHub's published example for this secret and payload.
        let github = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
        let mut headers = HeaderMap::new();
        headers.insert("x-hub-signature-256", HeaderValue::from_static(github));
        assert!(verify(&verifier, &headers, body, Utc::now()).is_ok());
        assert!(verify(&verifier, &headers, b"Hello, World?", Utc::now()).is_err());
        let bad = [
            "",
            "757107ea",
            "sha256=zz",
            "sha1=757107ea0eb2509fc211221cce984b8a",
        ];
        for value in bad {
            headers.insert("x-hub-signature-256", HeaderValue::from_str(value).unwrap());
            let err = verify(&verifier, &headers, body, Utc::now()).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidSignature, "{value}");
        }
        assert!(verify(&verifier, &HeaderMap::new(), body, Utc::now()).is_err());
        // The same header twice is ambiguous: refused.
        let mut twice = HeaderMap::new();
        twice.append("x-hub-signature-256", HeaderValue::from_static(github));
        twice.append("x-hub-signature-256", HeaderValue::from_static(github));
        assert!(verify(&verifier, &twice, body, Utc::now()).is_err());
    }

    #[test]
    fn standard_webhooks_signatures_check_id_timestamp_and_body() {
        let key = b"0123456789abcdef01234567";
        let secret = format!("whsec_{}", STANDARD.encode(key));
        let verifier = Verifier::StandardWebhooks { secret };
        let now = Utc::now();
        let ts = now.timestamp().to_string();
        let body = br#"{"signed": true}"#;
        let good = STANDARD.encode(hmac_hex(key, &[b"msg_1.", ts.as_bytes(), b".", body]));
        let headers = |ts: &str, sig: &str| {
            let mut h = HeaderMap::new();
            h.insert("webhook-id", HeaderValue::from_static("msg_1"));
            h.insert("webhook-timestamp", HeaderValue::from_str(ts).unwrap());
            h.insert("webhook-signature", HeaderValue::from_str(sig).unwrap());
            h
        };
        let ok = headers(&ts, &format!("v1,{good}"));
        assert!(verify(&verifier, &ok, body, now).is_ok());
        let rotated = headers(&ts, &format!("v1,AAAA v2,xyz v1,{good}"));
        assert!(verify(&verifier, &rotated, body, now).is_ok());
        assert!(verify(&verifier, &ok, b"{}", now).is_err(), "another body");
        let stale = (now.timestamp() - SIGNATURE_TOLERANCE_SECONDS - 1).to_string();
        let err = verify(
            &verifier,
            &headers(&stale, &format!("v1,{good}")),
            body,
            now,
        )
        .unwrap_err();
        assert_eq!(err.body().error.field.as_deref(), Some("webhook-timestamp"));
        assert!(
            verify(&verifier, &headers(&ts, &good), body, now).is_err(),
            "no v1,"
        );
        let wrong_key = STANDARD.encode(hmac_hex(
            b"another-key-another-key!",
            &[b"msg_1.", ts.as_bytes(), b".", body],
        ));
        assert!(
            verify(
                &verifier,
                &headers(&ts, &format!("v1,{wrong_key}")),
                body,
                now
            )
            .is_err()
        );
        assert_eq!(hex(&[0xab, 0x01]), "ab01");
    }
}
