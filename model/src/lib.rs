//! The lab's network: a burn transformer over the engine's observation
//! planes with policy, value and belief heads; device selection; batched
//! inference; safetensors checkpoints. See docs/MODEL.md.

pub mod checkpoint;
pub mod config;
pub mod device;
pub mod error;
pub mod inference;
pub mod loss;
pub mod network;
pub mod tokens;

pub use checkpoint::{load, read_meta, save, CheckpointMeta};
pub use config::{ModelConfig, PRESETS};
pub use device::device;
pub use error::ModelError;
pub use inference::{choose_action, infer, Inference};
pub use network::{NetOutput, StrategoNet, MASKED_LOGIT};

pub use burn::tensor::Device;
pub mod speed;
