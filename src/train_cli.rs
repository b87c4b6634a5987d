//! `stratego train`: start a run from a config, or resume one.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use stratego_evaluation::chart::Panel;
use stratego_learner::{train, RunDir, TrainConfig, TrainOptions};

use crate::curves::{write_curves, Metrics};
use crate::{output, CliError};

#[derive(Args)]
#[command(group = clap::ArgGroup::new("start").required(true).args(["config", "resume"]))]
pub struct TrainArgs {
    /// A run config (configs/smoke.toml, configs/cpu.toml, configs/gpu.toml).
    #[arg(long)]
    config: Option<PathBuf>,
    /// The run directory to create (default: runs/<config name>-<unix time>).
    #[arg(long, conflicts_with = "resume")]
    run: Option<PathBuf>,
    /// Continue the run in this directory from its newest checkpoint.
    #[arg(long)]
    resume: Option<PathBuf>,
    /// cpu, flex, ndarray or wgpu (overrides the config's run.device).
    #[arg(long)]
    device: Option<String>,
    /// Stop after this many iterations in total (overrides run.iterations).
    #[arg(long)]
    iterations: Option<u64>,
}

fn default_run_dir(config: &Path) -> PathBuf {
    let stem = config.file_stem().and_then(|s| s.to_str()).unwrap_or("run");
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    PathBuf::from("runs").join(format!("{stem}-{secs}"))
}

pub fn train_command(out: &mut impl Write, args: TrainArgs) -> Result<(), CliError> {
    let (run, mut config, resume) = match (&args.config, &args.resume) {
        (Some(path), None) => {
            let config = TrainConfig::load(path)?;
            let root = args.run.clone().unwrap_or_else(|| default_run_dir(path));
            (RunDir::create(&root, &config)?, config, false)
        }
        (None, Some(root)) => {
            let (run, config) = RunDir::open(root)?;
            (run, config, true)
        }
        _ => return Err(CliError::Message("give either --config FILE or --resume RUN_DIR".into())),
    };
    if let Some(iterations) = args.iterations {
        config.run.iterations = iterations;
    }
    writeln!(out, "run: {}", run.root().display()).map_err(output)?;
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
    if let Some(curves) = draw_curves(&root)? {
        writeln!(out, "curves: {}", curves.display()).map_err(output)?;
    }
    Ok(())
}

/// `curves.png` of a training run: the evaluation scores, the loss terms,
/// the belief head against the counting prior, and the policy's entropy.
fn draw_curves(root: &Path) -> Result<Option<PathBuf>, CliError> {
    let metrics = Metrics::read(root)?;
    if metrics.is_empty() {
        return Ok(None);
    }
    let scores = metrics
        .names_with("eval/score_vs_")
        .into_iter()
        .map(|name| metrics.series(name, &format!("vs {}", name.trim_start_matches("eval/score_vs_"))))
        .collect();
    let losses = ["loss/total", "loss/clip", "loss/value", "loss/belief"];
    let panels = [
        Panel { y_desc: "score".into(), y_range: Some((0.0, 1.0)), reference: Some(0.5), series: scores },
        Panel {
            y_desc: "loss".into(),
            series: losses.iter().map(|&n| metrics.series(n, n)).collect(),
            ..Panel::default()
        },
        Panel {
            y_desc: "belief log-likelihood per hidden piece".into(),
            series: vec![
                metrics.series("belief/log_likelihood", "belief head"),
                metrics.series("belief/prior_log_likelihood", "counting prior"),
            ],
            ..Panel::default()
        },
        Panel {
            y_desc: "policy entropy (nats)".into(),
            series: vec![metrics.series("policy/entropy", "policy/entropy")],
            ..Panel::default()
        },
    ];
    let title = format!("stratego train: {}", root.display());
    Ok(Some(write_curves(root, &title, "iteration", &panels)?))
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
    #[arg(long, default_value_t = 30.0)]
    seconds: f64,
}

pub fn bench_train(out: &mut impl Write, args: BenchTrainArgs) -> Result<(), CliError> {
    let mut config = TrainConfig::load(&args.config)?;
    if let Some(preset) = args.preset {
        config.model.preset = preset;
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
