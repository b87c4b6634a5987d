//! One gradient step on one minibatch, the same for training and for the
//! pipeline benchmark: the objective (`objective.rs`), its gradients, the
//! global gradient-norm clip and an AdamW step at the scheduled learning
//! rate. Nothing is read back to the host: the step's diagnostics stay on
//! the device for the caller to add up.

use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::Tensor;
use stratego_model::{Device, StrategoNet};

use crate::config::LearnerConfig;
use crate::distill::imitation_objective;
use crate::objective::objective;
use crate::samples::Batch;
use crate::weights::clip_grad_norm;

/// The optimizer of `config`: AdamW with its weight decay.
pub fn optimizer(config: &LearnerConfig) -> ModuleOptimizer {
    AdamWConfig::new().with_weight_decay(config.weight_decay).init()
}

/// Trains `net` (on the autodiff `device`) one step on `batch` with magnet
/// weight `tau` and learning rate `lr` (the schedules' values for the
/// iteration). Returns the new weights and the minibatch's diagnostic sums
/// (`diagnostics::Term::ALL`, a `[Term::COUNT]` tensor on the device).
pub fn sgd_step(
    net: StrategoNet,
    optimizer: &mut ModuleOptimizer,
    batch: &Batch,
    tau: f32,
    lr: f64,
    config: &LearnerConfig,
    device: &Device,
) -> (StrategoNet, Tensor<1>) {
    let o = objective(&net, batch, tau, config, device);
    let mut grads = GradientsParams::from_grads(o.total.backward(), &net);
    let norm =
        clip_grad_norm(&net, &mut grads, config.grad_clip).unwrap_or_else(|| Tensor::<1>::zeros([1], device).inner());
    let sums = o.sums(norm);
    (optimizer.step(lr, net, grads), sums)
}

/// The supervised sibling of [`sgd_step`], for the warm start by imitation
/// (`distill.rs`): one step on the imitation loss of `batch` (the teacher's
/// moves, the results, the true hidden types) with the same optimizer, the
/// same global gradient-norm clip and the value and belief weights of
/// `config`. Returns the new weights and the minibatch's sums
/// (`diagnostics::PretrainTerm::ALL`, on the device).
pub fn imitation_step(
    net: StrategoNet,
    optimizer: &mut ModuleOptimizer,
    batch: &Batch,
    lr: f64,
    config: &LearnerConfig,
    device: &Device,
) -> (StrategoNet, Tensor<1>) {
    let o = imitation_objective(&net, batch, config.value_weight, config.belief_weight, device);
    let mut grads = GradientsParams::from_grads(o.total.backward(), &net);
    let norm =
        clip_grad_norm(&net, &mut grads, config.grad_clip).unwrap_or_else(|| Tensor::<1>::zeros([1], device).inner());
    let sums = o.sums(norm);
    (optimizer.step(lr, net, grads), sums)
}
