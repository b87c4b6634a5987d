//! What stops training: one enum for the learner, typed where a caller acts
//! on the error (a config key to fix, a ruleset that does not match, a run's
//! config that changed), wrapping the lower crates' own typed errors.

use std::fmt;
use std::path::PathBuf;

/// What stops training.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// A config key whose value cannot be used; `key` is the dotted path
    /// as written in the file (`selfplay.opponents`), `file` the config
    /// file when the config came from one.
    #[error("config {}`{key}`: {why}", InFile(file))]
    Config { file: Option<PathBuf>, key: String, why: String },
    /// A config that cannot be used as a whole: a file that cannot be
    /// read, text that is not TOML of the right shape (the text says where),
    /// a run too large for the machine, or a call that names no config.
    #[error("config {}{why}", InFile(file))]
    ConfigText { file: Option<PathBuf>, why: String },
    /// A player or network of the config was made for another ruleset than
    /// the run's (`key` names where the config asks for it).
    #[error("config `{key}`: {why}")]
    RulesMismatch { key: String, why: String },
    /// A run directory's config no longer resolves to the one its checkpoint
    /// was written under: resuming would continue another experiment.
    #[error(
        "config {} resolves to another config than checkpoint {} was written under: `{key}` differs ({remedy})",
        config.display(),
        checkpoint.display()
    )]
    ConfigChanged { config: PathBuf, checkpoint: PathBuf, key: String, remedy: &'static str },
    #[error("run directory: {0}")]
    Run(String),
    #[error("engine: {0}")]
    Engine(#[from] stratego_engine::Error),
    #[error("network: {0}")]
    Model(#[from] stratego_model::ModelError),
    #[error("self-play: {0}")]
    SelfPlay(#[from] stratego_selfplay::SelfPlayError),
    #[error("log: {0}")]
    Log(#[from] stratego_runlog::RunLogError),
    #[error("training data: {0}")]
    Data(String),
    /// A non-finite loss, gradient or value: the run stops and keeps its
    /// last good checkpoint.
    #[error("{0}")]
    Diverged(String),
}

impl TrainError {
    /// A config key's error.
    pub fn config(key: &str, why: impl fmt::Display) -> TrainError {
        TrainError::Config { file: None, key: key.to_string(), why: why.to_string() }
    }

    /// A config's error as a whole.
    pub fn config_text(why: impl fmt::Display) -> TrainError {
        TrainError::ConfigText { file: None, why: why.to_string() }
    }

    /// The same error, saying which file the config came from.
    pub fn in_file(self, path: &std::path::Path) -> TrainError {
        match self {
            TrainError::Config { key, why, .. } => TrainError::Config { file: Some(path.to_path_buf()), key, why },
            TrainError::ConfigText { why, .. } => TrainError::ConfigText { file: Some(path.to_path_buf()), why },
            other => other,
        }
    }
}

/// `PATH: ` before a config error, when the config came from a file.
struct InFile<'a>(&'a Option<PathBuf>);

impl fmt::Display for InFile<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(path) => write!(f, "{}: ", path.display()),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_errors_read_as_one_line_naming_the_file_and_the_key() {
        let e = TrainError::config("selfplay.opponents", "unknown player `foo`");
        assert_eq!(e.to_string(), "config `selfplay.opponents`: unknown player `foo`");
        let e = e.in_file(std::path::Path::new("cpu.toml"));
        assert_eq!(e.to_string(), "config cpu.toml: `selfplay.opponents`: unknown player `foo`");
        assert!(matches!(e, TrainError::Config { ref key, .. } if key == "selfplay.opponents"));
        let e = TrainError::config_text("cannot read x.toml: not found");
        assert_eq!(e.to_string(), "config cannot read x.toml: not found");
    }
}
