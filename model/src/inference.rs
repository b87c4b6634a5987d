//! Batched inference on the engine's buffers, and choosing an action.

use burn::tensor::activation::softmax;
use burn::tensor::Device;
use rand::Rng;
use stratego_engine::{Layout, Square, NUM_ACTIONS};

use crate::error::ModelError;
use crate::inputs::input_tensors;
use crate::network::{StrategoNet, LOSS, WIN};
use crate::tokens::{token_cells, SQUARE_TOKENS, TYPES};

/// What the network says about a batch, as plain vectors.
#[derive(Clone, Debug, PartialEq)]
pub struct Inference {
    pub batch: usize,
    /// `[B, 1800]` action probabilities; exactly 0 for illegal actions.
    pub policy: Vec<f32>,
    /// `[B, 3]` loss / draw / win probabilities.
    pub outcome: Vec<f32>,
    /// `[B]` scalar values, P(win) - P(loss).
    pub value: Vec<f32>,
    /// `[B, 100, 12]` type probabilities of an opponent piece per square
    /// (acting frame; zeros on lakes).
    pub belief: Vec<f32>,
}

impl Inference {
    /// Game `i`'s action probabilities.
    pub fn policy_of(&self, i: usize) -> &[f32] {
        &self.policy[i * NUM_ACTIONS..(i + 1) * NUM_ACTIONS]
    }
}

/// Runs `net` on `[B, C, 10, 10]` planes (the engine's layout) and `[B, 1800]`
/// legal masks. Every game must have at least one legal action.
pub fn infer(
    net: &StrategoNet,
    layout: Layout,
    planes: &[f32],
    legal: &[bool],
    device: &Device,
) -> Result<Inference, ModelError> {
    if layout != net.layout() {
        return Err(ModelError::Input(format!(
            "{layout} observations given to a network that reads {} observations",
            net.layout()
        )));
    }
    let size = layout.size();
    if planes.is_empty() || !planes.len().is_multiple_of(size) {
        return Err(ModelError::Input(format!(
            "{} floats are not a whole number of {layout} observations ({size} each)",
            planes.len()
        )));
    }
    let batch = planes.len() / size;
    if legal.len() != batch * NUM_ACTIONS {
        return Err(ModelError::Input(format!(
            "legal mask has {} entries, expected {} for {batch} observations",
            legal.len(),
            batch * NUM_ACTIONS
        )));
    }
    if let Some(i) = (0..batch).find(|&i| !legal[i * NUM_ACTIONS..(i + 1) * NUM_ACTIONS].iter().any(|&l| l)) {
        return Err(ModelError::Input(format!("game {i} of the batch has no legal action")));
    }
    let (x, mask) = input_tensors(planes, legal, device);
    let out = net.forward(x, mask.clone());
    // Softmax leaves exp(-1e9 - max) = 0 on masked logits; the mask makes it exact.
    let policy = softmax(out.policy_logits, 1).mask_fill(mask.bool_not(), 0.0);
    let outcome = softmax(out.value_logits, 1);
    let belief = softmax(out.belief_logits, 2);
    let policy = policy.into_data().try_to_vec::<f32>().map_err(|e| ModelError::Input(format!("{e:?}")))?;
    let outcome = outcome.into_data().try_to_vec::<f32>().map_err(|e| ModelError::Input(format!("{e:?}")))?;
    let tokens = belief.into_data().try_to_vec::<f32>().map_err(|e| ModelError::Input(format!("{e:?}")))?;
    let value = (0..batch).map(|i| outcome[i * 3 + WIN] - outcome[i * 3 + LOSS]).collect();
    let mut belief = vec![0.0; batch * Square::COUNT * TYPES];
    for b in 0..batch {
        for (t, &cell) in token_cells().iter().enumerate() {
            let src = &tokens[(b * SQUARE_TOKENS + t) * TYPES..][..TYPES];
            belief[(b * Square::COUNT + cell) * TYPES..][..TYPES].copy_from_slice(src);
        }
    }
    Ok(Inference { batch, policy, outcome, value, belief })
}

/// Picks an action from probabilities: the most likely one when
/// `temperature` is 0, otherwise a draw from `p^(1/temperature)`.
pub fn choose_action(probs: &[f32], temperature: f32, rng: &mut impl Rng) -> Option<u16> {
    let legal = || probs.iter().enumerate().filter(|(_, &p)| p > 0.0);
    if temperature <= 0.0 {
        return legal().max_by(|a, b| a.1.total_cmp(b.1)).map(|(a, _)| a as u16);
    }
    let weights: Vec<(usize, f64)> = legal().map(|(a, &p)| (a, (p as f64).powf(1.0 / temperature as f64))).collect();
    let total: f64 = weights.iter().map(|w| w.1).sum();
    if total.is_nan() || total <= 0.0 {
        return legal().next().map(|(a, _)| a as u16);
    }
    let mut x = rng.random::<f64>() * total;
    for &(a, w) in &weights {
        if x < w {
            return Some(a as u16);
        }
        x -= w;
    }
    weights.last().map(|&(a, _)| a as u16)
}
