//! One writer per directory: an exclusive OS file lock (`flock` on Unix,
//! `LockFileEx` on Windows, through `std::fs::File::try_lock`) held for the
//! whole life of whatever writes there. The OS releases it when the process
//! exits however it exits (a kill included), so a crashed run never leaves
//! a stale lock behind; the file itself stays and only names the last
//! holder.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::RunLogError;

/// The lock file's name inside a locked directory.
pub const LOCK_FILE: &str = "run.lock";

/// A held lock on a directory; dropping the last clone releases it.
#[derive(Clone, Debug)]
pub struct DirLock {
    path: PathBuf,
    // Kept open: closing the file would release the lock.
    _file: Arc<File>,
}

impl DirLock {
    /// Takes `dir`'s lock (creating `dir` if needed) or refuses with one
    /// line naming the process that holds it. `what` names the writer
    /// ("training run", "registration") in that line.
    pub fn acquire(dir: &Path, what: &str) -> Result<DirLock, RunLogError> {
        std::fs::create_dir_all(dir).map_err(|e| RunLogError::io(dir, e))?;
        let path = dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| RunLogError::io(&path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                let who = if holder.is_empty() { "another process".to_string() } else { format!("process {holder}") };
                return Err(RunLogError::Locked {
                    path: dir.display().to_string(),
                    message: format!("is in use by {who} (another {what} writes there; wait for it or stop it)"),
                });
            }
            Err(TryLockError::Error(e)) => return Err(RunLogError::io(&path, e)),
        }
        let pid = std::process::id().to_string();
        file.set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(pid.as_bytes()))
            .map_err(|e| RunLogError::io(&path, e))?;
        Ok(DirLock { path, _file: Arc::new(file) })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_until_the_first_lets_go() {
        let dir = std::env::temp_dir().join(format!("runlog-lock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let first = DirLock::acquire(&dir, "training run").unwrap();
        // flock locks belong to the open file, so a second open in the same
        // process contends exactly as another process would.
        let refused = DirLock::acquire(&dir, "training run").unwrap_err().to_string();
        assert!(refused.contains(&format!("process {}", std::process::id())), "{refused}");
        assert!(refused.contains("another training run"), "{refused}");
        let shared = first.clone();
        drop(first);
        assert!(DirLock::acquire(&dir, "training run").is_err(), "a clone still holds it");
        drop(shared);
        let again = DirLock::acquire(&dir, "training run").unwrap();
        assert_eq!(std::fs::read_to_string(again.path()).unwrap(), std::process::id().to_string());
        drop(again);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
