//! The training loop, top to bottom:
//!
//! 1. actors play the current network (sampling its policy) against itself,
//!    or in `selfplay.opponent_share` of the games against a fixed player of
//!    `selfplay.opponents` (only the network's seat is learned from), and
//!    stream finished games;
//! 2. per player, TD(lambda) value targets and GAE advantages; stale and
//!    low-|advantage| decisions are dropped;
//! 3. `epochs` passes of minibatch SGD (`step.rs`) on the objective
//!    (`objective.rs`) with AdamW, a global gradient-norm clip and the
//!    scheduled learning rate and magnet weight; the diagnostics of every
//!    minibatch are summed on the device;
//! 4. the average of the weights is updated, the new weights go to the
//!    actors (the next policy version), and the iteration's diagnostics
//!    (`diagnostics.rs`), read back once, are logged;
//! 5. every K iterations: a checkpoint (raw, average, optimizer, counters)
//!    and an evaluation against the baseline players.
//!
//! With `[pretrain] enabled`, a run without a checkpoint first trains by
//! imitation of a teacher (`distill.rs`) and saves that as checkpoint 0;
//! with `run.init`, checkpoint 0 is the given network. `run.max_minutes`
//! ends a run early at a wall-clock budget.
//!
//! Every generator is seeded by `stream_seed(run.seed, <stream>, <index>)`:
//! the actors of a start at iteration t (stream `selfplay`), the minibatch
//! order of iteration t (`minibatches`), the evaluation at step t (`eval`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use burn::module::Module;
use burn::tensor::Tensor;
use crossbeam_channel::{bounded, Receiver, RecvTimeoutError};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use stratego_engine::seed::stream_seed;
use stratego_engine::{PieceSet, SetupSource};
use stratego_model::{CheckpointMeta, Device, StrategoNet};
use stratego_players::setup_policy::PolicySetups;
use stratego_runlog::{MetricsLog, Progress, TensorBoard};
use stratego_selfplay::{spawn_actors, ActorConfig, Actors, GameTrajectory, InferenceService};

use crate::config::{Setups, TrainConfig};
use crate::diagnostics::{
    self, Iteration, Term, EVAL_HIGH_SUFFIX, EVAL_LOW_SUFFIX, EVAL_SCORE_PREFIX, EVAL_SECONDS, SELFPLAY_SCORE_PREFIX,
};
use crate::distill::pretrain_run;
use crate::evaluate::evaluate;
use crate::run::{restore, Counters, RunDir};
use crate::samples::{encode, is_stale, minibatches, select};
use crate::step::{optimizer, sgd_step};
use crate::weights::update_average;
use crate::TrainError;

/// How a run is started.
pub struct TrainOptions {
    /// Overrides `run.device` of the config.
    pub device: Option<String>,
    /// Draw a progress bar on stderr.
    pub progress: bool,
}

/// Where a finished (or stopped) run stands.
#[derive(Debug)]
pub struct TrainSummary {
    pub run: PathBuf,
    pub counters: Counters,
    pub last_checkpoint: Option<PathBuf>,
}

/// The actors' setups: uniform random ones, or a baseline recipe's.
pub(crate) fn setup_source(config: &TrainConfig, set: PieceSet) -> Box<dyn SetupSource> {
    match config.game.setups {
        Setups::Random => Box::new(stratego_engine::RandomSetups(set)),
        Setups::Handcrafted | Setups::HandcraftedV2 => {
            Box::new(PolicySetups { policy: crate::evaluate::setup_policy(config.game.setups), set })
        }
    }
}

/// The seed of the actors that a run seeded `run_seed` starts at
/// `iteration` (0, or the iteration a resume continues from). A named
/// stream: a resumed run's games are not a shifted copy of the first run's.
pub(crate) fn selfplay_seed(run_seed: u64, iteration: u64) -> u64 {
    stream_seed(run_seed, "selfplay", iteration)
}

