//! Progress of long work (games of a match, iterations of a run): a bar on a
//! terminal, and one plain line at a steady rate when stderr is a log file or
//! a pipe, as on a GPU box under `nohup`. indicatif draws nothing when stderr
//! is not a terminal, which left a log silent for the whole of a run.
//!
//! The rate of the log lines is `STRATEGO_PROGRESS_SECONDS` (default 30 s);
//! the lines come from a ticker thread, so a slow step (a long iteration, a
//! game against a searching player) still shows that the work is alive.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The environment variable that sets the seconds between log lines.
pub const PROGRESS_SECONDS_ENV: &str = "STRATEGO_PROGRESS_SECONDS";
const DEFAULT_SECONDS: f64 = 30.0;

/// Progress towards `len` units of work, named `label` (e.g. `teacher games`).
pub struct Progress {
    bar: ProgressBar,
    shared: Arc<Shared>,
    ticker: Mutex<Option<(Sender<()>, JoinHandle<()>)>>,
}

struct Shared {
    label: String,
    unit: String,
    len: u64,
    position: AtomicU64,
    /// The position when this run of the work started (a resumed run does
    /// not count the earlier run's work in its rate).
    start: AtomicU64,
    message: Mutex<String>,
    started: Instant,
    /// When the work ends whatever its position (a run's time budget).
    deadline: OnceLock<Instant>,
}

impl Progress {
    /// A bar on stderr when it is a terminal, else log lines at a steady
    /// rate; nothing at all when `shown` is false.
    pub fn new(label: &str, unit: &str, len: u64, shown: bool) -> Progress {
        let shared = Arc::new(Shared {
            label: label.to_string(),
            unit: unit.to_string(),
            len,
            position: AtomicU64::new(0),
            start: AtomicU64::new(0),
            message: Mutex::new(String::new()),
            started: Instant::now(),
            deadline: OnceLock::new(),
        });
        let terminal = std::io::stderr().is_terminal();
        let bar = if shown && terminal {
            let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
            let template = format!("{{elapsed_precise}} {label} [{{bar:30}}] {{pos}}/{{len}} {unit}  {{msg}}");
            // The label and unit are ours (no braces), so the template is valid.
            if let Ok(style) = ProgressStyle::with_template(&template) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar
        } else {
            ProgressBar::hidden()
        };
        let ticker = (shown && !terminal).then(|| {
            let (stop, stopped) = channel::<()>();
            let every = interval();
            let shared = Arc::clone(&shared);
            let handle = std::thread::spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                    let _ = writeln!(std::io::stderr().lock(), "{}", shared.line());
                }
            });
            (stop, handle)
        });
        Progress { bar, shared, ticker: Mutex::new(ticker) }
    }

    /// Starts at `position` (a resumed run's work so far).
    pub fn resume_at(self, position: u64) -> Progress {
        self.shared.start.store(position, Ordering::Relaxed);
        self.set_position(position);
        self
    }

    /// The work ends `seconds` from now at the latest (a run's wall-clock
    /// budget): the time left is the sooner of that and the rate's guess.
    pub fn ends_within(self, seconds: Option<f64>) -> Progress {
        if let Some(s) = seconds.filter(|s| s.is_finite()) {
            let _ = self.shared.deadline.set(Instant::now() + Duration::from_secs_f64(s.clamp(0.0, 1e9)));
        }
        self
    }

    pub fn inc(&self, n: u64) {
        self.shared.position.fetch_add(n, Ordering::Relaxed);
        self.bar.inc(n);
    }

    pub fn set_position(&self, position: u64) {
        self.shared.position.store(position, Ordering::Relaxed);
        self.bar.set_position(position);
    }

    pub fn set_message(&self, message: impl Into<String>) {
        let message = message.into();
        self.bar.set_message(message.clone());
        if let Ok(mut m) = self.shared.message.lock() {
            *m = message;
        }
    }

    /// Ends the bar (left on a terminal) and the log lines.
    pub fn finish(&self) {
        self.bar.finish();
        self.stop_ticker();
    }

    /// Ends the bar, erasing it (what follows reports the result), and the
    /// log lines.
    pub fn finish_and_clear(&self) {
        self.bar.finish_and_clear();
        self.stop_ticker();
    }

    fn stop_ticker(&self) {
        let ticker = self.ticker.lock().ok().and_then(|mut t| t.take());
        if let Some((stop, handle)) = ticker {
            drop(stop);
            let _ = handle.join();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop_ticker();
    }
}

