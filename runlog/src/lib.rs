//! What a training run leaves on disk, shared by every trainer (the n-tuple
//! TD learner and the network learner): TensorBoard event files, a
//! `metrics.jsonl` log, atomic file writes and checkpoint rotation.
//!
//! Everything here is append-only or atomic, because a run can be killed at
//! any instant and must resume from what it left: a crash never leaves a
//! half-written file under its real name, and nothing already written is
//! rewritten.

mod files;
mod metrics;
mod tensorboard;

pub use files::{atomic_write, checkpoint_name, checkpoints, prune_checkpoints, Checkpoint};
pub use metrics::{read_metrics, MetricsLog};
pub use tensorboard::{read_scalars, Scalar, TensorBoard};

/// What can go wrong with a run directory.
#[derive(Debug, thiserror::Error)]
pub enum RunLogError {
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path}, line {line}: {message}")]
    Metrics { path: String, line: usize, message: String },
    #[error("TensorBoard event file {path}: {message}")]
    Events { path: String, message: String },
}

impl RunLogError {
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> RunLogError {
        RunLogError::Io { path: path.display().to_string(), source }
    }
}
