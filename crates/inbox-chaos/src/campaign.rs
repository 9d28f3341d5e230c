//! One campaign on one store: start everything, then for each fault: load, fault, restore,
//! pause, settle, check.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use inbox_client::ApiClient;
use inbox_client::Token;
use inbox_client::outbox::RecordedVerdict;
use inbox_protocol::{
    AnswerFormat, AskRequest, Continuation, ErrorCode, Mode as AskMode, ParkRequest, ParkStatus,
    Status, StatusFilter,
};
use inbox_test_net::fault_proxy::{Mode, Proxy};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use tokio::sync::RwLock;

use crate::StoreMode;
use crate::client::Reviewer;
use crate::cluster::{ADMIN, ASKER, Cluster, reviewer_name};

pub struct Settings {
    pub store: StoreMode,
    pub faults: usize,
    pub seed: u64,
    pub reviewers: usize,
    pub inbox_bin: PathBuf,
    pub settle_timeout: Duration,
    pub keep: Option<PathBuf>,
    pub redis_without_aof: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Fault {
    /// `kill -9` every server worker, then start them again on the same data.
    ServerKill,
    /// `kill -9` one of the two Redis workers; the other keeps serving meanwhile.
    WorkerKill,
    /// `kill -9` redis-server and start it again (AOF, fsync always).
    RedisRestart,
    /// Drop every connection of one app (or all).
    Cut,
    /// One app's link passes nothing for a while, then drops.
    Stall,
    /// One app's link crawls for a while.
    Throttle,
    /// An app goes offline, takes answers into its outbox, is killed and restarted.
    ClientKill,
    /// One app's clock is set hours ahead or behind under load, then set right.
    ClockJump,
}

impl Fault {
    fn name(self) -> &'static str {
        match self {
            Fault::ServerKill => "server kill -9",
            Fault::WorkerKill => "worker kill -9",
            Fault::RedisRestart => "redis kill -9",
            Fault::Cut => "connections cut",
            Fault::Stall => "link stalled",
            Fault::Throttle => "link throttled",
            Fault::ClientKill => "client killed with a full outbox",
            Fault::ClockJump => "client clock jumped",
        }
    }
}

#[derive(Debug, Default)]
pub struct Report {
    pub faults: BTreeMap<&'static str, usize>,
    pub answers: Answers,
    pub parks_resumed: usize,
    pub failures: Failures,
    pub converge_ms: Vec<u64>,
}

/// The answers apps acknowledged to their reviewers, and what became of them on the server.
#[derive(Debug, Default, Clone, Copy)]
pub struct Answers {
    pub acknowledged: usize,
    /// The server holds this very answer.
    pub delivered: usize,
    /// Another reviewer's answer won the question.
    pub superseded: usize,
}

/// What a sound inbox never does: any one of them fails the campaign.
#[derive(Debug, Default)]
pub struct Failures {
    /// Acknowledged answers (and resolved parks) the server does not hold.
    pub lost: usize,
    /// Answers and park resumptions that took effect twice.
    pub duplicated: usize,
    /// Every way an app, the asker or the store disagreed with the truth, in words.
    pub divergences: Vec<String>,
    /// Secrets found in the server logs.
    pub secrets_in_logs: usize,
}

impl Failures {
    /// One acknowledged answer or resolved park lost, and how.
    fn lose(&mut self, how: String) {
        self.lost += 1;
        self.divergences.push(how);
    }

    /// One answer or resumption that took effect twice, and how.
    fn duplicate(&mut self, how: String) {
        self.duplicated += 1;
        self.divergences.push(how);
    }

    fn any(&self) -> bool {
        self.lost > 0
            || self.duplicated > 0
            || !self.divergences.is_empty()
            || self.secrets_in_logs > 0
    }
}

