//! Atomic writes and the checkpoint files of a run directory.
//!
//! Checkpoints are named `<stem>-<step:08>.<ext>` so that name order is step
//! order and the latest is found without reading any file.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::RunLogError;

/// Writes `bytes` to `path` through a temporary file in the same directory,
/// synced, then renamed: readers see the old file or the new one, never a
/// part of it.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<(), RunLogError> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    let result = (|| {
        let mut file = std::fs::File::create(&partial)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&partial, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&partial);
        RunLogError::io(path, e)
    })
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
        let dir = std::env::temp_dir().join(format!("runlog-ckpt-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
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
}
