//! The table of a [`Results`] file, as markdown with goal marks: printed by `bench-report`
//! and written into docs/benchmarks.md.

use crate::measure::{Bound, Measure, Results, TABLE_PEERS};

fn number(v: f64) -> String {
    if v == 0.0 {
        "0".to_owned()
    } else if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn goals(m: &Measure) -> String {
    m.goals
        .iter()
        .map(|g| {
            let mark = if g.met { "✅" } else { "❌" };
            match &g.bound {
                Bound::Ratio { peer, max_ratio } => format!("{mark} ≤ {max_ratio}× {peer}"),
                Bound::AtMost { at_most } => format!("{mark} ≤ {} {}", number(*at_most), m.unit),
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// One markdown table: each measure with ours, each peer present in the run, the ratios and
/// the goal marks.
pub fn markdown_table(results: &Results) -> String {
    let peers: Vec<&str> = TABLE_PEERS
        .into_iter()
        .filter(|p| results.measures.iter().any(|m| m.peers.contains_key(*p)))
        .collect();
    let mut out = String::from("| measure | unit | ours |");
    for peer in &peers {
        out.push_str(&format!(" {peer} |"));
    }
    for peer in &peers {
        out.push_str(&format!(" ours/{peer} |"));
    }
    out.push_str(" goal |\n|---|---|---:|");
    for _ in 0..peers.len() * 2 {
        out.push_str("---:|");
    }
    out.push_str("---|\n");
    for m in &results.measures {
        out.push_str(&format!(
            "| `{}` | {} | {} |",
            m.name,
            m.unit,
            number(m.ours)
        ));
        for peer in &peers {
            let v = m.peers.get(*peer).map(|&v| number(v)).unwrap_or_default();
            out.push_str(&format!(" {v} |"));
        }
        for peer in &peers {
            let v = m
                .ratio
                .get(*peer)
                .map(|&v| format!("{v:.2}×"))
                .unwrap_or_default();
            out.push_str(&format!(" {v} |"));
        }
        out.push_str(&format!(" {} |\n", goals(m)));
    }
    out
}
