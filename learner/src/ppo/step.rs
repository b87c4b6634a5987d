//! One gradient step on one minibatch, the same for training and for the
//! pipeline benchmark: the objective (`objective.rs`), its gradients, the
//! global gradient-norm clip and an AdamW step at the scheduled learning
//! rate. Nothing is read back to the host: the step's diagnostics stay on
//! the device for the caller to add up.

use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::Tensor;
use stratego_model::{Device, StrategoNet};

use crate::config::LearnerConfig;
use crate::diagnostics::Term;
use crate::ppo::objective::{imitation_objective, objective, Terms};
use crate::ppo::samples::{Batch, PpoBatch};
use crate::weights::clip_grad_norm;
use crate::TrainError;

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
    batch: &PpoBatch,
    tau: f32,
    lr: f64,
    config: &LearnerConfig,
    device: &Device,
) -> (StrategoNet, Tensor<1>) {
    let terms = objective(&net, batch, tau, config, device);
    step_on(net, optimizer, terms, lr, config, device)
}

/// The supervised sibling of [`sgd_step`], for the warm start by imitation
/// (`distill.rs`): one step on the imitation loss of `batch` (the teacher's
/// moves, the results, the true hidden types) with the same optimizer, the
/// same global gradient-norm clip and the value and belief weights of
/// `config`. Returns the new weights and the minibatch's sums
/// (`diagnostics::Term::ALL`, on the device).
pub fn imitation_step(
    net: StrategoNet,
    optimizer: &mut ModuleOptimizer,
    batch: &Batch,
    lr: f64,
    config: &LearnerConfig,
    device: &Device,
) -> (StrategoNet, Tensor<1>) {
    let terms = imitation_objective(&net, batch, config.value_weight, config.belief_weight, device);
    step_on(net, optimizer, terms, lr, config, device)
}

/// The step both objectives share: gradients of the total, the global
/// gradient-norm clip, AdamW at `lr`; the minibatch's sums on the device.
fn step_on(
    net: StrategoNet,
    optimizer: &mut ModuleOptimizer,
    terms: Terms,
    lr: f64,
    config: &LearnerConfig,
    device: &Device,
) -> (StrategoNet, Tensor<1>) {
    let mut grads = GradientsParams::from_grads(terms.total().backward(), &net);
    let norm =
        clip_grad_norm(&net, &mut grads, config.grad_clip).unwrap_or_else(|| Tensor::<1>::zeros([1], device).inner());
    let sums = terms.sums(norm);
    (optimizer.step(lr, net, grads), sums)
}

/// Minibatches' diagnostic sums (`diagnostics::Term::ALL`), added up on the
/// device and read back once (an iteration's, or an epoch's of the warm
/// start): a read-back per step would stall the device.
#[derive(Default)]
pub struct DeviceSums(Option<Tensor<1>>);

impl DeviceSums {
    pub fn add(&mut self, step: Tensor<1>) {
        self.0 = Some(match self.0.take() {
            Some(sums) => sums + step,
            None => step,
        });
    }

    /// The sums on the host, in `Term::ALL` order; `None` if nothing was added.
    pub fn read(self) -> Result<Option<[f64; Term::COUNT]>, TrainError> {
        let Some(sums) = self.0 else { return Ok(None) };
        let sums = sums.into_data().try_to_vec::<f32>().map_err(|e| TrainError::Data(format!("{e:?}")))?;
        Ok(Some(Term::ALL.map(|term| sums[term.index()] as f64)))
    }
}
