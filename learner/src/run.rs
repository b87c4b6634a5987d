//! The run directory and its checkpoints.
//!
//! ```text
//! runs/NAME/
//!   config.toml                 the resolved config (every value, defaults included)
//!   metrics.jsonl               one line per iteration (append-only)
//!   events.out.tfevents.*       TensorBoard scalars (one file per start)
//!   stages/00010000.safetensors the network when the stage from iteration
//!                               10000 began (`stage.rs`)
//!   pool/00000040.safetensors   a past self in the pool (`pool.rs`)
//!   checkpoints/00000040/       one directory per checkpoint, written whole:
//!     model.safetensors         the raw weights (a `net:` player loads this)
//!     ema.safetensors           the exponential moving average of the weights
//!     trainer.bpk               the raw weights with burn's parameter ids,
//!     optimizer.bpk             which the optimizer state is keyed by
//!     counters.json             iteration, plies, games, samples, seconds
//!     config.toml               the run's resolved config when it was written
//!     manifest.json             the SHA-256 of every file above
//! ```
//!
//! A checkpoint is written into `00000040.partial/` and renamed when
//! complete, so a kill at any instant leaves either the whole checkpoint or
//! none; resuming discards partial ones and takes the newest complete one
//! whose files match their manifest (saying which it skipped, and why). A
//! run directory is locked while a process writes in it, and resuming
//! refuses a `config.toml` that differs from the checkpoint's, naming the
//! first key that differs.

use std::path::{Path, PathBuf};

use burn::module::Module;
use burn::store::{BurnpackStore, ModuleSnapshot};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use stratego_model::{CheckpointMeta, Device, StrategoNet};
use stratego_runlog::atomic_write;

use crate::config::TrainConfig;
use crate::TrainError;

/// A checkpoint found in the run: its iteration and its directory.
pub type Found = (u64, PathBuf);

/// Where training stands; saved with every checkpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    /// Learner iterations done (= the policy version of the weights).
    pub iteration: u64,
    pub plies: u64,
    pub games: u64,
    pub samples: u64,
    pub seconds: f64,
    /// The last iteration's mean policy entropy (nats), which the next
    /// iteration's magnet weight follows under `learner.entropy_target`
    /// (none before the first iteration; checkpoints before it lack it).
    #[serde(default)]
    pub entropy: Option<f64>,
}

/// The network trainer's run directory: the shared run directory
/// (`stratego_runlog::RunDir`: created once, resolved config, resume) with
/// the network's checkpoints under `checkpoints/`.
pub struct NetworkRun {
    dir: stratego_runlog::RunDir,
    /// The resolved config as `config.toml` gives it now: what every
    /// checkpoint records and what resuming compares with.
    resolved: String,
}

pub(crate) fn run_error(path: &Path, why: impl std::fmt::Display) -> TrainError {
    TrainError::Run(format!("{}: {why}", path.display()))
}

fn dir_error(e: stratego_runlog::RunLogError) -> TrainError {
    TrainError::Run(e.to_string())
}

impl NetworkRun {
    /// A new run directory holding `config`. An existing non-empty directory
    /// is refused: it may hold another run (use `--resume` to continue it).
    /// The players and files the config names are checked first
    /// ([`TrainConfig::check_before_run`]): a start that fails leaves no
    /// directory that would block the same command.
    pub fn create(root: &Path, config: &TrainConfig) -> Result<NetworkRun, TrainError> {
        config.check_before_run()?;
        let resolved = config.to_toml();
        let dir = stratego_runlog::RunDir::create(root, &resolved).map_err(dir_error)?;
        std::fs::create_dir_all(root.join("checkpoints")).map_err(|e| run_error(root, e))?;
        Ok(NetworkRun { dir, resolved })
    }

    /// An existing run directory and the config it was started with, whose
    /// players and files are checked again (a checkpoint it plays may have
    /// moved since).
    pub fn open(root: &Path) -> Result<(NetworkRun, TrainConfig), TrainError> {
        let dir = stratego_runlog::RunDir::open(root).map_err(dir_error)?;
        let config = TrainConfig::load(&dir.config_path())?;
        config.check_before_run()?;
        Ok((NetworkRun { dir, resolved: config.to_toml() }, config))
    }

    pub fn root(&self) -> &Path {
        self.dir.root()
    }