impl Shared {
    /// `label: 12/40 games (30 %), 2m05s, about 5m33s left; <message>`.
    fn line(&self) -> String {
        let position = self.position.load(Ordering::Relaxed);
        let elapsed = self.started.elapsed().as_secs_f64();
        let mut line = format!("{}: {position}/{} {}", self.label, self.len, self.unit);
        if self.len > 0 {
            line.push_str(&format!(" ({:.0} %)", 100.0 * position as f64 / self.len as f64));
        }
        line.push_str(&format!(", {} elapsed", duration(elapsed)));
        let done = position.saturating_sub(self.start.load(Ordering::Relaxed));
        let by_rate = (done > 0 && position < self.len).then(|| elapsed / done as f64 * (self.len - position) as f64);
        let by_deadline = self.deadline.get().map(|d| d.saturating_duration_since(Instant::now()).as_secs_f64());
        match (by_rate, by_deadline) {
            (Some(rate), Some(budget)) if budget < rate => {
                line.push_str(&format!(", about {} left (the time budget)", duration(budget)))
            }
            (Some(left), _) => line.push_str(&format!(", about {} left", duration(left))),
            (None, Some(budget)) if position < self.len => {
                line.push_str(&format!(", at most {} left (the time budget)", duration(budget)))
            }
            _ => {}
        }
        if let Ok(message) = self.message.lock() {
            if !message.is_empty() {
                line.push_str("; ");
                line.push_str(&message);
            }
        }
        line
    }
}

fn interval() -> Duration {
    let seconds = std::env::var(PROGRESS_SECONDS_ENV)
        .ok()
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.05 && *s <= 86_400.0)
        .unwrap_or(DEFAULT_SECONDS);
    Duration::from_secs_f64(seconds)
}

/// `1h02m03s`, `2m05s`, `7s`.
fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, s) => format!("{h}h{m:02}m{s:02}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_line_says_where_the_work_stands() {
        let shared = Shared {
            label: "arena".into(),
            unit: "games".into(),
            len: 40,
            position: AtomicU64::new(10),
            start: AtomicU64::new(0),
            message: Mutex::new("A score 0.600".into()),
            started: Instant::now(),
            deadline: OnceLock::new(),
        };
        let line = shared.line();
        assert!(line.starts_with("arena: 10/40 games (25 %), "), "{line}");
        assert!(line.contains(" left; A score 0.600"), "{line}");
        // A resumed run that has done nothing yet has no rate to guess from.
        shared.start.store(10, Ordering::Relaxed);
        assert!(!shared.line().contains("left"), "{}", shared.line());
    }

    /// A run under a time budget (`run.max_minutes`) with a high iteration
    /// ceiling ends at the budget: the line says so instead of the hours the
    /// ceiling would take at the current rate.
    #[test]
    fn a_time_budget_bounds_the_time_left() {
        let progress = Progress::new("train", "iterations", 10_000, false).ends_within(Some(10.0));
        let shared = &progress.shared;
        assert!(shared.line().contains(", at most 10s left (the time budget)"), "{}", shared.line());
        shared.position.store(5, Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(20));
        // 5 iterations in 20 ms or more: the ceiling is 40 s or more away,
        // the budget under 10 s.
        assert!(shared.line().contains("left (the time budget)"), "{}", shared.line());
        let unbounded = Progress::new("train", "iterations", 10_000, false).ends_within(None);
        unbounded.shared.position.store(9_999, Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(5));
        assert!(!unbounded.shared.line().contains("budget"), "{}", unbounded.shared.line());
    }

    #[test]
    fn durations_read_as_hours_minutes_seconds() {
        assert_eq!(duration(7.4), "7s");
        assert_eq!(duration(125.0), "2m05s");
        assert_eq!(duration(3723.0), "1h02m03s");
    }
}
