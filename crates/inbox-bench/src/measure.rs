//! The results file (`artifacts/bench/results.json`): one [`Measure`] per figure, ours next to
//! each peer with the ratio, plus the run's setup. The names every run must contain are
//! defined here once ([`expected_names`]) for the harness and for `bench-report --check`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Peers of the SSE fan-out, in the order they are shown.
pub const PEERS: [&str; 2] = ["floor", "nchan"];
/// The desktop app's peer: a bare Tauri window (`src-tauri/examples/minimal-window.rs`) built
/// in the same run with the same profile.
pub const BARE_WINDOW: &str = "tauri";
/// Every peer a measure may carry, in the order the table shows them.
pub const TABLE_PEERS: [&str; 3] = ["floor", "nchan", BARE_WINDOW];
/// Our variants of the SSE fan-out.
pub const OURS: [&str; 2] = ["sqlite", "redis"];
/// A figure measured per subscriber count and variant. An enum, so the harness's reading of
/// each one is a `match` the compiler checks whole: a new figure cannot go unread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FanoutFigure {
    P50,
    P99,
    Max,
    PublishP99,
    MemPerSub,
    CpuPerFrame,
    Undelivered,
}

impl FanoutFigure {
    pub const ALL: [FanoutFigure; 7] = [
        FanoutFigure::P50,
        FanoutFigure::P99,
        FanoutFigure::Max,
        FanoutFigure::PublishP99,
        FanoutFigure::MemPerSub,
        FanoutFigure::CpuPerFrame,
        FanoutFigure::Undelivered,
    ];

    /// The last part of the measure's name (`sse.<count>.<ours>.<name>`).
    pub fn name(self) -> &'static str {
        match self {
            FanoutFigure::P50 => "p50",
            FanoutFigure::P99 => "p99",
            FanoutFigure::Max => "max",
            FanoutFigure::PublishP99 => "publish_p99",
            FanoutFigure::MemPerSub => "mem_per_sub",
            FanoutFigure::CpuPerFrame => "cpu_per_frame",
            FanoutFigure::Undelivered => "undelivered",
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            FanoutFigure::P50
            | FanoutFigure::P99
            | FanoutFigure::Max
            | FanoutFigure::PublishP99 => "ms",
            FanoutFigure::MemPerSub => "KiB",
            FanoutFigure::CpuPerFrame => "µs",
            FanoutFigure::Undelivered => "frames",
        }
    }
}

/// A figure of the resume storm, per variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StormFigure {
    Catchup,
    Missing,
    Duplicated,
}

impl StormFigure {
    pub const ALL: [StormFigure; 3] = [
        StormFigure::Catchup,
        StormFigure::Missing,
        StormFigure::Duplicated,
    ];

    /// The last part of the measure's name (`storm.<count>.<ours>.<name>`).
    pub fn name(self) -> &'static str {
        match self {
            StormFigure::Catchup => "catchup",
            StormFigure::Missing => "missing",
            StormFigure::Duplicated => "duplicated",
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            StormFigure::Catchup => "s",
            StormFigure::Missing | StormFigure::Duplicated => "frames",
        }
    }
}
/// Throughput figures written by the inbox-server examples (`--json`).
pub const THROUGHPUT_NAMES: [&str; 8] = [
    "throughput.sqlite.asks_per_s",
    "throughput.sqlite.answers_per_s",
    "throughput.redis1.asks_per_s",
    "throughput.redis1.answers_per_s",
    "throughput.redis2.asks_per_s",
    "throughput.redis2.answers_per_s",
    "parks.sqlite.resumes_per_s",
    "parks.redis1.resumes_per_s",
];

/// Figures of the desktop app, measured by `tests/e2e/bench.mjs` in the real window
/// (`{pending}`: the questions waiting while it idles and while questions arrive):
/// name, unit, and whether the bare Tauri window is measured beside it.
pub const DESKTOP_FIGURES: [(&str, &str, bool); 5] = [
    ("desktop.idle_pss.empty", "MiB", true),
    ("desktop.idle_pss.{pending}", "MiB", true),
    ("desktop.first_paint", "ms", true),
    ("desktop.ask_to_visible.{pending}.p50", "ms", false),
    ("desktop.ask_to_visible.{pending}.p99", "ms", false),
];

pub fn desktop_name(template: &str, pending: usize) -> String {
    template.replace("{pending}", &pending.to_string())
}

