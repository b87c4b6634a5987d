//! What the workspace's tests share, so that no test crate writes its own:
//! scratch directories and paths under the system's temporary directory, and
//! links planted where a writer's file goes.
//!
//! Every name is made unique per process (`stratego-test-NAME-PID`, with
//! any extension kept last: `stratego-test-x-PID.safetensors`), so the
//! tests of two `cargo test` runs on one machine never meet; within a
//! process each test passes a name of its own (tests run on threads of one
//! process). Whatever a previous run of the same process id left is removed
//! first. A test that wants its files gone at the end removes them; one that
//! fails leaves them for a look.
//!
//! It is a dev-dependency of any crate and depends on nothing, so the
//! engine's own tests can use it too.

use std::path::{Path, PathBuf};

/// A path nothing holds: a file or a directory that the code under test is
/// to create (`scratch_path("run")` for a run directory, `"x.safetensors"`
/// for a file).
pub fn scratch_path(name: &str) -> PathBuf {
    // The process id goes before an extension, which loaders may check.
    let (stem, extension) = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && !ext.contains('/') => (stem, format!(".{ext}")),
        _ => (name, String::new()),
    };
    let path = std::env::temp_dir().join(format!("stratego-test-{stem}-{}{extension}", std::process::id()));
    if path.is_dir() && !path.is_symlink() {
        let _ = std::fs::remove_dir_all(&path);
    } else {
        let _ = std::fs::remove_file(&path);
    }
    path
}

/// A fresh, empty directory.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = scratch_path(name);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

/// A bystander file `dir/bystander.txt` holding `text`, and a symbolic link
/// to it planted at `dir/link_name`: for the tests that a writer replaces or
/// refuses a link where its file (or its temporary file) goes, instead of
/// writing through it. Returns the bystander, whose text must not change.
#[cfg(unix)]
pub fn planted_link(dir: &Path, link_name: &str, text: &str) -> PathBuf {
    let bystander = dir.join("bystander.txt");
    std::fs::write(&bystander, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", bystander.display()));
    std::os::unix::fs::symlink(&bystander, dir.join(link_name))
        .unwrap_or_else(|e| panic!("cannot plant a link in {}: {e}", dir.display()));
    bystander
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scratch_dir_is_fresh_and_empty_and_a_path_is_free() {
        let dir = scratch_dir("testkit-dir");
        std::fs::write(dir.join("left-over"), "x").unwrap();
        let again = scratch_dir("testkit-dir");
        assert_eq!(again, dir);
        assert_eq!(std::fs::read_dir(&again).unwrap().count(), 0);
        std::fs::remove_dir_all(&dir).unwrap();

        let file = scratch_path("testkit-file.txt");
        std::fs::write(&file, "x").unwrap();
        assert!(!scratch_path("testkit-file.txt").exists());
        assert_ne!(scratch_path("a"), scratch_path("b"));
        assert_eq!(scratch_path("x.safetensors").extension().unwrap(), "safetensors");
    }
}
