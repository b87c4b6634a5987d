//! The run directory itself, whatever trains in it: a new run gets a fresh
//! directory holding its resolved config (`config.toml`, every default
//! filled in), and a run resumes only from a directory that has one.
//!
//! Both trainers start and resume their runs here; what a checkpoint holds
//! is theirs (the network trainer keeps directories under `checkpoints/`,
//! the n-tuple trainer table files named by `checkpoint_name`).

use std::path::{Path, PathBuf};

use crate::{atomic_write, DirLock, RunLogError, LOCK_FILE};

/// The resolved config's file name in a run directory.
pub const CONFIG_FILE: &str = "config.toml";

/// The first line of every run's `config.toml`.
const CONFIG_HEADER: &str = "# The resolved config of this run (every default filled in); `--resume` reads it.\n";

/// A run directory, created for a new run or opened to resume one. It
/// holds the directory's lock (see [`DirLock`]) for as long as it or a
/// clone lives: a second writer, e.g. `--resume` while the run still goes,
/// is refused instead of interleaving its logs and checkpoints with it.
#[derive(Clone, Debug)]
pub struct RunDir {
    root: PathBuf,
    lock: DirLock,
}

impl PartialEq for RunDir {
    fn eq(&self, other: &RunDir) -> bool {
        self.root == other.root
    }
}

impl Eq for RunDir {}

/// Whether `root` holds anything but a lock file.
fn occupied(root: &Path) -> Result<bool, RunLogError> {
    match std::fs::read_dir(root) {
        Ok(entries) => Ok(entries.flatten().any(|e| e.file_name() != LOCK_FILE)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(RunLogError::io(root, e)),
    }
}

fn refused(root: &Path, why: &str) -> RunLogError {
    RunLogError::RunDir { path: root.display().to_string(), message: why.into() }
}

impl RunDir {
    /// A new run directory at `root` holding `config_toml` (the resolved
    /// config) as `config.toml`, written atomically. A directory that exists
    /// and is not empty is refused: it may hold another run.
    pub fn create(root: &Path, config_toml: &str) -> Result<RunDir, RunLogError> {
        let taken = || refused(root, "already exists and is not empty (use --resume to continue that run)");
        if occupied(root)? {
            return Err(taken());
        }
        let lock = DirLock::acquire(root, "training run")?;
        // Checked again under the lock: another start may have won the race.
        if occupied(root)? {
            return Err(taken());
        }
        let text = format!("{CONFIG_HEADER}{config_toml}");
        atomic_write(&root.join(CONFIG_FILE), text.as_bytes())?;
        Ok(RunDir { root: root.to_path_buf(), lock })
    }

    /// An existing run directory: one that holds a `config.toml` and that no
    /// other process writes in.
    pub fn open(root: &Path) -> Result<RunDir, RunLogError> {
        if !root.join(CONFIG_FILE).is_file() {
            return Err(refused(root, "is not a run directory (no config.toml)"));
        }
        let lock = DirLock::acquire(root, "training run")?;
        Ok(RunDir { root: root.to_path_buf(), lock })
    }

    /// The lock this run directory holds.
    pub fn lock(&self) -> &DirLock {
        &self.lock
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The run's resolved config file.
    pub fn config_path(&self) -> PathBuf {
        self.root.join(CONFIG_FILE)
    }

    /// The run's `metrics.jsonl`.
    pub fn metrics_path(&self) -> PathBuf {
        self.root.join("metrics.jsonl")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_directory_is_created_once_and_opened_by_its_config() {
        let dir = stratego_testkit::scratch_path("runlog-rundir");
        // An empty existing directory is fine; a missing one is created.
        std::fs::create_dir_all(dir.join("empty")).unwrap();
        for name in ["empty", "new/nested"] {
            let run = RunDir::create(&dir.join(name), "seed = 1\n").unwrap();
            let text = std::fs::read_to_string(run.config_path()).unwrap();
            assert!(text.starts_with('#') && text.ends_with("seed = 1\n"), "{text}");
            let busy = RunDir::open(&dir.join(name)).unwrap_err().to_string();
            assert!(busy.contains("is in use by process"), "{busy}");
            drop(run);
            RunDir::open(&dir.join(name)).unwrap();
        }
        let again = RunDir::create(&dir.join("empty"), "seed = 2\n").unwrap_err().to_string();
        assert!(again.contains("already exists") && again.contains("--resume"), "{again}");
        assert!(std::fs::read_to_string(dir.join("empty/config.toml")).unwrap().ends_with("seed = 1\n"));
        std::fs::create_dir_all(dir.join("bare")).unwrap();
        let bare = RunDir::open(&dir.join("bare")).unwrap_err().to_string();
        assert!(bare.contains("is not a run directory"), "{bare}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
