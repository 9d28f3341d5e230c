//! An AG-UI run's two interrupts answered through the window's engine, in either order: the
//! agent (the seed's Planner, built with the `ag-ui` crate on loopback) gets exactly one resume
//! carrying both answers, and the run finishes "Booked.".

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ag_ui::axum::RouterExt;
use ag_ui::server::{Agent, Result, RunContext};
use ag_ui::{Interrupt, RunAgentInput, RunOutcome};
use common::{ALICE, BOT, TestServer, add_account, engine, eventually};
use inbox_protocol::{AguiRunRequest, AguiRunStatus, AguiTranscriptItem};
use inbox_sync::Delivery;
use serde_json::json;

const BUDGET: &str = "approve-budget";
const DATE: &str = "confirm-date";

/// The seed's Planner; `seen` records every request it served.
struct Planner {
    seen: Arc<Mutex<Vec<RunAgentInput>>>,
}

impl Agent for Planner {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<RunOutcome> {
        self.seen.lock().unwrap().push(ctx.input().clone());
        let pending: Vec<Interrupt> = [BUDGET, DATE]
            .into_iter()
            .filter(|id| ctx.resume_for(id).is_none())
            .map(|id| {
                let mut i = Interrupt::new(id, "tool_approval");
                i.message = Some(format!("Approve {id}?"));
                i
            })
            .collect();
        if pending.is_empty() {
            ctx.say("Booked.")?;
            return Ok(RunOutcome::Success);
        }
        Ok(RunOutcome::interrupt(pending))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn planner_answered_through_the_engine_in_either_order_resumes_once_with_both() {
    let server = TestServer::start().await;
    let state = tempfile::tempdir().unwrap();
    let engine = engine(state.path());
    add_account(&engine, "work", &server.url(), ALICE).await;
    let bot = server.api(BOT);
    for reversed in [false, true] {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let app = axum::Router::new().route_agui("/agent", Planner { seen: seen.clone() });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let agent = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

        let req = AguiRunRequest {
            agent_url: format!("http://{agent}/agent"),
            thread_id: None,
            input: json!({"messages": [{"id": "m1", "role": "user", "content": "plan"}]})
                .as_object()
                .cloned()
                .unwrap(),
            headers: None,
        };
        let run = bot.start_agui_run(&req).await.unwrap();

        // Both questions reach the window's list, as one park.
        let within = Duration::from_secs(20);
        let mut cards = eventually("the run's questions never arrived", within, async || {
            let snapshot = engine.snapshot_of("work").await.unwrap();
            let ours: Vec<_> = snapshot
                .cards
                .into_iter()
                .filter(|c| {
                    c.interaction.is_pending()
                        && c.interaction
                            .metadata
                            .get("agui")
                            .and_then(|a| a.get("run_id"))
                            == Some(&json!(run.id))
                })
                .collect();
            if ours.len() == 2 { Ok(ours) } else { Err(ours) }
        })
        .await;
        assert_eq!(cards[0].interaction.park_id, cards[1].interaction.park_id);
        if reversed {
            cards.reverse();
        }
        for card in &cards {
            let delivery = engine
                .answer("work", &card.interaction.id, json!(true), None)
                .await
                .unwrap();
            assert!(
                matches!(
                    delivery,
                    Delivery::Accepted | Delivery::Sending | Delivery::Queued
                ),
                "{delivery:?}"
            );
        }

        let run = eventually("the run never finished", within, async || {
            let now = bot.get_agui_run(&run.id).await.unwrap();
            if now.status.is_final() {
                Ok(now)
            } else {
                Err(now)
            }
        })
        .await;
        assert_eq!(run.status, AguiRunStatus::Succeeded, "{run:?}");
        assert!(run.transcript.iter().any(
            |item| matches!(item, AguiTranscriptItem::Message { text, .. } if text == "Booked.")
        ));
        tokio::time::sleep(Duration::from_millis(300)).await;
        let seen = seen.lock().unwrap().clone();
        let resumes: Vec<_> = seen.iter().filter(|i| i.is_resume()).collect();
        assert_eq!(seen.len(), 2, "one first request and one resume");
        assert_eq!(resumes.len(), 1);
        let mut ids: Vec<_> = resumes[0]
            .resume
            .as_ref()
            .unwrap()
            .iter()
            .map(|e| e.interrupt_id.clone())
            .collect();
        ids.sort();
        assert_eq!(ids, vec![BUDGET.to_owned(), DATE.to_owned()]);
    }
    engine.shutdown().await;
}
