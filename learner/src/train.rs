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
//!    minibatch are summed on the device (steps 2 and 3 are the algorithm
//!    alone, `ppo.rs`; this file keeps the run around it);
//! 4. the average of the weights is updated, the new weights go to the
//!    actors (the next policy version), and the iteration's diagnostics
//!    (`diagnostics.rs`), read back once, are logged;
//! 5. every K iterations: an evaluation against the baseline players (its
//!    scores join the iteration's log line) and, after the line is written,
//!    a checkpoint (raw, average, optimizer, counters).
//!
//! With `[pretrain] enabled`, a run without a checkpoint first trains by
//! imitation of a teacher (`distill.rs`) and saves that as checkpoint 0;
//! with `run.init`, checkpoint 0 is the given network. `run.max_minutes`
//! ends a run early at a wall-clock budget. A `[[stage]]` of the config
//! (`stage.rs`) changes the recipe from an iteration on: steps 1 to 5 read
//! the config of the stage the iteration is in, which `Recipe` (`recipe.rs`)
//! answers, with where the schedules count from and where a stage begins.
//!
//! Every generator is seeded by `stream_seed(run.seed, <stream>, <index>)`:
//! the actors of a start at iteration t (stream `selfplay`), the minibatch
//! order of iteration t (`minibatches`), the evaluation at step t (`eval`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use burn::module::Module;
use burn::optim::ModuleOptimizer;
use crossbeam_channel::{bounded, Receiver};
use stratego_contract::seed::stream_seed;
use stratego_model::{CheckpointMeta, Device, StrategoNet};
use stratego_runlog::{MetricsLog, Progress, TensorBoard};
use stratego_selfplay::{spawn_actors, ActorConfig, Actors, GameTrajectory, InferenceService, Pool};

use crate::collect::{Collector, Wanted};
use crate::config::{SelfPlayConfig, TrainConfig};
use crate::diagnostics::{
    self, Iteration, Selection, Term, EVAL_CAP_DRAWS_PREFIX, EVAL_HIGH_SUFFIX, EVAL_LOW_SUFFIX, EVAL_SCORE_PREFIX,
    EVAL_SECONDS, SELFPLAY_SCORE_PREFIX,
};
use crate::distill::pretrain_run;
use crate::evaluate::{evaluate, KeptGame};
use crate::ppo;
use crate::ppo::step::optimizer;
use crate::recipe::Recipe;
use crate::run::{restore, Counters, NetworkRun};
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

/// The seed of the actors that a run seeded `run_seed` starts at
/// `iteration` (0, or the iteration a resume continues from). A named
/// stream: a resumed run's games are not a shifted copy of the first run's.
pub fn selfplay_seed(run_seed: u64, iteration: u64) -> u64 {
    stream_seed(run_seed, "selfplay", iteration)
}

/// Starts the inference service (with `net` as policy `version`) and the
/// actors of `config`, seeded with `seed`; returns them with the receiving
/// end of the game channel.
pub fn start_selfplay(
    config: &TrainConfig,
    net: StrategoNet,
    version: u64,
    seed: u64,
    device: &Device,
    pool: Option<Arc<Pool>>,
    run: Option<&Path>,
) -> Result<(InferenceService, Actors, Receiver<GameTrajectory>), TrainError> {
    let (rules, layout) = (config.game.rules, config.game.layout);
    let s = &config.selfplay;
    let service = InferenceService::start(net, version, layout, device.clone(), s.max_inference_batch);
    let (sender, games) = bounded::<GameTrajectory>(s.channel_capacity);
    let opponents = s
        .opponents
        .iter()
        .map(|spec| crate::stage::factory(spec, run).map_err(|e| TrainError::config("selfplay.opponents", e)))
        .collect::<Result<Vec<_>, _>>()?;
    let actor_config = ActorConfig {
        rules,
        layout,
        actors: s.actors,
        games_per_actor: s.games_per_actor,
        temperature: s.temperature,
        opponents,
        opponent_share: s.opponent_share,
        pool,
        pool_share: s.pool_share,
        seed,
        gated: Collector::gated(config),
    };
    let actors = spawn_actors(&actor_config, service.client(), sender, &|| config.game.setup_source(rules.piece_set))?;
    Ok((service, actors, games))
}

