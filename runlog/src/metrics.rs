//! `metrics.jsonl`: one JSON object per logged step, appended and flushed,
//! for people who would rather read numbers with jq or pandas than open
//! TensorBoard.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde_json::{Map, Number, Value};

use crate::{open_own_file, RunLogError};

/// The longest line read from a log, in bytes (with its newline). The
/// lines a run writes are a few hundred bytes; a longer one is not one of
/// them, and is skipped without being held in memory.
pub const MAX_METRICS_LINE: usize = 1 << 20;

/// The largest log read back whole (for the curves): 1 GiB, a thousand
/// times a long run's log. A log past it is refused with one line rather
/// than read into memory.
pub const MAX_METRICS_BYTES: u64 = 1 << 30;

pub struct MetricsLog {
    path: PathBuf,
    file: File,
    torn: Option<usize>,
    unreadable: Option<Unreadable>,
}

/// The lines of a log that are not metrics lines (see
/// [`MetricsLog::unreadable`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreadable {
    /// How many lines.
    pub lines: usize,
    /// The first of them (1-based) and why it is not a metrics line.
    pub first: usize,
    pub why: String,
}

impl MetricsLog {
    /// Opens `path` for appending (creating it), so a resumed run continues
    /// the same log; earlier lines are never rewritten. A last line without
    /// its newline is what a kill mid-write leaves: it is cut off first
    /// (see [`MetricsLog::torn`]), or the next line would be glued to it
    /// and every later read of the log would fail. Other lines that are not
    /// metrics lines are left in place and counted (see
    /// [`MetricsLog::unreadable`]); readers skip them. The log is the run's
    /// own file: a symbolic link or a non-regular file in its place is
    /// refused, never followed or truncated.
    pub fn append(path: &Path) -> Result<MetricsLog, RunLogError> {
        let mut file = open_own_file(path, OpenOptions::new().read(true).create(true).append(true))?;
        let torn = cut_torn_line(path, &mut file)?;
        let unreadable = scan(path, &mut file)?;
        Ok(MetricsLog { path: path.to_path_buf(), file, torn, unreadable })
    }

    /// The bytes of a torn last line cut off when the log was opened.
    pub fn torn(&self) -> Option<usize> {
        self.torn
    }

