//! `metrics.jsonl`: one JSON object per logged step, appended and flushed,
//! for people who would rather read numbers with jq or pandas than open
//! TensorBoard.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Number, Value};

use crate::RunLogError;

pub struct MetricsLog {
    path: PathBuf,
    file: File,
}

impl MetricsLog {
    /// Opens `path` for appending (creating it), so a resumed run continues
    /// the same log; earlier lines are never rewritten.
    pub fn append(path: &Path) -> Result<MetricsLog, RunLogError> {
        let file = OpenOptions::new().create(true).append(true).open(path).map_err(|e| RunLogError::io(path, e))?;
        Ok(MetricsLog { path: path.to_path_buf(), file })
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
}
