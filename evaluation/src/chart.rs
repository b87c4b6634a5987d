//! PNG charts: the ladder (one row per player, strongest on top, a dot at
//! the rating and a bar over its 95 % interval, labelled with the numbers),
//! training curves (panels of lines over the games or steps of a run), and
//! a board (a position with everything shown, as training's evaluations
//! put one into TensorBoard).
//!
//! Text is drawn with DejaVu Sans embedded in the binary, so the chart looks
//! the same on every machine and needs no system fonts.

use std::path::Path;
use std::sync::Once;

use plotters::prelude::*;
use plotters::style::FontStyle;

use stratego_engine::{Color as Side, Square, State};

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

/// One line of a curve chart, with an optional 95 % interval per point.
#[derive(Clone, Debug, Default)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    /// `(x, lower, upper)`: drawn as a vertical bar at `x`.
    pub intervals: Vec<(f64, f64, f64)>,
}

/// One panel of a curve chart: its y axis and its lines.
#[derive(Clone, Debug, Default)]
pub struct Panel {
    /// An x axis of its own (say, wall time beside iterations), fitted to
    /// its points; `None` shares the chart's.
    pub x_desc: Option<String>,
    pub y_desc: String,
    /// The y range, or `None` to fit the data.
    pub y_range: Option<(f64, f64)>,
    /// A horizontal reference line (say, an even score).
    pub reference: Option<f64>,
    pub series: Vec<Series>,
}

/// The x range of `panels`' points, from 0 (or below) to their largest x.
fn x_range<'a>(panels: impl IntoIterator<Item = &'a Panel>) -> (f64, f64) {
    let xs = panels.into_iter().flat_map(|p| p.series.iter().flat_map(|s| s.points.iter().map(|q| q.0)));
    let (lo, hi) = xs.fold((0.0f64, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)));
    (lo, if hi > lo { hi } else { lo + 1.0 })
}

/// An axis label: k and M for large numbers (plies), one decimal for
/// small ones (minutes of a short run).
fn axis_number(v: f64) -> String {
    match v.abs() {
        a if a >= 1e6 => format!("{:.1}M", v / 1e6),
        a if a >= 1e4 => format!("{:.0}k", v / 1e3),
        a if a >= 10.0 => format!("{v:.0}"),
        _ => format!("{v:.1}").trim_end_matches(".0").to_string(),
    }
}

const PALETTE: [RGBColor; 4] =
    [RGBColor(40, 90, 170), RGBColor(200, 60, 40), RGBColor(40, 140, 70), RGBColor(120, 60, 160)];

/// Draws `panels` stacked vertically over one x axis as a PNG at `path`.
/// Panels without points are skipped (a run that has not evaluated yet).
pub fn draw_curves(path: &Path, title: &str, x_desc: &str, panels: &[Panel]) -> Result<(), ChartError> {
    register_font();
    let fail = |why: String| ChartError { path: path.display().to_string(), why };
    let panels: Vec<&Panel> = panels.iter().filter(|p| p.series.iter().any(|s| !s.points.is_empty())).collect();
    if panels.is_empty() {
        return Err(fail("nothing has been logged yet".into()));
    }
    let shared = x_range(panels.iter().copied().filter(|p| p.x_desc.is_none()));
    let root = BitMapBackend::new(path, (1000, 60 + 340 * panels.len() as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
    let root = root.titled(title, ("sans-serif", 24)).map_err(|e| fail(e.to_string()))?;
    for (area, panel) in root.split_evenly((panels.len(), 1)).iter().zip(&panels) {
        let ((x_lo, x_hi), x_desc) = match &panel.x_desc {
            Some(own) => (x_range([*panel]), own.as_str()),
            None => (shared, x_desc),
        };
        let ys = || {
            panel
                .series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.1).chain(s.intervals.iter().flat_map(|&(_, lo, hi)| [lo, hi])))
        };
        let (y_lo, y_hi) = panel.y_range.unwrap_or_else(|| {
            let (lo, hi) = (ys().fold(f64::INFINITY, f64::min), ys().fold(f64::NEG_INFINITY, f64::max));
            let pad = ((hi - lo) * 0.08).max(1e-6);
            (lo - pad, hi + pad)
        });
        let mut chart = ChartBuilder::on(area)
            .margin(16)
            .margin_right(44)
            .x_label_area_size(44)
            .y_label_area_size(70)
            .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)
            .map_err(|e| fail(e.to_string()))?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .x_label_formatter(&|v| axis_number(*v))
            .y_desc(panel.y_desc.as_str())
            .axis_desc_style(("sans-serif", 18))
            .label_style(("sans-serif", 15))
            .draw()
            .map_err(|e| fail(e.to_string()))?;
        if let Some(y) = panel.reference {
            let grey = ShapeStyle { color: RGBColor(150, 150, 150).to_rgba(), filled: false, stroke_width: 2 };
            chart.draw_series([PathElement::new(vec![(x_lo, y), (x_hi, y)], grey)]).map_err(|e| fail(e.to_string()))?;
        }
        for (k, series) in panel.series.iter().enumerate() {
            let color = PALETTE[k % PALETTE.len()];
            let line = ShapeStyle { color: color.to_rgba(), filled: false, stroke_width: 2 };
            let bars = series.intervals.iter().map(|&(x, lo, hi)| PathElement::new(vec![(x, lo), (x, hi)], line));
            chart.draw_series(bars).map_err(|e| fail(e.to_string()))?;
            let dots = series.points.len() <= 60;
            chart
                .draw_series([PathElement::new(series.points.clone(), line)])
                .map_err(|e| fail(e.to_string()))?
                .label(series.label.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], line));
            if dots {
                let dot = series.points.iter().map(|&p| Circle::new(p, 3, color.filled()));
                chart.draw_series(dot).map_err(|e| fail(e.to_string()))?;
            }
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 15))
            .draw()
            .map_err(|e| fail(e.to_string()))?;
    }
    root.present().map_err(|e| fail(e.to_string()))?;
    Ok(())
}

