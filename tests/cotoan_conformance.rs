//! RQ1 in CI: the CoToan engine against its GDL description (gdl/cotoan.kif),
//! through tools/cotoan_conformance.py and clingo, on the checker's quick
//! sample (every settings combination of the checker, all 32 operator masks),
//! with the OpenSpiel environment of the lab's Python package as the third
//! representation.
//!
//! These tests need `python3` with the clingo package and the lab's package
//! (`python3 -m pip install ./python`, which the README's test command runs
//! first); without them they fail and say how to install them, rather than
//! passing silently.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Fails the test unless `python3 -c "import clingo"` works.
fn require_python_packages() {
    let ok = Command::new("python3").args(["-c", "import clingo"]).status().is_ok_and(|s| s.success());
    assert!(
        ok,
        "the CoToan GDL conformance check needs python3 with the clingo package: run `python3 -m pip install clingo`"
    );
    let ok = Command::new("python3").args(["-c", "import stratego_lab"]).status().is_ok_and(|s| s.success());
    assert!(
        ok,
        "the conformance check's OpenSpiel representation needs the lab's Python package: run `python3 -m pip install ./python`"
    );
}

fn checker(args: &[&str]) -> Output {
    Command::new("python3")
        .arg(root().join("tools/cotoan_conformance.py"))
        .arg("--stratego")
        .arg(env!("CARGO_BIN_EXE_stratego"))
        .args(args)
        .output()
        .expect("python3 runs")
}

/// `(states, mismatches)` from the checker's last line,
/// `cotoan-conformance states=N successors=.. settings=.. masks=.. openspiel=N mismatches=M`;
/// every state went through the OpenSpiel representation too.
fn summary(o: &Output) -> (usize, usize) {
    let text = String::from_utf8_lossy(&o.stdout);
    let line = text
        .lines()
        .rfind(|l| l.starts_with("cotoan-conformance "))
        .unwrap_or_else(|| panic!("no summary line\nstdout: {text}\nstderr: {}", String::from_utf8_lossy(&o.stderr)));
    let field = |key: &str| -> usize {
        line.split_whitespace()
            .find_map(|f| f.strip_prefix(key))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {key} in {line}"))
    };
    assert_eq!(field("masks="), 32, "all 32 operator masks: {line}");
    assert_eq!(field("openspiel="), field("states="), "every state through OpenSpiel: {line}");
    (field("states="), field("mismatches="))
}

#[test]
fn the_engine_agrees_with_the_gdl_description_on_the_ci_sample() {
    require_python_packages();
    let o = checker(&["--sample"]);
    let (states, mismatches) = summary(&o);
    assert!(states > 0, "no states compared");
    assert_eq!(mismatches, 0, "{}", String::from_utf8_lossy(&o.stdout));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The check can fail: a GDL whose pieces all move up to nine squares
/// disagrees with the engine at once.
#[test]
fn the_check_reports_a_rule_difference() {
    require_python_packages();
    let text = std::fs::read_to_string(root().join("gdl/cotoan.kif")).unwrap();
    assert_eq!(text.matches("(leq ?k ?v))").count(), 1, "the mutation site moved");
    let dir: PathBuf = stratego_testkit::scratch_dir("cotoan-gdl-mutant");
    let mutant = dir.join("cotoan.kif");
    std::fs::write(&mutant, text.replace("(leq ?k ?v))", "(leq ?k 9))")).unwrap();
    let o = checker(&["--gdl", mutant.to_str().unwrap(), "--games", "1", "--plies", "0", "--synthetic", "0"]);
    let _ = std::fs::remove_dir_all(&dir);
    let (states, mismatches) = summary(&o);
    assert!(states > 0 && mismatches > 0, "{}", String::from_utf8_lossy(&o.stdout));
    assert_eq!(o.status.code(), Some(1));
}
