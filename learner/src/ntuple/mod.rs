//! The n-tuple trainer's run (`stratego ntuple train`): TD(lambda)
//! self-play of `stratego_baselines::ntuple` into a run directory, with
//! evaluations, checkpoints, TensorBoard, `metrics.jsonl`, curves and exact
//! resumption (docs/NTUPLE.md section 5).
//!
//! ```text
//! runs/NAME/
//!   config.toml                     the resolved config; `--resume` reads it
//!   ntuple-<games:08>.safetensors   checkpoints (the last `checkpoint.keep`),
//!                                   each a table file the `ntuple:` player reads
//!   final.safetensors               the tables once the run is done
//!   events.out.tfevents.*           TensorBoard (one file per start)
//!   metrics.jsonl                   the same numbers, "resumed" lines
//!   curves.png                      redrawn after every evaluation and at the end
//! ```
//!
//! The directory itself (created once, refused when taken, reopened by its
//! `config.toml`) is the shared `stratego_runlog::RunDir`, as for the network
//! trainer. A killed or stopped run resumes from its latest checkpoint and
//! continues exactly as if it had not stopped: game `g` draws everything
//! from a generator seeded by `derive_seed(seed, g)` (inside
//! `Trainer::play_game`), so the tables (with their temporal-coherence
//! accumulators) and their game counter are the whole state.

mod config;
pub mod td;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use stratego_baselines::ntuple::{NTupleFactory, NTupleNet, NTuplePlayer, TableFault};
use stratego_engine::{Color, Ruleset};
use stratego_evaluation::arena::{play_match, MatchConfig};
use stratego_evaluation::report::MatchSummary;
use stratego_players::PlayerFactory;
use stratego_runlog::{
    atomic_write, checkpoint_name, checkpoints, prune_checkpoints, MetricsLog, Progress, RunDir, TensorBoard,
};

pub use config::{keys, keys_markdown, LogConfig, NTupleConfig, NTupleEvalConfig};
pub use td::{train, GameStats, NTupleTrainError, TdConfig, TdTrainConfig, Trainer};

use crate::curves::draw_ntuple_curves;
use crate::TrainError;

/// Checkpoints are `ntuple-<games:08>.safetensors`.
pub const CHECKPOINT_STEM: &str = "ntuple";
pub const CHECKPOINT_EXT: &str = "safetensors";
/// The tables at the end of a run.
pub const FINAL_TABLES: &str = "final.safetensors";

/// How `NTupleRun::train` runs.
#[derive(Clone, Debug, Default)]
pub struct NTupleOptions {
    /// Stop after this many games in this invocation (checkpointed, so the
    /// run can be resumed); `None` plays to the config's `games`.
    pub stop_after: Option<u64>,
    /// Draw a progress bar on stderr.
    pub progress: bool,
}

/// How a call of `NTupleRun::train` ended; both are normal outcomes.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Every game of the config is played; the final tables are here.
    Finished { tables: PathBuf },
    /// `stop_after` was reached first; the latest checkpoint holds the run.
    Stopped,
}

/// What a call of `NTupleRun::train` did.
#[derive(Clone, Debug, PartialEq)]
pub struct NTupleSummary {
    /// Games played in this call, and the seconds it took.
    pub played: u64,
    pub seconds: f64,
    /// Games played by the run in all, of the config's `games`.
    pub games_played: u64,
    pub games: u64,
    /// The last evaluation's score of this call, if one ran.
    pub last_score: Option<f64>,
    /// `curves.png`, once anything is logged.
    pub curves: Option<PathBuf>,
    pub outcome: Outcome,
}

/// A run directory with its trainer, ready to train: a new run or a resumed one.
pub struct NTupleRun {
    dir: RunDir,
    config: NTupleConfig,
    trainer: Trainer,
    resumed: bool,
    start_games: u64,
    board: TensorBoard,
    metrics: MetricsLog,
    opponent: Arc<dyn PlayerFactory>,
}

fn run_error(e: impl std::fmt::Display) -> TrainError {
    TrainError::Run(e.to_string())
}

