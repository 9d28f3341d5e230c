//! SVG plots of the latency distributions: one chart per subscriber count, the cumulative
//! share of deliveries against publish → delivery latency (log scale), one line per server.

use std::path::Path;

use plotters::prelude::*;

/// One server's latencies (µs, sorted).
pub struct Series<'a> {
    pub label: &'a str,
    pub sorted_us: &'a [u64],
}

/// Points of the empirical CDF, thinned to at most ~400 (in ms).
fn cdf(sorted_us: &[u64]) -> Vec<(f64, f64)> {
    let n = sorted_us.len();
    if n == 0 {
        return Vec::new();
    }
    let step = n.div_ceil(400).max(1);
    let mut points: Vec<(f64, f64)> = (0..n)
        .step_by(step)
        .map(|i| {
            (
                sorted_us[i].max(1) as f64 / 1000.0,
                (i + 1) as f64 / n as f64,
            )
        })
        .collect();
    points.push((sorted_us[n - 1].max(1) as f64 / 1000.0, 1.0));
    points
}

pub fn latency_cdf(path: &Path, title: &str, series: &[Series<'_>]) -> anyhow::Result<()> {
    let max_ms = series
        .iter()
        .filter_map(|s| s.sorted_us.last())
        .max()
        .map_or(1.0, |&us| us as f64 / 1000.0)
        .max(1.0)
        * 1.2;
    let root = SVGBackend::new(path, (820, 480)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d((0.05f64..max_ms).log_scale(), 0f64..1f64)?;
    chart
        .configure_mesh()
        .x_desc("publish → delivery (ms, log scale)")
        .y_desc("share of deliveries")
        .draw()?;
    for (i, s) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(cdf(s.sorted_us), color.stroke_width(2)))?
            .label(s.label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn cdf_ends_at_one() {
        let v: Vec<u64> = (1..=1000).collect();
        let c = super::cdf(&v);
        assert_eq!(c.last().unwrap().1, 1.0);
        assert!(c.len() <= 402);
    }
}
