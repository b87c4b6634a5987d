//! `stratego ntuple train` (TD(lambda) self-play into a run directory, with
//! resumption) and `stratego bench ntuple` (evaluations per second).
//!
//! A run directory holds `config.toml` (the resolved config), checkpoints
//! `ntuple-<games>.safetensors` (the last K kept; each is a table file the
//! `ntuple:` player reads, with the temporal-coherence accumulators when TC
//! is on), `final.safetensors` once the run is done, TensorBoard event
//! files and `metrics.jsonl`. A run that was killed resumes from its latest
//! checkpoint (`--resume DIR`) and continues exactly as if it had not
//! stopped: game `g` draws from a generator seeded by `(seed, g)`, so the
//! weights and the game counter are the whole state.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::{Deserialize, Serialize};
use stratego_evaluation::arena::{play_match, MatchConfig, SetupMode};
use stratego_evaluation::chart::{Panel, Series};
use stratego_baselines::ntuple::speed::{measure, positions};
use stratego_baselines::ntuple::{
    train, GameStats, NTupleFactory, NTupleNet, TdConfig, TrainConfig, TrainSetups, Trainer,
};
use stratego_evaluation::report::MatchSummary;
use stratego_players::setup_policy::SetupPolicy;

use stratego_evaluation::stats::Z95;
use stratego_engine::{PieceSet, Ruleset};
use stratego_runlog::{atomic_write, checkpoint_name, checkpoints, prune_checkpoints, MetricsLog, TensorBoard};

use crate::curves::{write_curves, Metrics};
use crate::{output, CliError};

const STEM: &str = "ntuple";
const EXT: &str = "safetensors";

#[derive(Subcommand)]
pub enum NTupleCommand {
    /// Train n-tuple tables by TD(lambda) self-play into a run directory, or resume a killed run.
    Train(TrainArgs),
}

#[derive(Args)]
pub struct TrainArgs {
    /// The training config (TOML; see configs/ntuple.toml).
    #[arg(long, required_unless_present = "resume", conflicts_with = "resume")]
    config: Option<PathBuf>,
    /// The run directory for a new run (default runs/ntuple-<config name>); an existing one is refused.
    #[arg(long, conflicts_with = "resume")]
    run: Option<PathBuf>,
    /// Continue the run in this directory from its latest checkpoint.
    #[arg(long)]
    resume: Option<PathBuf>,
    /// Stop after this many games in this invocation (the run can be resumed later).
    #[arg(long)]
    stop_after: Option<u64>,
}