/// Refuses to resume from `checkpoint` when the run's `config.toml` no
/// longer resolves to the config the tables were trained under (their
/// `ntuple.training` note), naming the first key that differs.
fn check_note(checkpoint: &Path, config: &NTupleConfig, dir: &RunDir) -> Result<(), TrainError> {
    let Some(note) = NTupleNet::training_note(checkpoint).map_err(run_error)? else { return Ok(()) };
    let Some(then) =
        serde_json::from_str::<serde_json::Value>(&note).ok().and_then(|v| v["config"].as_str().map(String::from))
    else {
        return Ok(());
    };
    // A note written under the first spellings (`[evaluation]`, ...) is
    // compared as what it resolves to today.
    let then = NTupleConfig::parse(&then).map_or(then, |c| c.to_toml());
    let now = config.to_toml();
    if then == now {
        return Ok(());
    }
    Err(TrainError::ConfigChanged {
        config: dir.config_path(),
        checkpoint: checkpoint.to_path_buf(),
        key: crate::config::first_difference(&then, &now),
        remedy: "restore the file",
    })
}

impl NTupleRun {
    /// A new run of `config` in `root` (which must not hold anything yet):
    /// writes the resolved config and the untrained tables as checkpoint 0.
    pub fn create(root: &Path, config: NTupleConfig) -> Result<NTupleRun, TrainError> {
        config.validate()?;
        let net = config.train_config().fresh_net().map_err(TrainError::config_text)?;
        let opponent = config.opponent()?;
        let dir = RunDir::create(root, &config.to_toml()).map_err(run_error)?;
        let run = NTupleRun::start(dir, config, net, opponent, false)?;
        run.checkpoint()?;
        Ok(run)
    }

    /// The run in `root`, from its `config.toml` and latest checkpoint.
    pub fn resume(root: &Path) -> Result<NTupleRun, TrainError> {
        let dir = RunDir::open(root).map_err(run_error)?;
        let config = NTupleConfig::load(&dir.config_path())?;
        let opponent = config.opponent()?;
        let all = checkpoints(root, CHECKPOINT_STEM, CHECKPOINT_EXT)?;
        if all.is_empty() {
            // What a start that ran out of room (or was killed) before its
            // first checkpoint leaves: the config and nothing to resume. It
            // can be neither restarted (the directory is taken) nor resumed,
            // unless resuming starts it over from the untrained tables,
            // which is exactly what the start would have written.
            crate::say(&format!(
                "{}: no checkpoint ({CHECKPOINT_STEM}-<games>.{CHECKPOINT_EXT}) yet: starting from the untrained tables",
                root.display()
            ));
            let net = config.train_config().fresh_net().map_err(TrainError::config_text)?;
            let run = NTupleRun::start(dir, config, net, opponent, false)?;
            run.checkpoint()?;
            return Ok(run);
        }
        let rules = config.rules;
        // The newest checkpoint that loads (its checksum included); a
        // damaged one is skipped with a line saying why. One written for
        // other rules, or one the machine cannot read, stops the resume:
        // an older one would lose the games since, or not be this run's.
        let mut skipped = Vec::new();
        for latest in all.iter().rev() {
            match NTupleNet::load(&latest.path, Some(&rules)) {
                Ok(net) => {
                    check_note(&latest.path, &config, &dir)?;
                    return NTupleRun::start(dir, config, net, opponent, true);
                }
                Err(e) if e.fault != TableFault::Damaged => return Err(run_error(e)),
                Err(e) => {
                    let line = format!("{}: skipped: {}", latest.path.display(), e.why);
                    crate::say(&format!("{line}; trying an older one"));
                    skipped.push(line);
                }
            }
        }
        Err(TrainError::Run(format!("no checkpoint loads ({})", skipped.join("; "))))
    }

    fn start(
        dir: RunDir,
        config: NTupleConfig,
        net: NTupleNet,
        opponent: Arc<dyn PlayerFactory>,
        resumed: bool,
    ) -> Result<NTupleRun, TrainError> {
        let start_games = net.games;
        let trainer = Trainer::new(config.train_config(), net).map_err(run_error)?;
        let board = TensorBoard::create(dir.root(), resumed.then_some(start_games))?;
        let mut metrics = MetricsLog::append(&dir.metrics_path())?;
        crate::say_torn(&metrics);
        if resumed {
            metrics.event("resumed", start_games)?;
        }
        Ok(NTupleRun { dir, config, trainer, resumed, start_games, board, metrics, opponent })
    }

