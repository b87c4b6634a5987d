//! The move-network objective of one minibatch (the reference's recipe):
//!
//! ```text
//! loss = L_clip + tau_t * L_magnet + c_v * L_value + c_kl * L_behaviour + c_b * L_belief
//! ```
//!
//! - `L_clip`: PPO's clipped surrogate, ratio = pi(a) / pi_behaviour(a), with
//!   the filtered advantages as they are (no normalisation);
//! - `L_magnet = KL(pi || magnet)`, a reverse KL to the uniform policy over
//!   legal actions (the reference code's default magnet);
//! - `L_value`: cross-entropy of the value head against the TD(lambda)
//!   win/draw/loss targets;
//! - `L_behaviour = KL(pi || pi_behaviour)` over legal actions;
//! - `L_belief`: cross-entropy of the belief head on hidden opponent squares.

use burn::tensor::activation::log_softmax;
use burn::tensor::{Bool, Device, Int, Tensor, TensorData};
use stratego_engine::{Square, NUM_ACTIONS};
use stratego_model::{belief_cross_entropy, NetOutput, StrategoNet};

use crate::config::LearnerConfig;
use crate::samples::Batch;

/// The loss terms of one minibatch, as scalar tensors (for the backward
/// pass) and the diagnostics the run logs.
pub struct Objective {
    pub total: Tensor<1>,
    pub clip: Tensor<1>,
    pub magnet: Tensor<1>,
    pub value: Tensor<1>,
    pub behaviour_kl: Tensor<1>,
    pub belief: Tensor<1>,
    pub entropy: Tensor<1>,
    pub clip_fraction: Tensor<1>,
    /// `[B, 3]` value logits and `[B, 92, 12]` belief logits, for accuracies.
    pub output: NetOutput,
}

/// Runs `net` on `batch` and builds the objective with magnet weight `tau`.
pub fn objective(
    net: &StrategoNet,
    batch: &Batch,
    channels: usize,
    tau: f32,
    c: &LearnerConfig,
    device: &Device,
) -> Objective {
    let b = batch.size;
    let floats2 = |v: &[f32], width: usize| Tensor::<2>::from_data(TensorData::new(v.to_vec(), [b, width]), device);
    let planes = Tensor::<3>::from_data(TensorData::new(batch.planes.clone(), [b, channels, Square::COUNT]), device);
    let legal = Tensor::<2, Bool>::from_data(TensorData::new(batch.legal.clone(), [b, NUM_ACTIONS]), device);
    let output = net.forward(planes, legal);

    // log pi over all actions; illegal ones get exactly zero probability,
    // so their (finite) log-probabilities never enter a sum with weight.
    let log_pi = log_softmax(output.policy_logits.clone(), 1);
    let pi = log_pi.clone().exp();
    let actions = Tensor::<2, Int>::from_data(TensorData::new(batch.actions.clone(), [b, 1]), device);
    let log_pi_action = log_pi.clone().gather(1, actions).reshape([b]);

    // L_clip
    let behaviour_log_prob = Tensor::<1>::from_data(TensorData::new(batch.behaviour_log_prob.clone(), [b]), device);
    let advantage = Tensor::<1>::from_data(TensorData::new(batch.advantages.clone(), [b]), device);
    let ratio = (log_pi_action - behaviour_log_prob).exp();
    let unclipped = ratio.clone() * advantage.clone();
    let clipped = ratio.clone().clamp(1.0 - c.ppo_clip, 1.0 + c.ppo_clip) * advantage;
    let clip = unclipped.min_pair(clipped).mean().neg();
    let clip_fraction = (ratio - 1.0).abs().greater_elem(c.ppo_clip).float().mean();

    // L_magnet = KL(pi || uniform over legal actions)
    let magnet_log = floats2(&batch.magnet_log, NUM_ACTIONS);
    let magnet = (pi.clone() * (log_pi.clone() - magnet_log)).sum_dim(1).mean();

    // L_behaviour = KL(pi || pi_behaviour)
    let behaviour_log = floats2(&batch.behaviour_log, NUM_ACTIONS);
    let behaviour_kl = (pi.clone() * (log_pi.clone() - behaviour_log)).sum_dim(1).mean();

    let entropy = (pi * log_pi).sum_dim(1).mean().neg();

    // L_value: cross-entropy against the TD(lambda) targets.
    let value_targets = floats2(&batch.value_targets, 3);
    let value = (log_softmax(output.value_logits.clone(), 1) * value_targets).sum_dim(1).mean().neg();

    // L_belief
    let belief = belief_cross_entropy(&output, &batch.belief_targets);

    let total = clip.clone()
        + magnet.clone().mul_scalar(tau)
        + value.clone().mul_scalar(c.value_weight)
        + behaviour_kl.clone().mul_scalar(c.behaviour_kl)
        + belief.clone().mul_scalar(c.belief_weight);
    Objective { total, clip, magnet, value, behaviour_kl, belief, entropy, clip_fraction, output }
}