    fn checkpoints(&self) -> PathBuf {
        self.root().join("checkpoints")
    }

    /// Complete checkpoints, oldest first.
    pub fn checkpoint_dirs(&self) -> Result<Vec<(u64, PathBuf)>, TrainError> {
        let dir = self.checkpoints();
        let mut found = Vec::new();
        for entry in std::fs::read_dir(&dir).map_err(|e| run_error(&dir, e))? {
            let path = entry.map_err(|e| run_error(&dir, e))?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            // Exactly the names `save` writes: eight digits (`+0000007`
            // parses as a number too, and is no checkpoint of ours).
            if name.len() == 8 && name.bytes().all(|b| b.is_ascii_digit()) {
                if let Ok(step) = name.parse::<u64>() {
                    found.push((step, path));
                }
            }
        }
        found.sort();
        Ok(found)
    }

    /// The newest complete checkpoint's directory.
    pub fn latest(&self) -> Result<Option<(u64, PathBuf)>, TrainError> {
        Ok(self.checkpoint_dirs()?.pop())
    }

    /// Removes what an interrupted checkpoint write left behind.
    pub fn discard_partial(&self) -> Result<(), TrainError> {
        let dir = self.checkpoints();
        for entry in std::fs::read_dir(&dir).map_err(|e| run_error(&dir, e))? {
            let path = entry.map_err(|e| run_error(&dir, e))?.path();
            if path.extension().is_some_and(|e| e == "partial") {
                std::fs::remove_dir_all(&path).map_err(|e| run_error(&path, e))?;
            }
        }
        Ok(())
    }

    /// Writes a whole checkpoint, then keeps only the newest `keep`.
    #[allow(clippy::too_many_arguments)]
    pub fn save(
        &self,
        counters: &Counters,
        meta: &CheckpointMeta,
        net: &StrategoNet,
        ema: &StrategoNet,
        optimizer: &burn::optim::ModuleOptimizer,
        keep: usize,
    ) -> Result<PathBuf, TrainError> {
        let name = format!("{:08}", counters.iteration);
        let partial = self.checkpoints().join(format!("{name}.partial"));
        let done = self.checkpoints().join(&name);
        if partial.exists() {
            std::fs::remove_dir_all(&partial).map_err(|e| run_error(&partial, e))?;
        }
        std::fs::create_dir_all(&partial).map_err(|e| run_error(&partial, e))?;
        stratego_model::save(&net.valid(), meta, &partial.join("model.safetensors"))?;
        stratego_model::save(ema, meta, &partial.join("ema.safetensors"))?;
        let mut store = BurnpackStore::from_file(partial.join("trainer.bpk")).overwrite(true);
        net.save_into(&mut store).map_err(|e| run_error(&partial, format!("cannot write trainer.bpk: {e}")))?;
        optimizer
            .save(partial.join("optimizer.bpk"))
            .map_err(|e| run_error(&partial, format!("cannot write optimizer.bpk: {e:?}")))?;
        let counters_json = serde_json::to_string_pretty(counters).expect("counters serialize");
        atomic_write(&partial.join("counters.json"), counters_json.as_bytes())?;
        atomic_write(&partial.join(CHECKPOINT_CONFIG), self.resolved.as_bytes())?;
        write_manifest(&partial)?;
        if done.exists() {
            std::fs::remove_dir_all(&done).map_err(|e| run_error(&done, e))?;
        }
        std::fs::rename(&partial, &done).map_err(|e| run_error(&done, e))?;
        let all = self.checkpoint_dirs()?;
        for (_, old) in &all[..all.len().saturating_sub(keep.max(1))] {
            std::fs::remove_dir_all(old).map_err(|e| run_error(old, e))?;
        }
        Ok(done)
    }
}

/// The files of a checkpoint the manifest covers.
const CHECKPOINT_FILES: [&str; 6] =
    ["model.safetensors", "ema.safetensors", "trainer.bpk", "optimizer.bpk", "counters.json", CHECKPOINT_CONFIG];
const CHECKPOINT_CONFIG: &str = "config.toml";
const MANIFEST: &str = "manifest.json";

fn sha256_of(path: &Path) -> Result<String, CheckpointFault> {
    let bytes = stratego_support::files::read_data(path)
        .map_err(|e| CheckpointFault::of_read(format!("cannot read {}", path.display()), e))?;
    Ok(Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect())
}