    pub fn root(&self) -> &Path {
        self.dir.root()
    }

    pub fn config(&self) -> &NTupleConfig {
        &self.config
    }

    /// Whether this run continues from a checkpoint.
    pub fn resumed(&self) -> bool {
        self.resumed
    }

    /// Games the run had played when this process took it up.
    pub fn start_games(&self) -> u64 {
        self.start_games
    }

    pub fn rules(&self) -> Ruleset {
        self.trainer.config().rules
    }

    pub fn net(&self) -> &NTupleNet {
        self.trainer.net()
    }

    /// Plays self-play games, learning after every move, until the config's
    /// `games` or `options.stop_after` more: logs every `log.every` games,
    /// evaluates every `eval.every` (and redraws the curves),
    /// checkpoints every `checkpoint.every`, and all of it at the end. A
    /// finished run writes `final.safetensors`; a stopped one a checkpoint.
    pub fn train(mut self, options: &NTupleOptions) -> Result<NTupleSummary, TrainError> {
        let total = self.config.games;
        let end = options.stop_after.map_or(total, |n| total.min(self.start_games.saturating_add(n)));
        let bar = Progress::new("ntuple train", "games", total, options.progress).resume_at(self.start_games);
        let started = Instant::now();
        let mut window = Window::default();
        let mut last_score = None;
        let result = (|| -> Result<(), TrainError> {
            while self.trainer.games_played() < end {
                let tick = Instant::now();
                let stats = self.trainer.play_game().map_err(|e| TrainError::Diverged(e.to_string()))?;
                window.add(&stats, tick.elapsed().as_secs_f64());
                let games = self.trainer.games_played();
                let finished = games == total;
                if games.is_multiple_of(self.config.log.every) || finished {
                    let scalars = window.scalars(&stats);
                    self.board.scalars(games, &scalars)?;
                    self.metrics.write(games, &scalars)?;
                    window = Window::default();
                }
                let e = &self.config.eval;
                if e.every > 0 && (games.is_multiple_of(e.every) || finished) {
                    let summary = self.evaluate()?;
                    let values = [
                        ("eval/score", summary.score),
                        ("eval/wins", summary.a_wins as f64),
                        ("eval/draws", summary.draws as f64),
                        ("eval/losses", summary.a_losses as f64),
                    ];
                    self.board.scalars(games, &values)?;
                    self.metrics.write(games, &values)?;
                    last_score = Some(summary.score);
                    self.draw_curves()?;
                }
                if games.is_multiple_of(self.config.checkpoint.every) || finished {
                    self.checkpoint()?;
                }
                bar.set_position(games);
                let score =
                    last_score.map_or(String::new(), |s| format!(", score vs {} {s:.3}", self.config.eval.opponent));
                bar.set_message(format!("td error {:.4}{score}", stats.td_error));
            }
            Ok(())
        })();
        bar.finish_and_clear();
        result?;
        let seconds = started.elapsed().as_secs_f64();
        let games_played = self.trainer.games_played();
        let outcome = if games_played < total {
            self.checkpoint()?;
            Outcome::Stopped
        } else {
            let tables = self.root().join(FINAL_TABLES);
            atomic_write(&tables, &self.net().to_bytes(Some(&self.training_note())))?;
            Outcome::Finished { tables }
        };
        Ok(NTupleSummary {
            played: games_played - self.start_games,
            seconds,
            games_played,
            games: total,
            last_score,
            curves: self.draw_curves()?,
            outcome,
        })
    }

    /// Redraws `curves.png` from `metrics.jsonl` (see `crate::curves`).
    fn draw_curves(&self) -> Result<Option<PathBuf>, TrainError> {
        let e = &self.config.eval;
        draw_ntuple_curves(self.root(), &e.opponent, e.games)
    }

