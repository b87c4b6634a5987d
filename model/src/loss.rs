//! A supervised loss over the three heads: policy cross-entropy against
//! target distributions, value cross-entropy against the game result, and
//! belief cross-entropy on squares holding hidden opponent pieces. The
//! learner's RL objective builds on the same pieces.

use burn::tensor::activation::log_softmax;
use burn::tensor::{Int, Tensor, TensorData};
use stratego_engine::BELIEF_IGNORE;

use crate::network::NetOutput;
use crate::tokens::{token_cells, SQUARE_TOKENS, TYPES};

/// The terms of the loss, each a scalar tensor.
pub struct LossTerms {
    pub policy: Tensor<1>,
    pub value: Tensor<1>,
    pub belief: Tensor<1>,
}

impl LossTerms {
    pub fn total(self, belief_weight: f32) -> Tensor<1> {
        self.policy + self.value + self.belief.mul_scalar(belief_weight)
    }
}

/// `policy_target`: `[B, 1800]` distributions over legal actions;
/// `outcome`: `[B]` result index (0 loss, 1 draw, 2 win) for the player to
/// act; `belief_targets`: `[B, 100]` from `VecEnv::belief_targets`.
pub fn loss_terms(
    out: &NetOutput,
    policy_target: Tensor<2>,
    outcome: Tensor<1, Int>,
    belief_targets: &[i32],
) -> LossTerms {
    let policy = (log_softmax(out.policy_logits.clone(), 1) * policy_target).sum_dim(1).mean().neg();
    let value = (log_softmax(out.value_logits.clone(), 1) * outcome.one_hot::<2>(3).float()).sum_dim(1).mean().neg();
    let belief = belief_cross_entropy(out, belief_targets);
    LossTerms { policy, value, belief }
}

/// Cross-entropy of the belief head against the true types of the hidden
/// opponent pieces (`[B, 100]` targets, `BELIEF_IGNORE` elsewhere), averaged
/// over the squares that hold one; squares without one are masked out.
pub fn belief_cross_entropy(out: &NetOutput, belief_targets: &[i32]) -> Tensor<1> {
    let device = out.belief_logits.device();
    let [batch, _, _] = out.belief_logits.dims();
    let mut classes = Vec::with_capacity(batch * SQUARE_TOKENS);
    let mut weights = Vec::with_capacity(batch * SQUARE_TOKENS);
    for b in 0..batch {
        for &cell in token_cells() {
            let t = belief_targets[b * 100 + cell];
            classes.push(if t == BELIEF_IGNORE { 0 } else { t as i64 });
            weights.push(if t == BELIEF_IGNORE { 0.0f32 } else { 1.0 });
        }
    }
    let classes = Tensor::<2, Int>::from_data(TensorData::new(classes, [batch, SQUARE_TOKENS]), &device);
    let weights = Tensor::<2>::from_data(TensorData::new(weights, [batch, SQUARE_TOKENS]), &device);
    let log_p = log_softmax(out.belief_logits.clone(), 2);
    let picked = (log_p * classes.one_hot::<3>(TYPES).float()).sum_dim(2).reshape([batch, SQUARE_TOKENS]);
    (picked * weights.clone()).sum().neg() / weights.sum().clamp_min(1.0)
}
