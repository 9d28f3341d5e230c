//! The SSE fan-out side by side (issue #12): `inbox serve` on SQLite and on Redis next to a
//! bare broadcast floor and nginx-nchan, the same subscribers, publisher and payload against
//! each; then a resume storm. Writes `results.json` and latency plots into `--out`;
//! `bench-report` prints the table and regenerates docs/benchmarks.md from them.
//! `scripts/bench.sh` builds everything and runs this with the right paths.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, ValueEnum};
use inbox_bench::clock::now_us;
use inbox_bench::fanout::{Fanout, SubscriberReport};
use inbox_bench::measure::{
    self, DesktopSetup, FanoutFigure, Measure, OURS, PEERS, Results, Setup, StormFigure,
};
use inbox_bench::memory::{cpu_tree_ms, rss_tree_kib};
use inbox_bench::plot::{self, Series};
use inbox_bench::publisher::Publisher;
use inbox_bench::stats::percentile;
use inbox_bench::target::{Kind, Programs, Server};
use serde::Deserialize;

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Mode {
    /// 1,000 / 5,000 / 10,000 subscribers, storm of 5,000.
    Full,
    /// 1,000 subscribers, shorter phases (about a minute).
    Quick,
    /// 20 subscribers for a few seconds: checks the harness, measures nothing.
    Tiny,
}

#[derive(Parser)]
#[command(about = "SSE fan-out benchmark: inbox serve next to a bare floor and nginx-nchan")]
struct Args {
    #[arg(long, value_enum, default_value = "full")]
    mode: Mode,
    /// Where results.json, the plots and the servers' logs go.
    #[arg(long, default_value = "artifacts/bench")]
    out: PathBuf,
    /// The `inbox` binary (release build).
    #[arg(long)]
    inbox: PathBuf,
    /// The `bench-floor` binary.
    #[arg(long)]
    floor: PathBuf,
    /// nginx, with libnginx-mod-nchan installed.
    #[arg(long, default_value = "/usr/sbin/nginx")]
    nginx: PathBuf,
    /// The Redis 7 for `inbox serve --redis` (keys under a per-run prefix).
    #[arg(long, env = "INBOX_BENCH_REDIS_URL")]
    redis: String,
    /// A JSON file of further measures (`[{name, unit, ours, peers?}]`) to fold in; repeatable.
    #[arg(long)]
    include: Vec<PathBuf>,
    /// The desktop app's figures (`tests/e2e/bench.mjs --json`): `{setup, measures}`.
    #[arg(long)]
    desktop: Option<PathBuf>,
    /// The command line to record in the results.
    #[arg(long, default_value = "scripts/bench.sh")]
    command: String,
    /// Measure only these servers (comma-separated: sqlite, redis, floor, nchan), e.g. to
    /// profile one next to the floor. The results then lack the others' measures, which
    /// `bench-report` names as missing. Without sqlite the peers get our padding unadjusted.
    #[arg(long, value_delimiter = ',', value_parser = ["sqlite", "redis", "floor", "nchan"])]
    only: Vec<String>,
    /// Subscriber counts to hold instead of the mode's (comma-separated, e.g. 10000).
    #[arg(long, value_delimiter = ',')]
    counts: Vec<usize>,
}

struct Plan {
    counts: Vec<usize>,
    storm: usize,
    rate: u32,
    messages: u32,
    storm_messages: u32,
    /// How long after the storm's first message the connections are cut.
    cut_after: Duration,
}

impl Plan {
    fn of(mode: Mode) -> Plan {
        // One row a mode, so the modes read side by side.
        let (counts, storm, rate, messages, storm_messages, cut_after_ms) = match mode {
            Mode::Full => (vec![1_000, 5_000, 10_000], 5_000, 10, 100, 80, 2_000),
            Mode::Quick => (vec![1_000], 1_000, 10, 40, 40, 1_000),
            Mode::Tiny => (vec![20], 20, 20, 20, 30, 400),
        };
        Plan {
            counts,
            storm,
            rate,
            messages,
            storm_messages,
            cut_after: Duration::from_millis(cut_after_ms),
        }
    }
}

/// Padding of our prompt; the peers' payload is padded to the size of our delivered frame.
const OUR_PADDING: usize = 200;

struct FanoutResult {
    kind: &'static str,
    count: usize,
    sorted_us: Vec<u64>,
    /// How long each publish request took to be answered, sorted (µs): the part of a
    /// delivery's latency spent before the server fans the message out.
    publish_sorted_us: Vec<u64>,
    mem_per_sub_kib: f64,
    /// Server CPU time (process tree, user + system) over the publishing phase, per frame
    /// delivered: what one delivery costs, steadier from run to run than the latency tail.
    cpu_per_frame_us: f64,
    undelivered: usize,
}