    /// Writes the current tables as a checkpoint, keeping the newest `checkpoint.keep`.
    fn checkpoint(&self) -> Result<PathBuf, TrainError> {
        let net = self.net();
        let path = self.root().join(checkpoint_name(CHECKPOINT_STEM, net.games, CHECKPOINT_EXT));
        atomic_write(&path, &net.to_bytes(Some(&self.training_note())))?;
        prune_checkpoints(self.root(), CHECKPOINT_STEM, CHECKPOINT_EXT, self.config.checkpoint.keep)?;
        Ok(path)
    }

    /// The table files' `ntuple.training` note: the command and the run's config.
    fn training_note(&self) -> String {
        serde_json::to_string(&serde_json::json!({
            "command": "stratego ntuple train",
            "config": self.config.to_toml(),
        }))
        .expect("json")
    }

    /// The current tables' match against the opponent (the same match every time).
    fn evaluate(&self) -> Result<MatchSummary, TrainError> {
        let e = &self.config.eval;
        let net = self.net();
        let ours = NTupleFactory(NTuplePlayer {
            net: Arc::new(net.clone()),
            name: format!("ntuple:{}@{}", self.root().display(), net.games),
            setup: e.setup,
            press: Default::default(),
        });
        let config = MatchConfig::new(*net.rules(), e.games, e.seed);
        let result = play_match(&ours, self.opponent.as_ref(), &config, &|_| {})
            .map_err(|err| TrainError::Data(format!("evaluation against {}: {err}", e.opponent)))?;
        Ok(MatchSummary::of(&result))
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
        self.red_wins += f64::from(u8::from(s.winner == Some(Color::Red)));
        self.draws += f64::from(u8::from(s.winner.is_none()));
        self.explored += s.explored as f64 / s.plies.max(1) as f64;
    }

