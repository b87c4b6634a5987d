//! The training loop, top to bottom:
//!
//! 1. actors play both seats with the current network (sampling its policy)
//!    and stream finished games;
//! 2. per player, TD(lambda) value targets and GAE advantages; stale and
//!    low-|advantage| decisions are dropped;
//! 3. one pass of minibatch SGD on the objective (`objective.rs`) with
//!    AdamW, a global gradient-norm clip and the scheduled learning rate and
//!    magnet weight;
//! 4. the average of the weights is updated, the new weights go to the
//!    actors (the next policy version), and the iteration is logged;
//! 5. every K iterations: a checkpoint (raw, average, optimizer, counters)
//!    and an evaluation against the baseline players.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use burn::module::Module;
use burn::optim::{AdamWConfig, GradientsParams};
use burn::tensor::TensorData;
use crossbeam_channel::{bounded, Receiver, RecvTimeoutError};
use indicatif::{ProgressBar, ProgressStyle};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use stratego_players::SetupPolicy;
use stratego_engine::{EndReason, PieceSet, Setup, SetupSource};
use stratego_model::{CheckpointMeta, Device, StrategoNet};
use stratego_runlog::{MetricsLog, TensorBoard};
use stratego_selfplay::{spawn_actors, ActorConfig, Actors, GameTrajectory, InferenceService};

use crate::config::{Resolved, TrainConfig};
use crate::evaluate::evaluate;
use crate::objective::objective;
use crate::run::{restore, Counters, RunDir};
use crate::samples::{encode, minibatches, select, Batch};
use crate::weights::{clip_grad_norm, update_average};
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

/// Setups of the `handcrafted` baseline recipe, for the actors.
struct HandcraftedSetups(PieceSet);

impl SetupSource for HandcraftedSetups {
    fn setups(&self, rng: &mut Xoshiro256PlusPlus) -> (Setup, Setup) {
        (SetupPolicy::Handcrafted.choose(self.0, rng), SetupPolicy::Handcrafted.choose(self.0, rng))
    }
}

pub(crate) fn setup_source(config: &TrainConfig, set: PieceSet) -> Box<dyn SetupSource> {
    match config.game.setups.as_str() {
        "handcrafted" => Box::new(HandcraftedSetups(set)),
        _ => Box::new(stratego_engine::RandomSetups(set)),
    }
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
    let Resolved { rules, layout, .. } = config.resolve()?;
    let s = &config.selfplay;
    let service = InferenceService::start(net, version, layout, device.clone(), s.max_inference_batch);
    let (sender, games) = bounded::<GameTrajectory>(s.channel_capacity);
    let actor_config = ActorConfig {
        rules,
        layout,
        actors: s.actors,
        games_per_actor: s.games_per_actor,
        temperature: s.temperature,
        seed,
    };
    let actors = spawn_actors(&actor_config, service.client(), sender, &|| setup_source(config, rules.piece_set))?;
    Ok((service, actors, games))
}

/// Games received in one iteration, and what they say.
#[derive(Default)]
struct Collected {
    games: Vec<GameTrajectory>,
    decisions: usize,
    plies: u64,
    reasons: [u64; 5],
}

fn reason_index(reason: EndReason) -> usize {
    match reason {
        EndReason::FlagCaptured => 0,
        EndReason::NoLegalMove => 1,
        EndReason::NeitherCanMove => 2,
        EndReason::PlyCap => 3,
        EndReason::BattlelessCap => 4,
    }
}

const REASON_TAGS: [&str; 5] =
    ["games/end_flag", "games/end_no_move", "games/end_neither_moves", "games/end_ply_cap", "games/end_battleless_cap"];

/// Receives games until they hold `wanted` decisions of recent enough policies.
fn collect(
    games: &Receiver<GameTrajectory>,
    wanted: usize,
    version: u64,
    max_staleness: u64,
) -> Result<Collected, TrainError> {
    let mut got = Collected::default();
    while got.decisions < wanted {
        let game = match games.recv_timeout(Duration::from_secs(600)) {
            Ok(game) => game,
            Err(RecvTimeoutError::Timeout) => return Err(TrainError::Data("no game finished in 10 minutes".into())),
            Err(RecvTimeoutError::Disconnected) => return Err(TrainError::Data("every actor stopped".into())),
        };
        got.decisions += game.decisions.iter().filter(|d| d.version + max_staleness >= version).count();
        got.plies += game.plies() as u64;
        got.reasons[reason_index(game.outcome.reason)] += 1;
        got.games.push(game);
    }
    Ok(got)
}

/// Sums of per-minibatch diagnostics, weighted by minibatch size.
#[derive(Default)]
struct Sums {
    samples: f64,
    total: f64,
    clip: f64,
    magnet: f64,
    value: f64,
    behaviour_kl: f64,
    belief: f64,
    entropy: f64,
    clip_fraction: f64,
    grad_norm: f64,
    value_correct: f64,
    belief_correct: f64,
    belief_log_likelihood: f64,
    prior_correct: f64,
    prior_log_likelihood: f64,
    hidden: f64,
}

