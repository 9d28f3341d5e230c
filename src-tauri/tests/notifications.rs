//! Native notifications on the real session bus: this test serves
//! `org.freedesktop.Notifications` itself (zbus) and records what the app's notifier sends,
//! while a real server (in-process, on 127.0.0.1:0) and the real sync engine supply the
//! questions. A click is simulated with the `ActionInvoked` signal. Run inside a D-Bus session (`dbus-run-session`; the test suite provides one).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use inbox_client::{
    Account, ApiClient, Engine, EngineConfig, Keyring, WaitOutcome, new_idempotency_key,
};
use inbox_desktop::local_server::{LocalServer, LocalServerOptions};
use inbox_desktop::notifications::{NoticeHandlers, Notifier, Presence, QuestionRef};
use inbox_protocol::{AnswerFormat, AnswerRequest, AskRequest, ChoiceOption};
use inbox_sync::ConnectionStatus;
use zbus::object_server::SignalEmitter;
use zbus::zvariant::OwnedValue;

mod support;

#[derive(Debug, Clone, PartialEq)]
enum Call {
    Notify {
        id: u32,
        /// The `replaces_id` the app sent (0: a new notification).
        replaces: u32,
        summary: String,
        body: String,
        actions: Vec<String>,
    },
    Close {
        id: u32,
    },
}

