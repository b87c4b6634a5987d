//! `stratego distill`: the warm start by imitation on its own, writing just
//! the checkpoint (docs/TRAINING.md, "A warm start by imitation").

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use stratego_learner::distill::{distill_to, epoch_line};
use stratego_learner::TrainConfig;

use crate::{output, CliError};

/// `--config FILE --out CKPT` with overrides of the config's `[pretrain]`.
#[derive(Args)]
pub struct DistillArgs {
    /// The training config whose game, model, learner and `[pretrain]` sections are used.
    #[arg(long)]
    config: PathBuf,
    /// The checkpoint to write (an existing file is refused).
    #[arg(long)]
    out: PathBuf,
    /// The teacher's player spec (overrides pretrain.teacher), e.g. greedy or ntuple:registrations/ntuple-td.safetensors.
    #[arg(long)]
    teacher: Option<String>,
    /// Teacher games (overrides pretrain.games). [1 to 10,000,000]
    #[arg(long, value_parser = crate::count::<usize>(1, 10_000_000))]
    games: Option<usize>,
    /// Passes over the decisions (overrides pretrain.epochs). [1 to 1,000]
    #[arg(long, value_parser = crate::count::<usize>(1, 1_000))]
    epochs: Option<usize>,
    /// cpu, flex, ndarray or wgpu (overrides the config's run.device).
    #[arg(long)]
    device: Option<String>,
}

pub fn distill_command(out: &mut impl Write, args: DistillArgs) -> Result<(), CliError> {
    if args.out.symlink_metadata().is_ok() {
        return Err(format!("{} already exists; not overwriting it", args.out.display()).into());
    }
    check_writable_dir(&args.out)?;
    let mut config = TrainConfig::load(&args.config)?;
    let p = &mut config.pretrain;
    p.teacher = args.teacher.unwrap_or(std::mem::take(&mut p.teacher));
    p.games = args.games.unwrap_or(p.games);
    p.epochs = args.epochs.unwrap_or(p.epochs);
    config.validate()?;
    config.check_before_run()?;
    let device = args.device.unwrap_or_else(|| config.run.device.name().to_string());
    let p = &config.pretrain;
    writeln!(
        out,
        "teacher {}: {} games ({} held out), {} epochs of minibatches of {}",
        p.teacher,
        p.games,
        p.holdout_games(),
        p.epochs,
        p.batch
    )
    .map_err(output)?;
    // Epoch lines as they come; a failed write stops nothing but is reported.
    let mut written = Ok(());
    let report = distill_to(&config, &device, &args.out, true, &mut |e| {
        let mut text = String::new();
        if e.epoch == 0 {
            text = format!(
                "teacher games: {} games, {} teacher decisions ({} in training games) in {:.1} s: {:.0} decisions/s\n",
                e.games,
                e.all_decisions,
                e.decisions,
                e.generation_seconds,
                e.all_decisions as f64 / e.generation_seconds.max(1e-9)
            );
        }
        text.push_str(&epoch_line(e));
        if written.is_ok() {
            written = writeln!(out, "{text}").and_then(|()| out.flush());
        }
        Ok(())
    })?;
    written.map_err(output)?;
    writeln!(out, "wrote {} in {:.0} s", args.out.display(), report.seconds).map_err(output)
}

/// The directory `out` goes into must exist and take a new file: checked
/// before the teacher's games, which take minutes, not after them.
fn check_writable_dir(out: &Path) -> Result<(), CliError> {
    let dir = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !dir.is_dir() {
        return Err(format!("cannot write {}: {} is not a directory", out.display(), dir.display()).into());
    }
    // A probe file beside the checkpoint, created and removed at once.
    let probe = out.with_extension("probe");
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}