#[derive(Args)]
pub struct BenchNTupleArgs {
    /// Table file to measure (default: the default layout with seeded random weights).
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Mid-game positions from random playouts.
    #[arg(long, default_value_t = 200)]
    positions: usize,
    /// Passes over the positions per round.
    #[arg(long, default_value_t = 50)]
    repeat: usize,
    /// Rounds per figure (the best is printed).
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Self-play training games to time on one core (0: skip).
    #[arg(long, default_value_t = 200)]
    train_games: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The ruleset switches, named as for `stratego play` (docs/RULES.md defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RulesConfig {
    #[serde(default = "default_pieces")]
    pieces: String,
    #[serde(default = "default_two_square")]
    two_square: u8,
    #[serde(default = "default_chase")]
    chase: String,
    #[serde(default = "default_max_plies")]
    max_plies: u32,
    #[serde(default = "default_max_battleless")]
    max_battleless: u32,
}

fn default_pieces() -> String {
    "classic".into()
}
fn default_two_square() -> u8 {
    3
}
fn default_chase() -> String {
    "on".into()
}
fn default_max_plies() -> u32 {
    4000
}
fn default_max_battleless() -> u32 {
    200
}

impl Default for RulesConfig {
    fn default() -> Self {
        RulesConfig {
            pieces: default_pieces(),
            two_square: default_two_square(),
            chase: default_chase(),
            max_plies: default_max_plies(),
            max_battleless: default_max_battleless(),
        }
    }
}

impl RulesConfig {
    fn ruleset(&self) -> Result<Ruleset, String> {
        let piece_set = PieceSet::from_name(&self.pieces).ok_or_else(|| {
            format!("invalid value `{}` for `rules.pieces`: expected `classic` or `barrage`", self.pieces)
        })?;
        let chase_rule = match self.chase.as_str() {
            "on" => true,
            "off" => false,
            other => return Err(format!("invalid value `{other}` for `rules.chase`: expected `on` or `off`")),
        };
        let rules = Ruleset {
            piece_set,
            two_square_limit: self.two_square,
            chase_rule,
            max_plies: self.max_plies,
            max_battleless_plies: self.max_battleless,
        };
        rules.validate().map_err(|e| format!("invalid `[rules]`: {e}"))?;
        Ok(rules)
    }
}

/// Games against greedy while training.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct EvaluationConfig {
    /// Every this many training games (and at the end); 0 turns evaluation off.
    every: u64,
    /// Games per evaluation (even: paired games with the seats swapped).
    games: u32,
    /// The seed of the evaluation match (the same match every time).
    #[serde(default = "default_eval_seed")]
    seed: u64,
    /// The opponent's spec.
    #[serde(default = "default_opponent")]
    opponent: String,
    /// The n-tuple player's setup policy (`random` or `handcrafted`).
    #[serde(default = "default_setup")]
    setup: String,
}

fn default_eval_seed() -> u64 {
    9001
}
fn default_opponent() -> String {
    "greedy".into()
}
fn default_setup() -> String {
    "random".into()
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct CheckpointConfig {
    /// Every this many games (and at the end).
    every: u64,
    /// How many to keep.
    keep: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct LogConfig {
    /// Games per TensorBoard / metrics.jsonl point (averages over them).
    every: u64,
}

/// A training config file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct NTupleConfig {
    seed: u64,
    games: u64,
    #[serde(default = "default_layout")]
    layout: String,
    #[serde(default)]
    setups: TrainSetups,
    #[serde(default)]
    rules: RulesConfig,
    td: TdConfig,
    evaluation: EvaluationConfig,
    checkpoints: CheckpointConfig,
    log: LogConfig,
}

fn default_layout() -> String {
    stratego_baselines::ntuple::layout::DEFAULT.into()
}

impl NTupleConfig {
    fn read(path: &Path) -> Result<NTupleConfig, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let config: NTupleConfig =
            toml::from_str(&text).map_err(|e| format!("{}: {}", path.display(), e.to_string().trim()))?;
        config.validate().map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(config)
    }

    /// Checks what serde cannot; every error names its key.
    fn validate(&self) -> Result<(), String> {
        self.train_config()?.validate()?;
        let e = &self.evaluation;
        if e.every > 0 && (e.games == 0 || e.games % 2 == 1) {
            return Err(format!("invalid value {} for `evaluation.games`: expected an even number above 0", e.games));
        }
        crate::players::factory(&e.opponent)
            .map_err(|err| format!("invalid value `{}` for `evaluation.opponent`: {err}", e.opponent))?;
        e.setup.parse::<SetupPolicy>().map_err(|err| format!("invalid value for `evaluation.setup`: {err}"))?;
        if self.checkpoints.every == 0 {
            return Err("invalid value 0 for `checkpoints.every`: expected at least 1 game".into());
        }
        if self.checkpoints.keep == 0 {
            return Err("invalid value 0 for `checkpoints.keep`: expected at least 1".into());
        }
        if self.log.every == 0 {
            return Err("invalid value 0 for `log.every`: expected at least 1 game".into());
        }
        Ok(())
    }

    fn train_config(&self) -> Result<TrainConfig, String> {
        Ok(TrainConfig {
            rules: self.rules.ruleset()?,
            seed: self.seed,
            games: self.games,
            layout: self.layout.clone(),
            setups: self.setups,
            td: self.td.clone(),
        })
    }
}

/// Running sums of the games since the last log point.
#[derive(Default)]
struct Window {
    games: u64,
    td_error: f64,
    plies: f64,
    red_wins: f64,
    draws: f64,
    explored: f64,
    /// Time spent playing the games (not logging, evaluating or saving).
    seconds: f64,
}

impl Window {
    fn add(&mut self, s: &GameStats, seconds: f64) {
        self.seconds += seconds;
        self.games += 1;
        self.td_error += s.td_error;
        self.plies += s.plies as f64;
        self.red_wins += (s.winner == Some(stratego_engine::Color::Red)) as u8 as f64;
        self.draws += s.winner.is_none() as u8 as f64;
        self.explored += s.explored as f64 / s.plies.max(1) as f64;
    }

