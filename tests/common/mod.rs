//! Helpers shared by the end-to-end tests of the `stratego` command.
#![allow(dead_code)] // each test file uses its own subset

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the command with `args`.
pub fn stratego(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stratego")).args(args).output().expect("the binary runs")
}

/// Runs the command with `args` in `dir`, with extra environment variables.
pub fn stratego_in(dir: &std::path::Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_stratego"));
    command.args(args).current_dir(dir);
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("the binary runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// A fresh scratch directory per test and process.
pub fn scratch(name: &str) -> PathBuf {
    let dir = stratego_testkit::scratch_dir(&format!("cli-{name}"));
    dir
}

/// A bad invocation fails with status 1 and exactly one `error:` line.
pub fn assert_one_line_error(o: &Output, needle: &str) {
    assert_eq!(o.status.code(), Some(1), "stdout: {}\nstderr: {}", stdout(o), stderr(o));
    let err = stderr(o);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("error: ") && err.contains(needle), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