/// Starts the inference service (with `net` as policy `version`) and the
/// actors of `config`, seeded with `seed`; returns them with the receiving
/// end of the game channel.
pub(crate) fn start_selfplay(
    config: &TrainConfig,
    net: StrategoNet,
    version: u64,
    seed: u64,
    device: &Device,
) -> Result<(InferenceService, Actors, Receiver<GameTrajectory>), TrainError> {
    let (rules, layout) = (config.game.rules, config.game.layout);
    let s = &config.selfplay;
    let service = InferenceService::start(net, version, layout, device.clone(), s.max_inference_batch);
    let (sender, games) = bounded::<GameTrajectory>(s.channel_capacity);
    let registry = crate::evaluate::players();
    let opponents = s
        .opponents
        .iter()
        .map(|spec| registry.factory(spec).map_err(|e| TrainError::Config(format!("`selfplay.opponents`: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let actor_config = ActorConfig {
        rules,
        layout,
        actors: s.actors,
        games_per_actor: s.games_per_actor,
        temperature: s.temperature,
        opponents,
        opponent_share: s.opponent_share,
        seed,
    };
    let actors = spawn_actors(&actor_config, service.client(), sender, &|| setup_source(config, rules.piece_set))?;
    Ok((service, actors, games))
}

/// Receives games until they hold `wanted` decisions of recent enough
/// policies. An actor that ends (an error or a panic) stops it at once;
/// `Actors::stop` then says why.
fn collect(
    games: &Receiver<GameTrajectory>,
    actors: &Actors,
    wanted: usize,
    version: u64,
    max_staleness: u64,
) -> Result<Vec<GameTrajectory>, TrainError> {
    let mut got = Vec::new();
    let mut decisions = 0;
    let mut waiting = Instant::now();
    while decisions < wanted {
        if actors.any_ended() {
            return Err(TrainError::Data("an actor stopped".into()));
        }
        let game = match games.recv_timeout(Duration::from_millis(500)) {
            Ok(game) => game,
            Err(RecvTimeoutError::Timeout) if waiting.elapsed() < Duration::from_secs(600) => continue,
            Err(RecvTimeoutError::Timeout) => return Err(TrainError::Data("no game finished in 10 minutes".into())),
            Err(RecvTimeoutError::Disconnected) => return Err(TrainError::Data("every actor stopped".into())),
        };
        waiting = Instant::now();
        decisions += game.decisions.iter().filter(|d| !is_stale(d.version, version, max_staleness)).count();
        got.push(game);
    }
    Ok(got)
}

/// `selfplay/score_vs_<opponent>` of each opponent that played in `games`:
/// the network's mean score against it.
fn opponent_scores(games: &[GameTrajectory], opponents: &[String]) -> Vec<(String, f64)> {
    let mut sums = vec![(0.0f64, 0usize); opponents.len()];
    for game in games {
        if let Some(seat) = game.opponent {
            let network = seat.color.opponent();
            sums[seat.index].0 += crate::targets::result_index(&game.outcome, network) as f64 / 2.0;
            sums[seat.index].1 += 1;
        }
    }
    opponents
        .iter()
        .zip(sums)
        .filter(|(_, (_, n))| *n > 0)
        .map(|(name, (sum, n))| (format!("{SELFPLAY_SCORE_PREFIX}{name}"), sum / n as f64))
        .collect()
}

/// Trains from `run` (fresh or resumed) until `run.iterations`.
pub fn train(
    config: &TrainConfig,
    run: RunDir,
    resume: bool,
    options: &TrainOptions,
) -> Result<TrainSummary, TrainError> {
    let (rules, layout, model) = (config.game.rules, config.game.layout, config.model.preset.model());
    let device_name = options.device.as_deref().unwrap_or(config.run.device.name());
    let plain: Device = stratego_model::device(device_name)?;
    let device = plain.clone().autodiff();
    let (l, s) = (&config.learner, &config.selfplay);
    let meta = |step| CheckpointMeta { config: model.clone(), layout, rules, step };

    // The weights, their average, the optimizer and the counters: fresh, or
    // from the newest complete checkpoint.
    let resumed_from = if resume { run.latest_verified()? } else { None };
    if let Some((_, dir)) = &resumed_from {
        run.check_config(dir)?;
    }
    if resume {
        run.discard_partial()?;
    }
    let mut metrics = MetricsLog::append(&run.root().join("metrics.jsonl"))?;
    crate::say_torn(&metrics);
    if resume {
        metrics.event(
            if resumed_from.is_some() { "resumed" } else { "restarted without a checkpoint" },
            resumed_from.as_ref().map_or(0, |(step, _)| *step),
        )?;
    }
    let mut pretrained = None;
    let (mut net, mut ema, mut optimizer, mut counters) = match &resumed_from {
        Some((_, dir)) => {
            let r = restore(dir, &meta(0), &device, &plain, optimizer(l))?;
            (r.net, r.ema, r.optimizer, r.counters)
        }
        // The warm start by imitation (`distill.rs`) becomes the run's first
        // checkpoint (iteration 0, its seconds counted), from which RL starts
        // with fresh optimizer moments (the loss changes).
        None if config.pretrain.enabled => {
            let (net, seconds) = pretrain_run(config, &run, &mut metrics, &device, &plain, options.progress)?;
            let counters = Counters { seconds, ..Counters::default() };
            let (ema, optimizer) = (net.valid(), optimizer(l));
            pretrained = Some(run.save(&counters, &meta(0), &net, &ema, &optimizer, config.checkpoint.keep)?);
            (net, ema, optimizer, counters)
        }
        // A given first network (`run.init`, checked by the config): RL
        // starts from its weights, with fresh optimizer moments and counters.
        None if config.run.init.is_some() => {
            let path = config.run.init.as_deref().expect("checked by the guard");
            let (net, _) = stratego_model::load(path, Some(layout), Some(&rules), &device)?;
            let (ema, optimizer) = (net.valid(), optimizer(l));
            let counters = Counters::default();
            pretrained = Some(run.save(&counters, &meta(0), &net, &ema, &optimizer, config.checkpoint.keep)?);
            (net, ema, optimizer, counters)
        }
        None => {
            device.seed(config.run.seed);
            let net = StrategoNet::new(&model, layout, &device);
            let ema = net.valid();
            (net, ema, optimizer(l), Counters::default())
        }
    };

    let mut board = TensorBoard::create(run.root(), resumed_from.as_ref().map(|(step, _)| *step))?;

    // Self-play: an inference service with the current weights, actors
    // seeded from the run seed and the iteration they start at (a resumed
    // run plays new games, not the killed run's).
    let seed = selfplay_seed(config.run.seed, counters.iteration);
    let (service, actors, games) = start_selfplay(config, net.valid(), counters.iteration, seed, &plain)?;

    let bar =
        Progress::new("train", "iterations", config.run.iterations, options.progress).resume_at(counters.iteration);

    let mut last_checkpoint = resumed_from.map(|(_, dir)| dir).or(pretrained);
    let started = Instant::now();
    let seconds_before = counters.seconds;
    let result = (|| -> Result<(), TrainError> {
        let budget = config.run.max_minutes.map(|m| m * 60.0);
        let over_budget = |counters: &Counters| budget.is_some_and(|b| counters.seconds >= b);
        while counters.iteration < config.run.iterations && !over_budget(&counters) {
            let t = counters.iteration;
            let tick = Instant::now();

            // 1. Games from the actors.
            let collected = collect(&games, &actors, l.samples_per_iteration, t, s.max_staleness)?;
            // Time spent waiting for games: near zero when the learner is
            // the bottleneck, most of the iteration when the actors are.
            let waited = tick.elapsed().as_secs_f64();

            // 2. Targets and filtering.
            let (samples, selection) = select(&collected, l, t, s.max_staleness);

            // 3. `epochs` passes of minibatch SGD; each step's diagnostics
            //    are added up on the device.
            let lr = l.lr.at(t);
            let tau = l.magnet.at(t) as f32;
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(stream_seed(config.run.seed, "minibatches", t));
            let mut it = Iteration { selection, learning_rate: lr, magnet_weight: tau as f64, ..Iteration::default() };
            let mut sums: Option<Tensor<1>> = None;
            for _ in 0..l.epochs {
                for minibatch in minibatches(&samples, l.minibatch, &mut rng) {
                    let batch = encode(&collected, &minibatch, layout)?;
                    let (stepped, step_sums) = sgd_step(net, &mut optimizer, &batch, tau, lr, l, &device);
                    net = stepped;
                    sums = Some(match sums {
                        Some(sums) => sums + step_sums,
                        None => step_sums,
                    });
                    it.samples += batch.size as f64;
                    it.hidden_squares += batch.hidden_squares as f64;
                    it.prior_log_likelihood += batch.prior_log_likelihood;
                    it.prior_correct += batch.prior_correct as f64;
                }
            }
            // The one read-back of the iteration.
            if let Some(sums) = sums {
                let sums = sums.into_data().try_to_vec::<f32>().map_err(|e| TrainError::Data(format!("{e:?}")))?;
                for term in Term::ALL {
                    it.sums[term.index()] = sums[term.index()] as f64;
                }
                // A non-finite loss or gradient would poison the weights, the
                // average and every later checkpoint: stop before any of them
                // is written, and say so in the log too.
                if let Some(term) = Term::ALL.into_iter().find(|t| !it.sums[t.index()].is_finite()) {
                    let step = counters.iteration + 1;
                    metrics.event("diverged", step)?;
                    let kept = run.latest()?.map_or("none".to_string(), |(_, dir)| dir.display().to_string());
                    return Err(TrainError::Diverged(format!(
                        "training diverged at iteration {step}: the summed {term:?} is not finite; nothing of this \
                         iteration was saved (last good checkpoint: {kept}); lower learner.lr or learner.grad_clip \
                         and resume"
                    )));
                }
            }

            // 4. The average, the new policy version, the log.
            ema = update_average(ema, &net.valid(), l.ema_decay);
            counters.iteration += 1;
            service.publish(counters.iteration, net.valid());
            it.games = collected.len();
            for game in &collected {
                it.plies += game.record.moves.len() as u64;
                it.count_end(game.outcome.reason);
            }
            counters.plies += it.plies;
            counters.games += it.games as u64;
            counters.samples += it.samples as u64;
            counters.seconds = seconds_before + started.elapsed().as_secs_f64();
            (it.run_seconds, it.run_plies) = (counters.seconds, counters.plies);
            it.seconds = tick.elapsed().as_secs_f64();
            it.waited = waited;
            let mut values: Vec<(&str, f64)> = diagnostics::values(&it);
            let opponent_scores = opponent_scores(&collected, &s.opponents);
            for (tag, score) in &opponent_scores {
                values.push((tag, *score));
            }

            // 5. Checkpoint and evaluation.
            let step = counters.iteration;
            let last = step == config.run.iterations || over_budget(&counters);
            if step % config.checkpoint.every == 0 || last {
                let dir = run.save(&counters, &meta(step), &net, &ema, &optimizer, config.checkpoint.keep)?;
                last_checkpoint = Some(dir);
            }
            // The evaluation's time is logged apart (`eval/seconds`): it is
            // neither learning nor waiting for games.
            let mut eval_values: Vec<(String, f64)> = Vec::new();
            if config.eval.every > 0 && (step % config.eval.every == 0 || last) {
                let eval_started = Instant::now();
                let setups = crate::evaluate::setup_policy(config.game.setups);
                let eval_seed = stream_seed(config.run.seed, "eval", step);
                for s in evaluate(&net.valid(), &meta(step), &config.eval, setups, eval_seed)? {
                    let tag = format!("{EVAL_SCORE_PREFIX}{}", s.opponent);
                    eval_values.push((format!("{tag}{EVAL_LOW_SUFFIX}"), s.low));
                    eval_values.push((format!("{tag}{EVAL_HIGH_SUFFIX}"), s.high));
                    eval_values.push((tag, s.score));
                }
                eval_values.push((EVAL_SECONDS.to_string(), eval_started.elapsed().as_secs_f64()));
            }
            for (tag, value) in &eval_values {
                values.push((tag, *value));
            }
            board.scalars(step, &values)?;
            metrics.write(step, &values)?;
            bar.set_position(step);
            bar.set_message(format!(
                "{:.0} plies/s  loss {:.3}  value {:.3}  belief {:.3}",
                it.plies as f64 / it.seconds.max(1e-9),
                it.per_sample(Term::Total),
                it.per_sample(Term::Value),
                it.per_sample(Term::Belief)
            ));
        }
        Ok(())
    })();

    // Stop the actors (they may be blocked on a full channel: dropping the
    // receiver releases them), then the service.
    drop(games);
    let stopped = actors.stop();
    service.shutdown();
    bar.finish();
    // An actor's own error (a panic with its message) is the cause of the
    // learner's "an actor stopped", so it is reported first.
    stopped?;
    result?;
    Ok(TrainSummary { run: run.root().to_path_buf(), counters, last_checkpoint })
}

#[cfg(test)]
mod tests {
    use stratego_engine::{Ruleset, Setup, VecEnv};
    use stratego_selfplay::actor_seeds;

    use super::*;

    /// The setups of the games of actor 0 of a start at `iteration`.
    fn setups(run_seed: u64, iteration: u64, games: usize) -> Vec<String> {
        let (games_seed, _) = actor_seeds(selfplay_seed(run_seed, iteration), 0);
        let env = VecEnv::new(Ruleset::classic(), games, games_seed).unwrap();
        env.states().map(|s| s.serialize()).collect()
    }

    /// A run resumed at iteration t plays new games: its game 0 is not the
    /// first start's game t (as it was when both seeds were `seed ^ k * phi`
    /// with the same constant), and no game repeats across starts.
    #[test]
    fn a_resumed_run_plays_new_games() {
        let first = setups(1, 0, 8);
        let mut seen: std::collections::HashSet<String> = first.iter().cloned().collect();
        assert_eq!(seen.len(), 8);
        for t in 1..8u64 {
            let resumed = setups(1, t, 8);
            assert_ne!(resumed[0], first[t as usize], "iteration {t}'s game 0 replays game {t}");
            for game in resumed {
                assert!(seen.insert(game), "a start at iteration {t} repeats a game");
            }
        }
        // The seeds themselves: (iteration t, game 0) against (iteration 0, game t).
        for t in 1..64u64 {
            let game0_at_t = stream_seed(actor_seeds(selfplay_seed(1, t), 0).0, "game", 0);
            let game_t_at_0 = stream_seed(actor_seeds(selfplay_seed(1, 0), 0).0, "game", t);
            assert_ne!(game0_at_t, game_t_at_0);
        }
        // The same start replays its games.
        assert_eq!(setups(1, 3, 4), setups(1, 3, 4));
    }

    /// Setups until `left` have been dealt, then a panic.
    struct Poisoned(std::sync::atomic::AtomicUsize);

    impl SetupSource for Poisoned {
        fn setups(&self, rng: &mut Xoshiro256PlusPlus) -> (Setup, Setup) {
            if self.0.fetch_sub(1, std::sync::atomic::Ordering::Relaxed) == 0 {
                panic!("poisoned setups");
            }
            stratego_engine::RandomSetups(PieceSet::Classic).setups(rng)
        }
    }

    /// An actor's panic stops the learner's wait for games at once, and the
    /// error the run ends with is the panic, with its message.
    #[test]
    fn an_actor_panic_ends_collecting_and_is_the_error() {
        let device = stratego_model::device("cpu").unwrap();
        let layout = stratego_engine::Layout::Compact;
        let net = StrategoNet::new(&stratego_model::ModelConfig::preset("tiny").unwrap(), layout, &device);
        let service = InferenceService::start(net, 0, layout, device, 256);
        let rules = Ruleset { max_plies: 30, ..Ruleset::classic() };
        let config = ActorConfig {
            rules,
            layout,
            actors: 1,
            games_per_actor: 2,
            temperature: 1.0,
            opponents: Vec::new(),
            opponent_share: 0.0,
            seed: 1,
        };
        let (sender, games) = bounded(64);
        let poisoned = || -> Box<dyn SetupSource> { Box::new(Poisoned(std::sync::atomic::AtomicUsize::new(2))) };
        let actors = spawn_actors(&config, service.client(), sender, &poisoned).unwrap();
        let start = Instant::now();
        let collected = collect(&games, &actors, usize::MAX, 0, 4);
        assert!(matches!(collected, Err(TrainError::Data(_))));
        assert!(start.elapsed() < Duration::from_secs(60), "{:?}", start.elapsed());
        drop(games);
        let error = TrainError::from(actors.stop().unwrap_err());
        assert_eq!(error.to_string(), "self-play: actor 0 panicked: poisoned setups");
        service.shutdown();
    }
}