    fn scalars(&self, s: &GameStats) -> Vec<(&'static str, f64)> {
        let n = self.games.max(1) as f64;
        let seconds = self.seconds;
        vec![
            ("td/error", self.td_error / n),
            ("td/alpha", s.alpha),
            ("td/lambda", s.lambda),
            ("td/epsilon", s.epsilon),
            ("selfplay/plies", self.plies / n),
            ("selfplay/red_wins", self.red_wins / n),
            ("selfplay/draws", self.draws / n),
            ("selfplay/explored", self.explored / n),
            ("selfplay/games_per_second", if seconds > 0.0 { n / seconds } else { 0.0 }),
        ]
    }
}

/// The outputs of a run directory.
struct Run {
    dir: PathBuf,
    config: NTupleConfig,
    board: TensorBoard,
    metrics: MetricsLog,
    opponent: Arc<dyn stratego_players::PlayerFactory>,
}

impl Run {
    /// Redraws `curves.png` from `metrics.jsonl`: the score against the
    /// evaluation opponent with its interval, the TD error, and the share of
    /// drawn self-play games. Drawn beside, then renamed, so a kill never
    /// leaves half a picture.
    fn draw_curves(&self) -> Result<Option<PathBuf>, CliError> {
        let metrics = Metrics::read(&self.dir)?;
        if metrics.is_empty() {
            return Ok(None); // nothing logged yet
        }
        let (wins, draws, losses) =
            (metrics.points("eval/wins"), metrics.points("eval/draws"), metrics.points("eval/losses"));
        let intervals = wins
            .iter()
            .zip(&draws)
            .zip(&losses)
            .map(|((&(x, w), &(_, d)), &(_, l))| {
                let (lo, hi) = score_interval(w, d, l);
                (x, lo, hi)
            })
            .collect();
        let opponent = &self.config.evaluation.opponent;
        let panels = [
            Panel {
                y_desc: format!("score vs {opponent}"),
                y_range: Some((0.0, 1.0)),
                reference: Some(0.5),
                series: vec![Series {
                    label: format!(
                        "{} games per point, 95% interval (games taken as independent)",
                        self.config.evaluation.games
                    ),
                    points: metrics.points("eval/score"),
                    intervals,
                }],
            },
            Panel {
                y_desc: "TD error (mean |delta|)".into(),
                series: vec![metrics.series("td/error", "td/error")],
                ..Panel::default()
            },
            Panel {
                y_desc: "share of self-play games".into(),
                y_range: Some((0.0, 1.0)),
                series: vec![
                    metrics.series("selfplay/draws", "draws"),
                    metrics.series("selfplay/red_wins", "Red wins"),
                ],
                ..Panel::default()
            },
        ];
        let title = format!("stratego ntuple train: {}", self.dir.display());
        Ok(Some(write_curves(&self.dir, &title, "self-play games", &panels)?))
    }

    fn checkpoint(&self, net: &NTupleNet) -> Result<PathBuf, CliError> {
        let path = self.dir.join(checkpoint_name(STEM, net.games, EXT));
        atomic_write(&path, &net.to_bytes(Some(&self.training_note())))?;
        prune_checkpoints(&self.dir, STEM, EXT, self.config.checkpoints.keep)?;
        Ok(path)
    }

    fn training_note(&self) -> String {
        serde_json::to_string(&serde_json::json!({
            "command": "stratego ntuple train",
            "config": toml::to_string(&self.config).unwrap_or_default(),
        }))
        .expect("json")
    }

