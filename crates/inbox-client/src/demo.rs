//! The demo questions: one of every answer format, with media, a two-page prefilled form with
//! per-send options, and an external question; and a park of three async questions. `inbox demo`
//! and the desktop app's `--demo` ask these.

use base64::Engine as _;
use chrono::{DateTime, Duration, Utc};
use inbox_protocol::{
    AnswerFormat, AskRequest, ChoiceOption, FormData, FormPage, MediaItem, MediaKind, Mode,
    NotificationRequest, ParkRequest,
};
use serde_json::{Map, Value, json};

const BUILD_TIMES_PNG: &[u8] = include_bytes!("../assets/build-times.png");
const DIFF_PNG: &[u8] = include_bytes!("../assets/diff.png");

fn data_png(bytes: &[u8]) -> String {
    format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

fn media(kind: MediaKind, url: &str, caption: &str) -> MediaItem {
    MediaItem {
        kind,
        url: url.to_owned(),
        caption: Some(caption.to_owned()),
        filename: None,
    }
}

fn option(value: &str, label: &str) -> ChoiceOption {
    ChoiceOption {
        value: value.to_owned(),
        label: Some(label.to_owned()),
    }
}

/// An ask offering `options` as (value, label): a select's choices, a text question's
/// suggested replies.
fn with_options(prompt: &str, format: AnswerFormat, options: &[(&str, &str)]) -> AskRequest {
    let mut ask = AskRequest::new(prompt, format);
    ask.options = Some(
        options
            .iter()
            .map(|(value, label)| option(value, label))
            .collect(),
    );
    ask
}

fn metadata(pairs: &[(&str, &str)]) -> Option<Map<String, Value>> {
    Some(
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), json!(v)))
            .collect(),
    )
}

/// The demo questions, in the order they are asked (the last one asked shows first).
pub fn demo_questions() -> Vec<AskRequest> {
    let mut confirm = AskRequest::new(
        "Deploy build 42 to production?\n\nThe canary has been green for 30 minutes.",
        AnswerFormat::Confirm,
    );
    confirm.media = Some(vec![
        media(
            MediaKind::Image,
            &data_png(BUILD_TIMES_PNG),
            "Build times of the last eight builds; build 42 is the red bar",
        ),
        media(
            MediaKind::Image,
            &data_png(DIFF_PNG),
            "Diff of the release configuration",
        ),
        MediaItem {
            kind: MediaKind::Document,
            url: "https://example.com/releases/42/changelog.pdf".into(),
            caption: Some("Changelog for build 42".into()),
            filename: Some("changelog-42.pdf".into()),
        },
        media(
            MediaKind::Link,
            "https://example.com/runbooks/deploy",
            "Deploy runbook",
        ),
    ]);
    confirm.timeout_s = Some(3600);
    confirm.metadata = metadata(&[("run_id", "run-8812"), ("reason", "tool_approval")]);

    let select = with_options(
        "Which region should the new database live in?",
        AnswerFormat::Select,
        &[
            ("eu-west-1", "Europe (Ireland)"),
            ("us-east-1", "US East (Virginia)"),
            ("ap-southeast-2", "Asia Pacific (Sydney)"),
        ],
    );

    // Suggested replies, each labelled with itself.
    let text = with_options(
        "What should the release notes headline say?",
        AnswerFormat::Text,
        &["Faster builds", "Bug fixes and polish"].map(|reply| (reply, reply)),
    );

    let mut form = AskRequest::new("Fill in the release form for build 42.", AnswerFormat::Form);
    form.schema = Some(json!({
        "type": "object",
        "title": "Release",
        "required": ["name", "count", "date", "notify"],
        "properties": {
            "name": {"type": "string", "title": "Release name", "minLength": 1},
            "count": {"type": "integer", "title": "Instances", "minimum": 1, "maximum": 64},
            "date": {"type": "string", "title": "Release date"},
            "notify": {"type": "boolean", "title": "Notify customers"},
            "contacts": {
                "type": "array", "title": "On-call contacts",
                "items": {"type": "string", "format": "email"}
            }
        }
    }));
    form.data = Some(FormData {
        values: [
            ("name".to_owned(), json!("Build 42")),
            ("count".to_owned(), json!(3)),
        ]
        .into_iter()
        .collect(),
        options: [(
            "date".to_owned(),
            vec![
                option("2026-12-01", "Tomorrow morning"),
                option("2026-12-03", "Thursday after the freeze"),
            ],
        )]
        .into_iter()
        .collect(),
    });
    form.pages = Some(vec![
        FormPage {
            title: "Basics".into(),
            fields: vec!["name".into(), "count".into(), "date".into()],
        },
        FormPage {
            title: "Announce".into(),
            fields: vec!["notify".into(), "contacts".into()],
        },
    ]);

    let mut external = AskRequest::new(
        "Sign the change request for the production deploy.",
        AnswerFormat::External,
    );
    external.link = Some("https://example.com/sign?callback={callback_url}".into());

    let mut confirm_short = AskRequest::new(
        "Rotate the staging database password now?",
        AnswerFormat::Confirm,
    );
    confirm_short.timeout_s = Some(300);

    vec![external, form, text, select, confirm_short, confirm]
}