fn scalar(t: burn::tensor::Tensor<1>) -> f64 {
    t.into_scalar::<f32>() as f64
}

fn floats(data: TensorData) -> Vec<f32> {
    data.try_to_vec::<f32>().unwrap_or_default()
}

/// Accuracy of the value head's most likely result, and of the belief
/// head's most likely type on hidden squares, with its log-likelihood.
fn accuracies(batch: &Batch, value_logits: Vec<f32>, belief_logits: Vec<f32>, sums: &mut Sums) {
    for (i, &result) in batch.results.iter().enumerate() {
        let v = &value_logits[i * 3..i * 3 + 3];
        let guess = (0..3).max_by(|&a, &b| v[a].total_cmp(&v[b])).unwrap_or(1);
        sums.value_correct += f64::from(guess == result as usize);
    }
    let cells = stratego_model::tokens::token_cells();
    let types = stratego_model::tokens::TYPES;
    for b in 0..batch.size {
        for (t, &cell) in cells.iter().enumerate() {
            let target = batch.belief_targets[b * 100 + cell];
            if target < 0 {
                continue;
            }
            let logits = &belief_logits[(b * cells.len() + t) * types..][..types];
            let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let log_sum = logits.iter().map(|&l| (l - max).exp()).sum::<f32>().ln() + max;
            sums.belief_log_likelihood += (logits[target as usize] - log_sum) as f64;
            let guess = (0..types).max_by(|&a, &b| logits[a].total_cmp(&logits[b])).unwrap_or(0);
            sums.belief_correct += f64::from(guess == target as usize);
        }
    }
    sums.prior_log_likelihood += batch.prior_log_likelihood;
    sums.prior_correct += batch.prior_correct as f64;
    sums.hidden += batch.hidden_squares as f64;
}

