//! Speed of the two sides of training, measured apart: self-play alone
//! (actors and inference service, games drained as they finish) and the
//! learner alone (targets, encoding and SGD on the games self-play made).
//! Whichever is slower per sample is the pipeline's bottleneck.

use std::time::{Duration, Instant};

use burn::module::Module;
use burn::tensor::Tensor;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use stratego_contract::seed::stream_seed;
use stratego_model::StrategoNet;

use crate::config::TrainConfig;
use crate::ppo::samples::{encode, minibatches, select};
use crate::ppo::step::{optimizer, sgd_step};
use crate::train::{selfplay_seed, start_selfplay};
use crate::TrainError;

/// What `bench` measured.
#[derive(Clone, Copy, Debug)]
pub struct PipelineSpeed {
    /// Self-play plies (= decisions) per second, all actors together.
    pub selfplay_plies_per_second: f64,
    pub games: usize,
    /// Samples per second through the learner (encoding included).
    pub learner_samples_per_second: f64,
    pub learner_samples: usize,
}

/// Runs self-play for `seconds`, then the learner over what it produced
/// (every decision kept) for at most `seconds`, with the steps of the
/// config's first iteration (its learning rate and magnet weight).
pub fn bench(config: &TrainConfig, device_name: &str, seconds: f64) -> Result<PipelineSpeed, TrainError> {
    let (layout, model) = (config.game.layout, config.model.preset.model());
    let plain = stratego_model::device(device_name)?;
    let device = plain.clone().autodiff();
    device.seed(config.run.seed);
    let mut net = StrategoNet::new(&model, layout, &device);

    // Self-play alone. The clock starts once the first game is in, so the
    // warm-up (games in flight from ply 0) does not count against it.
    let (service, actors, games) =
        start_selfplay(config, net.valid(), 0, selfplay_seed(config.run.seed, 0), &plain, None, None)?;
    let first =
        games.recv_timeout(Duration::from_secs(600)).map_err(|_| TrainError::Data("no game finished".into()))?;
    let plies_at_start = actors.plies.load(std::sync::atomic::Ordering::Relaxed);
    let start = Instant::now();
    let mut collected = vec![first];
    while start.elapsed().as_secs_f64() < seconds {
        if let Ok(game) = games.recv_timeout(Duration::from_millis(50)) {
            collected.push(game);
        }
    }
    let plies = actors.plies.load(std::sync::atomic::Ordering::Relaxed) - plies_at_start;
    let selfplay_seconds = start.elapsed().as_secs_f64();
    drop(games);
    actors.stop()?;
    service.shutdown();

    // The learner alone, keeping every decision.
    let mut learner = config.learner.clone();
    learner.keep_quantile = 0.0;
    learner.min_advantage = 0.0;
    let (samples, _) = select(&collected, &learner, 0, u64::MAX / 2);
    let mut optimizer = optimizer(&learner);
    let (lr, tau) = (learner.lr.at(0), learner.magnet.at(0) as f32);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(stream_seed(config.run.seed, "minibatches", 0));
    let start = Instant::now();
    let mut learned = 0;
    let mut sums: Option<Tensor<1>> = None;
    for minibatch in minibatches(&samples, learner.minibatch, &mut rng) {
        if start.elapsed().as_secs_f64() >= seconds {
            break;
        }
        let batch = encode(&collected, &minibatch, layout, learner.leaf_target)?;
        let (stepped, step_sums) = sgd_step(net, &mut optimizer, &batch, tau, lr, &learner, &device);
        net = stepped;
        sums = Some(match sums {
            Some(sums) => sums + step_sums,
            None => step_sums,
        });
        learned += batch.size;
    }
    // As in training, the diagnostics come back once: the clock stops when
    // the device has done every step.
    if let Some(sums) = sums {
        let _ = sums.into_data();
    }
    let learner_seconds = start.elapsed().as_secs_f64().max(1e-9);
    Ok(PipelineSpeed {
        selfplay_plies_per_second: plies as f64 / selfplay_seconds,
        games: collected.len(),
        learner_samples_per_second: learned as f64 / learner_seconds,
        learner_samples: learned,
    })
}