/// The demo notifications: a plain one, and one offering a form (a submission is welcome
/// whenever it comes; nothing waits for it).
pub fn demo_notifications() -> Vec<NotificationRequest> {
    let plain = NotificationRequest {
        prompt: "Nightly backup finished".into(),
        body: Some("All 14 databases were backed up in 6 minutes. Nothing to do.".into()),
        metadata: metadata(&[("run_id", "backup-2211")]),
        ..NotificationRequest::default()
    };
    let form = NotificationRequest {
        prompt: "How did the build 41 rollout go?".into(),
        body: Some("Tell us whenever you have a minute; the pipeline does not wait for it.".into()),
        schema: Some(json!({
            "type": "object",
            "required": ["rating"],
            "properties": {
                "rating": {"type": "integer", "title": "Rating (1-5)", "minimum": 1, "maximum": 5},
                "comment": {"type": "string", "title": "Comment"}
            }
        })),
        data: Some(FormData {
            values: [("rating".to_owned(), json!(4))].into_iter().collect(),
            ..FormData::default()
        }),
        metadata: metadata(&[("run_id", "run-8790")]),
        ..NotificationRequest::default()
    };
    vec![plain, form]
}

/// The demo park: three async questions a release run parks together, each with its own
/// deadline (so the window shows one group with three countdowns). Claimed, not pushed: the
/// demo has no run to resume.
pub fn demo_park(now: DateTime<Utc>) -> ParkRequest {
    let async_ask = |prompt: &str, format: AnswerFormat, minutes: i64| {
        let mut ask = AskRequest::new(prompt, format);
        ask.mode = Mode::Async;
        ask.expiry_at = Some((now + Duration::minutes(minutes)).to_rfc3339());
        ask
    };
    let approve = async_ask(
        "Approve the schema migration for run r-17?",
        AnswerFormat::Confirm,
        45,
    );
    let mut window = async_ask(
        "Which maintenance window should the migration use?",
        AnswerFormat::Select,
        180,
    );
    window.options = Some(vec![
        option("tonight", "Tonight, 22:00"),
        option("weekend", "Saturday morning"),
    ]);
    let note = async_ask(
        "Anything the on-call engineer should know?",
        AnswerFormat::Text,
        24 * 60,
    );
    ParkRequest {
        asks: vec![approve, window, note],
        continuation: None,
        metadata: metadata(&[("run_id", "r-17"), ("agent", "deploy-bot")]),
    }
}

#[cfg(test)]
mod tests {
    use inbox_protocol::validate::{Retention, validate_park};

    use super::*;

    #[test]
    fn the_demo_park_is_a_valid_park_of_three() {
        let now = Utc::now();
        let park = demo_park(now);
        assert_eq!(park.asks.len(), 3);
        validate_park(&park, now, Retention::DEFAULT).expect("the demo park validates");
    }
}