/// The names the opponents' scores are logged under, in seat-index order:
/// the fixed opponents, then the pool of past selves as one (`pool`).
fn opponent_names(s: &SelfPlayConfig) -> Vec<String> {
    let mut names = s.opponents.clone();
    if s.pool_size > 0 {
        names.push(POOL_OPPONENT.to_string());
    }
    names
}

/// What the pool's games are logged as: `selfplay/score_vs_pool`.
pub const POOL_OPPONENT: &str = "pool";

/// `selfplay/score_vs_<opponent>` of each opponent that played in `games`
/// (`opponents` in seat-index order, `opponent_names`): the network's mean
/// score against it.
fn opponent_scores(games: &[GameTrajectory], opponents: &[String]) -> Vec<(String, f64)> {
    let mut sums = vec![(0.0f64, 0usize); opponents.len()];
    for game in games {
        if let Some(seat) = game.opponent {
            let network = seat.color.opponent();
            sums[seat.index].0 += crate::ppo::targets::result_index(&game.outcome, network) as f64 / 2.0;
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

/// The progress line of an iteration that trained on nothing: every
/// decision it was given was stale, or none was kept.
fn no_fresh_samples(speed: f64, selection: &Selection, max_staleness: u64) -> String {
    let why = if selection.decisions == 0 {
        "it was given no decisions".to_string()
    } else if selection.stale == selection.decisions {
        format!("all {} decisions were more than {max_staleness} versions old", selection.decisions)
    } else {
        format!("of {} decisions, {} were stale and none was kept", selection.decisions, selection.stale)
    };
    format!("{speed:.0} plies/s  no fresh samples: {why}; nothing learned")
}

/// What one learner iteration did: its step (the new policy version), every
/// value it logged, and a one-line summary for a progress display.
#[derive(Clone, Debug)]
pub struct Learned {
    pub step: u64,
    pub values: Vec<(String, f64)>,
    pub line: String,
}

/// The learner's state between iterations: the weights being trained, their
/// average, the optimizer, the counters and the run directory with its logs.
/// `train` drives it with actor threads of this process; a cluster driver
/// (python/stratego_lab/cluster.py) drives the same object with games played
/// by self-play workers on other machines.
pub struct Learner {
    /// The config and its stages: which config an iteration runs.
    recipe: Recipe,
    run: NetworkRun,
    plain: Device,
    device: Device,
    /// The weights being trained; taken out only while an iteration's
    /// steps consume and return them (so the optimizer updates the only
    /// copy in place), and always put back.
    net: Option<StrategoNet>,
    ema: StrategoNet,
    optimizer: ModuleOptimizer,
    counters: Counters,
    metrics: MetricsLog,
    board: TensorBoard,
    last_checkpoint: Option<PathBuf>,
    started: Instant,
    seconds_before: f64,
    /// The seconds the inference service of this process's actors spent
    /// in the network since the last iteration (`note_inference`).
    inference: Option<f64>,
}

impl Learner {
    /// Opens `run` (fresh, or resumed from its newest complete checkpoint)
    /// and makes the first weights: the checkpoint's, a warm start's
    /// (`[pretrain]`, saved as checkpoint 0), `run.init`'s, or fresh ones.
    pub fn open(
        config: &TrainConfig,
        run: NetworkRun,
        resume: bool,
        options: &TrainOptions,
    ) -> Result<Learner, TrainError> {
        let (layout, model) = (config.game.layout, config.model.preset.model());
        let device_name = options.device.as_deref().unwrap_or(config.run.device.name());
        let plain: Device = stratego_model::device(device_name)?;
        let device = plain.clone().autodiff();
        let recipe = Recipe::new(config)?;
        let resumed_from = if resume { run.latest_verified()? } else { None };
        // The optimizer of the stage the run is in.
        let l = &recipe.at(resumed_from.as_ref().map_or(0, |(step, _)| *step)).learner;
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
        let meta = checkpoint_meta(config, 0);
        let mut first_checkpoint = None;
        let (net, ema, optimizer, counters) = match &resumed_from {
            Some((_, dir)) => {
                let r = restore(dir, &meta, &device, &plain, optimizer(l))?;
                (r.net, r.ema, r.optimizer, r.counters)
            }
            // The warm start by imitation (`distill.rs`) becomes the run's
            // first checkpoint (iteration 0, its seconds counted), from which
            // RL starts with fresh optimizer moments (the loss changes).
            None if config.pretrain.enabled => {
                let (net, seconds) = pretrain_run(config, &run, &mut metrics, &device, &plain, options.progress)?;
                let counters = Counters { seconds, ..Counters::default() };
                let (ema, optimizer) = (net.valid(), optimizer(l));
                first_checkpoint = Some(run.save(&counters, &meta, &net, &ema, &optimizer, config.checkpoint.keep)?);
                (net, ema, optimizer, counters)
            }
            // A given first network (`run.init`, checked by the config): RL
            // starts from its weights, with fresh optimizer moments and counters.
            None if config.run.init.is_some() => {
                let path = config.run.init.as_deref().expect("checked by the guard");
                // Its rules were checked by the config: the same piece set,
                // perhaps other progress rules and caps.
                let (net, _) = stratego_model::load(path, Some(layout), None, &device)?;
                let (ema, optimizer) = (net.valid(), optimizer(l));
                let counters = Counters::default();
                first_checkpoint = Some(run.save(&counters, &meta, &net, &ema, &optimizer, config.checkpoint.keep)?);
                (net, ema, optimizer, counters)
            }
            None => {
                device.seed(config.run.seed);
                let net = StrategoNet::new(&model, layout, &device);
                let ema = net.valid();
                (net, ema, optimizer(l), Counters::default())
            }
        };
        let board = TensorBoard::create(run.root(), resumed_from.as_ref().map(|(step, _)| *step))?;
        let seconds_before = counters.seconds;
        Ok(Learner {
            recipe,
            last_checkpoint: resumed_from.map(|(_, dir)| dir).or(first_checkpoint),
            run,
            plain,
            device,
            net: Some(net),
            ema,
            optimizer,
            counters,
            metrics,
            board,
            started: Instant::now(),
            seconds_before,
            inference: None,
        })
    }

    /// The seconds the self-play inference service spent in the network
    /// since the last iteration, logged with the next one
    /// (`speed/inference_seconds`; a learner that is not told, a cluster's,
    /// logs none).
    pub fn note_inference(&mut self, seconds: f64) {
        self.inference = Some(seconds);
    }

    /// The weights being trained.
    fn net(&self) -> &StrategoNet {
        self.net.as_ref().expect("the weights are put back after every iteration")
    }

    /// The config of the stage iteration `t` is in.
    fn stage(&self, t: u64) -> &TrainConfig {
        self.recipe.at(t)
    }

    /// The config of the stage the next iteration is in: the one self-play
    /// plays by now.
    pub fn stage_config(&self) -> &TrainConfig {
        self.stage(self.counters.iteration)
    }

    /// The policy version of the current weights: iterations done.
    pub fn version(&self) -> u64 {
        self.counters.iteration
    }

    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// The run directory.
    pub fn root(&self) -> &std::path::Path {
        self.run.root()
    }

    /// The device self-play on this machine runs inference on.
    pub fn inference_device(&self) -> &Device {
        &self.plain
    }

    /// The current weights, for inference.
    pub fn policy(&self) -> StrategoNet {
        self.net().valid()
    }

    /// The current weights as checkpoint bytes (`stratego_model::to_bytes`),
    /// for self-play workers in other processes.
    pub fn policy_bytes(&self) -> Result<Vec<u8>, TrainError> {
        Ok(stratego_model::to_bytes(
            &self.net().valid(),
            &checkpoint_meta(self.recipe.config(), self.counters.iteration),
        )?)
    }

    /// The run's own seconds left of `run.max_minutes`, if it has a budget.
    pub fn seconds_left(&self) -> Option<f64> {
        self.recipe.config().run.max_minutes.map(|m| (m * 60.0 - self.counters.seconds).max(0.0))
    }

    /// Whether the run is done: `run.iterations` reached, or `run.max_minutes` spent.
    pub fn finished(&self) -> bool {
        let config = self.recipe.config();
        let budget = config.run.max_minutes.map(|m| m * 60.0);
        self.counters.iteration >= config.run.iterations || budget.is_some_and(|b| self.counters.seconds >= b)
    }

    /// One iteration on `collected` (games whose decisions hold enough
    /// samples of recent policies; `waited` seconds were spent waiting for
    /// them): steps 2 to 5 of the module documentation. Afterwards
    /// `version()` is the next policy version.
    pub fn learn(&mut self, collected: &[GameTrajectory], waited: f64) -> Result<Learned, TrainError> {
        let tick = Instant::now();
        let t = self.counters.iteration;

        // 2-3. The algorithm (`ppo.rs`), on the config of iteration t's
        //      stage; it gives the weights back, on an error as they stand.
        let net = self.net.take().expect("the weights are put back after every iteration");
        let schedule_t = t - self.recipe.schedule_origin(t);
        let (net, it) = ppo::iterate(
            net,
            &mut self.optimizer,
            collected,
            self.recipe.at(t),
            t,
            schedule_t,
            self.counters.entropy,
            &self.device,
        );
        self.net = Some(net);
        let mut it = it?;
        self.stop_if_diverged(&it, t + 1)?;
        let config = self.recipe.at(t);
        let (l, s) = (&config.learner, &config.selfplay);
        let max_staleness = s.max_staleness;

        // 4. The average, the new policy version, the counters.
        self.ema = update_average(self.ema.clone(), &self.net().valid(), l.ema_decay);
        let counters = &mut self.counters;
        counters.iteration += 1;
        it.games = collected.len();
        for game in collected {
            it.plies += game.record.moves.len() as u64;
            it.count_end(game.outcome.reason);
        }
        counters.plies += it.plies;
        counters.games += it.games as u64;
        counters.samples += it.samples as u64;
        if it.samples > 0.0 {
            counters.entropy = Some(it.per_sample(Term::Entropy));
        }
        counters.seconds = self.seconds_before + self.started.elapsed().as_secs_f64();
        (it.run_seconds, it.run_plies) = (counters.seconds, counters.plies);
        it.waited = waited;
        it.inference = self.inference.take().unwrap_or(f64::NAN);
        it.seconds = waited + tick.elapsed().as_secs_f64();
        let mut values: Vec<(String, f64)> =
            diagnostics::values(&it).into_iter().map(|(tag, v)| (tag.to_string(), v)).collect();
        values.extend(opponent_scores(collected, &opponent_names(s)));
        let restart = self.recipe.stage_beginning_at(self.counters.iteration).map(|stage| stage.restart);

        // 5. Evaluation, the iteration's logs, then its checkpoint: in this
        //    order a kill between the last two leaves a line past the
        //    newest checkpoint, which the resume drops (its `resumed`
        //    event) and plays again; in the other, the checkpoint's own
        //    line was lost for good. A stage that begins at the new version
        //    is entered before the checkpoint, which it always has.
        let step = self.counters.iteration;
        let (evaluated, kept) = self.evaluate_if_due(step)?;
        values.extend(evaluated);
        let logged: Vec<(&str, f64)> = values.iter().map(|(tag, v)| (tag.as_str(), *v)).collect();
        self.board.scalars(step, &logged)?;
        self.keep_games(step, &kept)?;
        self.metrics.write(step, &logged)?;
        if let Some(restart) = restart {
            self.enter_stage(step, restart)?;
        }
        self.checkpoint_if_due(step, restart.is_some())?;
        let speed = it.plies as f64 / it.seconds.max(1e-9);
        let line = if it.samples > 0.0 {
            format!(
                "{speed:.0} plies/s  loss {:.3}  value {:.3}  belief {:.3}",
                it.per_sample(Term::Total),
                it.per_sample(Term::Value),
                it.per_sample(Term::Belief)
            )
        } else {
            // Said in words: a loss of no samples is NaN, which reads as a
            // diverged run (the run goes on; the policy did not change).
            no_fresh_samples(speed, &it.selection, max_staleness)
        };
        Ok(Learned { step, values, line })
    }

    /// A non-finite loss or gradient would poison the weights, the average
    /// and every later checkpoint: the run stops before any of them is
    /// written (iteration `step` would have been the next version), and
    /// says so in the log too.
    fn stop_if_diverged(&mut self, it: &Iteration, step: u64) -> Result<(), TrainError> {
        let Some(term) = Term::ALL.into_iter().find(|t| !it.sums[t.index()].is_finite()) else { return Ok(()) };
        self.metrics.event("diverged", step)?;
        let kept = self.run.latest()?.map_or("none".to_string(), |(_, dir)| dir.display().to_string());
        Err(TrainError::Diverged(format!(
            "training diverged at iteration {step}: the summed {term:?} is not finite; nothing of this iteration was \
             saved (last good checkpoint: {kept}); lower learner.lr or learner.grad_clip and resume"
        )))
    }

    /// Step 5: the stage that begins at version `step` (`stage.rs`): its
    /// first network kept as `@step`, and with `restart` a fresh optimizer
    /// and average.
    fn enter_stage(&mut self, step: u64, restart: bool) -> Result<(), TrainError> {
        let file = crate::stage::frozen_file(self.run.root(), step);
        let dir = file.parent().expect("a stage file is in a folder");
        std::fs::create_dir_all(dir).map_err(|e| crate::run::run_error(dir, e))?;
        stratego_model::save(&self.net().valid(), &checkpoint_meta(self.recipe.config(), step), &file)?;
        if restart {
            self.optimizer = optimizer(&self.stage(step).learner);
            self.ema = self.net().valid();
        }
        let what = if restart { "stage begins, restarted" } else { "stage begins" };
        self.metrics.event(what, step)?;
        let (stage, stages) = (self.recipe.stage_index(step) + 1, self.recipe.stage_count());
        crate::say(&format!("iteration {step}: stage {stage} of {stages} begins; its network is {}", file.display()));
        Ok(())
    }

    /// Step 5: a checkpoint every `checkpoint.every` iterations, at the
    /// end, and when `forced` (a stage begins).
    fn checkpoint_if_due(&mut self, step: u64, forced: bool) -> Result<(), TrainError> {
        let config = self.recipe.config();
        if forced || step.is_multiple_of(config.checkpoint.every) || self.finished() {
            let meta = checkpoint_meta(config, step);
            let dir =
                self.run.save(&self.counters, &meta, self.net(), &self.ema, &self.optimizer, config.checkpoint.keep)?;
            self.last_checkpoint = Some(dir);
        }
        Ok(())
    }

    /// Step 5: an evaluation's kept games as records in
    /// `eval-games/<step>/` (`OPPONENT-INDEX.txt`, which `stratego view`
    /// and `replay` read), and the last position of the worst one as a
    /// picture there (`board.png`) and in TensorBoard (`eval/board`).
    fn keep_games(&mut self, step: u64, kept: &[KeptGame]) -> Result<(), TrainError> {
        let Some(worst) = kept.iter().min_by(|a, b| a.points.total_cmp(&b.points)) else { return Ok(()) };
        let dir = self.run.root().join("eval-games").join(format!("{step:08}"));
        std::fs::create_dir_all(&dir).map_err(|e| crate::run::run_error(&dir, e))?;
        for game in kept {
            let name = format!("{}-{:05}.txt", stratego_evaluation::report::slug(&game.opponent), game.index);
            let path = dir.join(name);
            stratego_runlog::atomic_write(&path, game.record.to_text().as_bytes())?;
        }
        let end = worst.record.replay().map_err(|e| TrainError::Data(format!("an evaluation game: {e}")))?;
        let result = match worst.points {
            p if p >= 1.0 => "won",
            p if p > 0.0 => "drawn",
            _ => "lost",
        };
        let caption = format!(
            "iteration {step}: the network ({}) {result} against {} in {} plies",
            worst.network,
            worst.opponent,
            end.ply()
        );
        let picture = dir.join("board.png");
        stratego_evaluation::chart::draw_board(&picture, &end, &caption)
            .map_err(|e| TrainError::Data(e.to_string()))?;
        let png = std::fs::read(&picture).map_err(|e| crate::run::run_error(&picture, e))?;
        let (width, height) = stratego_evaluation::chart::BOARD_PICTURE;
        self.board.image(diagnostics::EVAL_BOARD, step, &png, width, height)?;
        Ok(())
    }

    /// Step 5: an evaluation every `eval.every` and at the end, whose
    /// values it returns (its time apart, `eval/seconds`: it is neither
    /// learning nor waiting) with the games it kept; `eval` of the stage
    /// that ended at `step`.
    fn evaluate_if_due(&self, step: u64) -> Result<(Tagged, Vec<KeptGame>), TrainError> {
        let config = self.stage(step - 1);
        let mut values = Vec::new();
        let mut kept = Vec::new();
        if config.eval.every > 0 && (step.is_multiple_of(config.eval.every) || self.finished()) {
            let eval_started = Instant::now();
            let meta = checkpoint_meta(config, step);
            let setups = config.game.setups;
            let eval_seed = stream_seed(config.run.seed, "eval", step);
            let run = Some(self.run.root());
            let evaluation = evaluate(&self.net().valid(), &meta, &config.eval, setups, eval_seed, run)?;
            if let Some(report) = &evaluation.probe {
                values.extend(crate::probe::scalars(report).into_iter().map(|(tag, v)| (tag.to_string(), v)));
            }
            for s in evaluation.scores {
                let tag = format!("{EVAL_SCORE_PREFIX}{}", s.opponent);
                values.push((format!("{tag}{EVAL_LOW_SUFFIX}"), s.low));
                values.push((format!("{tag}{EVAL_HIGH_SUFFIX}"), s.high));
                values.push((format!("{EVAL_CAP_DRAWS_PREFIX}{}", s.opponent), s.cap_draws));
                values.push((tag, s.score));
            }
            values.push((EVAL_SECONDS.to_string(), eval_started.elapsed().as_secs_f64()));
            kept = evaluation.kept;
        }
        Ok((values, kept))
    }

    /// Where the run stands now.
    pub fn summary(&self) -> TrainSummary {
        TrainSummary {
            run: self.run.root().to_path_buf(),
            counters: self.counters,
            last_checkpoint: self.last_checkpoint.clone(),
        }
    }
}

/// Values by tag, as an iteration logs them.
type Tagged = Vec<(String, f64)>;

/// The metadata of the run's checkpoints at `step`.
pub(crate) fn checkpoint_meta(config: &TrainConfig, step: u64) -> CheckpointMeta {
    CheckpointMeta { config: config.model.preset.model(), layout: config.game.layout, rules: config.game.rules, step }
}

/// The self-play of one stage in this process: the inference service, the
/// actors and their games, the pool of past selves, how games are collected.
struct SelfPlay {
    service: InferenceService,
    actors: Actors,
    games: Receiver<GameTrajectory>,
    pool: Option<Arc<Pool>>,
    collector: Collector,
    /// The service's busy seconds at the last iteration.
    busy_before: f64,
}

impl SelfPlay {
    /// The self-play of the stage the learner is in: an inference service
    /// with the current weights, actors seeded from the run seed and the
    /// version they start at (a resumed run, or a new stage, plays new
    /// games, not the killed run's or the stage before's).
    fn start(learner: &Learner) -> Result<SelfPlay, TrainError> {
        let (config, version) = (learner.stage_config(), learner.version());
        let seed = selfplay_seed(config.run.seed, version);
        let s = &config.selfplay;
        let pool = (s.pool_size > 0).then(|| crate::pool_files::open(learner.root(), s.pool_size)).transpose()?;
        let device = learner.inference_device();
        let run = Some(learner.root());
        let (service, actors, games) =
            start_selfplay(config, learner.policy(), version, seed, device, pool.clone(), run)?;
        Ok(SelfPlay { service, actors, games, pool, collector: Collector::new(config), busy_before: 0.0 })
    }

    /// Stops the actors (they may be blocked on a full channel: dropping
    /// the receiver releases them), then the service; an actor's own error
    /// (a panic with its message).
    fn stop(self) -> Result<(), TrainError> {
        drop(self.games);
        let stopped = self.actors.stop();
        self.service.shutdown();
        Ok(stopped?)
    }
}

/// Trains from `run` (fresh or resumed) until `run.iterations`, with the
/// actors of this process.
pub fn train(
    config: &TrainConfig,
    run: NetworkRun,
    resume: bool,
    options: &TrainOptions,
) -> Result<TrainSummary, TrainError> {
    let mut learner = Learner::open(config, run, resume, options)?;
    let mut selfplay = Some(SelfPlay::start(&learner)?);
    let bar = Progress::new("train", "iterations", config.run.iterations, options.progress)
        .resume_at(learner.version())
        .ends_within(learner.seconds_left());
    let result = (|| -> Result<(), TrainError> {
        while !learner.finished() {
            // 1. Games from the actors (the time waiting for them is near
            //    zero when the learner is the bottleneck, most of the
            //    iteration when the actors are); 2-5 in `Learner::learn`.
            let tick = Instant::now();
            let stage = learner.stage_config();
            let wanted = Wanted {
                decisions: stage.learner.samples_per_iteration,
                version: learner.version(),
                max_staleness: stage.selfplay.max_staleness,
            };
            let playing = selfplay.as_mut().expect("self-play runs between iterations");
            let collected = playing.collector.collect(&playing.games, &playing.actors, wanted)?;
            let busy = playing.service.busy_seconds();
            learner.note_inference(busy - std::mem::replace(&mut playing.busy_before, busy));
            let learned = learner.learn(&collected, tick.elapsed().as_secs_f64())?;
            if learner.recipe.stage_beginning_at(learned.step).is_none() {
                playing.service.publish(learned.step, learner.policy());
            } else if !learner.finished() {
                // A stage begins: its self-play, with its settings, starts
                // from the new version (the games in flight are dropped).
                selfplay.take().expect("self-play runs").stop()?;
                selfplay = Some(SelfPlay::start(&learner)?);
            }
            let pool_every = learner.stage_config().selfplay.pool_every;
            let pool = selfplay.as_ref().and_then(|p| p.pool.as_ref());
            if let Some(pool) = pool.filter(|_| learned.step.is_multiple_of(pool_every)) {
                crate::pool_files::add(
                    pool,
                    learner.root(),
                    &learner.policy(),
                    &checkpoint_meta(config, learned.step),
                )?;
            }
            bar.set_position(learned.step);
            bar.set_message(learned.line);
        }
        Ok(())
    })();

    let stopped = selfplay.map_or(Ok(()), SelfPlay::stop);
    bar.finish();
    // An actor's own error (a panic with its message) is the cause of the
    // learner's "an actor stopped", so it is reported first.
    stopped?;
    result?;
    Ok(learner.summary())
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use stratego_engine::{PieceSet, Ruleset, Setup, SetupSource, VecEnv};
    use stratego_players::SetupPolicy;
    use stratego_selfplay::actor_seeds;

    use std::time::Duration;

    use super::*;

    /// An iteration that trained on nothing says why in words, not as a
    /// loss of NaN (a cluster run's iteration 7 printed `loss nan`).
    #[test]
    fn an_iteration_without_fresh_samples_says_so() {
        let line =
            |decisions, stale| no_fresh_samples(812.4, &Selection { decisions, stale, kept: 0, threshold: 0.0 }, 4);
        assert_eq!(
            line(900, 900),
            "812 plies/s  no fresh samples: all 900 decisions were more than 4 versions old; nothing learned"
        );
        assert!(line(900, 300).contains("of 900 decisions, 300 were stale and none was kept"));
        assert!(line(0, 0).contains("it was given no decisions"));
        assert!(!line(900, 900).contains("NaN") && !line(900, 900).contains("nan"));
    }

    /// The setups of the games of actor 0 of a start at `iteration`.
    fn setups(run_seed: u64, iteration: u64, games: usize) -> Vec<String> {
        let (games_seed, _) = actor_seeds(selfplay_seed(run_seed, iteration), 0);
        let env = VecEnv::new(Ruleset::classic(), games, games_seed).unwrap();
        env.states().map(|s| s.serialize()).collect()
    }

    /// `game.opponent_setups` deals one army of each family per game: with
    /// the recipe's own armies (Flag on the back row, Bombs beside it) and
    /// uniform opponents, about half the games have a recipe Red and
    /// nearly every game exactly one recipe-like army; without it both are
    /// the recipe.
    #[test]
    fn opponent_setups_deal_one_army_from_each_family() {
        let recipe_like = |s: &Setup| {
            let flag = s.slots().iter().position(|p| *p == Some(stratego_engine::PieceType::Flag)).unwrap();
            flag < 10 && s.get(flag + 10) == Some(stratego_engine::PieceType::Bomb)
        };
        let mut config = TrainConfig::default();
        config.game.setups = SetupPolicy::HandcraftedV2;
        let deal = |config: &TrainConfig| {
            let source = config.game.setup_source(PieceSet::Classic);
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
            (0..400)
                .map(|_| source.setups(&mut rng))
                .map(|(r, b)| (recipe_like(&r), recipe_like(&b)))
                .collect::<Vec<_>>()
        };
        assert!(deal(&config).iter().all(|&(r, b)| r && b));
        config.game.opponent_setups = Some(SetupPolicy::Random);
        let dealt = deal(&config);
        let one = dealt.iter().filter(|&&(r, b)| r != b).count();
        let red = dealt.iter().filter(|&&(r, b)| r && !b).count();
        assert!(one > 370 && (150..250).contains(&red), "{one} with one recipe army, {red} of them Red");
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
        let net = StrategoNet::tiny(layout, &device);
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
            pool: None,
            pool_share: 0.0,
            seed: 1,
            gated: false,
        };
        let (sender, games) = bounded(64);
        let poisoned = || -> Box<dyn SetupSource> { Box::new(Poisoned(std::sync::atomic::AtomicUsize::new(2))) };
        let actors = spawn_actors(&config, service.client(), sender, &poisoned).unwrap();
        let start = Instant::now();
        let wanted = Wanted { decisions: usize::MAX, version: 0, max_staleness: 4 };
        let collected = crate::collect::free(&games, &actors, wanted);
        assert!(matches!(collected, Err(TrainError::Data(_))));
        assert!(start.elapsed() < Duration::from_secs(60), "{:?}", start.elapsed());
        drop(games);
        let error = TrainError::from(actors.stop().unwrap_err());
        assert_eq!(error.to_string(), "self-play: actor 0 panicked: poisoned setups");
        service.shutdown();
    }
}
