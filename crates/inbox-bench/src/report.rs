//! The table of a [`Results`] file, as markdown with goal marks: printed by `bench-report`
//! and written into docs/benchmarks.md.

use crate::measure::{Measure, PEERS, Results};

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
            format!(
                "{} ≤ {}× {}",
                if g.met { "✅" } else { "❌" },
                g.max_ratio,
                g.peer
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// One markdown table: each measure with ours, each peer, the ratios and the goal marks.
pub fn markdown_table(results: &Results) -> String {
    let mut out = String::from("| measure | unit | ours |");
    for peer in PEERS {
        out.push_str(&format!(" {peer} |"));
    }
    for peer in PEERS {
        out.push_str(&format!(" ours/{peer} |"));
    }
    out.push_str(" goal |\n|---|---|---:|");
    for _ in 0..PEERS.len() * 2 {
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
        for peer in PEERS {
            let v = m.peers.get(peer).map(|&v| number(v)).unwrap_or_default();
            out.push_str(&format!(" {v} |"));
        }
        for peer in PEERS {
            let v = m
                .ratio
                .get(peer)
                .map(|&v| format!("{v:.2}×"))
                .unwrap_or_default();
            out.push_str(&format!(" {v} |"));
        }
        out.push_str(&format!(" {} |\n", goals(m)));
    }
    out
}
