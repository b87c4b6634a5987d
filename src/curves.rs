//! `curves.png` of a run directory: the run's `metrics.jsonl` drawn as
//! panels of lines over its steps, for both trainers (`stratego train` and
//! `stratego ntuple train`). Redrawn from the log each time, so a resumed
//! run's picture has its whole history (without what a killed run logged
//! after its checkpoint).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use stratego_evaluation::chart::{draw_curves, Panel, Series};
use stratego_runlog::read_metrics;

use crate::CliError;

/// A run's logged metrics by name.
pub struct Metrics(BTreeMap<String, Vec<(u64, f64)>>);

impl Metrics {
    pub fn read(dir: &Path) -> Result<Metrics, CliError> {
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

    /// A line of the metric `name`, labelled `label`.
    pub fn series(&self, name: &str, label: &str) -> Series {
        Series { label: label.into(), points: self.points(name), ..Series::default() }
    }
}

/// Draws `panels` into `dir/curves.png`: beside it first, then renamed, so a
/// kill never leaves half a picture under the real name.
pub fn write_curves(dir: &Path, title: &str, x_desc: &str, panels: &[Panel]) -> Result<PathBuf, CliError> {
    let path = dir.join("curves.png");
    let partial = dir.join("curves.partial.png");
    draw_curves(&partial, title, x_desc, panels).map_err(|e| e.to_string())?;
    std::fs::rename(&partial, &path).map_err(|e| format!("cannot rename {}: {e}", partial.display()))?;
    Ok(path)
}