impl Report {
    pub fn merge(&mut self, other: Report) {
        for (k, v) in other.faults {
            *self.faults.entry(k).or_default() += v;
        }
        self.answers.acknowledged += other.answers.acknowledged;
        self.answers.delivered += other.answers.delivered;
        self.answers.superseded += other.answers.superseded;
        self.parks_resumed += other.parks_resumed;
        self.failures.lost += other.failures.lost;
        self.failures.duplicated += other.failures.duplicated;
        self.failures.divergences.extend(other.failures.divergences);
        self.converge_ms.extend(other.converge_ms);
        self.failures.secrets_in_logs += other.failures.secrets_in_logs;
    }

    pub fn failed(&self) -> bool {
        self.failures.any()
    }

    fn percentile(&self, p: f64) -> u64 {
        let mut v = self.converge_ms.clone();
        if v.is_empty() {
            return 0;
        }
        v.sort_unstable();
        let i = ((v.len() as f64 - 1.0) * p).round() as usize;
        v[i]
    }

    pub fn print(&self, label: &str) {
        let faults: usize = self.faults.values().sum();
        println!("== chaos [{label}] ==");
        println!("faults:        {faults}");
        for (name, n) in &self.faults {
            println!("  {name:<34} {n}");
        }
        println!(
            "answers:       {} acknowledged, {} delivered, {} superseded by another reviewer",
            self.answers.acknowledged, self.answers.delivered, self.answers.superseded
        );
        println!("parks resumed: {}", self.parks_resumed);
        println!("lost:          {}", self.failures.lost);
        println!("duplicated:    {}", self.failures.duplicated);
        println!("divergences:   {}", self.failures.divergences.len());
        for d in self.failures.divergences.iter().take(20) {
            println!("  {d}");
        }
        println!("secrets in server logs: {}", self.failures.secrets_in_logs);
        println!(
            "converge:      p50 {} ms, p99 {} ms, max {} ms",
            self.percentile(0.5),
            self.percentile(0.99),
            self.converge_ms.iter().max().copied().unwrap_or(0)
        );
    }
}

/// An answer an app acknowledged to its reviewer.
#[derive(Debug, Clone)]
struct Given {
    reviewer: usize,
    id: String,
    value: String,
}

#[derive(Default)]
struct Ledger {
    given: Vec<Given>,
    /// `given[..judged]` have a verdict in the report.
    judged: usize,
    parks: Vec<String>,
    parks_done: BTreeSet<String>,
    /// The winning answer value per interaction, once judged.
    winners: BTreeMap<String, String>,
    /// Questions the reviewers leave alone until the next judgement (a clock jump's witness).
    reserved: BTreeSet<String>,
}

struct World {
    cluster: RwLock<Cluster>,
    reviewers: Vec<RwLock<Reviewer>>,
    /// The asker's own link (balanced, never faulted).
    asker: ApiClient,
    _asker_proxy: Proxy,
    ledger: Mutex<Ledger>,
    load: AtomicBool,
}

fn admin(addr: std::net::SocketAddr) -> ApiClient {
    ApiClient::new(&format!("http://{addr}"), Token::new(ADMIN)).expect("loopback url")
}