/// Trains from `run` (fresh or resumed) until `run.iterations`.
pub fn train(
    config: &TrainConfig,
    run: RunDir,
    resume: bool,
    options: &TrainOptions,
) -> Result<TrainSummary, TrainError> {
    let Resolved { rules, layout, model } = config.resolve()?;
    let device_name = options.device.as_deref().unwrap_or(&config.run.device);
    let plain: Device = stratego_model::device(device_name)?;
    let device = plain.clone().autodiff();
    let (l, s) = (&config.learner, &config.selfplay);
    let meta = |step| CheckpointMeta { config: model.clone(), layout, rules, step };
    let optimizer_config = AdamWConfig::new().with_weight_decay(l.weight_decay);

    // The weights, their average, the optimizer and the counters: fresh, or
    // from the newest complete checkpoint.
    let resumed_from = if resume { run.latest()? } else { None };
    if resume {
        run.discard_partial()?;
    }
    let (mut net, mut ema, mut optimizer, mut counters) = match &resumed_from {
        Some((_, dir)) => {
            let r = restore(dir, &meta(0), &device, &plain, optimizer_config.init())?;
            (r.net, r.ema, r.optimizer, r.counters)
        }
        None => {
            device.seed(config.run.seed);
            let net = StrategoNet::new(&model, layout.channels(), &device);
            let ema = net.valid();
            (net, ema, optimizer_config.init(), Counters::default())
        }
    };

    let mut board = TensorBoard::create(run.root(), resumed_from.as_ref().map(|(step, _)| *step))?;
    let mut metrics = MetricsLog::append(&run.root().join("metrics.jsonl"))?;
    if resume {
        metrics.event(
            if resumed_from.is_some() { "resumed" } else { "restarted without a checkpoint" },
            counters.iteration,
        )?;
    }

    // Self-play: an inference service with the current weights, actors
    // seeded from the run seed and the iteration they start at (a resumed
    // run plays new games, not the killed run's).
    let seed = config.run.seed ^ counters.iteration.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let (service, actors, games) = start_selfplay(config, net.valid(), counters.iteration, seed, &plain)?;

    let bar = if options.progress { ProgressBar::new(config.run.iterations) } else { ProgressBar::hidden() };
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} it  {elapsed_precise}  {msg}").expect("a valid template"),
    );
    bar.set_position(counters.iteration);

    let mut last_checkpoint = resumed_from.map(|(_, dir)| dir);
    let started = Instant::now();
    let seconds_before = counters.seconds;
    let result = (|| -> Result<(), TrainError> {
        while counters.iteration < config.run.iterations {
            let t = counters.iteration;
            let tick = Instant::now();

            // 1. Games from the actors.
            let collected = collect(&games, l.samples_per_iteration, t, s.max_staleness)?;
            // Time spent waiting for games: near zero when the learner is
            // the bottleneck, most of the iteration when the actors are.
            let waited = tick.elapsed().as_secs_f64();

            // 2. Targets and filtering.
            let (samples, selection) = select(&collected.games, l, t, s.max_staleness);

            // 3. One pass of minibatch SGD.
            let lr = l.lr.at(t);
            let tau = l.magnet.at(t) as f32;
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(config.run.seed ^ t.wrapping_mul(0xD1B5_4A32_D192_ED03));
            let mut sums = Sums::default();
            for _ in 0..l.epochs {
                for minibatch in minibatches(&samples, l.minibatch, &mut rng) {
                    let batch = encode(&collected.games, &minibatch, layout)?;
                    let o = objective(&net, &batch, layout.channels(), tau, l, &device);
                    let n = batch.size as f64;
                    accuracies(
                        &batch,
                        floats(o.output.value_logits.clone().into_data()),
                        floats(o.output.belief_logits.clone().into_data()),
                        &mut sums,
                    );
                    sums.samples += n;
                    sums.clip += scalar(o.clip.clone()) * n;
                    sums.magnet += scalar(o.magnet.clone()) * n;
                    sums.value += scalar(o.value.clone()) * n;
                    sums.behaviour_kl += scalar(o.behaviour_kl.clone()) * n;
                    sums.belief += scalar(o.belief.clone()) * n;
                    sums.entropy += scalar(o.entropy.clone()) * n;
                    sums.clip_fraction += scalar(o.clip_fraction.clone()) * n;
                    sums.total += scalar(o.total.clone()) * n;
                    let mut grads = GradientsParams::from_grads(o.total.backward(), &net);
                    sums.grad_norm += clip_grad_norm(&net, &mut grads, l.grad_clip) as f64 * n;
                    net = optimizer.step(lr, net, grads);
                }
            }

            // 4. The average, the new policy version, the log.
            ema = update_average(ema, &net.valid(), l.ema_decay);
            counters.iteration += 1;
            service.publish(counters.iteration, net.valid());
            counters.plies += collected.plies;
            counters.games += collected.games.len() as u64;
            counters.samples += sums.samples as u64;
            counters.seconds = seconds_before + started.elapsed().as_secs_f64();

            let seconds = tick.elapsed().as_secs_f64().max(1e-9);
            let mean = |x: f64| if sums.samples > 0.0 { x / sums.samples } else { f64::NAN };
            let per_hidden = |x: f64| if sums.hidden > 0.0 { x / sums.hidden } else { f64::NAN };
            let n_games = collected.games.len().max(1) as f64;
            let mut values: Vec<(&str, f64)> = vec![
                ("loss/total", mean(sums.total)),
                ("loss/clip", mean(sums.clip)),
                ("loss/magnet", mean(sums.magnet)),
                ("loss/value", mean(sums.value)),
                ("loss/behaviour_kl", mean(sums.behaviour_kl)),
                ("loss/belief", mean(sums.belief)),
                ("policy/entropy", mean(sums.entropy)),
                ("policy/kl_behaviour", mean(sums.behaviour_kl)),
                ("policy/clip_fraction", mean(sums.clip_fraction)),
                ("policy/grad_norm", mean(sums.grad_norm)),
                ("samples/kept_fraction", selection.kept as f64 / selection.decisions.max(1) as f64),
                ("samples/stale_fraction", selection.stale as f64 / selection.decisions.max(1) as f64),
                ("samples/advantage_threshold", selection.threshold as f64),
                ("value/accuracy", mean(sums.value_correct)),
                ("belief/accuracy", per_hidden(sums.belief_correct)),
                ("belief/prior_accuracy", per_hidden(sums.prior_correct)),
                ("belief/log_likelihood", per_hidden(sums.belief_log_likelihood)),
                ("belief/prior_log_likelihood", per_hidden(sums.prior_log_likelihood)),
                ("speed/plies_per_second", collected.plies as f64 / seconds),
                ("speed/games_per_second", collected.games.len() as f64 / seconds),
                ("speed/samples_per_second", sums.samples / seconds),
                ("speed/wait_seconds", waited),
                ("speed/learn_seconds", seconds - waited),
                ("games/average_length", collected.plies as f64 / n_games),
                ("schedule/learning_rate", lr),
                ("schedule/magnet_weight", tau as f64),
            ];
            for (tag, count) in REASON_TAGS.iter().zip(collected.reasons) {
                values.push((tag, count as f64 / n_games));
            }

            // 5. Checkpoint and evaluation.
            let step = counters.iteration;
            let last = step == config.run.iterations;
            if step % config.checkpoint.every == 0 || last {
                let dir = run.save(&counters, &meta(step), &net, &ema, &optimizer, config.checkpoint.keep)?;
                last_checkpoint = Some(dir);
            }
            let mut scores = Vec::new();
            if config.eval.every > 0 && (step % config.eval.every == 0 || last) {
                scores = evaluate(&net.valid(), &meta(step), &config.eval, config.run.seed ^ step)?;
            }
            let score_tags: Vec<String> = scores.iter().map(|(name, _)| format!("eval/score_vs_{name}")).collect();
            for (tag, (_, score)) in score_tags.iter().zip(&scores) {
                values.push((tag, *score));
            }
            board.scalars(step, &values)?;
            metrics.write(step, &values)?;
            bar.set_position(step);
            bar.set_message(format!(
                "{:.0} plies/s  loss {:.3}  value {:.3}  belief {:.3}",
                collected.plies as f64 / seconds,
                mean(sums.total),
                mean(sums.value),
                mean(sums.belief)
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
    result?;
    stopped?;
    Ok(TrainSummary { run: run.root().to_path_buf(), counters, last_checkpoint })
}
