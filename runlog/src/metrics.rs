//! `metrics.jsonl`: one JSON object per logged step, appended and flushed,
//! for people who would rather read numbers with jq or pandas than open
//! TensorBoard.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Number, Value};

use crate::RunLogError;

pub struct MetricsLog {
    path: PathBuf,
    file: File,
    torn: Option<usize>,
}

impl MetricsLog {
    /// Opens `path` for appending (creating it), so a resumed run continues
    /// the same log; earlier lines are never rewritten. A last line without
    /// its newline is what a kill mid-write leaves: it is cut off first
    /// (see [`MetricsLog::torn`]), or the next line would be glued to it
    /// and every later read of the log would fail.
    pub fn append(path: &Path) -> Result<MetricsLog, RunLogError> {
        let torn = cut_torn_line(path)?;
        let file = OpenOptions::new().create(true).append(true).open(path).map_err(|e| RunLogError::io(path, e))?;
        Ok(MetricsLog { path: path.to_path_buf(), file, torn })
    }

    /// The bytes of a torn last line cut off when the log was opened.
    pub fn torn(&self) -> Option<usize> {
        self.torn
    }

    /// One line `{"step": S, "name": value, ...}`. JSON has no NaN or
    /// infinity: such a value is written as `null`, which a reader sees as
    /// missing rather than as a number.
    pub fn write(&mut self, step: u64, values: &[(&str, f64)]) -> Result<(), RunLogError> {
        let mut object = Map::new();
        object.insert("step".into(), Value::from(step));
        for &(name, value) in values {
            object.insert(name.into(), Number::from_f64(value).map_or(Value::Null, Value::Number));
        }
        self.line(&Value::Object(object))
    }

    /// An event line such as `{"event": "resumed", "step": 40}`.
    pub fn event(&mut self, event: &str, step: u64) -> Result<(), RunLogError> {
        self.line(&serde_json::json!({ "event": event, "step": step }))
    }

    fn line(&mut self, value: &Value) -> Result<(), RunLogError> {
        let mut text = value.to_string();
        text.push('\n');
        self.file.write_all(text.as_bytes()).and_then(|_| self.file.flush()).map_err(|e| RunLogError::io(&self.path, e))
    }
}

/// Truncates `path` after its last newline when it ends inside a line;
/// returns how many bytes went.
fn cut_torn_line(path: &Path) -> Result<Option<usize>, RunLogError> {
    let text = match std::fs::read(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(RunLogError::io(path, e)),
    };
    if text.last().is_none_or(|&b| b == b'\n') {
        return Ok(None);
    }
    let keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let file = OpenOptions::new().write(true).open(path).map_err(|e| RunLogError::io(path, e))?;
    file.set_len(keep as u64).and_then(|()| file.sync_all()).map_err(|e| RunLogError::io(path, e))?;
    Ok(Some(text.len() - keep))
}

/// Each metric's points `(step, value)` in the order they were logged, as
/// the run that survived saw them: a `resumed` event at step S drops the
/// points that the killed run logged after S (its checkpoint), like
/// TensorBoard's SessionLog START. Null values and a torn last line (a kill
/// mid-write) are skipped; any other unreadable line is an error.
pub fn read_metrics(path: &Path) -> Result<BTreeMap<String, Vec<(u64, f64)>>, RunLogError> {
    let text = std::fs::read_to_string(path).map_err(|e| RunLogError::io(path, e))?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut series: BTreeMap<String, Vec<(u64, f64)>> = BTreeMap::new();
    for (i, line) in lines.iter().enumerate() {
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(_) if i + 1 == lines.len() && !text.ends_with('\n') => break,
            Err(e) => {
                return Err(RunLogError::Metrics {
                    path: path.display().to_string(),
                    line: i + 1,
                    message: e.to_string(),
                })
            }
        };
        let bad = |message: &str| RunLogError::Metrics {
            path: path.display().to_string(),
            line: i + 1,
            message: message.to_string(),
        };
        let object = value.as_object().ok_or_else(|| bad("not a JSON object"))?;
        let step = object.get("step").and_then(Value::as_u64).ok_or_else(|| bad("no integer `step`"))?;
        if object.get("event").and_then(Value::as_str) == Some("resumed") {
            for points in series.values_mut() {
                points.retain(|&(s, _)| s <= step);
            }
            continue;
        }
        for (name, v) in object {
            if let (false, Some(v)) = (name == "step", v.as_f64()) {
                series.entry(name.clone()).or_default().push((step, v));
            }
        }
    }
    Ok(series)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_append_and_non_finite_values_become_null() {
        let path = std::env::temp_dir().join(format!("runlog-metrics-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&path);
        MetricsLog::append(&path).unwrap().write(1, &[("loss", 0.5), ("bad", f64::NAN)]).unwrap();
        let mut log = MetricsLog::append(&path).unwrap();
        log.event("resumed", 1).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["loss"], 0.5);
        assert!(lines[0]["bad"].is_null());
        assert_eq!(lines[1]["event"], "resumed");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_torn_last_line_is_cut_off_when_the_log_is_reopened() {
        let path = std::env::temp_dir().join(format!("runlog-torn-{}.jsonl", std::process::id()));
        std::fs::write(&path, "{\"step\":1,\"loss\":0.5}\n{\"step\":2,\"lo").unwrap();
        let mut log = MetricsLog::append(&path).unwrap();
        assert_eq!(log.torn(), Some(13));
        log.event("resumed", 1).unwrap();
        let series = read_metrics(&path).unwrap();
        assert_eq!(series["loss"], vec![(1, 0.5)]);
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 2);
        assert_eq!(MetricsLog::append(&path).unwrap().torn(), None, "a whole log is left alone");
        std::fs::write(&path, "{\"step\":1").unwrap();
        assert_eq!(MetricsLog::append(&path).unwrap().torn(), Some(9));
        assert_eq!(std::fs::read(&path).unwrap(), b"");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn reading_drops_what_a_killed_run_logged_after_its_checkpoint() {
        let path = std::env::temp_dir().join(format!("runlog-read-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let mut log = MetricsLog::append(&path).unwrap();
        for step in 1..=5 {
            log.write(step, &[("loss", step as f64), ("bad", f64::NAN)]).unwrap();
        }
        log.event("resumed", 3).unwrap();
        log.write(4, &[("loss", 40.0)]).unwrap();
        drop(log);
        // A kill in the middle of a line leaves it torn: skipped.
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"{\"step\": 5, \"lo").unwrap();
        let series = read_metrics(&path).unwrap();
        assert_eq!(series["loss"], vec![(1, 1.0), (2, 2.0), (3, 3.0), (4, 40.0)]);
        assert!(!series.contains_key("bad"));
        std::fs::write(&path, "{\"step\": 1}\nnot json\n{\"step\": 2}\n").unwrap();
        let err = read_metrics(&path).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        std::fs::remove_file(&path).unwrap();
    }
}