    /// The score of the current tables against the opponent, and its W/D/L.
    fn evaluate(&self, net: &NTupleNet) -> Result<MatchSummary, CliError> {
        let e = &self.config.evaluation;
        let ours = NTupleFactory {
            net: Arc::new(net.clone()),
            name: format!("ntuple:{}@{}", self.dir.display(), net.games),
            setup: e.setup.parse()?,
        };
        let config =
            MatchConfig { rules: *net.rules(), games: e.games, seed: e.seed, setups: SetupMode::Swap, sprt: None };
        let result = play_match(&ours, self.opponent.as_ref(), &config, &|_| {})?;
        Ok(MatchSummary::of(&result))
    }
}

pub fn run(command: NTupleCommand, out: &mut impl Write) -> Result<(), CliError> {
    match command {
        NTupleCommand::Train(args) => train_command(out, args),
    }
}

fn train_command(out: &mut impl Write, args: TrainArgs) -> Result<(), CliError> {
    let (dir, config, net, resumed) = match (&args.config, &args.resume) {
        (_, Some(dir)) => {
            let config = NTupleConfig::read(&dir.join("config.toml"))?;
            let latest = checkpoints(dir, STEM, EXT)?
                .pop()
                .ok_or_else(|| format!("{} has no checkpoint ({STEM}-<games>.{EXT}) to resume from", dir.display()))?;
            let net = NTupleNet::load(&latest.path, Some(&config.rules.ruleset()?))?;
            (dir.clone(), config, net, true)
        }
        (Some(path), None) => {
            let config = NTupleConfig::read(path)?;
            let name = path.file_stem().map_or("ntuple".into(), |s| s.to_string_lossy().into_owned());
            let dir = args.run.clone().unwrap_or_else(|| Path::new("runs").join(format!("ntuple-{name}")));
            if dir.exists() {
                return Err(format!(
                    "{} already exists; resume it with --resume {0} or choose another --run",
                    dir.display()
                )
                .into());
            }
            std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            let text = format!(
                "# The resolved config of this run (every default filled in); `--resume` reads it.\n{}",
                toml::to_string(&config).map_err(|e| e.to_string())?
            );
            atomic_write(&dir.join("config.toml"), text.as_bytes())?;
            let net = config.train_config()?.fresh_net()?;
            (dir, config, net, false)
        }
        (None, None) => return Err("give --config FILE for a new run or --resume DIR".into()),
    };
    let start_games = net.games;
    let mut trainer = Trainer::new(config.train_config()?, net)?;
    let opponent = crate::players::factory(&config.evaluation.opponent)?;
    let mut run = Run {
        board: TensorBoard::create(&dir, resumed.then_some(start_games))?,
        metrics: MetricsLog::append(&dir.join("metrics.jsonl"))?,
        dir,
        config,
        opponent,
    };
    if resumed {
        run.metrics.event("resumed", start_games)?;
    } else {
        run.checkpoint(trainer.net())?;
    }
    let rules = trainer.config().rules;
    writeln!(
        out,
        "run {} ({}), rules {} (id {}), layout {}, {} of {} games played",
        run.dir.display(),
        if resumed { "resumed" } else { "new" },
        rules,
        rules.id(),
        trainer.net().layout().name,
        start_games,
        run.config.games
    )
    .map_err(output)?;
    out.flush().map_err(output)?;

    let bar = ProgressBar::with_draw_target(Some(run.config.games), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games ({per_sec}, eta {eta})  {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_position(start_games);
    let stop_at = args.stop_after.map_or(u64::MAX, |n| start_games.saturating_add(n));
    let started = Instant::now();
    let mut window = Window::default();
    let mut last_score: Option<f64> = None;
    let mut stopped = false;
    let mut last_end = Instant::now();
    let result = train(&mut trainer, |trainer, stats| -> Result<(), CliError> {
        let games = trainer.games_played();
        window.add(stats, last_end.elapsed().as_secs_f64());
        let finished = games == run.config.games;
        if games % run.config.log.every == 0 || finished {
            let scalars = window.scalars(stats);
            run.board.scalars(games, &scalars)?;
            run.metrics.write(games, &scalars)?;
            window = Window::default();
        }
        let e = &run.config.evaluation;
        if e.every > 0 && (games % e.every == 0 || finished) {
            let summary = run.evaluate(trainer.net())?;
            let values = [
                ("eval/score", summary.score),
                ("eval/wins", summary.a_wins as f64),
                ("eval/draws", summary.draws as f64),
                ("eval/losses", summary.a_losses as f64),
            ];
            run.board.scalars(games, &values)?;
            run.metrics.write(games, &values)?;
            last_score = Some(summary.score);
            run.draw_curves()?;
        }
        if games % run.config.checkpoints.every == 0 || finished {
            run.checkpoint(trainer.net())?;
        }
        bar.set_position(games);
        let score =
            last_score.map_or(String::new(), |s| format!(", score vs {} {s:.3}", run.config.evaluation.opponent));
        bar.set_message(format!("td error {:.4}{score}", stats.td_error));
        if games >= stop_at && !finished {
            run.checkpoint(trainer.net())?;
            stopped = true;
            return Err(CliError::Message(String::new())); // ends the loop; not an error
        }
        last_end = Instant::now();
        Ok(())
    });
    bar.finish_and_clear();
    let played = trainer.games_played() - start_games;
    let seconds = started.elapsed().as_secs_f64();
    if !stopped {
        result?;
    }
    writeln!(
        out,
        "played {played} games in {seconds:.1} s ({:.1} games/s); {} of {} games done",
        played as f64 / seconds.max(1e-9),
        trainer.games_played(),
        run.config.games
    )
    .map_err(output)?;
    if let Some(score) = last_score {
        writeln!(out, "last score vs {}: {score:.3}", run.config.evaluation.opponent).map_err(output)?;
    }
    if let Some(curves) = run.draw_curves()? {
        writeln!(out, "curves: {}", curves.display()).map_err(output)?;
    }
    if stopped {
        writeln!(out, "stopped; continue with --resume {}", run.dir.display()).map_err(output)?;
    } else {
        let final_path = run.dir.join("final.safetensors");
        atomic_write(&final_path, &trainer.net().to_bytes(Some(&run.training_note())))?;
        writeln!(out, "tables: {}", final_path.display()).map_err(output)?;
    }
    Ok(())
}

/// The 95 % normal interval of a match score from its wins, draws and
/// losses (each game scored 1, 1/2 or 0), clamped to [0, 1].
fn score_interval(wins: f64, draws: f64, losses: f64) -> (f64, f64) {
    let n = wins + draws + losses;
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    let mean = (wins + 0.5 * draws) / n;
    let variance = (wins * (1.0 - mean).powi(2) + draws * (0.5 - mean).powi(2) + losses * mean.powi(2)) / n;
    let half = Z95 * (variance / n).sqrt();
    ((mean - half).max(0.0), (mean + half).min(1.0))
}

pub fn bench(out: &mut impl Write, args: BenchNTupleArgs) -> Result<(), CliError> {
    use rand::{Rng, SeedableRng};
    let rules = Ruleset::classic();
    let net = match &args.tables {
        Some(path) => NTupleNet::load(path, Some(&rules))?,
        None => {
            let mut net = NTupleNet::new(
                stratego_baselines::ntuple::Layout::preset(stratego_baselines::ntuple::layout::DEFAULT)?,
                rules,
                false,
            )?;
            let mut rng = stratego_players::AgentRng::seed_from_u64(args.seed);
            for k in 0..net.layout().tables() {
                net.table_mut(k).iter_mut().for_each(|w| *w = rng.random_range(-0.05..0.05));
            }
            net
        }
    };
    let states = positions(rules, args.positions, args.seed);
    let speed = measure(&net, &states, args.repeat, args.rounds);
    let layout = &net.layout().name;
    let tuples = net.layout().tuples.len();
    let lines = [
        format!(
            "ntuple full evaluation ({layout}, {tuples} tuples): {:.0} evaluations/s per core",
            speed.full_per_second
        ),
        format!(
            "ntuple table lookups ({layout}, encoded position): {:.0} evaluations/s per core",
            speed.lookups_per_second
        ),
        format!("ntuple afterstate evaluation ({layout}): {:.0} moves/s per core", speed.afterstates_per_second),
        format!("ntuple anchor greedy move score: {:.0} moves/s per core", speed.greedy_scores_per_second),
        format!(
            "ntuple anchor expectimax hand-written evaluation: {:.0} evaluations/s per core",
            speed.handwritten_per_second
        ),
        format!("ntuple legal moves per position: {:.1} moves", speed.moves as f64 / speed.positions as f64),
    ];
    for line in lines {
        writeln!(out, "{line}").map_err(output)?;
    }
    if args.train_games > 0 {
        let config = TrainConfig {
            rules,
            seed: args.seed,
            games: net.games + args.train_games,
            layout: net.layout().name.clone(),
            setups: TrainSetups::Mixed,
            td: TdConfig {
                alpha: 0.01,
                alpha_final: None,
                lambda: 0.5,
                lambda_final: None,
                epsilon: 0.05,
                epsilon_final: None,
                temporal_coherence: net.coherence().is_some(),
                draw_value: 0.0,
            },
        };
        let mut trainer = Trainer::new(config, net)?;
        let (start, mut plies) = (Instant::now(), 0u64);
        train(&mut trainer, |_, s| {
            plies += s.plies as u64;
            Ok::<(), CliError>(())
        })?;
        let seconds = start.elapsed().as_secs_f64();
        writeln!(
            out,
            "ntuple self-play training: {:.0} games/hour per core",
            args.train_games as f64 / seconds * 3600.0
        )
        .map_err(output)?;
        writeln!(out, "ntuple self-play training: {:.0} plies/s per core", plies as f64 / seconds).map_err(output)?;
        writeln!(out, "ntuple self-play game length: {:.1} plies", plies as f64 / args.train_games as f64)
            .map_err(output)?;
    }
    Ok(())
}
