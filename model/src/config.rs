//! Network sizes, as a serde config with named presets.

use serde::{Deserialize, Serialize};

use crate::error::ModelError;

/// The sizes of the transformer. Stored in every checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// Width of every token.
    pub d_model: usize,
    /// Encoder blocks.
    pub layers: usize,
    /// Attention heads per block (must divide `d_model`).
    pub heads: usize,
    /// Hidden width of each block's feed-forward network.
    pub ffn: usize,
    /// Dropout on the residual branches (training only).
    pub dropout: f64,
}

/// The named presets.
pub const PRESETS: [&str; 3] = ["tiny", "small", "ataraxos"];

impl ModelConfig {
    /// `tiny` trains in seconds on a CPU (CI); `small` is a laptop-sized
    /// network; `ataraxos` is the reference system's move network
    /// (8 layers, width 384, 8 heads, FFN 1536) for GPU runs.
    pub fn preset(name: &str) -> Result<ModelConfig, ModelError> {
        let (d_model, layers, heads, ffn) = match name {
            "tiny" => (32, 2, 2, 64),
            "small" => (128, 4, 4, 512),
            "ataraxos" => (384, 8, 8, 1536),
            other => {
                return Err(ModelError::Config(format!(
                    "unknown model preset `{other}` (expected one of {})",
                    PRESETS.join(", ")
                )))
            }
        };
        Ok(ModelConfig { d_model, layers, heads, ffn, dropout: 0.0 })
    }

    pub fn validate(&self) -> Result<(), ModelError> {
        let bad = |msg: String| Err(ModelError::Config(msg));
        if self.d_model == 0 || self.layers == 0 || self.heads == 0 || self.ffn == 0 {
            return bad(format!("every size must be positive: {self:?}"));
        }
        if !self.d_model.is_multiple_of(self.heads) {
            return bad(format!("d_model {} is not divisible by heads {}", self.d_model, self.heads));
        }
        if !(0.0..1.0).contains(&self.dropout) {
            return bad(format!("dropout {} is not in [0, 1)", self.dropout));
        }
        Ok(())
    }

    /// Parameters of the network for `channels` input planes, counted from
    /// the architecture (a test checks it against the built module).
    pub fn parameter_count(&self, channels: usize) -> usize {
        let d = self.d_model;
        let linear = |i: usize, o: usize| i * o + o;
        let layer_norm = 2 * d;
        let block = 4 * linear(d, d) + linear(d, self.ffn) + linear(self.ffn, d) + 2 * layer_norm;
        linear(channels, d)
            + crate::tokens::SQUARE_TOKENS * d // position embeddings
            + d // value token
            + self.layers * block
            + layer_norm // final norm
            + 2 * linear(d, d) // policy query and key
            + linear(d, 3) // value head: loss, draw, win
            + linear(d, crate::tokens::TYPES) // belief head
    }
}
