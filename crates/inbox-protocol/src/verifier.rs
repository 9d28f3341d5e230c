//! A webhook verifier bound to an external question: how the public callback door tells a
//! provider's genuine answer from a forged one. The door checks the signature over the raw
//! body before the answer is accepted and refuses (fails closed) when it is missing or wrong.
//!
//! The secret goes in with the ask and is stored beside the callback ticket, never inside the
//! interaction: no read, list page, stream event or log shows it back.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// `{"kind": "hmac-sha256", "header": "X-Hub-Signature-256", "prefix": "sha256=",
/// "encoding": "hex", "secret": "…"}` or `{"kind": "standard-webhooks", "secret": "whsec_…"}`.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", deny_unknown_fields)]
pub enum Verifier {
    /// `header` carries `prefix` + the HMAC-SHA256 of the raw body under `secret` (its UTF-8
    /// bytes), in `encoding` (GitHub's `X-Hub-Signature-256: sha256=<hex>` and the like).
    #[serde(rename = "hmac-sha256")]
    HmacSha256 {
        header: String,
        #[serde(default)]
        #[ts(optional)]
        prefix: Option<String>,
        #[serde(default)]
        #[ts(optional)]
        encoding: Option<SignatureEncoding>,
        secret: String,
    },
    /// Standard Webhooks (<https://www.standardwebhooks.com>): `webhook-id`,
    /// `webhook-timestamp` and `webhook-signature: v1,<base64 HMAC-SHA256 of
    /// "{id}.{timestamp}.{body}">`, keyed by the base64 after `whsec_`.
    #[serde(rename = "standard-webhooks")]
    StandardWebhooks { secret: String },
}

/// How an `hmac-sha256` signature is written. Default `hex`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum SignatureEncoding {
    #[default]
    Hex,
    Base64,
}

impl Verifier {
    pub fn kind(&self) -> &'static str {
        match self {
            Verifier::HmacSha256 { .. } => "hmac-sha256",
            Verifier::StandardWebhooks { .. } => "standard-webhooks",
        }
    }
}

// By hand, so a `{:?}` anywhere (a log line, a panic) can never print the secret.
impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verifier::HmacSha256 {
                header,
                prefix,
                encoding,
                ..
            } => f
                .debug_struct("HmacSha256")
                .field("header", header)
                .field("prefix", prefix)
                .field("encoding", encoding)
                .field("secret", &"<redacted>")
                .finish(),
            Verifier::StandardWebhooks { .. } => f
                .debug_struct("StandardWebhooks")
                .field("secret", &"<redacted>")
                .finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn both_kinds_parse_and_debug_hides_the_secret() {
        let hmac: Verifier = serde_json::from_value(json!({"kind": "hmac-sha256",
            "header": "X-Hub-Signature-256", "prefix": "sha256=", "encoding": "base64",
            "secret": "s3cret-value"}))
        .unwrap();
        assert_eq!(hmac.kind(), "hmac-sha256");
        assert!(!format!("{hmac:?}").contains("s3cret-value"));
        let sw: Verifier = serde_json::from_value(
            json!({"kind": "standard-webhooks", "secret": "whsec_c2VjcmV0LXZhbHVl"}),
        )
        .unwrap();
        assert!(!format!("{sw:?}").contains("c2VjcmV0"));
        assert!(serde_json::from_value::<Verifier>(json!({"kind": "md5", "secret": "x"})).is_err());
        assert!(
            serde_json::from_value::<Verifier>(
                json!({"kind": "standard-webhooks", "secret": "whsec_x", "extra": 1})
            )
            .is_err()
        );
    }
}
