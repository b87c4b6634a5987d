//! `stratego probe`: what a checkpoint's heads know about finished games, as
//! a user meets it: the lab's own records (`play --record`), the real UCC
//! referee's logs (`tests/fixtures/ucc`), a directory of either, and bad
//! input of every kind as one error line.

mod common;
use common::*;

use std::path::{Path, PathBuf};

fn network() -> String {
    format!("{}/registrations/cpu-4h-spar.safetensors", env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ucc").join(name)
}

/// A directory of finished lab games (random play under the classic rules,
/// so they end by a capture or a cap), and a file that is not a game beside
/// them, as an arena's output holds `results.json`.
fn lab_games(dir: &Path) -> PathBuf {
    let games = dir.join("lab");
    std::fs::create_dir_all(games.join("games")).unwrap();
    for seed in 1..=4 {
        let record = games.join(format!("games/{seed:05}.txt"));
        stratego_ok(&["play", "--seed", &seed.to_string(), "--max-plies", "300", "--record", record.to_str().unwrap()]);
    }
    std::fs::write(games.join("results.json"), "{}\n").unwrap();
    // A picture beside them: not text, passed over like the results.
    std::fs::write(games.join("curves.png"), [0x89, b'P', b'N', b'G', 0xff, 0xfe, 0x00]).unwrap();
    // A link back to the directory itself: not entered, so the search ends.
    std::os::unix::fs::symlink(&games, games.join("loop")).unwrap();
    games
}

#[test]
fn probe_scores_the_heads_on_referee_logs_and_lab_records_beside_the_leaf_and_the_counting_prior() {
    let dir = scratch("probe");
    let lab = lab_games(&dir);
    let json = dir.join("probe.json");
    let (net, log, set) = (network(), fixture("celsius-known-miner.log"), format!("lab={}", lab.display()));
    let o = stratego(&["probe", &net, log.to_str().unwrap(), &set, "--stride", "2", "--json", json.to_str().unwrap()]);
    let text = succeeded(&o);
    assert_contains_all(
        &text,
        &[
            "lab: 4 games",
            "| games | phase | positions | value head log-loss | leaf log-loss | constant log-loss |",
            "| lab | all |",
            "| games | hidden pieces | count | belief head log-likelihood | on the prior's support | counting prior | pooled (weights) |",
            "| lab | unmoved |",
        ],
    );
    // Four lab games, two folds: the pool's weights were fitted.
    let lab_belief = text.lines().find(|l| l.starts_with("| lab | all |") && l.contains("unmoved ")).unwrap();
    assert!(lab_belief.contains("(moved ") || lab_belief.contains("(unmoved "), "{lab_belief}");
    // One referee log: no other game to fit the leaf's map on.
    let log_row = text.lines().find(|l| l.contains("known-miner.log | all |"));
    assert!(log_row.is_some_and(|row| row.contains("| - |")), "{text}");
    assert!(stderr(&o).contains("passed over 2 file(s)") && stderr(&o).contains("curves.png"), "{}", stderr(&o));
    let reports: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let lab_report = &reports[1]["report"];
    assert_eq!((reports[1]["set"].as_str(), lab_report["games"].as_u64()), (Some("lab"), Some(4)));
    let all = lab_report["value"].as_array().unwrap().last().unwrap();
    for key in ["net_log_loss", "leaf_log_loss", "constant_log_loss", "net_brier", "leaf_brier"] {
        let x = all[key].as_f64().unwrap_or_else(|| panic!("{key} in {all}"));
        assert!(x.is_finite() && x >= 0.0, "{key}: {x}");
    }
    for pieces in lab_report["belief"].as_array().unwrap() {
        for key in ["net", "net_on_support", "counting"] {
            let ll = pieces[key].as_f64().unwrap();
            assert!(ll.is_finite() && ll <= 0.0, "{key}: {ll} in {pieces}");
        }
    }
    // The same games, the same figures: nothing in the probe is drawn at random.
    let again = stratego_ok(&["probe", &net, log.to_str().unwrap(), &set, "--stride", "2"]);
    assert_eq!(again, text);
    // With the referee's cap in the counter planes a log replays to that cap.
    let positions = |text: &str| -> u32 {
        let line = text.lines().find(|l| l.contains("known-miner.log: ")).unwrap();
        line.split(", ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap()
    };
    let capped = stratego_ok(&["probe", &net, log.to_str().unwrap(), "--stride", "1", "--referee-plies", "100"]);
    let whole = stratego_ok(&["probe", &net, log.to_str().unwrap(), "--stride", "1"]);
    assert_eq!(positions(&capped), 100, "{capped}");
    assert!(positions(&whole) > 250, "{whole}");
    // A pool weight of 0 is the counting prior, for every set.
    let prior_only = stratego_ok(&["probe", &net, &set, "--stride", "2", "--pool-weight", "0"]);
    let rows: Vec<&str> =
        prior_only.lines().filter(|l| l.starts_with("| lab |") && l.contains("(moved 0.00/0.00")).collect();
    assert_eq!(rows.len(), 3, "moved, unmoved and all: {prior_only}");
    for row in rows {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert!(cells[7].starts_with(cells[6]), "pooled at weight 0 is the prior: {row}");
    }
    // The report is not overwritten.
    assert_refused(&["probe", &net, &set, "--json", json.to_str().unwrap()], "exists");
}

#[test]
fn probe_refuses_what_is_not_a_finished_game_in_one_line() {
    let dir = scratch("probe-bad");
    let net = network();
    let not_a_game = dir.join("notes.txt");
    std::fs::write(&not_a_game, "hello\n").unwrap();
    assert_refused(&["probe", &net, not_a_game.to_str().unwrap()], "neither a lab record nor a UCC referee log");
    assert_refused(&["probe", &net, dir.join("missing").to_str().unwrap()], "does not exist");
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    assert_refused(&["probe", &net, empty.to_str().unwrap()], "holds no finished game");
    // A record without a result has no score to predict.
    let unfinished = dir.join("unfinished.txt");
    let record =
        stratego_ok(&["play", "--seed", "3", "--max-plies", "40", "--record", dir.join("g.txt").to_str().unwrap()]);
    assert!(!record.is_empty());
    let text = std::fs::read_to_string(dir.join("g.txt")).unwrap();
    let cut: String = text.lines().filter(|l| !l.starts_with("result")).map(|l| format!("{l}\n")).collect();
    std::fs::write(&unfinished, cut).unwrap();
    assert_refused(&["probe", &net, unfinished.to_str().unwrap()], "has no result");
    let log = fixture("celsius-known-miner.log");
    // A referee log whose move is illegal in our engine: the error names the file and the ply.
    let broken = broken_referee_log(&dir, &log);
    assert_refused(&["probe", &net, broken.to_str().unwrap()], "broken.log, ply 1:");
    assert_refused(&["probe", &net, log.to_str().unwrap(), "--stride", "0"], "at least 1");
    assert_refused(&["probe", &net, log.to_str().unwrap(), "--referee-plies", "0"], "at least 1");
    assert_refused(&["probe", &net, log.to_str().unwrap(), "--pool-weight", "1.5"], "from 0 to 1");
    assert_refused(
        &["probe", dir.join("none.safetensors").to_str().unwrap(), log.to_str().unwrap()],
        "none.safetensors",
    );
    assert_refused(&["probe", not_a_game.to_str().unwrap(), log.to_str().unwrap()], "notes.txt");
}
