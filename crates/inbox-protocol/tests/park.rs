//! Park validation: each refusal names the field, and a good park passes.

use chrono::{Duration, Utc};
use inbox_protocol::caps::PARK_MAX_ASKS;
use inbox_protocol::validate::{Retention, validate_park};
use inbox_protocol::{ErrorCode, ParkRequest};
use serde_json::{Value, json};

fn in_hours(h: i64) -> String {
    (Utc::now() + Duration::hours(h)).to_rfc3339()
}

fn ask(expiry_at: &str) -> Value {
    json!({"prompt": "Ship it?", "answer_format": "confirm", "mode": "async", "expiry_at": expiry_at})
}

fn park(body: Value) -> ParkRequest {
    serde_json::from_value(body).expect("shape parses")
}

/// One question an hour out, resuming through a webhook at `url`.
fn webhook_park(url: &str) -> Value {
    json!({"asks": [ask(&in_hours(1))], "continuation": {"kind": "webhook", "url": url}})
}

fn refused(body: Value) -> (ErrorCode, String, String) {
    let err =
        validate_park(&park(body), Utc::now(), Retention::DEFAULT).expect_err("must be refused");
    (err.code, err.field, err.message)
}

#[test]
fn a_park_of_three_async_questions_is_accepted() {
    let accepted = validate_park(
        &park(json!({
            "asks": [ask(&in_hours(1)), ask(&in_hours(2)), ask(&in_hours(3))],
            "continuation": {"kind": "webhook", "url": "https://hooks.example.org/resume"},
            "metadata": {"run": "r-17"},
        })),
        Utc::now(),
        Retention::DEFAULT,
    )
    .unwrap();
    assert_eq!(accepted.asks.len(), 3);
    assert!(accepted.asks.iter().all(|a| a.expires_at.is_some()));
}

#[test]
fn each_refusal_names_its_field() {
    let later = in_hours(1);
    let mut no_expiry = ask(&later);
    no_expiry.as_object_mut().unwrap().remove("expiry_at");
    let mut sync = ask(&later);
    sync["mode"] = json!("sync");
    sync.as_object_mut().unwrap().remove("expiry_at");
    let mut bad_prompt = ask(&later);
    bad_prompt["prompt"] = json!("  ");
    let mut notification = ask(&later);
    notification["kind"] = json!("notification");
    let too_many: Vec<Value> = (0..=PARK_MAX_ASKS).map(|_| ask(&later)).collect();
    let cases = [
        (json!({"asks": []}), ErrorCode::MissingField, "asks"),
        (json!({"asks": too_many}), ErrorCode::InvalidField, "asks"),
        (
            json!({"asks": [ask(&later), ask(&later), no_expiry]}),
            ErrorCode::MissingField,
            "asks[2].expiry_at",
        ),
        (
            json!({"asks": [sync]}),
            ErrorCode::InvalidField,
            "asks[0].mode",
        ),
        (
            json!({"asks": [ask(&later), bad_prompt]}),
            ErrorCode::InvalidField,
            "asks[1].prompt",
        ),
        (
            json!({"asks": [notification]}),
            ErrorCode::FieldNotAllowed,
            "asks[0].kind",
        ),
        (
            json!({"asks": [ask(&(Utc::now() - Duration::hours(1)).to_rfc3339())]}),
            ErrorCode::InvalidField,
            "asks[0].expiry_at",
        ),
        (
            json!({"asks": [ask(&later), ask(&in_hours(31 * 24))]}),
            ErrorCode::BeyondRetention,
            "asks[1].expiry_at",
        ),
        (
            json!({"asks": [ask(&later)], "metadata": {"blob": "x".repeat(9000)}}),
            ErrorCode::InvalidField,
            "metadata",
        ),
    ];
    for (body, code, field) in cases {
        let (got_code, got_field, message) = refused(body);
        assert_eq!((got_code, got_field.as_str()), (code, field), "{message}");
    }
}

#[test]
fn beyond_retention_names_the_expiry_and_the_horizon() {
    let far = (Utc::now() + Duration::days(40)).to_rfc3339();
    let (_, _, message) = refused(json!({"asks": [ask(&far)]}));
    assert!(message.contains("asks[0].expiry_at"), "{message}");
    assert!(message.contains("30 days"), "{message}");
    assert!(message.contains("horizon 20"), "{message}");
    // Forever has no horizon.
    validate_park(
        &park(json!({"asks": [ask(&far)]})),
        Utc::now(),
        Retention(None),
    )
    .unwrap();
}

#[test]
fn a_webhook_is_https_or_http_to_loopback() {
    for ok in [
        "https://hooks.example.org/resume",
        "http://127.0.0.1:9000/hook",
        "http://localhost/hook",
        "http://[::1]:8080/",
    ] {
        validate_park(&park(webhook_park(ok)), Utc::now(), Retention::DEFAULT).expect(ok);
    }
    for bad in [
        "http://hooks.example.org/resume",
        "http://10.0.0.5/hook",
        "ftp://hooks.example.org",
        "hooks.example.org/x",
        "https://user:pw@hooks.example.org/",
        "https:hooks.example.org",
        "https://hooks.example.org/ x",
        "",
    ] {
        let (code, field, _) = refused(webhook_park(bad));
        assert_eq!(
            (code, field.as_str()),
            (ErrorCode::InvalidField, "continuation.url"),
            "{bad}"
        );
    }
}

#[test]
fn a_malformed_continuation_does_not_parse() {
    for bad in [
        json!({"kind": "carrier-pigeon"}),
        json!({"kind": "webhook"}),
        json!("claim"),
    ] {
        let body = json!({"asks": [ask(&in_hours(1))], "continuation": bad});
        assert!(serde_json::from_value::<ParkRequest>(body).is_err());
    }
}
