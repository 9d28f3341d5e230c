//! AG-UI run behaviours of the conformance suite: runs that ended are pruned after the
//! retention with their stored headers; a run that is queued (running, or retried) is kept.

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use inbox_protocol::{AguiRun, AguiRunStatus};
use inbox_server::store::{NewAguiRun, Store, TurnResult};
use serde_json::Map;

fn new_run(id: &str, now: DateTime<Utc>) -> NewAguiRun {
    NewAguiRun {
        run: AguiRun {
            id: id.to_owned(),
            asker: "deploy-bot".into(),
            thread_id: "th_1".into(),
            agent_url: "http://127.0.0.1:9/agent".into(),
            status: AguiRunStatus::Running,
            park_id: None,
            transcript: vec![],
            error: None,
            turns: 0,
            created_at: now,
            updated_at: now,
        },
        input: Map::new(),
        headers: BTreeMap::from([("X-Agent-Key".to_owned(), "secret-key".to_owned())]),
    }
}

/// Store run `id`, lease its turn and report it final with `status` at `at`.
async fn finished(store: &Arc<dyn Store>, id: &str, status: AguiRunStatus, at: DateTime<Utc>) {
    store.insert_agui_run(new_run(id, at), at).await.unwrap();
    let turn = store
        .lease_agui_turn(at, std::time::Duration::from_secs(60))
        .await
        .unwrap()
        .expect("the run's turn is due");
    assert_eq!(turn.run.id, id);
    let mut run = turn.run.clone();
    run.status = status;
    run.updated_at = at;
    let reported = store
        .finish_agui_turn(&turn, TurnResult::Finished { run, reached: true }, at)
        .await
        .unwrap();
    assert!(reported);
}

pub async fn finished_agui_runs_are_pruned_after_the_retention(store: Arc<dyn Store>) {
    let ended = Utc::now() - Duration::hours(2);
    finished(&store, "ar_done", AguiRunStatus::Succeeded, ended).await;
    finished(&store, "ar_cancelled", AguiRunStatus::Cancelled, ended).await;
    finished(&store, "ar_retried", AguiRunStatus::Failed, ended).await;
    finished(&store, "ar_failed", AguiRunStatus::Failed, ended).await;
    // Retried: running and queued again, so it must stay whatever its age.
    assert!(
        store
            .retry_agui_run("ar_retried", ended)
            .await
            .unwrap()
            .is_some()
    );
    store
        .insert_agui_run(new_run("ar_running", ended), ended)
        .await
        .unwrap();

    let too_early = ended - Duration::seconds(1);
    assert!(
        store
            .prune_finished_agui_runs(too_early, 100)
            .await
            .unwrap()
            .is_empty(),
        "nothing ended before the cut"
    );

    let cut = ended + Duration::seconds(1);
    let mut first = store.prune_finished_agui_runs(cut, 2).await.unwrap();
    assert_eq!(first.len(), 2, "the limit holds: {first:?}");
    let mut rest = store.prune_finished_agui_runs(cut, 100).await.unwrap();
    first.append(&mut rest);
    first.sort();
    assert_eq!(first, ["ar_cancelled", "ar_done", "ar_failed"]);
    for id in ["ar_cancelled", "ar_done", "ar_failed"] {
        assert!(store.get_agui_run(id).await.unwrap().is_none(), "{id}");
        assert!(
            store
                .retry_agui_run(id, Utc::now())
                .await
                .unwrap()
                .is_none(),
            "{id}: a pruned run is gone"
        );
    }
    for id in ["ar_retried", "ar_running"] {
        assert!(store.get_agui_run(id).await.unwrap().is_some(), "{id}");
    }
    assert!(
        store
            .prune_finished_agui_runs(cut, 100)
            .await
            .unwrap()
            .is_empty()
    );
}