struct NotificationServer {
    calls: Arc<Mutex<Vec<Call>>>,
    next_id: u32,
    capabilities: Vec<String>,
}

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl NotificationServer {
    fn get_capabilities(&self) -> Vec<String> {
        self.capabilities.clone()
    }

    #[allow(clippy::too_many_arguments)]
    fn notify(
        &mut self,
        _app_name: String,
        replaces_id: u32,
        _app_icon: String,
        summary: String,
        body: String,
        actions: Vec<String>,
        _hints: HashMap<String, OwnedValue>,
        _expire_timeout: i32,
    ) -> u32 {
        let id = if replaces_id != 0 {
            replaces_id
        } else {
            self.next_id += 1;
            self.next_id
        };
        self.calls.lock().unwrap().push(Call::Notify {
            id,
            replaces: replaces_id,
            summary,
            body,
            actions,
        });
        id
    }

    async fn close_notification(
        &mut self,
        id: u32,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) {
        self.calls.lock().unwrap().push(Call::Close { id });
        // Reason 3: closed by a call to CloseNotification (the spec's code).
        let _ = Self::notification_closed(&emitter, id, 3).await;
    }

    fn get_server_information(&self) -> (String, String, String, String) {
        (
            "recorder".into(),
            "inbox-tests".into(),
            "1".into(),
            "1.2".into(),
        )
    }

    #[zbus(signal)]
    async fn action_invoked(
        emitter: &SignalEmitter<'_>,
        id: u32,
        action_key: &str,
    ) -> zbus::Result<()>;

    /// KDE Plasma's inline reply (capability `inline-reply`).
    #[zbus(signal)]
    async fn notification_replied(
        emitter: &SignalEmitter<'_>,
        id: u32,
        text: &str,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    async fn notification_closed(
        emitter: &SignalEmitter<'_>,
        id: u32,
        reason: u32,
    ) -> zbus::Result<()>;
}

async fn wait_for<T>(what: &str, timeout: Duration, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(found) = probe() {
            return found;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A real server and engine, this test's notification server on the session bus, and the
/// app's notifier between them.
struct Rig {
    calls: Arc<Mutex<Vec<Call>>>,
    emitter: SignalEmitter<'static>,
    server: LocalServer,
    engine: Engine,
    presence: Arc<Presence>,
    opened: Arc<Mutex<Vec<QuestionRef>>>,
    asker: ApiClient,
    reviewer: ApiClient,
    _bus: zbus::Connection,
    _dir: tempfile::TempDir,
    /// Only one test at a time can own `org.freedesktop.Notifications`.
    _turn: tokio::sync::MutexGuard<'static, ()>,
}

static BUS_NAME_TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

impl Rig {
    /// `capabilities`: what the notification server says it can do.
    async fn start(capabilities: &[&str]) -> Rig {
        assert!(
            std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some(),
            "this test needs a D-Bus session bus: run it under `dbus-run-session` (scripts/test.sh does)"
        );
        let turn = BUS_NAME_TURN.lock().await;
        let calls = Arc::new(Mutex::new(Vec::new()));
        let bus = zbus::connection::Builder::session()
            .unwrap()
            .name("org.freedesktop.Notifications")
            .unwrap()
            .serve_at(
                "/org/freedesktop/Notifications",
                NotificationServer {
                    calls: calls.clone(),
                    next_id: 0,
                    capabilities: capabilities.iter().map(|c| c.to_string()).collect(),
                },
            )
            .unwrap()
            .build()
            .await
            .expect("own org.freedesktop.Notifications (is another notification daemon running?)");
        let emitter = bus
            .object_server()
            .interface::<_, NotificationServer>("/org/freedesktop/Notifications")
            .await
            .unwrap()
            .signal_emitter()
            .clone()
            .into_owned();

        let dir = tempfile::tempdir().unwrap();
        // Port 0: any free one, so the test never competes for 8790.
        let any_port = LocalServerOptions {
            port: Some(0),
            discovery_file: None,
        };
        let server = LocalServer::start(&dir.path().join("server"), &any_port)
            .await
            .unwrap();
        let engine = Engine::new(
            EngineConfig::new(dir.path().join("sync")),
            Keyring::in_memory().unwrap(),
        );
        let account = Account::new("local", "Local", &server.base_url).unwrap();
        engine
            .add_account(account, Some(server.reviewer()))
            .await
            .unwrap();

        let presence = Arc::new(Presence::default());
        let opened = Arc::new(Mutex::new(Vec::new()));
        let runtime = tokio::runtime::Handle::current();
        let answering = engine.clone();
        let notifier = Notifier::spawn(
            "Interactions Inbox (test)",
            presence.clone(),
            NoticeHandlers {
                open: {
                    let opened = opened.clone();
                    Arc::new(move |question| opened.lock().unwrap().push(question))
                },
                // As the app does: the engine's answer, the window's path.
                answer: Arc::new(move |question: QuestionRef, value| {
                    runtime
                        .block_on(answering.answer(&question.account, &question.id, value, None))
                        .map_err(|e| e.to_string())
                }),
            },
        );
        let mut events = engine.notifications();
        tokio::spawn(async move {
            while let Ok(event) = events.recv().await {
                notifier.handle(event);
            }
        });
        let mut statuses = engine.statuses();
        tokio::time::timeout(Duration::from_secs(10), async {
            while statuses.borrow_and_update().get("local") != Some(&ConnectionStatus::Online) {
                statuses.changed().await.unwrap();
            }
        })
        .await
        .expect("the engine comes online");

        let asker = ApiClient::new(&server.base_url, server.asker()).unwrap();
        let reviewer = ApiClient::new(&server.base_url, server.reviewer()).unwrap();
        Rig {
            calls,
            emitter,
            server,
            engine,
            presence,
            opened,
            asker,
            reviewer,
            _bus: bus,
            _dir: dir,
            _turn: turn,
        }
    }

    async fn stop(self) {
        self.engine.shutdown().await;
        self.server.shutdown().await;
    }
}

/// GNOME Shell's answer: actions, and a body rendered as markup (so what the app sends must be
/// safe). No inline reply.
const GNOME: &[&str] = &["actions", "body", "body-markup"];
/// KDE Plasma's: the same, with inline replies.
const PLASMA: &[&str] = &["actions", "body", "body-markup", "inline-reply"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_question_is_notified_withdrawn_when_answered_elsewhere_silenced_by_do_not_disturb_and_its_markup_escaped()
 {
    let rig = Rig::start(GNOME).await;
    let Rig {
        calls,
        emitter,
        engine,
        presence,
        opened,
        asker,
        reviewer,
        ..
    } = &rig;

    // 1. A new question → one Notify with its first line and a default action.
    let question = support::ask(
        asker,
        "Deploy build 42 to production?\nDetails follow.",
        AnswerFormat::Confirm,
    )
    .await;
    let shown = wait_for("the notification", Duration::from_secs(10), || {
        calls.lock().unwrap().iter().find_map(|c| match c {
            Call::Notify {
                id,
                summary,
                body,
                actions,
                ..
            } => Some((*id, summary.clone(), body.clone(), actions.clone())),
            _ => None,
        })
    })
    .await;
    let (notification_id, summary, body, actions) = shown;
    assert_eq!(body, "Deploy build 42 to production?");
    assert!(
        summary.contains("local-asker"),
        "the asker is named: {summary}"
    );
    assert!(
        actions.chunks(2).any(|pair| pair[0] == "default"),
        "a click opens it: {actions:?}"
    );

    // 2. A click (the default action) opens that question. One click: the notifier listens
    // from before its first notification, so no signal can come too early for it.
    NotificationServer::action_invoked(emitter, notification_id, "default")
        .await
        .unwrap();
    let clicked = wait_for(
        "the click to open the question",
        Duration::from_secs(10),
        || opened.lock().unwrap().first().cloned(),
    )
    .await;
    assert_eq!(
        clicked,
        QuestionRef {
            account: "local".into(),
            id: question.id.clone()
        }
    );

    // 3. Answered elsewhere (another reviewer client) → that notification is withdrawn.
    reviewer
        .answer(
            &question.id,
            &AnswerRequest {
                answer: serde_json::json!(true),
                params: None,
            },
            &new_idempotency_key(),
        )
        .await
        .unwrap();
    wait_for("CloseNotification", Duration::from_secs(10), || {
        calls
            .lock()
            .unwrap()
            .contains(&Call::Close {
                id: notification_id,
            })
            .then_some(())
    })
    .await;

    // 4. Do not disturb: the question reaches the inbox, but nothing pops up.
    presence.set_do_not_disturb(true);
    let before = calls.lock().unwrap().len();
    let quiet = support::ask(asker, "Rotate the staging password?", AnswerFormat::Confirm).await;
    support::wait_for_card_in(engine, "local", &quiet.id).await;
    // Longer than the notifier gathers arrivals, so a notification would have been sent by now.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let after: Vec<Call> = calls.lock().unwrap()[before..].to_vec();
    assert!(
        after.is_empty(),
        "Do not disturb, yet the bus saw {after:?}"
    );

    // 5. A prompt carrying markup arrives on the bus as text: a body-markup server would
    // otherwise render the link and fetch the image.
    presence.set_do_not_disturb(false);
    let before = calls.lock().unwrap().len();
    support::ask(
        asker,
        r#"<b>Urgent</b> & <a href="https://evil.example/">sign in</a> <img src="https://evil.example/t.png"/>"#,
        AnswerFormat::Confirm,
    )
    .await;
    let body = wait_for(
        "the notification of the markup prompt",
        Duration::from_secs(10),
        || {
            calls.lock().unwrap()[before..]
                .iter()
                .find_map(|c| match c {
                    Call::Notify { body, .. } => Some(body.clone()),
                    _ => None,
                })
        },
    )
    .await;
    assert_eq!(
        body,
        r#"&lt;b&gt;Urgent&lt;/b&gt; &amp; &lt;a href="https://evil.example/"&gt;sign in&lt;/a&gt; &lt;img src="https://evil.example/t.png"/&gt;"#
    );

    rig.stop().await;
}

/// The answer the blocked asker hears for `id`.
async fn answer_heard(asker: &ApiClient, id: &str) -> serde_json::Value {
    match asker.wait(id, Duration::from_secs(20)).await.unwrap() {
        WaitOutcome::Resolved(ia) => ia.answer.expect("an answered question").value,
        WaitOutcome::Pending => panic!("{id} was not answered within 20 s"),
    }
}

/// The notification shown for `prompt` (after call `from`): its id and its actions as pairs.
async fn notice_for(rig: &Rig, from: usize, prompt: &str) -> (u32, Vec<(String, String)>) {
    wait_for(
        &format!("the notification of {prompt:?}"),
        Duration::from_secs(10),
        || {
            rig.calls.lock().unwrap()[from..]
                .iter()
                .find_map(|c| match c {
                    Call::Notify {
                        id, body, actions, ..
                    } if body == prompt => Some((
                        *id,
                        actions
                            .chunks(2)
                            .map(|p| (p[0].clone(), p[1].clone()))
                            .collect(),
                    )),
                    _ => None,
                })
        },
    )
    .await
}

/// The notification `id` was replaced by an outcome: its summary and body (no actions left).
async fn outcome_of(rig: &Rig, id: u32) -> (String, String) {
    wait_for(
        "the outcome in place of the notification",
        Duration::from_secs(20),
        || {
            rig.calls.lock().unwrap().iter().find_map(|c| match c {
                Call::Notify {
                    replaces,
                    summary,
                    body,
                    actions,
                    ..
                } if *replaces == id => {
                    assert!(
                        actions.is_empty(),
                        "an outcome offers nothing more: {actions:?}"
                    );
                    Some((summary.clone(), body.clone()))
                }
                _ => None,
            })
        },
    )
    .await
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, l)| (k.to_string(), l.to_string()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn yes_a_select_option_and_an_inline_reply_answer_from_the_notification_and_a_look_alike_signal_answers_nothing()
 {
    let rig = Rig::start(PLASMA).await;

    // 1. Confirm: Yes and No are actions; "Yes" reaches the blocked asker as `true`, and the
    // notification then shows the outcome instead of the question.
    let from = rig.calls.lock().unwrap().len();
    let deploy = support::ask(&rig.asker, "Deploy build 42?", AnswerFormat::Confirm).await;
    let (id, actions) = notice_for(&rig, from, "Deploy build 42?").await;
    assert_eq!(
        actions,
        pairs(&[("default", "Open"), ("answer-0", "Yes"), ("answer-1", "No")])
    );

    // A look-alike signal from another client on the bus (not the notification server) must
    // not answer: the notifier hears only the owner of org.freedesktop.Notifications.
    let intruder = zbus::Connection::session().await.unwrap();
    intruder
        .emit_signal(
            None::<&str>,
            "/org/freedesktop/Notifications",
            "org.freedesktop.Notifications",
            "ActionInvoked",
            &(id, "answer-1"),
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        rig.reviewer.get(&deploy.id).await.unwrap().is_pending(),
        "a signal from another client answered the question"
    );

    NotificationServer::action_invoked(&rig.emitter, id, "answer-0")
        .await
        .unwrap();
    assert_eq!(
        answer_heard(&rig.asker, &deploy.id).await,
        serde_json::json!(true)
    );
    assert_eq!(
        outcome_of(&rig, id).await,
        ("Answer sent".to_owned(), "Yes".to_owned())
    );
    // The outcome is left to time out; settling the question does not withdraw it.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        !rig.calls.lock().unwrap().contains(&Call::Close { id }),
        "the outcome was withdrawn"
    );

    // 2. A select of three: each option an action labelled as in the window; the value is sent.
    let from = rig.calls.lock().unwrap().len();
    let mut region = AskRequest::new("Which region?", AnswerFormat::Select);
    region.options = Some(vec![
        ChoiceOption {
            value: "eu-west-1".into(),
            label: Some("Europe (Ireland)".into()),
        },
        ChoiceOption {
            value: "us-east-1".into(),
            label: None,
        },
        ChoiceOption {
            value: "ap-southeast-2".into(),
            label: Some("Sydney".into()),
        },
    ]);
    let region = rig.asker.ask(&region).await.unwrap();
    let (id, actions) = notice_for(&rig, from, "Which region?").await;
    assert_eq!(
        actions,
        pairs(&[
            ("default", "Open"),
            ("answer-0", "Europe (Ireland)"),
            ("answer-1", "us-east-1"),
            ("answer-2", "Sydney"),
        ])
    );
    NotificationServer::action_invoked(&rig.emitter, id, "answer-2")
        .await
        .unwrap();
    assert_eq!(
        answer_heard(&rig.asker, &region.id).await,
        serde_json::json!("ap-southeast-2")
    );
    assert_eq!(outcome_of(&rig, id).await.0, "Answer sent");

    // 3. Text, on a server with inline replies: the reply's text is the answer, and it comes
    // back in the outcome as text, not markup.
    let from = rig.calls.lock().unwrap().len();
    let nightly = support::ask(&rig.asker, "Why did the nightly fail?", AnswerFormat::Text).await;
    let (id, actions) = notice_for(&rig, from, "Why did the nightly fail?").await;
    assert_eq!(
        actions,
        pairs(&[("default", "Open"), ("inline-reply", "Reply")])
    );
    NotificationServer::notification_replied(&rig.emitter, id, "Flaky <b>disk</b> test")
        .await
        .unwrap();
    assert_eq!(
        answer_heard(&rig.asker, &nightly.id).await,
        serde_json::json!("Flaky <b>disk</b> test")
    );
    assert_eq!(
        outcome_of(&rig, id).await,
        (
            "Answer sent".to_owned(),
            "Flaky &lt;b&gt;disk&lt;/b&gt; test".to_owned()
        )
    );

    rig.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_inline_replies_a_text_question_only_opens() {
    let rig = Rig::start(GNOME).await;
    let from = rig.calls.lock().unwrap().len();
    support::ask(&rig.asker, "Release notes?", AnswerFormat::Text).await;
    let (_, actions) = notice_for(&rig, from, "Release notes?").await;
    assert_eq!(actions, pairs(&[("default", "Open")]));
    rig.stop().await;
}