/// The size of [`draw_board`]'s picture, in pixels.
pub const BOARD_PICTURE: (u32, u32) = (440, 480);

/// Draws `state`'s board with everything shown (each piece its rank, a
/// piece the opponent knows outlined, the last move's squares marked)
/// under `caption`, as a PNG at `path`.
pub fn draw_board(path: &Path, state: &State, caption: &str) -> Result<(), ChartError> {
    register_font();
    let fail = |why: String| ChartError { path: path.display().to_string(), why };
    let (width, height) = BOARD_PICTURE;
    let root = BitMapBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&RGBColor(250, 250, 250)).map_err(|e| fail(e.to_string()))?;
    let (left, top, cell) = (20i32, 56i32, 40i32);
    root.draw(&Text::new(caption.to_string(), (left, 14), ("sans-serif", 17).into_font().color(&BLACK)))
        .map_err(|e| fail(e.to_string()))?;
    let last = state.history().last().map(|p| p.mv);
    for sq in Square::all() {
        // Red's back row at the bottom.
        let (x, y) = (left + cell * sq.col() as i32, top + cell * (9 - sq.row() as i32));
        let ground = if sq.is_lake() { RGBColor(127, 178, 214) } else { RGBColor(217, 199, 155) };
        root.draw(&Rectangle::new([(x, y), (x + cell, y + cell)], ground.filled())).map_err(|e| fail(e.to_string()))?;
        root.draw(&Rectangle::new([(x, y), (x + cell, y + cell)], RGBColor(185, 167, 123)))
            .map_err(|e| fail(e.to_string()))?;
        if last.is_some_and(|mv| mv.from == sq || mv.to == sq) {
            root.draw(&Rectangle::new(
                [(x + 1, y + 1), (x + cell - 1, y + cell - 1)],
                RGBColor(243, 156, 18).stroke_width(3),
            ))
            .map_err(|e| fail(e.to_string()))?;
        }
        let Some(piece) = state.board()[sq] else { continue };
        let color = if piece.color == Side::Red { RGBColor(192, 57, 43) } else { RGBColor(44, 95, 168) };
        root.draw(&Rectangle::new([(x + 4, y + 4), (x + cell - 4, y + cell - 4)], color.filled()))
            .map_err(|e| fail(e.to_string()))?;
        if piece.revealed {
            root.draw(&Rectangle::new(
                [(x + 4, y + 4), (x + cell - 4, y + cell - 4)],
                RGBColor(241, 196, 15).stroke_width(2),
            ))
            .map_err(|e| fail(e.to_string()))?;
        }
        let label = piece.kind.rank_label();
        let dx = if label.len() > 1 { 10 } else { 15 };
        root.draw(&Text::new(label.to_string(), (x + dx, y + 11), ("sans-serif", 17).into_font().color(&WHITE)))
            .map_err(|e| fail(e.to_string()))?;
    }
    root.present().map_err(|e| fail(e.to_string()))
}

#[cfg(test)]
mod board_tests {
    use super::*;

    #[test]
    fn a_board_is_drawn_as_a_png_of_its_size() {
        use rand::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
        let set = stratego_engine::PieceSet::Classic;
        let (red, blue) =
            (stratego_engine::Setup::random(set, &mut rng), stratego_engine::Setup::random(set, &mut rng));
        let mut state = State::from_setups(stratego_engine::Ruleset::default(), &red, &blue).unwrap();
        let mv = state.legal_moves()[0];
        state.apply_move(mv).unwrap();
        let path = stratego_testkit::scratch_path("board.png");
        draw_board(&path, &state, "a test board").unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.starts_with(&[0x89, b'P', b'N', b'G']));
        // The PNG header's width and height.
        let (w, h) = (
            u32::from_be_bytes(bytes[16..20].try_into().unwrap()),
            u32::from_be_bytes(bytes[20..24].try_into().unwrap()),
        );
        assert_eq!((w, h), BOARD_PICTURE);
        let _ = std::fs::remove_file(&path);
    }
}
