//! Native notifications on the real session bus: this test serves
//! `org.freedesktop.Notifications` itself (zbus) and records what the app's notifier sends,
//! while a real server (in-process, on 127.0.0.1:0) and the real sync engine supply the
//! questions. A click is simulated with the `ActionInvoked` signal. Run inside a D-Bus session (`dbus-run-session`; the test suite provides one).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use inbox_client::{Account, ApiClient, Engine, EngineConfig, Keyring, new_idempotency_key};
use inbox_desktop::local_server::{LocalServer, LocalServerOptions};
use inbox_desktop::notifications::{Notifier, Presence, QuestionRef};
use inbox_protocol::{AnswerFormat, AnswerRequest, AskRequest};
use inbox_sync::ConnectionStatus;
use zbus::object_server::SignalEmitter;
use zbus::zvariant::OwnedValue;

#[derive(Debug, Clone, PartialEq)]
enum Call {
    Notify {
        id: u32,
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
}

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl NotificationServer {
    fn get_capabilities(&self) -> Vec<String> {
        // As GNOME Shell does: the body is rendered as markup, so what the app sends must be safe.
        vec!["actions".into(), "body".into(), "body-markup".into()]
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_question_is_notified_withdrawn_when_answered_elsewhere_silenced_by_do_not_disturb_and_its_markup_escaped()
 {
    assert!(
        std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some(),
        "this test needs a D-Bus session bus: run it under `dbus-run-session` (scripts/test.sh does)"
    );
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
            },
        )
        .unwrap()
        .build()
        .await
        .expect("own org.freedesktop.Notifications (is another notification daemon running?)");

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
    let notifier = Notifier::spawn("Interactions Inbox (test)", presence.clone(), {
        let opened = opened.clone();
        Arc::new(move |question| opened.lock().unwrap().push(question))
    });
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

    // 1. A new question → one Notify with its first line and a default action.
    let question = asker
        .ask(&AskRequest::new(
            "Deploy build 42 to production?\nDetails follow.",
            AnswerFormat::Confirm,
        ))
        .await
        .unwrap();
    let shown = wait_for("the notification", Duration::from_secs(10), || {
        calls.lock().unwrap().iter().find_map(|c| match c {
            Call::Notify {
                id,
                summary,
                body,
                actions,
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

    // 2. A click (the default action) opens that question.
    let emitter = bus
        .object_server()
        .interface::<_, NotificationServer>("/org/freedesktop/Notifications")
        .await
        .unwrap()
        .signal_emitter()
        .clone();
    // The notifier hears clicks through a signal subscription it makes after showing the
    // notification; on a loaded machine the first signal can come before that subscription
    // exists and reach nobody. Click again (as a person would) until it opens, for 10 s.
    let deadline = Instant::now() + Duration::from_secs(10);
    let clicked = loop {
        NotificationServer::action_invoked(&emitter, notification_id, "default")
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        if let Some(first) = opened.lock().unwrap().first().cloned() {
            break first;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for the click to open the question"
        );
    };
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
    let quiet = asker
        .ask(&AskRequest::new(
            "Rotate the staging password?",
            AnswerFormat::Confirm,
        ))
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let snapshot = engine.snapshot_of("local").await.unwrap();
        if snapshot.cards.iter().any(|c| c.interaction.id == quiet.id) {
            break;
        }
        assert!(Instant::now() < deadline, "the question reached the inbox");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
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
    asker
        .ask(&AskRequest::new(
            r#"<b>Urgent</b> & <a href="https://evil.example/">sign in</a> <img src="https://evil.example/t.png"/>"#,
            AnswerFormat::Confirm,
        ))
        .await
        .unwrap();
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

    engine.shutdown().await;
    server.shutdown().await;
}