pub async fn run(settings: Settings) -> anyhow::Result<Report> {
    let temp = tempfile::tempdir()?;
    let run_dir = settings
        .keep
        .clone()
        .unwrap_or_else(|| temp.path().to_owned());
    std::fs::create_dir_all(&run_dir)?;
    let cluster = Cluster::start(
        &settings.inbox_bin,
        &run_dir,
        settings.reviewers,
        (settings.store == StoreMode::Redis).then_some(!settings.redis_without_aof),
    )
    .await?;
    let addrs = cluster.addrs();
    let mut reviewers = Vec::new();
    for i in 0..settings.reviewers {
        let proxy = Proxy::start(addrs.clone()).await?;
        let reviewer = Reviewer::start(i, proxy, run_dir.join(format!("reviewer{i}"))).await?;
        reviewers.push(RwLock::new(reviewer));
    }
    let asker_proxy = Proxy::start(addrs.clone()).await?;
    let asker = ApiClient::new(&asker_proxy.url(), Token::new(ASKER))?;
    let world = Arc::new(World {
        cluster: RwLock::new(cluster),
        reviewers,
        asker,
        _asker_proxy: asker_proxy,
        ledger: Mutex::new(Ledger::default()),
        load: AtomicBool::new(false),
    });

    let mut rng = StdRng::seed_from_u64(settings.seed);
    let mut report = Report::default();
    let mut menu = vec![
        Fault::ServerKill,
        Fault::Cut,
        Fault::Stall,
        Fault::Throttle,
        Fault::ClientKill,
        Fault::ClockJump,
    ];
    if settings.store == StoreMode::Redis {
        menu.extend([Fault::WorkerKill, Fault::RedisRestart]);
    }
    for n in 0..settings.faults {
        // The same draws every step, whatever the fault then draws from its own generator
        // (how many cards an app found to answer offline, say): the sequence of faults,
        // pauses and targets is the seed's alone.
        let fault = menu[rng.random_range(0..menu.len())];
        let load_seed = rng.random();
        let pause = Duration::from_millis(rng.random_range(200..600));
        let mut fault_rng = StdRng::seed_from_u64(rng.random());
        let load = start_load(&world, load_seed);
        tokio::time::sleep(pause).await;
        if std::env::var_os("CHAOS_TRACE").is_some() {
            eprintln!("chaos: fault {n}: {}", fault.name());
        }
        inject(&world, fault, &mut fault_rng)
            .await
            .with_context(|| format!("fault {n} ({})", fault.name()))?;
        stop_load(&world, load).await;
        *report.faults.entry(fault.name()).or_default() += 1;
        let seen = report.failures.divergences.len();
        let started = Instant::now();
        match settle(&world, settings.settle_timeout).await {
            Ok(()) => report
                .converge_ms
                .push(started.elapsed().as_millis() as u64),
            Err(why) => report
                .failures
                .divergences
                .push(format!("after fault {n} ({}): {why}", fault.name())),
        }
        judge(
            &world,
            &mut report,
            &format!("fault {n} ({})", fault.name()),
        )
        .await;
        // As they happen: a long run that does not reach its end still says what went wrong.
        for d in &report.failures.divergences[seen..] {
            eprintln!("chaos [{:?}]: divergence {d}", settings.store);
        }
        if (n + 1).is_multiple_of(10) {
            eprintln!(
                "chaos [{:?}]: {} faults, {} answers, lost {}, duplicated {}, divergences {}",
                settings.store,
                n + 1,
                report.answers.acknowledged,
                report.failures.lost,
                report.failures.duplicated,
                report.failures.divergences.len()
            );
        }
    }
    report.failures.secrets_in_logs = scan_logs(&world).await;
    report
        .failures
        .divergences
        .extend(std::mem::take(&mut *crate::client::HUNG.lock().unwrap()));
    for r in &world.reviewers {
        r.write().await.kill();
    }
    Ok(report)
}

// ---- load ------------------------------------------------------------------------------------

fn start_load(world: &Arc<World>, seed: u64) -> Vec<tokio::task::JoinHandle<()>> {
    world.load.store(true, Ordering::SeqCst);
    let mut tasks = vec![tokio::spawn(asker(world.clone()))];
    for i in 0..world.reviewers.len() {
        tasks.push(tokio::spawn(reviewer_load(
            world.clone(),
            i,
            seed ^ i as u64,
        )));
    }
    tasks
}

async fn stop_load(world: &World, tasks: Vec<tokio::task::JoinHandle<()>>) {
    world.load.store(false, Ordering::SeqCst);
    for t in tasks {
        let _ = t.await;
    }
}

fn text_ask(prompt: String) -> AskRequest {
    AskRequest::new(prompt, AnswerFormat::Text)
}