/// Why a checkpoint directory does not verify: what its caller does
/// depends on which.
#[derive(Debug)]
pub enum CheckpointFault {
    /// Not the checkpoint that was written: a file missing (a checkpoint
    /// cut short), not a regular file, a file where the directory should
    /// be, changed since (its checksum), or the directory renamed. A
    /// resume skips it for an older one.
    Damaged(String),
    /// A file there that cannot be read for another reason (permissions,
    /// an I/O error): the checkpoint may well be whole, so a resume stops
    /// and says so rather than fall back to an older one and lose the
    /// iterations since.
    Unreadable { why: String, error: std::io::Error },
}

impl std::fmt::Display for CheckpointFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckpointFault::Damaged(why) => f.write_str(why),
            CheckpointFault::Unreadable { why, error } => write!(f, "{why}: {error}"),
        }
    }
}

impl CheckpointFault {
    /// A failed read of a checkpoint's file, `why` saying which: absent,
    /// not a file or not text is damage; anything else is the machine's.
    fn of_read(why: String, error: std::io::Error) -> CheckpointFault {
        if stratego_support::files::is_damage(&error) {
            CheckpointFault::Damaged(format!("{why}: {error}"))
        } else {
            CheckpointFault::Unreadable { why, error }
        }
    }
}

/// Writes `manifest.json`: each checkpoint file's SHA-256.
fn write_manifest(dir: &Path) -> Result<(), TrainError> {
    let mut files = serde_json::Map::new();
    for name in CHECKPOINT_FILES {
        files.insert(name.into(), sha256_of(&dir.join(name)).map_err(|e| run_error(dir, e))?.into());
    }
    let text = serde_json::to_string_pretty(&serde_json::json!({ "sha256": files })).expect("a manifest serialises");
    atomic_write(&dir.join(MANIFEST), text.as_bytes())?;
    Ok(())
}

/// Whether every file of a checkpoint matches its manifest and its
/// counters agree with its directory's name; `Err` says what does not. A
/// checkpoint without a manifest is refused: one whose manifest was deleted
/// has nothing left to check it against, and would resume from whatever
/// its files hold.
pub fn verify_checkpoint(dir: &Path) -> Result<(), CheckpointFault> {
    let damaged = CheckpointFault::Damaged;
    let text = stratego_support::files::read_text(&dir.join(MANIFEST))
        .map_err(|e| CheckpointFault::of_read(MANIFEST.to_string(), e))?;
    let manifest: serde_json::Value = serde_json::from_str(&text).map_err(|e| damaged(format!("{MANIFEST}: {e}")))?;
    for name in CHECKPOINT_FILES {
        let want =
            manifest["sha256"][name].as_str().ok_or_else(|| damaged(format!("{MANIFEST} does not list {name}")))?;
        let have = sha256_of(&dir.join(name))?;
        if have != want {
            return Err(damaged(format!("{name} does not match its checksum (corrupted after it was written)")));
        }
    }
    // Two checkpoint directories swapped (or one renamed) verify file by
    // file; their counters say which iteration each really holds.
    let counters = read_counters(dir).map_err(|e| damaged(e.to_string()))?;
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name != format!("{:08}", counters.iteration) {
        return Err(damaged(format!(
            "its counters.json is for iteration {}, its name says {name}",
            counters.iteration
        )));
    }
    Ok(())
}

fn read_counters(dir: &Path) -> Result<Counters, TrainError> {
    stratego_support::files::read_text(&dir.join("counters.json"))
        .map_err(|e| run_error(dir, format!("counters.json: {e}")))
        .and_then(|t| serde_json::from_str(&t).map_err(|e| run_error(dir, format!("counters.json: {e}"))))
}

