//! The lab's network: a burn transformer over the engine's observation
//! planes with policy, value and belief heads; device selection; batched
//! inference; safetensors checkpoints. See docs/MODEL.md. The network as a
//! player (`net:PATH`) is the netplayer crate: this one depends on the
//! engine's shapes and burn only.

pub mod checkpoint;
pub mod config;
pub mod device;
mod encoder;
pub mod error;
pub mod inference;
pub mod inputs;
pub mod kernels;
pub mod loss;
pub mod network;
pub mod tokens;

pub use checkpoint::{load, load_bytes, read_meta, save, to_bytes, CheckpointMeta};
pub use config::{ModelConfig, PRESETS};
pub use device::device;
pub use error::ModelError;
pub use inference::{choose_action, infer, Inference};
pub use inputs::{input_tensors, Observed};
pub use loss::{belief_cross_entropy, belief_fit, loss_terms, value_cross_entropy, BeliefFit, LossTerms};
pub use network::{NetOutput, StrategoNet, DRAW, LOSS, MASKED_LOGIT, WIN};

pub use burn::tensor::Device;
pub mod speed;
