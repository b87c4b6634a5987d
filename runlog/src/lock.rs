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

use crate::{open_own_file, RunLogError};

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
        DirLock::take(dir.join(LOCK_FILE), dir, what)
    }

    /// Takes the lock of one file, `<file>.lock` beside it, for a writer
    /// that replaces the file itself (an flock on the file would be left on
    /// the old inode by the rename). Refused like [`DirLock::acquire`].
    pub fn acquire_file(file: &Path, what: &str) -> Result<DirLock, RunLogError> {
        let mut name = file.as_os_str().to_owned();
        name.push(".lock");
        DirLock::take(PathBuf::from(name), file, what)
    }

    /// Locks the lock file `path` (never through a symbolic link: the pid
    /// is written into it) for `locked`, the directory or file it guards.
    fn take(path: PathBuf, locked: &Path, what: &str) -> Result<DirLock, RunLogError> {
        let mut file = open_own_file(&path, OpenOptions::new().read(true).write(true).create(true).truncate(false))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let holder = read_holder(&mut file);
                let holder = holder.trim();
                let who = if holder.is_empty() { "another process".to_string() } else { format!("process {holder}") };
                return Err(RunLogError::Locked {
                    path: locked.display().to_string(),
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

/// The pid the holder wrote into the lock file. A holder that has just
/// taken the lock empties the file before writing its pid, so an empty file
/// is read again for a moment before the holder is called "another process".
fn read_holder(file: &mut File) -> String {
    for _ in 0..20 {
        let mut holder = String::new();
        // The holder's pid is a few digits; a bound keeps a junk lock file
        // from being read whole.
        let read = file.seek(SeekFrom::Start(0)).and_then(|_| (&mut *file).take(64).read_to_string(&mut holder));
        if read.is_ok() && !holder.trim().is_empty() {
            return holder;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_until_the_first_lets_go() {
        let dir = stratego_testkit::scratch_path("runlog-lock");
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

    #[test]
    fn a_file_lock_sits_beside_the_file_and_refuses_a_second_writer() {
        let dir = stratego_testkit::scratch_dir("runlog-file-lock");
        let file = dir.join("reg.toml");
        let first = DirLock::acquire_file(&file, "registration").unwrap();
        assert_eq!(first.path(), dir.join("reg.toml.lock"));
        let refused = DirLock::acquire_file(&file, "registration").unwrap_err().to_string();
        assert!(refused.starts_with(&file.display().to_string()), "{refused}");
        assert!(refused.contains(&format!("process {}", std::process::id())), "{refused}");
        drop(first);
        DirLock::acquire_file(&file, "registration").unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A `run.lock` that is a symbolic link is refused, and the link's
    /// target keeps its bytes (the pid was written into it).
    #[cfg(unix)]
    #[test]
    fn a_lock_file_that_is_a_symbolic_link_is_refused_and_its_target_untouched() {
        let dir = stratego_testkit::scratch_path("runlog-lock-link");
        std::fs::create_dir_all(dir.join("run")).unwrap();
        let target = dir.join("precious.txt");
        std::fs::write(&target, "precious").unwrap();
        std::os::unix::fs::symlink(&target, dir.join("run").join(LOCK_FILE)).unwrap();
        let err = DirLock::acquire(&dir.join("run"), "training run").unwrap_err().to_string();
        assert!(err.contains("is a symbolic link") && !err.contains('\n'), "{err}");
        // A dangling link is refused too, not created through.
        std::os::unix::fs::symlink(dir.join("absent"), dir.join("reg.toml.lock")).unwrap();
        let err = DirLock::acquire_file(&dir.join("reg.toml"), "registration").unwrap_err().to_string();
        assert!(err.contains("is a symbolic link"), "{err}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");
        assert!(!dir.join("absent").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
