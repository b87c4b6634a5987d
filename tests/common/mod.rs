//! Helpers shared by the end-to-end tests of the `stratego` command: running
//! it, and the checks every test file makes of what it printed.
#![allow(dead_code)] // each test file uses its own subset

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio};

/// The command with `args`, for a test that sets more (stdin, stdout,
/// stderr) before it runs or spawns it.
pub fn command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_stratego"));
    command.args(args);
    command
}

/// Runs the command with `args`.
pub fn stratego(args: &[&str]) -> Output {
    command(args).output().expect("the binary runs")
}

/// Runs the command with `args` in `dir`, with extra environment variables.
pub fn stratego_in(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    command(args).current_dir(dir).envs(env.iter().copied()).output().expect("the binary runs")
}

/// Starts `stratego ucc-bot ARGS...` with its three streams piped, as a
/// referee speaks to it: the child (its stderr left to read, e.g. by
/// `wait_with_output`), its stdin, and its stdout to read line by line.
pub fn spawn_ucc_bot(args: &[&str]) -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let mut child = command(&[&["ucc-bot"][..], args].concat())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let to_bot = child.stdin.take().unwrap();
    let from_bot = BufReader::new(child.stdout.take().unwrap());
    (child, to_bot, from_bot)
}

/// The next line from `from`, with its newline.
pub fn read_line(from: &mut impl BufRead) -> String {
    let mut line = String::new();
    from.read_line(&mut line).expect("a line");
    line
}

/// Runs the command with `args`, which must succeed, and returns its stdout.
pub fn stratego_ok(args: &[&str]) -> String {
    let o = stratego(args);
    assert!(o.status.success(), "{args:?}: {}\n{}", stdout(&o), stderr(&o));
    stdout(&o)
}

/// The stdout of a run that must have succeeded (both streams are shown
/// if it did not).
pub fn succeeded(o: &Output) -> String {
    assert!(o.status.success(), "{}\n{}", stdout(o), stderr(o));
    stdout(o)
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// `arena --a A --b B --games GAMES` followed by `extra`.
pub fn arena_args<'a>(a: &'a str, b: &'a str, games: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    [&["arena", "--a", a, "--b", b, "--games", games][..], extra].concat()
}

/// Runs `stratego arena --a A --b B --games GAMES EXTRA...`.
pub fn arena(a: &str, b: &str, games: &str, extra: &[&str]) -> Output {
    stratego(&arena_args(a, b, games, extra))
}

/// A fresh scratch directory per test and process.
pub fn scratch(name: &str) -> PathBuf {
    stratego_testkit::scratch_dir(&format!("cli-{name}"))
}

/// The names in a directory, sorted.
pub fn listed(dir: &Path) -> Vec<String> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut names: Vec<String> = entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// A bad invocation fails with status 1 and exactly one `error:` line.
pub fn assert_one_line_error(o: &Output, needle: &str) {
    assert_one_line_error_of(o, needle, "");
}

/// Runs the command with `args`, which must fail with status 1 and exactly
/// one `error:` line holding `needle` (the failure message names `args`).
pub fn assert_refused(args: &[&str], needle: &str) -> Output {
    let o = stratego(args);
    assert_one_line_error_of(&o, needle, &format!("{args:?}: "));
    o
}

fn assert_one_line_error_of(o: &Output, needle: &str, context: &str) {
    assert_eq!(o.status.code(), Some(1), "{context}stdout: {}\nstderr: {}", stdout(o), stderr(o));
    let err = stderr(o);
    assert_eq!(err.lines().count(), 1, "{context}one line: {err}");
    assert!(err.starts_with("error: ") && err.contains(needle), "{context}`{needle}` in: {err}");
    assert!(!err.contains("panicked"), "{context}{err}");
}

/// Every one of `needles` is in `text`.
pub fn assert_contains_all(text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(text.contains(needle), "`{needle}` in:\n{text}");
    }
}

/// Every line of a bench's report is `NAME: NUMBER UNIT`, with a finite
/// number.
pub fn assert_figure_lines(text: &str) {
    assert!(!text.is_empty(), "a report");
    for line in text.lines() {
        let (name, value) = line.split_once(": ").unwrap_or_else(|| panic!("`NAME: NUMBER UNIT`: {line}"));
        assert!(!name.is_empty(), "a name in {line}");
        let mut parts = value.splitn(2, ' ');
        let number: f64 = parts.next().unwrap().parse().unwrap_or_else(|_| panic!("a number in {line}"));
        assert!(number.is_finite(), "{line}");
        assert!(!parts.next().unwrap_or("").is_empty(), "a unit in {line}");
    }
}

/// A copy in `dir` of the referee log `log` whose first move is one our
/// engine refuses (`0 0 DOWN`, from Red's corner into its own piece): the
/// error must name the ply.
pub fn broken_referee_log(dir: &Path, log: &Path) -> PathBuf {
    let text = std::fs::read_to_string(log).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let first_move = lines.iter().position(|l| l.starts_with("1 RED: ")).unwrap();
    lines[first_move] = "1 RED: 0 0 DOWN OK";
    let broken = dir.join("broken.log");
    std::fs::write(&broken, lines.join("\n") + "\n").unwrap();
    broken
}
