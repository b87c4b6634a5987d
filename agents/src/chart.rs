//! The ladder's PNG chart: one row per player, strongest on top, a dot at
//! the rating and a bar over its 95 % interval, labelled with the numbers.
//!
//! Text is drawn with DejaVu Sans embedded in the binary, so the chart looks
//! the same on every machine and needs no system fonts.

use std::path::Path;
use std::sync::Once;

use plotters::prelude::*;
use plotters::style::FontStyle;

use crate::stats::Rating;

#[derive(Debug, thiserror::Error)]
#[error("cannot draw the chart {path}: {why}")]
pub struct ChartError {
    pub path: String,
    pub why: String,
}

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
            .unwrap_or_else(|_| panic!("the embedded DejaVu Sans font is valid"));
    });
}

/// Draws `ratings` (Elo relative to `names[0]`) as a PNG at `path`.
pub fn draw_ratings(path: &Path, title: &str, names: &[String], ratings: &[Rating]) -> Result<(), ChartError> {
    register_font();
    let fail = |why: String| ChartError { path: path.display().to_string(), why };
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&i, &j| ratings[i].elo.total_cmp(&ratings[j].elo));
    let n = names.len().max(1);
    let lo = ratings.iter().map(|r| r.lower).fold(f64::INFINITY, f64::min).min(0.0);
    let hi = ratings.iter().map(|r| r.upper).fold(f64::NEG_INFINITY, f64::max).max(0.0);
    let pad = ((hi - lo) * 0.08).max(20.0);
    let (width, height) = (1000u32, 160 + 90 * n as u32);
    let root = BitMapBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 26))
        .margin(24)
        .x_label_area_size(50)
        .y_label_area_size(10)
        .build_cartesian_2d((lo - pad)..(hi + pad), -0.6f64..(n as f64 - 0.4))
        .map_err(|e| fail(e.to_string()))?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_label_formatter(&|v| format!("{v:+.0}"))
        .x_desc(format!("Elo relative to {} (Bradley-Terry, 95% bootstrap interval)", names[0]))
        .axis_desc_style(("sans-serif", 18))
        .label_style(("sans-serif", 16))
        .draw()
        .map_err(|e| fail(e.to_string()))?;
    let bar = ShapeStyle { color: RGBColor(40, 90, 170).to_rgba(), filled: true, stroke_width: 4 };
    for (row, &i) in order.iter().enumerate() {
        let y = row as f64;
        let r = ratings[i];
        let tick = 0.12;
        chart
            .draw_series([
                PathElement::new(vec![(r.lower, y), (r.upper, y)], bar),
                PathElement::new(vec![(r.lower, y - tick), (r.lower, y + tick)], bar),
                PathElement::new(vec![(r.upper, y - tick), (r.upper, y + tick)], bar),
            ])
            .map_err(|e| fail(e.to_string()))?;
        chart
            .draw_series([Circle::new((r.elo, y), 7, RGBColor(200, 60, 40).filled())])
            .map_err(|e| fail(e.to_string()))?;
        let label = format!("{}: {:+.0} [{:+.0}, {:+.0}]", names[i], r.elo, r.lower, r.upper);
        chart
            .draw_series([Text::new(label, (lo - pad * 0.8, y + 0.38), ("sans-serif", 20).into_font().color(&BLACK))])
            .map_err(|e| fail(e.to_string()))?;
    }
    root.present().map_err(|e| fail(e.to_string()))?;
    Ok(())
}
