//! `stratego train`: start a run from a config, or resume one.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use stratego_learner::curves::draw_network_curves;
use stratego_learner::{train, NetworkRun, TrainConfig, TrainOptions};

use crate::run_args::{RunArgs, Start};
use crate::{output, CliError};

/// `--config FILE [--run DIR]` or `--resume DIR`, `--stop-after ITERATIONS`
/// (shared with `ntuple train`); a new run's directory defaults to
/// runs/<config name>-<unix time>.
#[derive(Args)]
pub struct TrainArgs {
    #[command(flatten)]
    start: RunArgs,
    /// cpu, flex, ndarray or wgpu (overrides the config's run.device).
    #[arg(long)]
    device: Option<String>,
    /// Stop after this many iterations in total (overrides run.iterations). [1 to 100,000,000]
    #[arg(long, value_parser = crate::count::<u64>(1, 100_000_000))]
    iterations: Option<u64>,
}

fn default_run_dir(config: &Path) -> PathBuf {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    crate::run_args::default_run_dir(config, "", &format!("-{secs}"))
}

pub fn train_command(out: &mut impl Write, args: TrainArgs) -> Result<(), CliError> {
    let (run, mut config, resume) = match args.start.start()? {
        Start::New { config: path, run } => {
            let config = TrainConfig::load(path)?;
            // Everything is checked before the run directory exists: a start
            // that fails leaves nothing that would block the same command.
            stratego_model::device(args.device.as_deref().unwrap_or(config.run.device.name()))?;
            let root = run.map_or_else(|| default_run_dir(path), PathBuf::from);
            (NetworkRun::create(&root, &config)?, config, false)
        }
        Start::Resume(root) => {
            let (run, config) = NetworkRun::open(root)?;
            stratego_model::device(args.device.as_deref().unwrap_or(config.run.device.name()))?;
            (run, config, true)
        }
    };
    if let Some(iterations) = args.iterations {
        config.run.iterations = iterations;
    }
    // How far the run got: its newest checkpoint that verifies, the one a
    // resume starts from (a corrupt newer one does not count as done).
    let at = run.newest_verifying()?.0.map_or(0, |(iteration, _)| iteration);
    if let Some(n) = args.start.stop_after {
        config.run.iterations = config.run.iterations.min(at.saturating_add(n));
    }
    writeln!(out, "run: {}", run.root().display()).map_err(output)?;
    if resume && at >= config.run.iterations {
        writeln!(
            out,
            "already at {at}/{} iterations; pass --iterations N (more than {at}) to train further",
            config.run.iterations
        )
        .map_err(output)?;
        return Ok(());
    }
    let root = run.root().to_path_buf();
    let options = TrainOptions { device: args.device, progress: true };
    let summary = train(&config, run, resume, &options)?;
    writeln!(
        out,
        "done: {} iterations, {} games, {} plies, {} samples in {:.0} s",
        summary.counters.iteration,
        summary.counters.games,
        summary.counters.plies,
        summary.counters.samples,
        summary.counters.seconds
    )
    .map_err(output)?;
    if let Some(checkpoint) = summary.last_checkpoint {
        writeln!(out, "latest checkpoint: {}", checkpoint.join("model.safetensors").display()).map_err(output)?;
    }
    if let Some(curves) = draw_network_curves(&root)? {
        writeln!(out, "curves: {}", curves.display()).map_err(output)?;
    }
    Ok(())
}

#[derive(Args)]
pub struct BenchTrainArgs {
    /// The config whose network, games and batch sizes are measured.
    #[arg(long, default_value = "configs/smoke.toml")]
    config: PathBuf,
    /// Overrides the config's model preset (tiny, small, ataraxos).
    #[arg(long)]
    preset: Option<String>,
    #[arg(long, default_value = "cpu")]
    device: String,
    /// Seconds of self-play, then at most as many of learning.
    #[arg(long, default_value_t = 30.0, value_parser = crate::seconds)]
    seconds: f64,
}

pub fn bench_train(out: &mut impl Write, args: BenchTrainArgs) -> Result<(), CliError> {
    let mut config = TrainConfig::load(&args.config)?;
    if let Some(preset) = args.preset {
        config.model.preset = preset.parse()?;
    }
    let speed = stratego_learner::bench::bench(&config, &args.device, args.seconds)?;
    let (actors, learner) = (speed.selfplay_plies_per_second, speed.learner_samples_per_second);
    writeln!(
        out,
        "{} ({} preset, {} actors x {} games, {} device)",
        args.config.display(),
        config.model.preset,
        config.selfplay.actors,
        config.selfplay.games_per_actor,
        args.device
    )
    .map_err(output)?;
    writeln!(out, "self-play: {actors:.0} plies/s ({} games finished)", speed.games).map_err(output)?;
    writeln!(out, "learner:   {learner:.0} samples/s ({} samples, every decision kept)", speed.learner_samples)
        .map_err(output)?;
    // The learner trains on the kept share of the decisions only.
    let kept = (1.0 - config.learner.keep_quantile as f64).max(0.01);
    let keeps_up_with = learner / kept;
    let bottleneck = if actors < keeps_up_with { "self-play" } else { "the learner" };
    writeln!(
        out,
        "at the config's filter (keeps ~{:.0}%) the learner keeps up with {keeps_up_with:.0} plies/s: the bottleneck is {bottleneck}",
        kept * 100.0
    )
    .map_err(output)?;
    Ok(())
}
