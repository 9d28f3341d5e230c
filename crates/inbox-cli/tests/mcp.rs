//! `inbox mcp` and `inbox mcp proxy` against real peers: an rmcp client spawning the binary, a
//! real `inbox serve` on loopback answered through its API, the npm reference server
//! `@modelcontextprotocol/server-everything` (installed under tests/mcp-peers by scripts/setup.sh)
//! and a small rmcp server of ours behind the proxy. Every wait has a deadline; children are
//! killed when their handles drop.

mod support;

use std::collections::BTreeSet;
use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use inbox_client::{ApiClient, Token};
use inbox_protocol::{AnswerFormat, AnswerRequest, DeclineRequest, Interaction, StatusFilter};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ElicitRequestParams, ProgressNotificationParam,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient, RoleServer, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ErrorData, ServerHandler, ServiceError, ServiceExt};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

use support::{INBOX, Server, start_server};

/// The longest any single step may take before the test fails (and drops, killing, its children).
const STEP: Duration = Duration::from_secs(30);

async fn within<T>(what: &str, fut: impl Future<Output = T>) -> T {
    tokio::time::timeout(STEP, fut)
        .await
        .unwrap_or_else(|_| panic!("timed out: {what}"))
}

/// The MCP host side: records the progress notifications it receives.
#[derive(Clone, Default)]
struct Host {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for Host {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }
}

fn role_token(server: &Server, role: &str) -> Token {
    let text = std::fs::read_to_string(server.dir.path().join("tokens.json")).unwrap();
    let entries: Vec<Value> = serde_json::from_str(&text).unwrap();
    let entry = entries
        .iter()
        .find(|e| e["role"] == role)
        .unwrap_or_else(|| panic!("no {role} token"));
    Token::new(entry["secret"].as_str().unwrap().to_owned())
}

fn api(server: &Server, role: &str) -> ApiClient {
    ApiClient::new(&server.url, role_token(server, role)).unwrap()
}

fn inbox_command(server: &Server, args: &[&str]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(INBOX);
    cmd.args(args)
        .env("INBOX_URL", &server.url)
        .env("INBOX_DATA_DIR", server.dir.path())
        .env("INBOX_LOG", "warn")
        .env_remove("INBOX_TOKEN")
        .kill_on_drop(true);
    cmd
}

type Client = RunningService<RoleClient, Host>;

async fn connect(server: &Server, args: &[&str]) -> (Client, Host) {
    let host = Host::default();
    let transport = TokioChildProcess::new(inbox_command(server, args)).unwrap();
    let running = within("MCP initialize", host.clone().serve(transport))
        .await
        .expect("the MCP session starts");
    (running, host)
}

/// What most tests start with: a server (kept alive by the caller), its reviewer's API, and
/// `inbox ARGS…` spawned as the MCP server of a host of ours.
async fn session(args: &[&str]) -> (Server, ApiClient, Client, Host) {
    let server = start_server();
    let reviewer = api(&server, "reviewer");
    let (client, host) = connect(&server, args).await;
    (server, reviewer, client, host)
}

