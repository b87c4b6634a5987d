//! Atomic writes and the checkpoint files of a run directory.
//!
//! Checkpoints are named `<stem>-<step:08>.<ext>` so that name order is step
//! order and the latest is found without reading any file.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use crate::RunLogError;

/// Opens `path`, a file the program writes itself, with `options`, never
/// through a symbolic link: a link in its place (planted, or left by a
/// copy) would have the program write its pid or truncate a log in the
/// link's target. A link, or an existing path that is not a regular file
/// (a device such as `/dev/zero`, a pipe), is refused with one line
/// before it is opened; on Unix `O_NOFOLLOW` also closes the race between
/// that check and the open.
pub fn open_own_file(path: &Path, options: &mut OpenOptions) -> Result<File, RunLogError> {
    let refuse = |message: &str| RunLogError::NotOwnFile { path: path.display().to_string(), message: message.into() };
    let link = "is a symbolic link; the run writes this file itself and does not follow links (remove the link)";
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => return Err(refuse(link)),
        Ok(meta) if !meta.is_file() => return Err(refuse("is not a regular file (the run writes this file itself)")),
        _ => {}
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    let file = options.open(path).map_err(|e| {
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return refuse(link);
        }
        RunLogError::io(path, e)
    })?;
    let meta = file.metadata().map_err(|e| RunLogError::io(path, e))?;
    if !meta.is_file() {
        return Err(refuse("is not a regular file (the run writes this file itself)"));
    }
    Ok(file)
}

/// Writes `bytes` to `path` atomically (`stratego_support::files::write_atomically`:
/// through a fresh temporary file, synced, then renamed).
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<(), RunLogError> {
    stratego_support::files::write_atomically(path, bytes).map_err(|e| RunLogError::io(path, e))
}

/// A checkpoint file found in a run directory.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Checkpoint {
    pub step: u64,
    pub path: PathBuf,
}

/// The file name of the checkpoint of `step`.
pub fn checkpoint_name(stem: &str, step: u64, ext: &str) -> String {
    format!("{stem}-{step:08}.{ext}")
}

/// The checkpoints `<stem>-<step>.<ext>` in `dir`, oldest first. Temporary
/// `.partial` files of an interrupted write are not checkpoints.
pub fn checkpoints(dir: &Path, stem: &str, ext: &str) -> Result<Vec<Checkpoint>, RunLogError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(RunLogError::io(dir, e)),
    };
    let mut found = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| RunLogError::io(dir, e))?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
        let step = name
            .strip_prefix(stem)
            .and_then(|rest| rest.strip_prefix('-'))
            .and_then(|rest| rest.strip_suffix(ext))
            .and_then(|rest| rest.strip_suffix('.'))
            .and_then(|digits| digits.parse::<u64>().ok());
        if let Some(step) = step {
            found.push(Checkpoint { step, path });
        }
    }
    found.sort();
    Ok(found)
}

/// Deletes all but the newest `keep` checkpoints of `stem` (at least one is
/// always kept).
pub fn prune_checkpoints(dir: &Path, stem: &str, ext: &str, keep: usize) -> Result<(), RunLogError> {
    let found = checkpoints(dir, stem, ext)?;
    let excess = found.len().saturating_sub(keep.max(1));
    for old in &found[..excess] {
        std::fs::remove_file(&old.path).map_err(|e| RunLogError::io(&old.path, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_are_found_in_step_order_and_pruned_to_the_newest() {
        let dir = stratego_testkit::scratch_dir("runlog-ckpt");
        for step in [30, 4, 1000, 200] {
            atomic_write(&dir.join(checkpoint_name("model", step, "safetensors")), b"x").unwrap();
        }
        std::fs::write(dir.join("model-00000005.safetensors.partial"), b"half").unwrap();
        std::fs::write(dir.join("ema-00000005.safetensors"), b"other stem").unwrap();
        let steps: Vec<u64> = checkpoints(&dir, "model", "safetensors").unwrap().iter().map(|c| c.step).collect();
        assert_eq!(steps, vec![4, 30, 200, 1000]);
        prune_checkpoints(&dir, "model", "safetensors", 2).unwrap();
        let steps: Vec<u64> = checkpoints(&dir, "model", "safetensors").unwrap().iter().map(|c| c.step).collect();
        assert_eq!(steps, vec![200, 1000]);
        assert!(dir.join("ema-00000005.safetensors").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A stale `.partial` that is a symbolic link is replaced, not written
    /// through: the link's target keeps its bytes.
    #[cfg(unix)]
    #[test]
    fn an_atomic_write_does_not_write_through_a_planted_link() {
        let dir = stratego_testkit::scratch_dir("runlog-atomic-link");
        let target = stratego_testkit::planted_link(&dir, "config.toml.partial", "precious");
        atomic_write(&dir.join("config.toml"), b"seed = 1\n").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");
        assert_eq!(std::fs::read_to_string(dir.join("config.toml")).unwrap(), "seed = 1\n");
        assert!(!dir.join("config.toml.partial").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
