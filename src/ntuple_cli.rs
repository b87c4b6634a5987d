//! `stratego ntuple train` (TD(lambda) self-play into a run directory, with
//! resumption) and `stratego bench ntuple` (evaluations per second).
//!
//! A thin layer: the run (config, loop, checkpoints, TensorBoard, metrics,
//! curves, exact resumption) is `stratego_learner::ntuple`; here are its
//! arguments and what it prints.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, Subcommand};
use stratego_baselines::ntuple::speed::{measure, positions};
use stratego_baselines::ntuple::NTupleNet;
use stratego_engine::Ruleset;
use stratego_learner::ntuple::{
    train, NTupleConfig, NTupleOptions, NTupleRun, Outcome, TdConfig, TdTrainConfig, Trainer,
};
use stratego_players::setup_policy::SetupPolicy;

use crate::run_args::{default_run_dir, RunArgs, Start};
use crate::{output, CliError};

#[derive(Subcommand)]
pub enum NTupleCommand {
    /// Train n-tuple tables by TD(lambda) self-play into a run directory, or resume a killed run.
    Train(TrainArgs),
}

/// `--config FILE [--run DIR]` or `--resume DIR`, and `--stop-after GAMES`;
/// a new run's directory defaults to runs/ntuple-<config name>.
#[derive(Args)]
pub struct TrainArgs {
    #[command(flatten)]
    start: RunArgs,
}

#[derive(Args)]
pub struct BenchNTupleArgs {
    /// Table file to measure (default: the default layout with seeded random weights).
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Mid-game positions from random playouts. [1 to 1,000,000]
    #[arg(long, default_value_t = 200, value_parser = crate::count::<usize>(1, 1_000_000))]
    positions: usize,
    /// Passes over the positions per round. [1 to 100,000]
    #[arg(long, default_value_t = 50, value_parser = crate::count::<usize>(1, 100_000))]
    repeat: usize,
    /// Rounds per figure (the best is printed). [1 to 1,000]
    #[arg(long, default_value_t = 5, value_parser = crate::count::<usize>(1, 1_000))]
    rounds: usize,
    /// Self-play training games to time on one core (0: skip). [0 to 10,000,000]
    #[arg(long, default_value_t = 200, value_parser = crate::count::<u64>(0, 10_000_000))]
    train_games: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn run(command: NTupleCommand, out: &mut impl Write) -> Result<(), CliError> {
    match command {
        NTupleCommand::Train(args) => train_command(out, args),
    }
}

fn train_command(out: &mut impl Write, args: TrainArgs) -> Result<(), CliError> {
    let run = match args.start.start()? {
        Start::New { config: path, run } => {
            let config = NTupleConfig::load(path)?;
            let root = run.map_or_else(|| default_run_dir(path, "ntuple-", ""), PathBuf::from);
            NTupleRun::create(&root, config)?
        }
        Start::Resume(root) => NTupleRun::resume(root)?,
    };
    let rules = run.rules();
    writeln!(
        out,
        "run {} ({}), rules {} (id {}), layout {}, {} of {} games played",
        run.root().display(),
        if run.resumed() { "resumed" } else { "new" },
        rules,
        rules.id(),
        run.net().layout().name,
        run.start_games(),
        run.config().games
    )
    .map_err(output)?;
    out.flush().map_err(output)?;
    let root = run.root().to_path_buf();
    let opponent = run.config().eval.opponent.clone();
    let summary = run.train(&NTupleOptions { stop_after: args.start.stop_after, progress: true })?;
    writeln!(
        out,
        "played {} games in {:.1} s ({:.1} games/s); {} of {} games done",
        summary.played,
        summary.seconds,
        summary.played as f64 / summary.seconds.max(1e-9),
        summary.games_played,
        summary.games
    )
    .map_err(output)?;
    if let Some(score) = summary.last_score {
        writeln!(out, "last score vs {opponent}: {score:.3}").map_err(output)?;
    }
    if let Some(curves) = &summary.curves {
        writeln!(out, "curves: {}", curves.display()).map_err(output)?;
    }
    match &summary.outcome {
        Outcome::Stopped => writeln!(out, "stopped; continue with --resume {}", root.display()),
        Outcome::Finished { tables } => writeln!(out, "tables: {}", tables.display()),
    }
    .map_err(output)
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
        let config = TdTrainConfig {
            rules,
            seed: args.seed,
            games: net.games + args.train_games,
            layout: net.layout().name.clone(),
            setups: SetupPolicy::Mixed,
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
