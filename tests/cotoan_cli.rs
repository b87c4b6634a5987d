//! End-to-end tests of `stratego cotoan ...`.

mod common;
use common::*;

const DEFAULT: &str =
    "cotoan-rules-v1:threshold=0,horizon=300,horizon-rule=score,operators=add+sub+mul+div+mod,start=red";
/// Red 8 on c4, red 3 on d4, blue 5 on f4, both zeros at home; Red to move.
const TWO_WITNESS_BOARD: &str = "........./....b0..../........./........./........./........./........./..r8r3.b5.../........./....r0..../.........";

#[test]
fn diagnose_prints_the_three_diagnostics() {
    let text = stratego_ok(&["cotoan", "diagnose"]);
    assert_contains_all(
        &text,
        &[
            "RQ1 cross-representation conformance",
            "tools/cotoan_conformance.py",
            "c4xf4 witnesses: div@d4, mod@d4",
            "endpoint actions: 43, witness-labelled actions: 44",
            "P(c4xf4) uniform over endpoint actions: 1/43",
            "P(c4xf4) uniform over witness-labelled actions: 1/22",
            "same move g11-g8: left -> ply 4 nonterminal; right -> ply 300 draw horizon",
            "outcomes: left red-wins horizon; right draw horizon",
            "outcomes: left red-wins threshold; right nonterminal",
            "remaining-plies [1982] 297 vs 1",
        ],
    );
    assert_eq!(text.matches("observation separates them: yes").count(), 3, "{text}");
    assert_eq!(stratego_ok(&["cotoan", "diagnose"]), text, "deterministic");
}

#[test]
fn legal_lists_endpoint_actions_with_their_witnesses() {
    let snapshot = format!("{DEFAULT} {TWO_WITNESS_BOARD} red 0");
    let text = stratego_ok(&["cotoan", "legal", &snapshot]);
    assert_eq!(text.lines().count(), 43, "{text}");
    assert!(text.lines().any(|l| l == "c4xf4 2903 div@d4 mod@d4"), "{text}");
    assert!(text.lines().any(|l| l == "c4-c5 2909"), "{text}");
    assert_eq!(stratego_ok(&["cotoan", "legal", &snapshot, "--settings", DEFAULT]), text);
}

#[test]
fn cotoan_errors_are_one_line() {
    let snapshot = format!("{DEFAULT} {TWO_WITNESS_BOARD} red 0");
    let other = DEFAULT.replace("threshold=0", "threshold=9");
    let blue_to_move = snapshot.replace("red 0", "blue 0");
    for (args, needle) in [
        (&["legal", &snapshot, "--settings", &other][..], "task mismatch"),
        (&["legal", "nonsense"], "expected 4 fields"),
        (&["legal", &blue_to_move], "ill-formed state"),
        (&["play", "--horizon", "0"], "horizon"),
        (&["play", "--operators", "pow"], "--operators"),
        (&["dump", "--settings", "cotoan-rules-v2:x"], "version"),
    ] {
        assert_refused(&[&["cotoan"][..], args].concat(), needle);
    }
}

#[test]
fn play_is_seeded() {
    let args = ["cotoan", "play", "--seed", "4", "--horizon", "60", "--moves"];
    let text = stratego_ok(&args);
    assert!(text.starts_with("settings cotoan-rules-v1:threshold=0,horizon=60,"), "{text}");
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("ply ") && (last.contains("-wins ") || last.contains("draw ")), "{last}");
    assert_eq!(stratego_ok(&args), text);
}

#[test]
fn dump_writes_one_json_line_per_state() {
    let text = stratego_ok(&["cotoan", "dump", "--games", "2", "--plies", "5", "--synthetic", "3"]);
    assert_eq!(text.lines().count(), 2 * 6 + 3, "two 5-ply games and three synthetic states");
    for line in text.lines() {
        assert!(line.starts_with("{\"source\":\"") && line.ends_with("]}"), "{line}");
        assert!(line.contains("\"successors\":["), "{line}");
    }
    let help = stratego_ok(&["cotoan", "--help"]);
    assert!(help.contains("diagnose") && !help.contains("dump"), "dump is a hidden developer command: {help}");
}
