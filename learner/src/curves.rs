//! `curves.png` of a run directory: the run's `metrics.jsonl` drawn as
//! panels of lines over its steps, for both trainers (`stratego train` and
//! `stratego ntuple train`). Redrawn from the log each time, so a resumed
//! run's picture has its whole history (without what a killed run logged
//! after its checkpoint).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use stratego_evaluation::chart::{draw_curves, Panel, Series};
use stratego_evaluation::stats::trinomial_score_interval;
use stratego_runlog::read_metrics;

use crate::diagnostics::{probe_tags, EVAL_HIGH_SUFFIX, EVAL_LOW_SUFFIX, EVAL_SCORE_PREFIX, RUN_PLIES, RUN_SECONDS};
use crate::TrainError;

/// A run's logged metrics by name.
pub struct Metrics(BTreeMap<String, Vec<(u64, f64)>>);

impl Metrics {
    pub fn read(dir: &Path) -> Result<Metrics, TrainError> {
        Ok(Metrics(read_metrics(&dir.join("metrics.jsonl"))?))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The names logged with `prefix`, in order.
    pub fn names_with(&self, prefix: &str) -> Vec<&str> {
        self.0.keys().filter(|k| k.starts_with(prefix)).map(String::as_str).collect()
    }

    pub fn points(&self, name: &str) -> Vec<(f64, f64)> {
        self.0.get(name).map_or(Vec::new(), |p| p.iter().map(|&(s, v)| (s as f64, v)).collect())
    }

    /// The metric `name` (times `scale`) by step: an x axis to redraw
    /// other metrics against.
    pub fn axis(&self, name: &str, scale: f64) -> BTreeMap<u64, f64> {
        self.0.get(name).map_or(BTreeMap::new(), |p| p.iter().map(|&(s, v)| (s, v * scale)).collect())
    }

    /// A line of the metric `name`, labelled `label`.
    pub fn series(&self, name: &str, label: &str) -> Series {
        Series { label: label.into(), points: self.points(name), ..Series::default() }
    }
}

/// `series` over steps redrawn over `axis` (step to x); points of steps
/// the axis lacks are left out.
fn rebase(series: &Series, axis: &BTreeMap<u64, f64>) -> Series {
    let x = |step: f64| axis.get(&(step as u64)).copied();
    Series {
        label: series.label.clone(),
        points: series.points.iter().filter_map(|&(s, v)| Some((x(s)?, v))).collect(),
        intervals: series.intervals.iter().filter_map(|&(s, lo, hi)| Some((x(s)?, lo, hi))).collect(),
    }
}

/// Draws `panels` into `dir/curves.png`: beside it first, then renamed, so a
/// kill never leaves half a picture under the real name.
pub fn write_curves(dir: &Path, title: &str, x_desc: &str, panels: &[Panel]) -> Result<PathBuf, TrainError> {
    let path = dir.join("curves.png");
    let partial = dir.join("curves.partial.png");
    // A leftover (or a planted symlink) under the temporary name goes
    // first: the picture is drawn into a file of its own, not through it.
    let _ = std::fs::remove_file(&partial);
    draw_curves(&partial, title, x_desc, panels).map_err(|e| TrainError::Run(e.to_string()))?;
    std::fs::rename(&partial, &path)
        .map_err(|e| TrainError::Run(format!("cannot rename {}: {e}", partial.display())))?;
    Ok(path)
}

/// `curves.png` of a network training run (`stratego train`): the
/// evaluation scores with their intervals (against iterations, wall time
/// and self-play plies), the loss terms, the belief head against the counting
/// prior, and the policy's entropy. `None` when nothing is logged yet.
pub fn draw_network_curves(root: &Path) -> Result<Option<PathBuf>, TrainError> {
    let metrics = Metrics::read(root)?;
    if metrics.is_empty() {
        return Ok(None);
    }
    let scores: Vec<Series> = metrics
        .names_with(EVAL_SCORE_PREFIX)
        .into_iter()
        .filter(|name| !name.ends_with(EVAL_LOW_SUFFIX) && !name.ends_with(EVAL_HIGH_SUFFIX))
        .map(|name| {
            let mut series = metrics.series(name, &format!("vs {}", name.trim_start_matches(EVAL_SCORE_PREFIX)));
            let (low, high) = (
                metrics.points(&format!("{name}{EVAL_LOW_SUFFIX}")),
                metrics.points(&format!("{name}{EVAL_HIGH_SUFFIX}")),
            );
            series.intervals = low.iter().zip(&high).map(|(&(x, lo), &(_, hi))| (x, lo, hi)).collect();
            series
        })
        .collect();
    let losses = ["loss/total", "loss/clip", "loss/value", "loss/belief"];
    let score_panel = |x_desc: Option<&str>, series: Vec<Series>| Panel {
        x_desc: x_desc.map(str::to_string),
        y_desc: "score".into(),
        y_range: Some((0.0, 1.0)),
        reference: Some(0.5),
        series,
    };
    // The same scores against what a run spends: wall time and plies.
    let minutes = metrics.axis(RUN_SECONDS, 1.0 / 60.0);
    let plies = metrics.axis(RUN_PLIES, 1.0);
    let on = |axis: &BTreeMap<u64, f64>| scores.iter().map(|s: &Series| rebase(s, axis)).collect::<Vec<_>>();
    let panels = [
        score_panel(None, scores.clone()),
        score_panel(Some("wall-clock minutes (pretraining included)"), on(&minutes)),
        score_panel(Some("self-play plies"), on(&plies)),
        Panel {
            y_desc: "loss".into(),
            series: losses.iter().map(|&n| metrics.series(n, n)).collect(),
            ..Panel::default()
        },
        Panel {
            y_desc: "belief log-likelihood per hidden piece".into(),
            series: vec![
                metrics.series("belief/log_likelihood", "belief head"),
                metrics.series("belief/prior_log_likelihood", "counting prior"),
            ],
            ..Panel::default()
        },
        // What the heads know about the evaluation's games (`probe.rs`):
        // the value head must fall below the leaf, the belief head rise
        // above the counting prior.
        Panel {
            y_desc: "log-loss on the evaluation's games".into(),
            series: vec![
                metrics.series(probe_tags::VALUE_LOG_LOSS, "value head"),
                metrics.series(probe_tags::LEAF_LOG_LOSS, "hand-written leaf"),
            ],
            ..Panel::default()
        },
        Panel {
            y_desc: "belief log-likelihood, evaluation's games".into(),
            series: vec![
                metrics.series(probe_tags::BELIEF_LOG_LIKELIHOOD, "belief head"),
                metrics.series(probe_tags::COUNTING_LOG_LIKELIHOOD, "counting prior"),
                metrics.series(probe_tags::POOLED_LOG_LIKELIHOOD, "the two pooled"),
            ],
            ..Panel::default()
        },
        Panel {
            y_desc: "policy entropy (nats)".into(),
            series: vec![metrics.series("policy/entropy", "policy/entropy")],
            ..Panel::default()
        },
    ];
    let title = format!("stratego train: {}", root.display());
    Ok(Some(write_curves(root, &title, "iteration", &panels)?))
}

/// `curves.png` of an n-tuple run (`stratego ntuple train`): the score
/// against the evaluation `opponent` (`games` per point) with its 95 %
/// interval, the TD error, and the shares of drawn and Red-won self-play
/// games. `None` when nothing is logged yet.
pub fn draw_ntuple_curves(root: &Path, opponent: &str, games: u32) -> Result<Option<PathBuf>, TrainError> {
    let metrics = Metrics::read(root)?;
    if metrics.is_empty() {
        return Ok(None);
    }
    let (wins, draws, losses) =
        (metrics.points("eval/wins"), metrics.points("eval/draws"), metrics.points("eval/losses"));
    let count = |v: f64| v.max(0.0).round() as u64;
    let intervals = wins
        .iter()
        .zip(&draws)
        .zip(&losses)
        .map(|((&(x, w), &(_, d)), &(_, l))| {
            let (lo, hi) = trinomial_score_interval(count(w), count(d), count(l));
            (x, lo, hi)
        })
        .collect();
    let panels = [
        Panel {
            y_desc: format!("score vs {opponent}"),
            y_range: Some((0.0, 1.0)),
            reference: Some(0.5),
            series: vec![Series {
                label: format!("{games} games per point, 95% interval (games taken as independent)"),
                points: metrics.points("eval/score"),
                intervals,
            }],
            ..Panel::default()
        },
        Panel {
            y_desc: "TD error (mean |delta|)".into(),
            series: vec![metrics.series("td/error", "td/error")],
            ..Panel::default()
        },
        Panel {
            y_desc: "share of self-play games".into(),
            y_range: Some((0.0, 1.0)),
            series: vec![metrics.series("selfplay/draws", "draws"), metrics.series("selfplay/red_wins", "Red wins")],
            ..Panel::default()
        },
    ];
    let title = format!("stratego ntuple train: {}", root.display());
    Ok(Some(write_curves(root, &title, "self-play games", &panels)?))
}
