//! One learner iteration of the algorithm, and nothing of the run around
//! it (counters, logs, checkpoints and stages are `train.rs`'s): read top
//! to bottom as CleanRL's `ppo.py` reads.
//!
//! 1. Targets and filtering (`samples::select`, `targets.rs`): per player,
//!    TD(lambda) value targets and GAE advantages; decisions of policies
//!    more than `max_staleness` versions old and those with small |A| are
//!    dropped.
//! 2. The schedules of the iteration: the learning rate and the magnet
//!    weight tau (held to `entropy_target` by the last iteration's entropy).
//! 3. `epochs` passes of minibatch SGD (`step::sgd_step`) on the objective
//!    (`objective.rs`: PPO's clipped surrogate, the magnet and behaviour
//!    KLs, the value and belief cross-entropies), in an order drawn from
//!    `stream_seed(run.seed, "minibatches", t)`; each minibatch's
//!    diagnostics are added up on the device and read back once.
//!
//! The folder holds the algorithm's steps and nothing else: `samples.rs`
//! (encoding, selection, minibatches), `targets.rs` (TD(lambda), GAE),
//! `objective.rs` (the losses, the warm start's imitation objective
//! beside PPO's) and `step.rs` (one optimiser step, on the device). The
//! warm start (`distill.rs`) uses the same samples, targets and steps.

pub mod objective;
pub mod samples;
pub mod step;
pub mod targets;

use burn::optim::ModuleOptimizer;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use stratego_contract::seed::stream_seed;
use stratego_model::{Device, StrategoNet};
use stratego_selfplay::GameTrajectory;

use crate::config::TrainConfig;
use crate::diagnostics::Iteration;
use crate::TrainError;
use samples::{encode, minibatches, select};
use step::{sgd_step, DeviceSums};

/// Trains `net` one iteration on `collected` under `config` (the config
/// iteration `t` runs); `schedule_t` is where the schedules stand (`t` less
/// the origin of a stage that restarted them) and `last_entropy` the last
/// iteration's mean policy entropy. Gives the weights back whatever
/// happens (on an error, as they stand), with the iteration's figures: its
/// selection, schedules, sample counts and the diagnostic sums.
#[allow(clippy::too_many_arguments)]
pub fn iterate(
    mut net: StrategoNet,
    optimizer: &mut ModuleOptimizer,
    collected: &[GameTrajectory],
    config: &TrainConfig,
    t: u64,
    schedule_t: u64,
    last_entropy: Option<f64>,
    device: &Device,
) -> (StrategoNet, Result<Iteration, TrainError>) {
    let (l, s) = (&config.learner, &config.selfplay);

    // 1. Targets and filtering.
    let (samples, selection) = select(collected, l, t, s.max_staleness);

    // 2. The schedules.
    let lr = l.lr.at(schedule_t);
    let tau = l.magnet_weight(schedule_t, last_entropy) as f32;

    // 3. Minibatch SGD.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(stream_seed(config.run.seed, "minibatches", t));
    let mut it = Iteration { selection, learning_rate: lr, magnet_weight: tau as f64, ..Iteration::default() };
    let mut sums = DeviceSums::default();
    for _ in 0..l.epochs {
        for minibatch in minibatches(&samples, l.minibatch, &mut rng) {
            let batch = match encode(collected, &minibatch, config.game.layout, l.leaf_target) {
                Ok(batch) => batch,
                Err(e) => return (net, Err(e)),
            };
            let step_sums;
            (net, step_sums) = sgd_step(net, optimizer, &batch, tau, lr, l, device);
            sums.add(step_sums);
            it.samples += batch.size as f64;
            it.hidden_squares += batch.hidden_squares as f64;
            it.prior_log_likelihood += batch.prior_log_likelihood;
            it.prior_correct += batch.prior_correct as f64;
        }
    }
    // The one read-back of the iteration.
    match sums.read() {
        Ok(Some(read)) => it.sums = read,
        Ok(None) => {}
        Err(e) => return (net, Err(e)),
    }
    (net, Ok(it))
}