/// Questions at a steady rate, and every sixth time a park of one or two.
async fn asker(world: Arc<World>) {
    let mut n = 0u64;
    while world.load.load(Ordering::SeqCst) {
        n += 1;
        if n.is_multiple_of(6) {
            let expiry = (chrono::Utc::now() + chrono::Duration::hours(2)).to_rfc3339();
            let asks = (0..1 + n % 2)
                .map(|i| {
                    let mut ask = text_ask(format!("park question {n}.{i}"));
                    ask.mode = AskMode::Async;
                    ask.expiry_at = Some(expiry.clone());
                    ask
                })
                .collect();
            let req = ParkRequest {
                asks,
                continuation: Some(Continuation::Claim {}),
                metadata: None,
            };
            if let Ok(park) = world.asker.park(&req).await {
                world.ledger.lock().unwrap().parks.push(park.id);
            }
        } else {
            // A failure (server down on purpose) is part of the run.
            let _ = world.asker.ask(&text_ask(format!("question {n}"))).await;
        }
        tokio::time::sleep(Duration::from_millis(120)).await;
    }
}

/// A reviewer answering a random pending card of its list, with a value unique to it.
async fn reviewer_load(world: Arc<World>, i: usize, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut n = 0u64;
    while world.load.load(Ordering::SeqCst) {
        tokio::time::sleep(Duration::from_millis(rng.random_range(80..200))).await;
        let reviewer = world.reviewers[i].read().await;
        let Ok(mut pending) = reviewer.pending().await else {
            continue;
        };
        {
            let ledger = world.ledger.lock().unwrap();
            pending.retain(|id| !ledger.reserved.contains(id));
        }
        if pending.is_empty() {
            continue;
        }
        let id = pending
            .iter()
            .nth(rng.random_range(0..pending.len()))
            .unwrap()
            .clone();
        n += 1;
        let value = format!("{}-answer-{n}-{}", reviewer_name(i), rng.random::<u32>());
        if reviewer.answer(&id, json!(value)).await.is_ok() {
            world.ledger.lock().unwrap().given.push(Given {
                reviewer: i,
                id,
                value,
            });
        }
    }
}

// ---- faults ----------------------------------------------------------------------------------

