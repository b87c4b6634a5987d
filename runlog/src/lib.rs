//! What a training run leaves on disk, shared by every trainer (the n-tuple
//! TD learner and the network learner): TensorBoard event files, a
//! `metrics.jsonl` log, atomic file writes, checkpoint rotation, and the run
//! directory itself (created once with its resolved config, reopened to
//! resume).
//!
//! Everything here is append-only or atomic, because a run can be killed at
//! any instant and must resume from what it left: a crash never leaves a
//! half-written file under its real name, and nothing already written is
//! rewritten.

mod files;
mod lock;
mod metrics;
mod progress;
mod run_dir;
mod tensorboard;

pub use files::{atomic_write, checkpoint_name, checkpoints, open_own_file, prune_checkpoints, Checkpoint};
pub use lock::{DirLock, LOCK_FILE};
pub use metrics::{read_metrics, MetricsLog, Unreadable, MAX_METRICS_BYTES, MAX_METRICS_LINE};
pub use progress::{Progress, PROGRESS_SECONDS_ENV};
pub use run_dir::{RunDir, CONFIG_FILE};
pub use tensorboard::{read_images, read_scalars, Scalar, TensorBoard};

/// What can go wrong with a run directory.
#[derive(Debug, thiserror::Error)]
pub enum RunLogError {
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("TensorBoard event file {path}: {message}")]
    Events { path: String, message: String },
    /// A directory that cannot start or resume a run (taken, or no run).
    #[error("{path}: {message}")]
    RunDir { path: String, message: String },
    /// Another process writes in the directory.
    #[error("{path} {message}")]
    Locked { path: String, message: String },
    /// A file of the run that is not one the run could have written: a
    /// symbolic link (never followed), something other than a regular
    /// file, or one past its size bound.
    #[error("{path} {message}")]
    NotOwnFile { path: String, message: String },
}

impl RunLogError {
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> RunLogError {
        RunLogError::Io { path: path.display().to_string(), source }
    }
}