impl NetworkRun {
    /// Refuses to resume from `checkpoint` when the run's `config.toml` no
    /// longer resolves to the config the checkpoint was written under (a
    /// truncated or edited file would otherwise change the run silently,
    /// its missing keys taking the defaults).
    pub fn check_config(&self, checkpoint: &Path) -> Result<(), TrainError> {
        let written = stratego_support::files::read_text(&checkpoint.join(CHECKPOINT_CONFIG))
            .map_err(|e| run_error(checkpoint, format!("{CHECKPOINT_CONFIG}: {e}")))?;
        // Resolved again with today's defaults, as the run's config.toml is:
        // a key added to the config since the checkpoint was written takes
        // its default on both sides and does not stop the resume; a value
        // that differs does. (Comparing the texts as written refused every
        // existing run once a key was added.)
        let then = toml::from_str::<TrainConfig>(&written)
            .map_err(|e| run_error(checkpoint, format!("{CHECKPOINT_CONFIG}: {e}")))?
            .to_toml();
        if then == self.resolved {
            return Ok(());
        }
        let key = crate::config::first_difference(&then, &self.resolved);
        Err(TrainError::ConfigChanged {
            config: self.dir.config_path(),
            checkpoint: checkpoint.to_path_buf(),
            key,
            remedy: "restore the file, or start a new run whose `run.init` is the checkpoint's model.safetensors",
        })
    }

    /// The newest complete checkpoint that verifies, saying on stderr which
    /// newer ones were skipped and why. `Err` when checkpoints exist but
    /// none verifies: starting over silently would lose the run.
    pub fn latest_verified(&self) -> Result<Option<(u64, PathBuf)>, TrainError> {
        let (newest, skipped) = self.newest_verifying()?;
        for line in &skipped {
            crate::say(&format!("{line}; trying an older one"));
        }
        match newest {
            None if !skipped.is_empty() => {
                Err(TrainError::Run(format!("no checkpoint verifies ({})", skipped.join("; "))))
            }
            newest => Ok(newest),
        }
    }

    /// The newest complete checkpoint that verifies, and a line for each
    /// newer one that does not (said by `latest_verified`; a caller that
    /// only asks how far the run got stays quiet).
    pub fn newest_verifying(&self) -> Result<(Option<Found>, Vec<String>), TrainError> {
        let mut skipped = Vec::new();
        for (step, dir) in self.checkpoint_dirs()?.into_iter().rev() {
            match verify_checkpoint(&dir) {
                Ok(()) => return Ok((Some((step, dir)), skipped)),
                Err(CheckpointFault::Damaged(why)) => skipped.push(format!("{}: skipped: {why}", dir.display())),
                Err(fault @ CheckpointFault::Unreadable { .. }) => {
                    return Err(run_error(
                        &dir,
                        format!("{fault} (the checkpoint may be whole: make it readable and resume again)"),
                    ))
                }
            }
        }
        Ok((None, skipped))
    }
}

/// What a checkpoint directory restores.
pub struct Restored {
    pub counters: Counters,
    pub net: StrategoNet,
    pub ema: StrategoNet,
    pub optimizer: burn::optim::ModuleOptimizer,
}