/// The goals of issue #12 for the desktop app: idle memory within 1.3× of the bare window,
/// ask → visible p99 at most 100 ms with the pending list full.
pub fn with_desktop_goals(m: Measure) -> Measure {
    if m.name.starts_with("desktop.idle_pss.") {
        m.goal(BARE_WINDOW, 1.3)
    } else if m.name.starts_with("desktop.ask_to_visible.") && m.name.ends_with(".p99") {
        m.at_most(100.0)
    } else {
        m
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Measure {
    pub name: String,
    pub unit: String,
    pub ours: f64,
    /// The same figure for each peer measured.
    #[serde(default)]
    pub peers: BTreeMap<String, f64>,
    /// ours / peer, for each peer (absent when the peer's figure is 0).
    #[serde(default)]
    pub ratio: BTreeMap<String, f64>,
    /// Goals from issue #12 this figure is held to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub goals: Vec<Goal>,
}

/// A goal a figure is held to, and whether this run met it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Goal {
    #[serde(flatten)]
    pub bound: Bound,
    pub met: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Bound {
    /// `ours / peer ≤ max_ratio`.
    Ratio { peer: String, max_ratio: f64 },
    /// `ours ≤ at_most`, in the measure's unit.
    AtMost { at_most: f64 },
}

impl Measure {
    pub fn new(name: impl Into<String>, unit: &str, ours: f64) -> Measure {
        Measure {
            name: name.into(),
            unit: unit.to_owned(),
            ours,
            peers: BTreeMap::new(),
            ratio: BTreeMap::new(),
            goals: Vec::new(),
        }
    }

    pub fn peer(mut self, peer: &str, value: f64) -> Measure {
        self.peers.insert(peer.to_owned(), value);
        if value > 0.0 {
            self.ratio.insert(peer.to_owned(), self.ours / value);
        }
        self
    }

    pub fn goal(mut self, peer: &str, max_ratio: f64) -> Measure {
        let met = match self.peers.get(peer) {
            Some(&p) if p > 0.0 => self.ours / p <= max_ratio,
            // A peer at zero: only zero matches it.
            Some(_) => self.ours <= 0.0,
            None => false,
        };
        self.goals.push(Goal {
            bound: Bound::Ratio {
                peer: peer.to_owned(),
                max_ratio,
            },
            met,
        });
        self
    }

    pub fn at_most(mut self, limit: f64) -> Measure {
        self.goals.push(Goal {
            bound: Bound::AtMost { at_most: limit },
            met: self.ours <= limit,
        });
        self
    }
}

/// What was run, to read the figures by.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Setup {
    pub mode: String,
    pub command: String,
    pub date: String,
    pub machine: String,
    pub subscriber_counts: Vec<usize>,
    pub storm_subscribers: usize,
    pub rate_per_s: u32,
    pub messages_per_count: u32,
    pub payload_bytes: usize,
    #[serde(default)]
    pub notes: Vec<String>,
    /// How the desktop app was measured (absent: not measured, and then not expected).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desktop: Option<DesktopSetup>,
}

/// The desktop run's shape, as `tests/e2e/bench.mjs` reports it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DesktopSetup {
    /// Questions pending while the app idles and while questions arrive.
    pub pending: usize,
    /// Questions asked for ask → visible.
    pub samples: usize,
    /// Launches of each app for first paint (the median is shown).
    pub launches: usize,
    /// Seconds each app idles before its memory is read.
    pub idle_s: f64,
    /// `release` or `debug`.
    pub profile: String,
    /// WebKitGTK's package version.
    #[serde(default)]
    pub webkit: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Results {
    pub setup: Setup,
    pub measures: Vec<Measure>,
    /// SVG plots, relative to the results file.
    #[serde(default)]
    pub plots: Vec<String>,
}

pub fn fanout_name(count: usize, ours: &str, figure: FanoutFigure) -> String {
    format!("sse.{count}.{ours}.{}", figure.name())
}

pub fn storm_name(count: usize, ours: &str, figure: StormFigure) -> String {
    format!("storm.{count}.{ours}.{}", figure.name())
}

/// Every measure a run with this setup must hold, with the peers each must carry.
pub fn expected_names(setup: &Setup) -> Vec<(String, Vec<&'static str>)> {
    let mut names = Vec::new();
    for &count in &setup.subscriber_counts {
        for ours in OURS {
            for figure in FanoutFigure::ALL {
                names.push((fanout_name(count, ours, figure), PEERS.to_vec()));
            }
        }
    }
    for ours in OURS {
        for figure in StormFigure::ALL {
            names.push((
                storm_name(setup.storm_subscribers, ours, figure),
                vec!["nchan"],
            ));
        }
    }
    for name in THROUGHPUT_NAMES {
        names.push((name.to_owned(), Vec::new()));
    }
    if let Some(desktop) = &setup.desktop {
        for (template, _, bare) in DESKTOP_FIGURES {
            let peers = if bare { vec![BARE_WINDOW] } else { Vec::new() };
            names.push((desktop_name(template, desktop.pending), peers));
        }
    }
    names
}

/// What is wrong with `results`: each expected measure missing, or without a finite figure
/// for ours or for one of its peers. Empty when complete.
pub fn problems(results: &Results) -> Vec<String> {
    let mut out = Vec::new();
    for (name, peers) in expected_names(&results.setup) {
        let Some(m) = results.measures.iter().find(|m| m.name == name) else {
            out.push(format!("{name}: missing"));
            continue;
        };
        if !m.ours.is_finite() {
            out.push(format!("{name}: ours is not a number"));
        }
        for peer in peers {
            match m.peers.get(peer) {
                Some(v) if v.is_finite() => {}
                _ => out.push(format!("{name}: no figure for {peer}")),
            }
        }
    }
    if results.setup.subscriber_counts.is_empty() {
        out.push("setup: no subscriber counts".to_owned());
    }
    if results.setup.desktop.is_none() {
        out.push("setup: the desktop app was not measured".to_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> Setup {
        Setup {
            mode: "tiny".into(),
            command: String::new(),
            date: String::new(),
            machine: String::new(),
            subscriber_counts: vec![10],
            storm_subscribers: 10,
            rate_per_s: 1,
            messages_per_count: 1,
            payload_bytes: 1,
            notes: vec![],
            desktop: Some(DesktopSetup {
                pending: 5,
                samples: 1,
                launches: 1,
                idle_s: 1.0,
                profile: "debug".into(),
                webkit: String::new(),
            }),
        }
    }

    #[test]
    fn a_missing_peer_or_measure_is_a_problem() {
        let mut measures: Vec<Measure> = expected_names(&setup())
            .into_iter()
            .map(|(n, peers)| {
                peers
                    .into_iter()
                    .fold(Measure::new(n, "ms", 1.0), |m, p| m.peer(p, 2.0))
            })
            .collect();
        let mut results = Results {
            setup: setup(),
            measures: measures.clone(),
            plots: vec![],
        };
        assert!(problems(&results).is_empty());
        measures[0].peers.remove("nchan");
        measures.pop();
        results.measures = measures;
        assert_eq!(problems(&results).len(), 2);
    }

    #[test]
    fn goals_compare_the_ratio() {
        let m = Measure::new("x", "ms", 3.0)
            .peer("nchan", 2.0)
            .goal("nchan", 1.0)
            .goal("nchan", 2.0);
        assert!(!m.goals[0].met);
        assert!(m.goals[1].met);
        assert_eq!(m.ratio["nchan"], 1.5);
    }

    #[test]
    fn the_desktop_measures_are_expected_and_their_goals_applied() {
        let names: Vec<String> = expected_names(&setup())
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert!(names.contains(&"desktop.idle_pss.5".to_owned()));
        assert!(names.contains(&"desktop.ask_to_visible.5.p99".to_owned()));
        let slow = with_desktop_goals(Measure::new("desktop.ask_to_visible.5.p99", "ms", 120.0));
        assert_eq!(slow.goals[0].bound, Bound::AtMost { at_most: 100.0 });
        assert!(!slow.goals[0].met);
        let lean = with_desktop_goals(
            Measure::new("desktop.idle_pss.empty", "MiB", 300.0).peer(BARE_WINDOW, 250.0),
        );
        assert!(lean.goals[0].met, "1.2× is within 1.3×");
        let mut without = Results {
            setup: setup(),
            measures: vec![],
            plots: vec![],
        };
        without.setup.desktop = None;
        assert!(problems(&without).iter().any(|p| p.contains("desktop")));
    }

    #[test]
    fn goals_read_back_as_written() {
        let m = Measure::new("x", "ms", 3.0)
            .peer("nchan", 2.0)
            .goal("nchan", 2.0)
            .at_most(5.0);
        let back: Measure = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(back.goals[0].bound, m.goals[0].bound);
        assert_eq!(back.goals[1].bound, Bound::AtMost { at_most: 5.0 });
    }
}