    /// The lines found unreadable when the log was opened (a line that is
    /// not a JSON object with an integer `step`, or past
    /// [`MAX_METRICS_LINE`]): kept, so nothing written is lost, and
    /// skipped by [`read_metrics`].
    pub fn unreadable(&self) -> Option<&Unreadable> {
        self.unreadable.as_ref()
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

/// Truncates the log after its last newline when it ends inside a line;
/// returns how many bytes went. Only the tail is read, backwards, so a log
/// of any length costs a few kilobytes of memory.
fn cut_torn_line(path: &Path, file: &mut File) -> Result<Option<usize>, RunLogError> {
    let io = |e| RunLogError::io(path, e);
    let len = file.metadata().map_err(io)?.len();
    let mut end = len;
    let mut chunk = vec![0u8; 64 * 1024];
    let keep = loop {
        if end == 0 {
            break 0;
        }
        let start = end.saturating_sub(chunk.len() as u64);
        let part = &mut chunk[..(end - start) as usize];
        file.seek(SeekFrom::Start(start)).and_then(|_| file.read_exact(part)).map_err(io)?;
        if end == len && part.last() == Some(&b'\n') {
            return Ok(None);
        }
        if let Some(i) = part.iter().rposition(|&b| b == b'\n') {
            break start + i as u64 + 1;
        }
        end = start;
    };
    if keep == len {
        return Ok(None);
    }
    file.set_len(keep).and_then(|()| file.sync_all()).map_err(io)?;
    Ok(Some((len - keep) as usize))
}

/// Calls `each` with every line of the log (1-based number, and its text or
/// why it cannot be read), streaming:
/// a line past [`MAX_METRICS_LINE`] is skipped, not held.
fn for_each_line(
    path: &Path,
    file: &mut File,
    mut each: impl FnMut(usize, Result<&str, String>),
) -> Result<(), RunLogError> {
    let io = |e| RunLogError::io(path, e);
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    let mut number = 0;
    loop {
        line.clear();
        let read = (&mut reader).take(MAX_METRICS_LINE as u64).read_until(b'\n', &mut line).map_err(io)?;
        if read == 0 {
            return Ok(());
        }
        number += 1;
        if line.last() != Some(&b'\n') && read == MAX_METRICS_LINE {
            // Skip the rest of the over-long line without keeping it.
            let mut ended = false;
            while !ended {
                let buf = reader.fill_buf().map_err(io)?;
                if buf.is_empty() {
                    break;
                }
                let (used, found) = buf.iter().position(|&b| b == b'\n').map_or((buf.len(), false), |i| (i + 1, true));
                reader.consume(used);
                ended = found;
            }
            each(number, Err(format!("longer than {MAX_METRICS_LINE} bytes")));
            continue;
        }
        each(number, std::str::from_utf8(&line).map_err(|_| "not UTF-8".to_string()));
    }
}

/// A metrics line: its object and its step.
type Line = (Map<String, Value>, u64);

/// A metrics line, or why the line is not one. Blank lines are `Ok(None)`.
fn parse_line(text: Result<&str, String>) -> Result<Option<Line>, String> {
    let text = text?;
    if text.trim().is_empty() {
        return Ok(None);
    }
    let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let Value::Object(object) = value else { return Err("not a JSON object".into()) };
    let step = object.get("step").and_then(Value::as_u64).ok_or("no integer `step`")?;
    Ok(Some((object, step)))
}

/// The log's unreadable lines, counted once when it is opened.
fn scan(path: &Path, file: &mut File) -> Result<Option<Unreadable>, RunLogError> {
    let mut found: Option<Unreadable> = None;
    for_each_line(path, file, |number, text| {
        if let Err(why) = parse_line(text) {
            match &mut found {
                Some(found) => found.lines += 1,
                None => found = Some(Unreadable { lines: 1, first: number, why }),
            }
        }
    })?;
    Ok(found)
}

/// Each metric's points `(step, value)` in the order they were logged, as
/// the run that survived saw them: a `resumed` event at step S drops the
/// points that the killed run logged after S (its checkpoint), like
/// TensorBoard's SessionLog START. Null values are skipped, and so are
/// lines that are not metrics lines (a torn last line, a line damaged by
/// hand or by a disk): one bad line costs its own points, not the whole
/// log's (a run says how many such lines it found when it reopens its log,
/// [`MetricsLog::unreadable`]). The log is read as a stream, and only as
/// the run's own regular file of at most [`MAX_METRICS_BYTES`]; anything
/// else is one error.
pub fn read_metrics(path: &Path) -> Result<BTreeMap<String, Vec<(u64, f64)>>, RunLogError> {
    let mut file = open_own_file(path, OpenOptions::new().read(true))?;
    let len = file.metadata().map_err(|e| RunLogError::io(path, e))?.len();
    if len > MAX_METRICS_BYTES {
        return Err(RunLogError::NotOwnFile {
            path: path.display().to_string(),
            message: format!("holds {len} bytes, past the {MAX_METRICS_BYTES} bytes a metrics log is read up to"),
        });
    }
    let mut series: BTreeMap<String, Vec<(u64, f64)>> = BTreeMap::new();
    for_each_line(path, &mut file, |_, text| {
        let Ok(Some((object, step))) = parse_line(text) else { return };
        if object.get("event").and_then(Value::as_str) == Some("resumed") {
            for points in series.values_mut() {
                points.retain(|&(s, _)| s <= step);
            }
            return;
        }
        for (name, v) in object {
            if let (false, Some(v)) = (name == "step", v.as_f64()) {
                series.entry(name).or_default().push((step, v));
            }
        }
    })?;
    Ok(series)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_append_and_non_finite_values_become_null() {
        let path = stratego_testkit::scratch_path("runlog-metrics.jsonl");
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
        let path = stratego_testkit::scratch_path("runlog-torn.jsonl");
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
        let path = stratego_testkit::scratch_path("runlog-read.jsonl");
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
        std::fs::remove_file(&path).unwrap();
    }

    /// A damaged line in the middle of the log (by hand, by a disk) used to
    /// fail every later read, and with it every resumed run's curves: it is
    /// counted once when the log is reopened and skipped by readers, and
    /// stays in the file.
    #[test]
    fn a_bad_line_in_the_middle_is_counted_kept_and_skipped() {
        let path = stratego_testkit::scratch_path("runlog-bad-line.jsonl");
        let long = format!("{{\"step\": 3, \"loss\": \"{}\"}}\n", "x".repeat(MAX_METRICS_LINE + 10));
        let text = format!("{{\"step\": 1, \"loss\": 1}}\nnot json\n[1]\n{long}\u{0}\n{{\"step\": 2, \"loss\": 2}}\n");
        std::fs::write(&path, &text).unwrap();
        let mut log = MetricsLog::append(&path).unwrap();
        assert_eq!(log.torn(), None);
        let bad = log.unreadable().unwrap().clone();
        assert_eq!((bad.lines, bad.first), (4, 2), "{bad:?}");
        log.write(4, &[("loss", 4.0)]).unwrap();
        drop(log);
        assert_eq!(read_metrics(&path).unwrap()["loss"], vec![(1, 1.0), (2, 2.0), (4, 4.0)]);
        assert!(std::fs::read_to_string(&path).unwrap().starts_with(&text), "nothing written is lost");
        std::fs::remove_file(&path).unwrap();
    }

    /// The log is the run's own file: a symbolic link in its place is
    /// refused, and its target is neither truncated nor appended to; a
    /// device (`/dev/zero`, which never ends) is refused before a byte is
    /// read.
    #[cfg(unix)]
    #[test]
    fn a_log_that_is_a_link_or_a_device_is_refused_and_left_alone() {
        let dir = stratego_testkit::scratch_dir("runlog-metrics-link");
        let target = stratego_testkit::planted_link(&dir, "metrics.jsonl", "precious, no newline");
        let link = dir.join("metrics.jsonl");
        for err in [MetricsLog::append(&link).map(drop), read_metrics(&link).map(drop)] {
            let err = err.unwrap_err().to_string();
            assert!(err.contains("is a symbolic link") && !err.contains('\n'), "{err}");
        }
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious, no newline");
        std::fs::remove_file(&link).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(read_metrics(&link).unwrap_err().to_string().contains("is a symbolic link"));
        for device in ["/dev/zero", "/dev/null"] {
            let err = read_metrics(Path::new(device)).unwrap_err().to_string();
            assert!(err.contains("is not a regular file"), "{err}");
            let err = MetricsLog::append(Path::new(device)).map(drop).unwrap_err().to_string();
            assert!(err.contains("is not a regular file"), "{err}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
