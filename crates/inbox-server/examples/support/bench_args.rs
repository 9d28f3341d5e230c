//! Options shared by the benchmark examples, for `scripts/bench.sh` (crates/inbox-bench):
//! `--scale F` multiplies every count (e.g. `0.02` for a seconds-long check of the harness),
//! `--json PATH` also writes the figures as `[{name, unit, ours}]` for its results file.

use std::path::PathBuf;
use std::sync::OnceLock;

#[derive(Debug, Default)]
pub struct BenchArgs {
    pub scale: Option<f64>,
    pub json: Option<PathBuf>,
}

static ARGS: OnceLock<BenchArgs> = OnceLock::new();

/// The options given on the command line (read once).
pub fn args() -> &'static BenchArgs {
    ARGS.get_or_init(|| {
        let mut out = BenchArgs::default();
        let mut it = std::env::args().skip(1);
        while let Some(arg) = it.next() {
            match arg.as_str() {
                "--scale" => out.scale = it.next().and_then(|v| v.parse().ok()),
                "--json" => out.json = it.next().map(PathBuf::from),
                other => {
                    eprintln!("unknown option {other:?}; use --scale F, --json PATH");
                    std::process::exit(2);
                }
            }
        }
        out
    })
}

/// `n` times `--scale` (at least 1).
pub fn scaled(n: usize) -> usize {
    match args().scale {
        Some(f) if f > 0.0 => ((n as f64 * f).round() as usize).max(1),
        _ => n,
    }
}

/// Writes `(name, unit, value)` to the `--json` file, when one was given.
pub fn write_json(measures: &[(String, &str, f64)]) -> anyhow::Result<()> {
    if let Some(path) = &args().json {
        let list: Vec<serde_json::Value> = measures
            .iter()
            .map(|(name, unit, v)| serde_json::json!({"name": name, "unit": unit, "ours": v}))
            .collect();
        std::fs::write(path, serde_json::to_string_pretty(&list)?)?;
    }
    Ok(())
}