/// Loads a checkpoint written by `NetworkRun::save`: the training weights (with
/// their parameter ids, so the optimizer state finds its parameters), the
/// optimizer, the average (on the plain device) and the counters.
pub fn restore(
    dir: &Path,
    meta: &CheckpointMeta,
    train_device: &Device,
    plain_device: &Device,
    optimizer: burn::optim::ModuleOptimizer,
) -> Result<Restored, TrainError> {
    let counters = read_counters(dir)?;
    let mut net = StrategoNet::new(&meta.config, meta.layout, train_device);
    let mut store = BurnpackStore::from_file(dir.join("trainer.bpk"));
    let applied = net.load_from(&mut store).map_err(|e| run_error(dir, format!("trainer.bpk: {e}")))?;
    if !applied.errors.is_empty() || !applied.missing.is_empty() {
        return Err(run_error(dir, format!("trainer.bpk does not fit the model: {applied:?}")));
    }
    let optimizer =
        optimizer.load(dir.join("optimizer.bpk")).map_err(|e| run_error(dir, format!("optimizer.bpk: {e:?}")))?;
    let (ema, _) =
        stratego_model::load(&dir.join("ema.safetensors"), Some(meta.layout), Some(&meta.rules), plain_device)?;
    Ok(Restored { counters, net, ema, optimizer })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A checkpoint directory with stand-in files, its counters at
    /// `iteration` and its manifest, as `save` leaves one.
    fn fake_checkpoint(root: &Path, name: &str, iteration: u64) -> PathBuf {
        let dir = root.join("checkpoints").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        for file in CHECKPOINT_FILES {
            std::fs::write(dir.join(file), format!("{file} {iteration}")).unwrap();
        }
        let counters = Counters { iteration, ..Counters::default() };
        std::fs::write(dir.join("counters.json"), serde_json::to_string(&counters).unwrap()).unwrap();
        write_manifest(&dir).unwrap();
        dir
    }

    /// A key added to the config after a checkpoint was written (its text
    /// lacks the key) does not stop the resume; a value that differs does.
    #[test]
    fn a_config_key_added_later_does_not_stop_a_resume() {
        let root = stratego_testkit::scratch_path("run-newkey");
        let config = TrainConfig::default();
        let run = NetworkRun::create(&root, &config).unwrap();
        let checkpoint = root.join("checkpoints/00000001");
        std::fs::create_dir_all(&checkpoint).unwrap();
        // The same config as an older version wrote it: without a key that
        // exists now (here `eval.every`, at its default).
        let older: String =
            config.to_toml().lines().filter(|l| !l.starts_with("every = ")).map(|l| format!("{l}\n")).collect();
        assert_ne!(older, config.to_toml());
        std::fs::write(checkpoint.join(CHECKPOINT_CONFIG), &older).unwrap();
        run.check_config(&checkpoint).unwrap();
        let changed = config.to_toml().replace("seed = 1\n", "seed = 2\n");
        assert_ne!(changed, config.to_toml());
        std::fs::write(checkpoint.join(CHECKPOINT_CONFIG), changed).unwrap();
        let err = run.check_config(&checkpoint).unwrap_err().to_string();
        assert!(err.contains("`run.seed` differs"), "{err}");
        drop(run);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_checkpoint_is_trusted_only_whole_and_under_its_own_name() {
        let root = stratego_testkit::scratch_path("run-trust");
        let run = NetworkRun::create(&root, &TrainConfig::default()).unwrap();
        let three = fake_checkpoint(&root, "00000003", 3);
        let five = fake_checkpoint(&root, "00000005", 5);
        assert!(verify_checkpoint(&three).is_ok() && verify_checkpoint(&five).is_ok());
        assert_eq!(run.newest_verifying().unwrap().0.unwrap().0, 5);

        // Swapped directories verify file by file, not as a whole.
        let swap = root.join("checkpoints/swap");
        std::fs::rename(&three, &swap).unwrap();
        std::fs::rename(&five, &three).unwrap();
        std::fs::rename(&swap, &five).unwrap();
        let why = verify_checkpoint(&five).unwrap_err().to_string();
        assert!(why.contains("counters.json is for iteration 3, its name says 00000005"), "{why}");
        let (newest, skipped) = run.newest_verifying().unwrap();
        assert_eq!((newest, skipped.len()), (None, 2));

        // No manifest: nothing to check the files against, so not trusted.
        let seven = fake_checkpoint(&root, "00000007", 7);
        std::fs::remove_file(seven.join(MANIFEST)).unwrap();
        assert!(verify_checkpoint(&seven).unwrap_err().to_string().contains(MANIFEST));

        // A file that cannot be read for the machine's reasons (root reads
        // past permissions, so the fault is made here) is not damage: the
        // checkpoint may be whole, and a resume stops instead of skipping it.
        use std::io::{Error, ErrorKind};
        let of = |kind| CheckpointFault::of_read("cannot read model.safetensors".into(), Error::from(kind));
        for kind in [
            ErrorKind::NotFound,
            ErrorKind::NotADirectory,
            ErrorKind::IsADirectory,
            ErrorKind::InvalidInput,
            ErrorKind::InvalidData,
            ErrorKind::UnexpectedEof,
        ] {
            assert!(matches!(of(kind), CheckpointFault::Damaged(_)), "{kind:?}");
        }
        for kind in [ErrorKind::PermissionDenied, ErrorKind::Other, ErrorKind::Interrupted] {
            let fault = of(kind);
            assert!(matches!(fault, CheckpointFault::Unreadable { .. }), "{kind:?}");
            assert!(fault.to_string().starts_with("cannot read model.safetensors: "), "{fault}");
        }

        // Names that parse as numbers but are not ours are not checkpoints.
        fake_checkpoint(&root, "+0000009", 9);
        let steps: Vec<u64> = run.checkpoint_dirs().unwrap().into_iter().map(|(s, _)| s).collect();
        assert_eq!(steps, vec![3, 5, 7]);
        drop(run);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