struct StormResult {
    kind: &'static str,
    catchup_s: f64,
    missing: usize,
    duplicated: usize,
}

#[derive(Deserialize)]
struct Included {
    name: String,
    unit: String,
    ours: f64,
    /// Figures of the same measure for peers (the desktop's bare window).
    #[serde(default)]
    peers: std::collections::BTreeMap<String, f64>,
}

impl Included {
    fn into_measure(self) -> Measure {
        let m = Measure::new(self.name, &self.unit, self.ours);
        let m = self.peers.into_iter().fold(m, |m, (p, v)| m.peer(&p, v));
        measure::with_desktop_goals(m)
    }
}

/// What `tests/e2e/bench.mjs` writes: how the desktop app was measured, and its figures.
#[derive(Deserialize)]
struct DesktopRun {
    setup: DesktopSetup,
    measures: Vec<Included>,
}

fn read_json<T: serde::de::DeserializeOwned>(path: &std::path::Path) -> anyhow::Result<T> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    // Read before the long SSE run, so a bad file fails at once.
    let desktop: Option<DesktopRun> = args.desktop.as_deref().map(read_json).transpose()?;
    let mut plan = Plan::of(args.mode);
    if !args.counts.is_empty() {
        plan.counts = args.counts.clone();
    }
    raise_open_files()?;
    std::fs::create_dir_all(&args.out)?;
    let logs = args.out.join("logs");
    std::fs::create_dir_all(&logs)?;
    let programs = Programs {
        inbox: args.inbox.clone(),
        floor: args.floor.clone(),
        nginx: args.nginx.clone(),
    };
    let load_before = load_average();
    let kinds = [
        Kind::InboxSqlite,
        Kind::InboxRedis {
            url: args.redis.clone(),
        },
        Kind::Floor,
        Kind::Nchan,
    ]
    .into_iter()
    .filter(|kind| args.only.is_empty() || args.only.iter().any(|k| k == kind.key()));
    let mut fanouts = Vec::new();
    let mut storms = Vec::new();
    let mut frame_bytes = 0;
    let mut peer_padding = OUR_PADDING;
    for kind in kinds {
        let padding = if kind.is_ours() {
            OUR_PADDING
        } else {
            peer_padding
        };
        eprintln!("== {} (payload padding {padding} B)", kind.label());
        let (f, s, bytes) = run_target(&kind, &programs, &logs, &plan, padding)
            .await
            .with_context(|| format!("measuring {}", kind.label()))?;
        if kind == Kind::InboxSqlite {
            frame_bytes = bytes;
            // The peers deliver `{"prompt":"bench-seq=N; <padding>"}`: make it as long as ours.
            let bare = serde_json::json!({"prompt": "bench-seq=0; "})
                .to_string()
                .len();
            peer_padding = bytes.saturating_sub(bare).max(1);
        }
        fanouts.extend(f);
        storms.extend(s);
    }

    let mut measures = fanout_measures(&plan, &fanouts);
    measures.extend(storm_measures(&plan, &storms));
    for path in &args.include {
        let included: Vec<Included> = read_json(path)?;
        measures.extend(included.into_iter().map(Included::into_measure));
    }
    let mut plots = Vec::new();
    for &count in &plan.counts {
        let file = format!("sse-latency-{count}.svg");
        let series: Vec<Series> = ["sqlite", "redis", "floor", "nchan"]
            .iter()
            .filter_map(|k| fanouts.iter().find(|f| f.kind == *k && f.count == count))
            .map(|f| Series {
                label: label_of(f.kind),
                sorted_us: &f.sorted_us,
            })
            .collect();
        plot::latency_cdf(
            &args.out.join(&file),
            &format!("SSE publish → delivery, {count} subscribers"),
            &series,
        )?;
        plots.push(file);
    }
    let desktop_setup = desktop.map(|run| {
        measures.extend(run.measures.into_iter().map(Included::into_measure));
        run.setup
    });
    let results = Results {
        setup: Setup {
            mode: format!("{:?}", args.mode).to_lowercase(),
            command: args.command.clone(),
            date: chrono::Utc::now().format("%Y-%m-%d %H:%M UTC").to_string(),
            machine: machine(),
            subscriber_counts: plan.counts.clone(),
            storm_subscribers: plan.storm,
            rate_per_s: plan.rate,
            messages_per_count: plan.messages,
            payload_bytes: frame_bytes,
            desktop: desktop_setup,
            notes: vec![format!(
                "load average (1 min) {load_before} before the run, {} after",
                load_average()
            )],
        },
        measures,
        plots,
    };
    let path = args.out.join("results.json");
    std::fs::write(&path, serde_json::to_string_pretty(&results)?)?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

