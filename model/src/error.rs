//! Errors of the model crate.

#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ModelError {
    #[error("model config: {0}")]
    Config(String),
    #[error("device: {0}")]
    Device(String),
    #[error("checkpoint {path}: {why}")]
    Checkpoint { path: String, why: String },
    #[error("input: {0}")]
    Input(String),
}
