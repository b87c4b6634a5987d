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

/// The largest size each dimension may have (`d_model`, `layers`,
/// `heads`, `ffn`): ten or more times the largest preset, and small enough
/// that every count derived from them (parameters, bytes, tensors) fits a
/// `u64` with room to spare. Checkpoint metadata and configs are refused
/// past them before anything is allocated for them.
pub const MAX_SIZES: [(&str, usize); 4] = [("d_model", 16_384), ("layers", 1_024), ("heads", 1_024), ("ffn", 65_536)];

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
        let sizes = [self.d_model, self.layers, self.heads, self.ffn];
        for ((name, max), size) in MAX_SIZES.into_iter().zip(sizes) {
            if size > max {
                return bad(format!("{name} {size} is past the largest supported, {max}"));
            }
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
    /// the architecture (a test checks it against the built module);
    /// `usize::MAX` for sizes too large to count (a config that
    /// [`ModelConfig::validate`] accepts never is).
    pub fn parameter_count(&self, channels: usize) -> usize {
        self.checked_parameter_count(channels).unwrap_or(usize::MAX)
    }

    /// [`ModelConfig::parameter_count`] in checked arithmetic: `None` when
    /// the count does not fit a `usize`.
    pub fn checked_parameter_count(&self, channels: usize) -> Option<usize> {
        let d = self.d_model;
        let linear = |i: usize, o: usize| i.checked_mul(o)?.checked_add(o);
        let layer_norm = d.checked_mul(2)?;
        let block =
            [linear(d, d)?.checked_mul(4)?, linear(d, self.ffn)?, linear(self.ffn, d)?, layer_norm.checked_mul(2)?]
                .into_iter()
                .try_fold(0usize, usize::checked_add)?;
        [
            linear(channels, d)?,
            crate::tokens::SQUARE_TOKENS.checked_mul(d)?, // position embeddings
            d,                                            // value token
            self.layers.checked_mul(block)?,
            layer_norm,                       // final norm
            linear(d, d)?.checked_mul(2)?,    // policy query and key
            linear(d, 3)?,                    // value head: loss, draw, win
            linear(d, crate::tokens::TYPES)?, // belief head
        ]
        .into_iter()
        .try_fold(0usize, usize::checked_add)
    }

    /// How many tensors a checkpoint of this config holds (the length of
    /// [`crate::checkpoint::tensor_shapes`]), `None` when it does not fit a `usize`.
    pub fn tensor_count(&self) -> Option<usize> {
        // embed weight and bias, position, value token; 16 per block; the
        // final norm's 2; 2 for each of the four heads.
        self.layers.checked_mul(16)?.checked_add(4 + 2 + 8)
    }
}