/// The one pending question, once it shows up in the reviewer's list.
async fn pending_question(reviewer: &ApiClient) -> Interaction {
    within("the question to appear in the inbox", async {
        loop {
            let page = reviewer
                .list(StatusFilter::Pending, None, None)
                .await
                .unwrap();
            if let Some(ia) = page.items.into_iter().next() {
                return ia;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
}

/// The first answered question (of the list's first page) that `which` picks.
async fn answered(
    reviewer: &ApiClient,
    which: impl Fn(&Interaction) -> bool,
) -> Option<Interaction> {
    let page = reviewer
        .list(StatusFilter::Answered, None, None)
        .await
        .unwrap();
    page.items.into_iter().find(|ia| which(ia))
}

async fn answer(reviewer: &ApiClient, id: &str, value: Value) {
    let body = AnswerRequest {
        answer: value,
        params: None,
    };
    reviewer
        .answer(id, &body, &inbox_client::new_idempotency_key())
        .await
        .expect("the reviewer's answer is accepted");
}

async fn decline(reviewer: &ApiClient, id: &str, reason: &str) {
    let body = DeclineRequest {
        reason: Some(reason.to_owned()),
    };
    reviewer
        .decline(id, &body, &inbox_client::new_idempotency_key())
        .await
        .expect("the decline is accepted");
}

fn tool_call(name: &str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    let mut params = CallToolRequestParams::new(name.to_owned());
    params.arguments = Some(arguments);
    params
}

/// Calls tool `name` and waits (within [`STEP`]) for its result.
async fn call_now(client: &Client, what: &str, name: &str, arguments: Value) -> CallToolResult {
    within(what, client.peer().call_tool(tool_call(name, arguments)))
        .await
        .unwrap()
}

/// Calls tool `name` on a task of its own, for a call that returns only once someone
/// answers in the inbox; [`returned`] takes its result.
fn call_in_background(
    client: &Client,
    name: &str,
    arguments: Value,
) -> JoinHandle<Result<CallToolResult, ServiceError>> {
    let peer = client.peer().clone();
    let params = tool_call(name, arguments);
    tokio::spawn(async move { peer.call_tool(params).await })
}

/// The result of a [`call_in_background`], within [`STEP`].
async fn returned(
    what: &str,
    call: JoinHandle<Result<CallToolResult, ServiceError>>,
) -> CallToolResult {
    within(what, call).await.unwrap().unwrap()
}

fn structured(result: &CallToolResult) -> Value {
    result
        .structured_content
        .clone()
        .unwrap_or_else(|| panic!("no structured content in {result:?}"))
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inbox_mcp_lists_ask_user_and_notify_user() {
    let server = start_server();
    let (client, _host) = connect(&server, &["mcp"]).await;
    let tools = within("tools/list", client.list_all_tools()).await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["ask_user", "notify_user"]);
    let ask = &tools[0];
    let formats = &ask.input_schema["properties"]["answer_format"]["enum"];
    assert_eq!(
        formats,
        &json!(["text", "confirm", "select", "form", "external"])
    );
    // Exactly these, under the ask door's own names: the arguments refuse unknown fields, so a
    // property shown here but not taken would be refused when a model used it.
    let properties: BTreeSet<&str> = ask.input_schema["properties"]
        .as_object()
        .expect("ask_user's schema has properties")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        properties,
        BTreeSet::from([
            "answer_format",
            "data",
            "expiry_at",
            "link",
            "media",
            "metadata",
            "options",
            "pages",
            "prompt",
            "schema",
            "timeout_s",
        ])
    );
    client.cancel().await.ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_user_returns_the_answer_given_through_the_api_for_each_format() {
    let (_server, reviewer, client, _host) = session(&["mcp"]).await;
    let cases = [
        (
            json!({"prompt": "Release notes headline?", "options": ["Faster builds"]}),
            AnswerFormat::Text,
            json!("Faster builds, fewer flakes"),
        ),
        (
            json!({"prompt": "Deploy build 42?", "answer_format": "confirm"}),
            AnswerFormat::Confirm,
            json!(true),
        ),
        (
            json!({"prompt": "Which region?", "answer_format": "select",
                "options": [{"value": "eu", "label": "Europe"}, "us"]}),
            AnswerFormat::Select,
            json!("eu"),
        ),
        (
            json!({"prompt": "Trip details", "answer_format": "form",
                "schema": {"type": "object", "required": ["city"], "properties": {
                    "city": {"type": "string"}, "nights": {"type": "integer"}}},
                "data": {"values": {"nights": 2}},
                "pages": [{"title": "Where", "fields": ["city"]}, {"title": "How long", "fields": ["nights"]}],
                "media": [{"kind": "link", "url": "https://example.com/trip", "caption": "Trip"}],
                "metadata": {"run": "r-1"}}),
            AnswerFormat::Form,
            json!({"city": "Lisbon", "nights": 3}),
        ),
    ];
    for (arguments, format, given) in cases {
        let call = call_in_background(&client, "ask_user", arguments);
        let question = pending_question(&reviewer).await;
        assert_eq!(question.answer_format, format);
        answer(&reviewer, &question.id, given.clone()).await;
        let result = returned("ask_user to return", call).await;
        assert_eq!(result.is_error, Some(false), "{result:?}");
        let got = structured(&result);
        assert_eq!(got["status"], "answered");
        assert_eq!(got["answer"], given, "{format:?}");
        assert_eq!(got["interaction_id"], json!(question.id));
        assert!(text(&result).contains(&given.to_string()));
    }
    let form = answered(&reviewer, |ia| ia.answer_format == AnswerFormat::Form)
        .await
        .unwrap();
    assert_eq!(form.data.unwrap().values["nights"], json!(2));
    assert_eq!(form.pages.unwrap().len(), 2);
    assert_eq!(form.metadata["run"], json!("r-1"));

    // External: the answer arrives through the question's callback link, as the other site's.
    let call = call_in_background(
        &client,
        "ask_user",
        json!({"prompt": "Sign the NDA", "answer_format": "external",
            "link": "https://sign.example.com/start?cb={callback_url}"}),
    );
    let question = pending_question(&reviewer).await;
    let link = question.link.clone().unwrap();
    let callback = link.split("cb=").nth(1).unwrap().to_owned();
    let posted = reqwest::Client::new()
        .post(&callback)
        .json(&json!({"signed": true}))
        .send()
        .await
        .unwrap();
    assert!(posted.status().is_success(), "{posted:?}");
    let result = returned("ask_user to return", call).await;
    assert_eq!(structured(&result)["answer"], json!({"signed": true}));
    client.cancel().await.ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declined_expired_and_withdrawn_come_back_as_readable_results() {
    let (server, reviewer, client, _host) = session(&["mcp"]).await;
    let asker = api(&server, "asker");

    let call = call_in_background(
        &client,
        "ask_user",
        json!({"prompt": "Drop the table?", "answer_format": "confirm"}),
    );
    let question = pending_question(&reviewer).await;
    decline(&reviewer, &question.id, "not on a Friday").await;
    let result = returned("ask_user to return", call).await;
    assert_eq!(
        result.is_error,
        Some(false),
        "a decline is not a tool error"
    );
    assert_eq!(structured(&result)["status"], "declined");
    assert_eq!(structured(&result)["reason"], "not on a Friday");
    assert!(text(&result).contains("declined to answer: not on a Friday"));

    let result = call_now(
        &client,
        "an expiring ask_user",
        "ask_user",
        json!({"prompt": "Quick one?", "timeout_s": 1}),
    )
    .await;
    assert_eq!(result.is_error, Some(false));
    assert_eq!(structured(&result)["status"], "expired");
    assert!(text(&result).contains("expired"));

    let call = call_in_background(&client, "ask_user", json!({"prompt": "Still needed?"}));
    let question = pending_question(&reviewer).await;
    asker.withdraw(&question.id).await.unwrap();
    let result = returned("ask_user to return", call).await;
    assert_eq!(structured(&result)["status"], "withdrawn");
    assert!(text(&result).contains("withdrawn"));

    // A host that gives up on the call (rmcp sends notifications/cancelled when the request
    // future is dropped) leaves no question behind: it is withdrawn.
    let call = call_in_background(&client, "ask_user", json!({"prompt": "Abandoned?"}));
    let question = pending_question(&reviewer).await;
    call.abort();
    within("the abandoned question to be withdrawn", async {
        while asker.get(&question.id).await.unwrap().is_pending() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert_eq!(
        asker.get(&question.id).await.unwrap().status,
        inbox_protocol::Status::Cancelled
    );
    client.cancel().await.ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_notifications_arrive_while_ask_user_waits() {
    let (_server, reviewer, client, host) = session(&["mcp", "--progress-every", "1"]).await;
    let call = call_in_background(
        &client,
        "ask_user",
        json!({"prompt": "Ship it?", "timeout_s": 600}),
    );
    let question = pending_question(&reviewer).await;
    within("three progress notifications", async {
        while host.progress.lock().unwrap().len() < 3 {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    answer(&reviewer, &question.id, json!("yes")).await;
    let result = returned("ask_user to return", call).await;
    assert_eq!(structured(&result)["answer"], "yes");
    let progress = host.progress.lock().unwrap().clone();
    // rmcp's client puts a progress token of its own on every request; they all carry it.
    assert!(
        progress
            .iter()
            .all(|p| p.progress_token == progress[0].progress_token)
    );
    assert!(progress.iter().all(|p| p.total == Some(600.0)));
    assert!(
        progress.windows(2).all(|w| w[0].progress <= w[1].progress),
        "progress only grows"
    );
    assert!(progress[2].progress >= 1.0);
    assert!(
        progress[0]
            .message
            .as_deref()
            .unwrap()
            .contains(&question.id)
    );

    client.cancel().await.ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_arguments_are_a_tool_error_naming_the_field_and_nothing_is_asked() {
    let (_server, reviewer, client, _host) = session(&["mcp"]).await;
    let cases = [
        (json!({"answer_format": "confirm"}), "prompt"),
        (
            json!({"prompt": "x", "answer_format": "yes-no"}),
            "answer_format",
        ),
        (
            json!({"prompt": "x", "options": [{"label": "no value"}]}),
            "options[0]",
        ),
        (json!({"prompt": "x", "timeout_s": "soon"}), "timeout_s"),
        (json!({"prompt": "x", "colour": "red"}), "colour"),
        // Refused by the server, which names the field the same way.
        (
            json!({"prompt": "Pick", "answer_format": "select"}),
            "options",
        ),
        (
            json!({"prompt": "x", "timeout_s": 1, "expiry_at": "2030-01-01T00:00:00Z"}),
            "timeout_s",
        ),
    ];
    for (arguments, field) in cases {
        let result = call_now(&client, "a refused ask_user", "ask_user", arguments.clone()).await;
        assert_eq!(result.is_error, Some(true), "{arguments}");
        assert!(
            text(&result).contains(field),
            "{arguments}: `{}` should name `{field}`",
            text(&result)
        );
    }
    let all = reviewer.list(StatusFilter::All, None, None).await.unwrap();
    assert!(all.items.is_empty(), "nothing was asked");
    client.cancel().await.ok();
}

// ---- the proxy ---------------------------------------------------------------------------

fn peers_dir() -> PathBuf {
    PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR")
            .expect("run by cargo, which sets CARGO_MANIFEST_DIR"),
    )
    .join("../../tests/mcp-peers")
}

fn everything_server() -> String {
    let entry =
        peers_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        entry.exists(),
        "{} is missing: run scripts/setup.sh (it installs tests/mcp-peers)",
        entry.display()
    );
    entry.to_string_lossy().into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_everything_servers_elicitation_gets_the_inbox_answer_as_accept_and_decline() {
    let entry = everything_server();
    let (_server, reviewer, client, _host) =
        session(&["mcp", "proxy", "--", "node", &entry, "stdio"]).await;
    let tools = within("tools/list", client.list_all_tools()).await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    // It registers these only for a client that advertises elicitation (form, and url).
    assert!(names.contains(&"trigger-elicitation-request"), "{names:?}");
    assert!(names.contains(&"trigger-url-elicitation"), "{names:?}");

    let call = call_in_background(&client, "trigger-elicitation-request", json!({}));
    let question = pending_question(&reviewer).await;
    assert_eq!(question.answer_format, AnswerFormat::Form);
    assert_eq!(
        question.prompt,
        "Please provide inputs for the following fields:"
    );
    let prefill = question.data.clone().unwrap().values;
    assert_eq!(prefill["firstLine"], "It was a dark and stormy night.");
    assert_eq!(prefill["integer"], 42);
    answer(
        &reviewer,
        &question.id,
        json!({"name": "Ada Lovelace", "check": true, "integer": 7, "email": "ada@example.com"}),
    )
    .await;
    let result = returned("the elicitation tool to return", call).await;
    let shown = text(&result);
    assert!(
        shown.contains("User provided the requested information"),
        "{shown}"
    );
    assert!(shown.contains("- Name: Ada Lovelace"), "{shown}");
    assert!(shown.contains("- Favorite Integer: 7"), "{shown}");
    assert!(shown.contains("\"action\": \"accept\""), "{shown}");

    let call = call_in_background(&client, "trigger-elicitation-request", json!({}));
    let question = pending_question(&reviewer).await;
    decline(&reviewer, &question.id, "no thanks").await;
    let result = returned("the elicitation tool to return", call).await;
    let shown = text(&result);
    assert!(shown.contains("User declined"), "{shown}");
    assert!(shown.contains("\"action\": \"decline\""), "{shown}");

    // Everything else passes through untouched.
    let echoed = call_now(
        &client,
        "echo",
        "echo",
        json!({"message": "through the proxy"}),
    )
    .await;
    assert!(text(&echoed).contains("through the proxy"));
    client.cancel().await.ok();
}

/// A small MCP server of ours, served on a Unix socket and reached by the proxy through
/// tests/mcp-peers/socket-pipe.js: each tool elicits once and returns the result it got.
#[derive(Clone)]
struct Elicitor;

impl ServerHandler for Elicitor {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        let params = match request.name.as_ref() {
            "confirm_step" => json!({"mode": "form", "message": "Run the migration?",
                "requestedSchema": {"type": "object", "properties": {
                    "proceed": {"type": "boolean", "description": "Runs it on production"}}}}),
            "pick_pet" => json!({"mode": "form", "message": "Which pet?",
                "requestedSchema": {"type": "object", "properties": {
                    "pet": {"type": "string", "oneOf": [
                        {"const": "cat", "title": "Cat"}, {"const": "dog", "title": "Dog"}]}}}}),
            "sign_in" => json!({"mode": "url", "message": "Sign in to the tracker",
                "url": "https://tracker.example.com/oauth?state=s1", "elicitationId": "el-1"}),
            // As a server does when its own site saw the flow finish: it says so while the
            // elicitation is still open.
            "sign_in_and_finish" => {
                let peer = context.peer.clone();
                tokio::spawn(async move {
                    // Late enough that the proxy has asked (and knows the callback).
                    tokio::time::sleep(Duration::from_millis(1500)).await;
                    let done = rmcp::model::CustomNotification::new(
                        "notifications/elicitation/complete",
                        Some(json!({"elicitationId": "el-2"})),
                    );
                    let _ = peer
                        .send_notification(rmcp::model::ServerNotification::CustomNotification(
                            done,
                        ))
                        .await;
                });
                json!({"mode": "url", "message": "Sign in to the wiki",
                    "url": "https://wiki.example.com/login", "elicitationId": "el-2"})
            }
            other => return Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        };
        let params: ElicitRequestParams = serde_json::from_value(params).unwrap();
        let result = context
            .peer
            .create_elicitation(params)
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(
            CallToolResult::success(vec![rmcp::model::ContentBlock::text(
                serde_json::to_string(&result).unwrap(),
            )])
            .into(),
        )
    }
}

async fn serve_elicitor(socket: PathBuf) {
    let listener = tokio::net::UnixListener::bind(&socket).unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                if let Ok(running) = Elicitor.serve(stream).await {
                    let _ = running.waiting().await;
                }
            });
        }
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_proxy_maps_a_single_boolean_to_confirm_an_enum_to_select_and_url_to_external() {
    let socket_dir = tempfile::tempdir().unwrap();
    let socket = socket_dir.path().join("elicitor.sock");
    serve_elicitor(socket.clone()).await;
    let pipe = peers_dir().join("socket-pipe.js");
    let (_server, reviewer, client, _host) = session(&[
        "mcp",
        "proxy",
        "--timeout",
        "5",
        "--",
        "node",
        pipe.to_str().unwrap(),
        socket.to_str().unwrap(),
    ])
    .await;
    let elicited = |tool: &str| call_in_background(&client, tool, json!({}));
    let outcome =
        |result: CallToolResult| -> Value { serde_json::from_str(&text(&result)).unwrap() };

    let call = elicited("confirm_step");
    let question = pending_question(&reviewer).await;
    assert_eq!(question.answer_format, AnswerFormat::Confirm);
    assert_eq!(
        question.prompt,
        "Run the migration?\n\nRuns it on production"
    );
    assert_eq!(question.metadata["source"], "mcp elicitation");
    answer(&reviewer, &question.id, json!(true)).await;
    let result = returned("confirm_step", call).await;
    assert_eq!(
        outcome(result),
        json!({"action": "accept", "content": {"proceed": true}})
    );

    let call = elicited("pick_pet");
    let question = pending_question(&reviewer).await;
    assert_eq!(question.answer_format, AnswerFormat::Select);
    let options: Vec<(String, Option<String>)> = question
        .options
        .iter()
        .map(|o| (o.value.clone(), o.label.clone()))
        .collect();
    assert_eq!(
        options,
        [
            ("cat".to_owned(), Some("Cat".to_owned())),
            ("dog".to_owned(), Some("Dog".to_owned()))
        ]
    );
    answer(&reviewer, &question.id, json!("dog")).await;
    let result = returned("pick_pet", call).await;
    assert_eq!(
        outcome(result),
        json!({"action": "accept", "content": {"pet": "dog"}})
    );

    // URL mode: an external question whose link opens the server's URL as given; the
    // question's callback (what the finished flow posts to) accepts it.
    let call = elicited("sign_in");
    let question = pending_question(&reviewer).await;
    assert_eq!(question.answer_format, AnswerFormat::External);
    let link = question.link.clone().unwrap();
    let (site, callback) = link.split_once("#inbox_callback=").unwrap();
    assert_eq!(site, "https://tracker.example.com/oauth?state=s1");
    let posted = reqwest::Client::new().post(callback).send().await.unwrap();
    assert!(posted.status().is_success(), "{posted:?}");
    let result = returned("sign_in", call).await;
    assert_eq!(outcome(result), json!({"action": "accept"}));

    // The server's notifications/elicitation/complete answers the question through its callback.
    let call = elicited("sign_in_and_finish");
    let result = returned("sign_in_and_finish", call).await;
    assert_eq!(outcome(result), json!({"action": "accept"}));
    let done = answered(&reviewer, |ia| ia.prompt == "Sign in to the wiki")
        .await
        .expect("the wiki question is answered");
    assert_eq!(done.answer.unwrap().answered_by, "callback");

    // Declined → decline; unanswered past --timeout → cancel.
    let call = elicited("confirm_step");
    let question = pending_question(&reviewer).await;
    decline(&reviewer, &question.id, "not now").await;
    let result = returned("confirm_step", call).await;
    assert_eq!(outcome(result), json!({"action": "decline"}));

    let call = elicited("sign_in");
    let result = returned("an expiring sign_in", call).await;
    assert_eq!(outcome(result), json!({"action": "cancel"}));
    client.cancel().await.ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ask_with_expiry_at_is_a_park_of_one_that_the_tool_resumes_once_answered() {
    let (server, reviewer, client, _host) = session(&["mcp"]).await;
    let asker = api(&server, "asker");
    let expiry = (chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
    let call = call_in_background(
        &client,
        "ask_user",
        json!({"prompt": "Approve the budget?", "answer_format": "confirm", "expiry_at": expiry}),
    );
    let question = pending_question(&reviewer).await;
    let park_id = question.park_id.clone().expect("an async ask is in a park");
    answer(&reviewer, &question.id, json!(false)).await;
    let result = returned("ask_user to return", call).await;
    assert_eq!(structured(&result)["answer"], json!(false));
    let park = asker.get_park(&park_id).await.unwrap();
    assert_eq!(park.status, inbox_protocol::ParkStatus::Resumed);
    client.cancel().await.ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notify_user_delivers_a_notification_at_once_and_names_a_bad_field() {
    let (_server, reviewer, client, _host) = session(&["mcp"]).await;
    let result = call_now(
        &client,
        "notify_user",
        "notify_user",
        json!({"prompt": "Build 42 is deployed", "body": "All checks green.",
            "schema": {"type": "object", "properties": {"rating": {"type": "integer"}}},
            "metadata": {"run": "r-9"}}),
    )
    .await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let got = structured(&result);
    assert_eq!(got["status"], "delivered");
    let id = got["notification_id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("nt_"), "{id}");
    let stored = reviewer.get_notification(&id).await.unwrap();
    assert_eq!(stored.prompt, "Build 42 is deployed");
    assert_eq!(stored.body.as_deref(), Some("All checks green."));
    assert!(stored.schema.is_some());

    for (arguments, field) in [
        (json!({"prompt": "x", "colour": "red"}), "colour"),
        (json!({"body": "no title"}), "prompt"),
        (
            json!({"prompt": "x".repeat(inbox_protocol::caps::PROMPT_MAX_CHARS + 1)}),
            "prompt",
        ),
    ] {
        let result = call_now(
            &client,
            "a refused notify_user",
            "notify_user",
            arguments.clone(),
        )
        .await;
        assert_eq!(result.is_error, Some(true), "{arguments}");
        assert!(text(&result).contains(field), "{}", text(&result));
    }
    client.cancel().await.ok();
}
