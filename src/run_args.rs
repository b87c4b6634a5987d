//! The arguments both trainers take (`stratego train` and `stratego ntuple
//! train`): start a run from a config or resume one, and stop early.

use std::path::{Path, PathBuf};

use clap::Args;

/// Start or resume a run directory (flattened into both trainers' arguments).
#[derive(Args)]
#[command(group = clap::ArgGroup::new("start").required(true).args(["config", "resume"]))]
pub struct RunArgs {
    /// The run's config (TOML; configs/smoke.toml, cpu.toml, gpu.toml for `train`, configs/ntuple.toml for `ntuple train`).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The run directory to create (default: under runs/, named after the config); one that holds anything is refused.
    #[arg(long, conflicts_with = "resume")]
    pub run: Option<PathBuf>,
    /// Continue the run in this directory from its newest checkpoint.
    #[arg(long)]
    pub resume: Option<PathBuf>,
    /// Stop after this many steps in this invocation (iterations for `train`, games for `ntuple train`), with a checkpoint; `--resume` continues. [1 to 100,000,000]
    #[arg(long, value_parser = crate::count::<u64>(1, 100_000_000))]
    pub stop_after: Option<u64>,
}

/// What the arguments ask for.
pub enum Start<'a> {
    /// A new run of the config at `config`, in `run` (or the trainer's default directory).
    New { config: &'a Path, run: Option<&'a Path> },
    /// Continue the run in this directory.
    Resume(&'a Path),
}

impl RunArgs {
    /// The run to start or resume (clap's `start` group lets only one through).
    pub fn start(&self) -> Result<Start<'_>, String> {
        match (&self.config, &self.resume) {
            (Some(config), None) => Ok(Start::New { config, run: self.run.as_deref() }),
            (None, Some(root)) => Ok(Start::Resume(root)),
            _ => Err("give either --config FILE or --resume RUN_DIR".into()),
        }
    }
}

/// The default run directory `runs/<prefix><config file stem><suffix>`.
pub fn default_run_dir(config: &Path, prefix: &str, suffix: &str) -> PathBuf {
    let stem = config.file_stem().and_then(|s| s.to_str()).unwrap_or("run");
    PathBuf::from("runs").join(format!("{prefix}{stem}{suffix}"))
}