async fn inject(world: &World, fault: Fault, rng: &mut StdRng) -> anyhow::Result<()> {
    let hold = Duration::from_millis(rng.random_range(200..1500));
    let who = rng.random_range(0..world.reviewers.len());
    match fault {
        Fault::ServerKill => {
            let mut cluster = world.cluster.write().await;
            for i in 0..cluster.workers.len() {
                cluster.kill(i);
            }
            tokio::time::sleep(hold).await;
            for i in 0..cluster.workers.len() {
                cluster.restart(i).await?;
            }
        }
        Fault::WorkerKill => {
            let mut cluster = world.cluster.write().await;
            let i = rng.random_range(0..cluster.workers.len());
            cluster.kill(i);
            tokio::time::sleep(hold).await;
            cluster.restart(i).await?;
        }
        Fault::RedisRestart => {
            let mut cluster = world.cluster.write().await;
            let redis = cluster.redis.as_mut().expect("redis mode");
            redis.kill();
            tokio::time::sleep(hold).await;
            redis.restart()?;
            cluster.wait_all_ready().await?;
        }
        Fault::Cut => {
            if rng.random_bool(0.5) {
                for r in &world.reviewers {
                    r.read().await.proxy.cut_all();
                }
            } else {
                world.reviewers[who].read().await.proxy.cut_all();
            }
        }
        Fault::Stall => {
            let r = world.reviewers[who].read().await;
            r.proxy.set_mode(Mode::Stall);
            tokio::time::sleep(hold).await;
            r.proxy.cut_all();
            r.proxy.set_mode(Mode::Forward);
        }
        Fault::Throttle => {
            let r = world.reviewers[who].read().await;
            r.proxy
                .set_mode(Mode::Throttle(rng.random_range(512..8192)));
            tokio::time::sleep(hold).await;
            r.proxy.set_mode(Mode::Forward);
        }
        Fault::ClientKill => {
            // Offline: whatever it answers now stays in its outbox.
            {
                let r = world.reviewers[who].read().await;
                r.proxy.set_mode(Mode::Refuse);
                if let Ok(pending) = r.pending().await {
                    for (k, id) in pending.iter().take(rng.random_range(1..4)).enumerate() {
                        let value =
                            format!("{}-offline-{k}-{}", reviewer_name(who), rng.random::<u32>());
                        if r.answer(id, json!(value)).await.is_ok() {
                            world.ledger.lock().unwrap().given.push(Given {
                                reviewer: who,
                                id: id.clone(),
                                value,
                            });
                        }
                    }
                }
            }
            let mut r = world.reviewers[who].write().await;
            r.kill();
            tokio::time::sleep(hold).await;
            r.proxy.set_mode(Mode::Forward);
            r.restart().await?;
        }
        Fault::ClockJump => {
            // A witness: a question with a 2 h deadline that no reviewer answers until this
            // fault is judged, on the app's list before its clock moves. Then 2.5 to 6 hours
            // either way: ahead, the witness (and any park question) expires on this app
            // only; behind, nothing may. The server's clock never moves, so once the app's is
            // set right its list must show the witness open again, as the server does.
            let mut witness = text_ask(format!("clock witness {}", rng.random::<u32>()));
            witness.mode = AskMode::Async;
            witness.expiry_at =
                Some((chrono::Utc::now() + chrono::Duration::hours(2)).to_rfc3339());
            let minutes = rng.random_range(150..360);
            let by = chrono::Duration::minutes(if rng.random_bool(0.5) {
                minutes
            } else {
                -minutes
            });
            let r = world.reviewers[who].read().await;
            if let Ok(asked) = world.asker.ask(&witness).await {
                world
                    .ledger
                    .lock()
                    .unwrap()
                    .reserved
                    .insert(asked.id.clone());
                let started = Instant::now();
                while started.elapsed() < Duration::from_secs(5)
                    && !r.pending().await.is_ok_and(|p| p.contains(&asked.id))
                {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
            r.clock.jump(by);
            tokio::time::sleep(hold).await;
            r.clock.jump(-by);
        }
    }
    Ok(())
}

// ---- settling and the checks -------------------------------------------------------------------

/// Every pending id on the server, page by page, from a live worker.
async fn server_pending(world: &World) -> Result<BTreeSet<String>, String> {
    let addr = world.cluster.read().await.addrs()[0];
    let pending = admin(addr)
        .list_all(StatusFilter::Pending)
        .await
        .map_err(|e| format!("server list: {e}"))?;
    Ok(pending.into_iter().map(|ia| ia.id).collect())
}

/// One look at everything; `Err` says what is not settled yet.
async fn settled(world: &World) -> Result<(), String> {
    let truth = server_pending(world).await?;
    for r in &world.reviewers {
        let r = r.read().await;
        let pending = r
            .pending()
            .await
            .map_err(|e| format!("reviewer {}: {e}", r.index))?;
        if pending != truth {
            let missing = truth.difference(&pending).count();
            let extra = pending.difference(&truth).count();
            return Err(format!(
                "reviewer {}'s list differs from the server: {missing} missing, {extra} extra",
                r.index
            ));
        }
        let outbox = r
            .outbox()
            .await
            .map_err(|e| format!("reviewer {}: {e}", r.index))?;
        if let Some(e) = outbox.iter().find(|e| e.verdict.is_none()) {
            return Err(format!(
                "reviewer {}: answer to {} still in the outbox",
                r.index, e.interaction_id
            ));
        }
    }
    let (given, parks) = {
        let ledger = world.ledger.lock().unwrap();
        let given: Vec<Given> = ledger.given[ledger.judged..].to_vec();
        let parks: Vec<String> = ledger
            .parks
            .iter()
            .filter(|p| !ledger.parks_done.contains(*p))
            .cloned()
            .collect();
        (given, parks)
    };
    for g in &given {
        if truth.contains(&g.id) {
            return Err(format!("the answer to {} is not delivered yet", g.id));
        }
    }
    let addr = world.cluster.read().await.addrs()[0];
    let api = admin(addr);
    for id in &parks {
        let park = api
            .get_park(id)
            .await
            .map_err(|e| format!("park {id}: {e}"))?;
        let all_resolved = park.interactions.iter().all(|ia| !truth.contains(ia));
        if park.status == ParkStatus::Parked && all_resolved {
            return Err(format!(
                "park {id}: every question resolved, the park is not"
            ));
        }
    }
    Ok(())
}

async fn settle(world: &World, timeout: Duration) -> Result<(), String> {
    let started = Instant::now();
    loop {
        match settled(world).await {
            Ok(()) => return Ok(()),
            Err(why) if started.elapsed() > timeout => {
                return Err(format!("not settled after {timeout:?}: {why}"));
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

/// The verdict on every answer acknowledged since the last fault, and every park resolved.
async fn judge(world: &World, report: &mut Report, when: &str) {
    let addr = world.cluster.read().await.addrs()[0];
    let api = admin(addr);
    let given: Vec<Given> = {
        let ledger = world.ledger.lock().unwrap();
        ledger.given[ledger.judged..].to_vec()
    };
    let mut verdicts: BTreeMap<(usize, String), Option<RecordedVerdict>> = BTreeMap::new();
    for r in &world.reviewers {
        let r = r.read().await;
        if let Ok(outbox) = r.outbox().await {
            for e in outbox {
                if let inbox_client::outbox::OutboxAction::Answer {
                    value: Value::String(v),
                    ..
                } = &e.action
                {
                    verdicts.insert((r.index, v.clone()), e.verdict.clone());
                }
            }
        }
    }
    for g in &given {
        report.answers.acknowledged += 1;
        let server = match api.get(&g.id).await {
            Ok(ia) => ia,
            // An acknowledged answer whose question the store no longer knows: lost with it.
            Err(e) if e.code() == Some(ErrorCode::NotFound) => {
                report
                    .failures
                    .lose(format!("{when}: {} is gone from the store: {e}", g.id));
                continue;
            }
            Err(e) => {
                report
                    .failures
                    .divergences
                    .push(format!("{when}: cannot read {}: {e}", g.id));
                continue;
            }
        };
        let won = server.status == Status::Answered
            && server
                .answer
                .as_ref()
                .is_some_and(|a| a.value == json!(g.value));
        let verdict = verdicts
            .get(&(g.reviewer, g.value.clone()))
            .cloned()
            .flatten();
        let app_says_won = matches!(verdict, Some(RecordedVerdict::Accepted { .. }));
        if server.status == Status::Pending {
            report.failures.lose(format!(
                "{when}: {}'s answer to {} never arrived",
                reviewer_name(g.reviewer),
                g.id
            ));
            continue;
        }
        if won {
            report.answers.delivered += 1;
            if server
                .answer
                .as_ref()
                .is_some_and(|a| a.answered_by != reviewer_name(g.reviewer))
            {
                report.failures.divergences.push(format!(
                    "{when}: {} carries {}'s answer under another name",
                    g.id,
                    reviewer_name(g.reviewer)
                ));
            }
            let mut ledger = world.ledger.lock().unwrap();
            if let Some(previous) = ledger.winners.insert(g.id.clone(), g.value.clone())
                && previous != g.value
            {
                report.failures.duplicated += 1;
            }
        } else {
            report.answers.superseded += 1;
            if app_says_won {
                // The app told its reviewer "sent" for an answer the server does not hold.
                report.failures.duplicate(format!(
                    "{when}: {} shows {}'s answer accepted, the server holds another",
                    g.id,
                    reviewer_name(g.reviewer)
                ));
            }
        }
        if verdict.is_none() && verdicts.contains_key(&(g.reviewer, g.value.clone())) {
            report.failures.divergences.push(format!(
                "{when}: {}'s answer to {} has no verdict",
                reviewer_name(g.reviewer),
                g.id
            ));
        }
        // The asker's view (through its own link) is the server's record.
        match world.asker.get(&g.id).await {
            Ok(seen)
                if seen.answer.as_ref().map(|a| &a.value)
                    == server.answer.as_ref().map(|a| &a.value) => {}
            Ok(_) => report.failures.divergences.push(format!(
                "{when}: the asker sees another answer for {}",
                g.id
            )),
            Err(e) => report
                .failures
                .divergences
                .push(format!("{when}: the asker cannot read {}: {e}", g.id)),
        }
    }
    {
        let mut ledger = world.ledger.lock().unwrap();
        ledger.judged += given.len();
        // Witnesses were checked by the settling: the reviewers may answer them from now on.
        ledger.reserved.clear();
    }

    // Parks: each resolved one is claimed by two racing claimers; exactly one wins.
    let parks: Vec<String> = {
        let ledger = world.ledger.lock().unwrap();
        ledger
            .parks
            .iter()
            .filter(|p| !ledger.parks_done.contains(*p))
            .cloned()
            .collect()
    };
    for id in parks {
        let Ok(park) = api.get_park(&id).await else {
            continue;
        };
        match park.status {
            ParkStatus::Parked => continue,
            ParkStatus::Resumed => {
                report.failures.duplicate(format!(
                    "{when}: park {id} resumed before anyone claimed it"
                ));
            }
            ParkStatus::Failed => report
                .failures
                .divergences
                .push(format!("{when}: park {id} failed")),
            ParkStatus::Resolved => {
                let a = claim(&world.asker, &id);
                let b = claim(&world.asker, &id);
                let (a, b) = tokio::join!(a, b);
                match (a, b) {
                    (Ok(true), Ok(false)) | (Ok(false), Ok(true)) => report.parks_resumed += 1,
                    (Ok(true), Ok(true)) => {
                        report
                            .failures
                            .duplicate(format!("{when}: park {id} resumed twice"));
                    }
                    (Ok(false), Ok(false)) => {
                        report
                            .failures
                            .lose(format!("{when}: park {id} refused both claims"));
                    }
                    (Err(e), _) | (_, Err(e)) => report
                        .failures
                        .divergences
                        .push(format!("{when}: park {id}: {e}")),
                }
            }
        }
        world.ledger.lock().unwrap().parks_done.insert(id);
    }
}

/// Claim with a key of our own, retrying the same key through transport failures: `true` if
/// this claimer won, `false` if the other did.
async fn claim(asker: &ApiClient, id: &str) -> Result<bool, String> {
    let key = inbox_client::new_idempotency_key();
    for _ in 0..50 {
        match asker.claim_park(id, &key).await {
            Ok(park) if park.status == ParkStatus::Resumed => return Ok(true),
            Ok(park) => {
                return Err(format!(
                    "claim answered with a {} park",
                    park.status.as_str()
                ));
            }
            Err(e) if e.code() == Some(ErrorCode::AlreadyClaimed) => return Ok(false),
            Err(e) if e.is_transport() || e.status().is_some_and(|s| s >= 500) => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => return Err(e.to_string()),
        }
    }
    Err("the claim never got through".into())
}

/// Server log lines holding a token or an answer given: none may.
async fn scan_logs(world: &World) -> usize {
    // Every token holds `-secret-` and every answer given `-answer-` or `-offline-`
    // (prompts never do), so three needles find any of them in one pass.
    let needles = ["-secret-", "-answer-", "-offline-"];
    let mut hits = 0;
    for path in world.cluster.read().await.logs() {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for line in text.lines() {
            if needles.iter().any(|n| line.contains(n)) {
                hits += 1;
                if hits <= 3 {
                    eprintln!("chaos: a secret in {}: {line}", path.display());
                }
            }
        }
    }
    hits
}