    /// The log point: window means, and the schedules at its last game.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> NTupleConfig {
        NTupleConfig::parse(include_str!("../../../configs/ntuple-tiny.toml")).unwrap()
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = stratego_testkit::scratch_path(&format!("learner-ntuple-{name}"));
        dir
    }

    /// A copy of tests/fixtures/ntuple-run-v1 (the tiny config in the
    /// first spelling, stopped after 4 games) in a scratch directory.
    fn first_spelling_run(name: &str) -> PathBuf {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/ntuple-run-v1");
        let dir = scratch(name);
        std::fs::create_dir_all(&dir).unwrap();
        for entry in std::fs::read_dir(&fixture).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
        }
        dir
    }

    fn weights(path: &Path) -> Vec<f32> {
        NTupleNet::load(path, None).unwrap().weights().to_vec()
    }

    #[test]
    fn stopping_is_an_outcome_and_a_resumed_run_ends_with_the_same_tables() {
        let dir = scratch("resume");
        let options = NTupleOptions::default();
        // 12 games, evaluated every 4 (the tiny config).
        let whole = NTupleRun::create(&dir.join("whole"), tiny()).unwrap().train(&options).unwrap();
        let Outcome::Finished { tables } = &whole.outcome else { panic!("{whole:?}") };
        assert_eq!((whole.played, whole.games_played, whole.games), (12, 12, 12));
        assert!(whole.last_score.is_some() && whole.curves.as_ref().is_some_and(|p| p.exists()));

        // The games are the self-play trainer's own: evaluations, logs and
        // checkpoints leave its streams alone (game g draws from
        // derive_seed(seed, g)), so the tables equal a bare training loop's.
        let train = tiny().train_config();
        let mut bare = Trainer::new(train.clone(), train.fresh_net().unwrap()).unwrap();
        td::train(&mut bare, |_, _| Ok::<(), NTupleTrainError>(())).unwrap();
        assert_eq!(weights(tables), bare.net().weights());

        // Stopped after 5, then resumed: the same tables.
        let parts = dir.join("parts");
        let run = NTupleRun::create(&parts, tiny()).unwrap();
        assert!(!run.resumed() && run.start_games() == 0);
        let stop = NTupleOptions { stop_after: Some(5), ..NTupleOptions::default() };
        let first = run.train(&stop).unwrap();
        assert_eq!((first.outcome.clone(), first.played, first.games_played), (Outcome::Stopped, 5, 5));
        assert!(!parts.join(FINAL_TABLES).exists());
        assert!(parts.join(checkpoint_name(CHECKPOINT_STEM, 5, CHECKPOINT_EXT)).exists());
        let run = NTupleRun::resume(&parts).unwrap();
        assert!(run.resumed() && run.start_games() == 5);
        let rest = run.train(&options).unwrap();
        assert_eq!((rest.played, rest.games_played), (7, 12));
        assert_eq!(weights(&parts.join(FINAL_TABLES)), weights(tables));
        // Points every `log.every` = 2 games, evaluations every 4.
        let scalars = stratego_runlog::read_scalars(&parts).unwrap();
        let steps = |tag: &str| scalars.iter().filter(|s| s.tag == tag).map(|s| s.step).collect::<Vec<_>>();
        assert!(steps("td/error").ends_with(&[6, 8, 10, 12]), "{:?}", steps("td/error"));
        assert!(steps("eval/score").ends_with(&[8, 12]), "{:?}", steps("eval/score"));

        // A taken directory is refused. A start cut off before its first
        // checkpoint (a full disk) left only its config: resuming it starts
        // over and trains the same tables.
        let taken = NTupleRun::create(&parts, tiny()).err().unwrap().to_string();
        assert!(taken.contains("already exists"), "{taken}");
        let bare_dir = dir.join("no-checkpoint");
        std::fs::create_dir_all(&bare_dir).unwrap();
        std::fs::copy(parts.join("config.toml"), bare_dir.join("config.toml")).unwrap();
        let restarted = NTupleRun::resume(&bare_dir).unwrap();
        assert_eq!(restarted.start_games(), 0);
        assert!(bare_dir.join(checkpoint_name(CHECKPOINT_STEM, 0, CHECKPOINT_EXT)).exists());
        restarted.train(&options).unwrap();
        assert_eq!(weights(&bare_dir.join(FINAL_TABLES)), weights(tables));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A resume skips a damaged newest checkpoint for an older one, and
    /// stops at one written for other rules (an older one would not be
    /// this run's either, or would lose the games since).
    #[test]
    fn a_resume_skips_only_damaged_checkpoints() {
        let dir = first_spelling_run("damaged");
        let newest = dir.join(checkpoint_name(CHECKPOINT_STEM, 8, CHECKPOINT_EXT));
        let mut bytes = std::fs::read(dir.join(checkpoint_name(CHECKPOINT_STEM, 4, CHECKPOINT_EXT))).unwrap();
        bytes.truncate(bytes.len() / 2);
        std::fs::write(&newest, &bytes).unwrap();
        let run = NTupleRun::resume(&dir).unwrap();
        assert_eq!(run.start_games(), 4);
        drop(run);

        let mut other = tiny();
        other.rules = Ruleset::classic();
        assert_ne!(other.rules, tiny().rules);
        other.train_config().fresh_net().unwrap().save(&newest, None).unwrap();
        let err = NTupleRun::resume(&dir).err().unwrap().to_string();
        assert!(err.contains(&newest.display().to_string()) && !err.contains("no checkpoint loads"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A run directory written before the n-tuple config took the network
    /// trainer's spelling (tests/fixtures/ntuple-run-v1: the tiny config
    /// stopped after 4 games, its `config.toml` and its checkpoint's note
    /// in the first spelling) resumes, and ends with the tables of a whole
    /// run of today's config.
    #[test]
    fn a_run_of_the_first_spelling_resumes() {
        let dir = first_spelling_run("first-spelling");
        let then = std::fs::read_to_string(dir.join("config.toml")).unwrap();
        assert!(then.contains("[checkpoints]") && then.contains("epsilon-final"), "{then}");
        let run = NTupleRun::resume(&dir).unwrap();
        assert!(run.resumed() && run.start_games() == 4);
        run.train(&NTupleOptions::default()).unwrap();
        let train = tiny().train_config();
        let mut bare = Trainer::new(train.clone(), train.fresh_net().unwrap()).unwrap();
        td::train(&mut bare, |_, _| Ok::<(), NTupleTrainError>(())).unwrap();
        assert_eq!(weights(&dir.join(FINAL_TABLES)), bare.net().weights());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