fn label_of(kind: &str) -> &'static str {
    match kind {
        "sqlite" => "inbox serve (SQLite)",
        "redis" => "inbox serve --redis",
        "floor" => "bare axum floor",
        _ => "nginx + nchan",
    }
}

/// One server: the subscriber counts in turn on one process, then the resume storm.
async fn run_target(
    kind: &Kind,
    programs: &Programs,
    logs: &std::path::Path,
    plan: &Plan,
    padding: usize,
) -> anyhow::Result<(Vec<FanoutResult>, Option<StormResult>, usize)> {
    let server = Server::start(kind.clone(), programs, logs)?;
    let mut publisher = Publisher::new(server.publish_door(), padding);
    // Warm the server's paths (store, first connections) before the idle baseline.
    publisher.run(plan.rate, 3).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let idle_kib = rss_tree_kib(server.pid())?;
    let mut fanout = Fanout::new(server.subscribe_spec());
    let mut results = Vec::new();
    let mut storm = None;
    let mut frame_bytes = 0;
    for &count in &plan.counts {
        fanout.grow_to(count).await?;
        tokio::time::sleep(Duration::from_secs(1)).await;
        fanout.collect().await?;
        let cpu_before_ms = cpu_tree_ms(server.pid())?;
        let range = publisher.run(plan.rate, plan.messages).await?;
        fanout
            .settle(count * plan.messages as usize, Duration::from_secs(10))
            .await?;
        let cpu_ms = cpu_tree_ms(server.pid())? - cpu_before_ms;
        let reports = fanout.collect().await?;
        let rss_kib = rss_tree_kib(server.pid())?;
        let mut sorted_us = Vec::with_capacity(count * plan.messages as usize);
        let mut delivered = 0;
        for r in &reports {
            frame_bytes = frame_bytes.max(r.max_data_len);
            let mut seen = r
                .arrivals
                .iter()
                .filter(|(seq, _)| range.contains(seq))
                .map(|(seq, _)| *seq)
                .collect::<Vec<_>>();
            seen.sort_unstable();
            seen.dedup();
            delivered += seen.len();
            for &(seq, at) in &r.arrivals {
                if range.contains(&seq)
                    && let Some(sent) = publisher.sent_at(seq)
                {
                    sorted_us.push(at.saturating_sub(sent));
                }
            }
        }
        sorted_us.sort_unstable();
        let mut publish_sorted_us = publisher.answered_in(range.clone());
        publish_sorted_us.sort_unstable();
        let expected = count * plan.messages as usize;
        let r = FanoutResult {
            kind: kind.key(),
            count,
            mem_per_sub_kib: rss_kib.saturating_sub(idle_kib) as f64 / count as f64,
            cpu_per_frame_us: cpu_ms * 1000.0 / delivered.max(1) as f64,
            undelivered: expected.saturating_sub(delivered),
            sorted_us,
            publish_sorted_us,
        };
        eprintln!(
            "   {count} subscribers: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms, {:.1} KiB/subscriber, {:.2} µs CPU/frame, publish answered p99 {:.2} ms, {} undelivered",
            percentile(&r.sorted_us, 0.5) as f64 / 1000.0,
            percentile(&r.sorted_us, 0.99) as f64 / 1000.0,
            percentile(&r.sorted_us, 1.0) as f64 / 1000.0,
            r.mem_per_sub_kib,
            r.cpu_per_frame_us,
            percentile(&r.publish_sorted_us, 0.99) as f64 / 1000.0,
            r.undelivered
        );
        results.push(r);
        if count == plan.storm && server.resumes() {
            storm = Some(resume_storm(kind.key(), &fanout, &mut publisher, plan).await?);
        }
    }
    drop(fanout);
    drop(server);
    Ok((results, storm, frame_bytes))
}

