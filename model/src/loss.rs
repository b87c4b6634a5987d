//! The losses of the three heads: policy cross-entropy against target
//! distributions, value cross-entropy against loss/draw/win targets, and
//! belief cross-entropy on squares holding hidden opponent pieces.
//!
//! [`loss_terms`] is a supervised loss over all three (the model's own
//! benchmark and tests take training steps on it, with the game result as
//! the value target). The learner's RL objective uses the same
//! [`value_cross_entropy`] (against its TD(lambda) targets) and
//! [`belief_fit`]; there is one value loss and one belief loss in the lab.

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
    let value = value_cross_entropy(out, outcome.one_hot::<2>(3).float());
    let belief = belief_cross_entropy(out, belief_targets);
    LossTerms { policy, value, belief }
}

/// Cross-entropy of the value head against `[B, 3]` loss/draw/win target
/// distributions (indexed by `LOSS`, `DRAW`, `WIN`), averaged over the batch.
pub fn value_cross_entropy(out: &NetOutput, targets: Tensor<2>) -> Tensor<1> {
    (log_softmax(out.value_logits.clone(), 1) * targets).sum_dim(1).mean().neg()
}

/// The belief head on the squares that hold a hidden opponent piece, per
/// square token (`[B, 92]` each).
pub struct BeliefFit {
    /// The log-probability of the true type (0 where `mask` is 0).
    pub log_likelihood: Tensor<2>,
    /// 1 on squares with a hidden opponent piece, 0 elsewhere.
    pub mask: Tensor<2>,
    /// The true type's index (0 where `mask` is 0).
    pub types: Tensor<2, Int>,
}

/// The belief head's fit to the true types of the hidden opponent pieces
/// (`[B, 100]` targets, `BELIEF_IGNORE` elsewhere).
pub fn belief_fit(out: &NetOutput, belief_targets: &[i32]) -> BeliefFit {
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
    let types = Tensor::<2, Int>::from_data(TensorData::new(classes, [batch, SQUARE_TOKENS]), &device);
    let mask = Tensor::<2>::from_data(TensorData::new(weights, [batch, SQUARE_TOKENS]), &device);
    let log_p = log_softmax(out.belief_logits.clone(), 2);
    let picked = (log_p * types.clone().one_hot::<3>(TYPES).float()).sum_dim(2).reshape([batch, SQUARE_TOKENS]);
    BeliefFit { log_likelihood: picked * mask.clone(), mask, types }
}

/// Cross-entropy of the belief head against the true types of the hidden
/// opponent pieces (`[B, 100]` targets, `BELIEF_IGNORE` elsewhere), averaged
/// over the squares that hold one; squares without one are masked out.
pub fn belief_cross_entropy(out: &NetOutput, belief_targets: &[i32]) -> Tensor<1> {
    let fit = belief_fit(out, belief_targets);
    fit.log_likelihood.sum().neg() / fit.mask.sum().clamp_min(1.0)
}