/// Every connection cut at once while messages keep coming; each reconnects with its
/// `Last-Event-ID`. Catch-up: from the cut until every subscriber holds every message sent
/// before the last reconnection was answered.
async fn resume_storm(
    kind: &'static str,
    fanout: &Fanout,
    publisher: &mut Publisher,
    plan: &Plan,
) -> anyhow::Result<StormResult> {
    fanout.collect().await?;
    let mut cut_at = 0;
    let (published, cut) = tokio::join!(publisher.run(plan.rate, plan.storm_messages), async {
        tokio::time::sleep(plan.cut_after).await;
        cut_at = now_us();
        let done = fanout.cut().await?;
        for d in done {
            d.await??;
        }
        anyhow::Ok(())
    });
    let range = published?;
    cut?;
    fanout
        .settle(
            fanout.len() * plan.storm_messages as usize,
            Duration::from_secs(30),
        )
        .await?;
    let reports: Vec<SubscriberReport> = fanout.collect().await?;
    let all_back = reports
        .iter()
        .filter_map(|r| r.reconnected_at)
        .max()
        .unwrap_or(cut_at);
    let needed_until = publisher.last_sent_by(all_back).unwrap_or(range.start);
    let (mut missing, mut duplicated, mut caught_up) = (0, 0, cut_at);
    for r in &reports {
        let mut seqs: Vec<(u32, u64)> = r
            .arrivals
            .iter()
            .copied()
            .filter(|(s, _)| range.contains(s))
            .collect();
        seqs.sort_unstable();
        let before = seqs.len();
        seqs.dedup_by_key(|(s, _)| *s);
        duplicated += before - seqs.len();
        missing += range.len() - seqs.len();
        for &(seq, at) in &seqs {
            if seq <= needed_until {
                caught_up = caught_up.max(at);
            }
        }
    }
    let result = StormResult {
        kind,
        catchup_s: caught_up.saturating_sub(cut_at) as f64 / 1e6,
        missing,
        duplicated,
    };
    eprintln!(
        "   resume storm of {}: caught up in {:.2} s, {} missing, {} duplicated",
        fanout.len(),
        result.catchup_s,
        result.missing,
        result.duplicated
    );
    Ok(result)
}

fn fanout_figure(r: &FanoutResult, figure: FanoutFigure) -> f64 {
    let ms = |p| percentile(&r.sorted_us, p) as f64 / 1000.0;
    match figure {
        FanoutFigure::P50 => ms(0.5),
        FanoutFigure::P99 => ms(0.99),
        FanoutFigure::Max => ms(1.0),
        FanoutFigure::PublishP99 => percentile(&r.publish_sorted_us, 0.99) as f64 / 1000.0,
        FanoutFigure::MemPerSub => r.mem_per_sub_kib,
        FanoutFigure::CpuPerFrame => r.cpu_per_frame_us,
        FanoutFigure::Undelivered => r.undelivered as f64,
    }
}

fn fanout_measures(plan: &Plan, results: &[FanoutResult]) -> Vec<Measure> {
    let largest = plan.counts.iter().copied().max().unwrap_or(0);
    let find = |kind: &str, count| results.iter().find(|r| r.kind == kind && r.count == count);
    let mut out = Vec::new();
    for &count in &plan.counts {
        for ours in OURS {
            let Some(o) = find(ours, count) else { continue };
            for figure in FanoutFigure::ALL {
                let mut m = Measure::new(
                    measure::fanout_name(count, ours, figure),
                    figure.unit(),
                    fanout_figure(o, figure),
                );
                for peer in PEERS {
                    if let Some(p) = find(peer, count) {
                        m = m.peer(peer, fanout_figure(p, figure));
                    }
                }
                // The goals of issue #12, held at the largest count measured.
                if count == largest {
                    m = match figure {
                        FanoutFigure::P99 => m.goal("nchan", 1.0).goal("floor", 1.5),
                        FanoutFigure::MemPerSub => m.goal("nchan", 2.0).goal("floor", 1.5),
                        _ => m,
                    };
                }
                out.push(m);
            }
        }
    }
    out
}

fn storm_measures(plan: &Plan, storms: &[StormResult]) -> Vec<Measure> {
    let mut out = Vec::new();
    let figure = |s: &StormResult, f: StormFigure| match f {
        StormFigure::Catchup => s.catchup_s,
        StormFigure::Missing => s.missing as f64,
        StormFigure::Duplicated => s.duplicated as f64,
    };
    for ours in OURS {
        let Some(o) = storms.iter().find(|s| s.kind == ours) else {
            continue;
        };
        for f in StormFigure::ALL {
            let name = measure::storm_name(plan.storm, ours, f);
            let mut m = Measure::new(name, f.unit(), figure(o, f));
            if let Some(p) = storms.iter().find(|s| s.kind == "nchan") {
                m = m.peer("nchan", figure(p, f));
            }
            out.push(m);
        }
    }
    out
}

/// Ten thousand subscribers need more descriptors than the usual soft limit of 1,024.
fn raise_open_files() -> anyhow::Result<()> {
    let (soft, hard) = rlimit::Resource::NOFILE.get()?;
    if soft < hard {
        rlimit::Resource::NOFILE.set(hard, hard)?;
    }
    let (soft, _) = rlimit::Resource::NOFILE.get()?;
    if soft < 25_000 {
        eprintln!("warning: only {soft} open files allowed; 10,000 subscribers may not fit");
    }
    Ok(())
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_owned))
        .unwrap_or_default()
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|v| v.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mem_gib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(0.0, |kib| kib / 1024.0 / 1024.0);
    let os = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim_matches('"').to_owned())
        })
        .unwrap_or_default();
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    format!(
        "{cores} × {cpu}, {mem_gib:.0} GiB RAM, {os}, Linux {}",
        kernel.trim()
    )
}
