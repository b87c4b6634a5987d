//! `stratego view`: a game as one self-contained page, as a user meets it:
//! the real UCC referee's logs (`tests/fixtures/ucc`) with a network's view
//! of each ply, the lab's own records (`play --record`), and bad input of
//! every kind as one error line with nothing overwritten.

mod common;
use common::*;

use std::path::{Path, PathBuf};

fn network() -> String {
    format!("{}/registrations/cpu-4h-spar.safetensors", env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ucc").join(name)
}

/// The game data inside a page.
fn data(page: &Path) -> serde_json::Value {
    let html = std::fs::read_to_string(page).unwrap();
    let start = html.find("id=\"game\">").expect("the data element") + "id=\"game\">".len();
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).unwrap()
}

#[test]
fn a_referee_log_becomes_a_page_with_the_networks_view_of_every_ply() {
    let dir = scratch("view-log");
    let log = dir.join("known-miner.log");
    std::fs::copy(fixture("celsius-known-miner.log"), &log).unwrap();
    let text = succeeded(&stratego(&["view", log.to_str().unwrap(), "--net", &network()]));
    let page = dir.join("known-miner.log.html");
    assert!(text.starts_with(&format!("{}: ", page.display())), "{text}");
    let d = data(&page);
    let frames = d["frames"].as_array().unwrap();
    let plies =
        std::fs::read_to_string(&log).unwrap().lines().filter(|l| l.contains(" RED: ") || l.contains(" BLU: ")).count();
    assert_eq!(frames.len(), plies);
    assert_eq!(d["source"], "UCC referee log");
    // The Flag fell to a Miner at the last ply.
    let last = frames.last().unwrap();
    assert_eq!(
        (last["battle"]["attacker"].as_str(), last["battle"]["defender"].as_str()),
        (Some("miner"), Some("flag"))
    );
    // One note per ply, each from its mover's side, with hidden pieces only.
    let notes = d["notes"].as_array().unwrap();
    assert_eq!(notes.len(), plies);
    for (i, n) in notes.iter().enumerate() {
        assert_eq!(n["mover"], frames[i]["player"], "ply {}", i + 1);
        let score = n["score"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&score));
        let top = n["top"].as_array().unwrap();
        assert!(!top.is_empty() && top.len() <= 3);
        let p: Vec<f64> = top.iter().map(|m| m[1].as_f64().unwrap()).collect();
        assert!(p.windows(2).all(|w| w[0] >= w[1]), "best first: {p:?}");
    }
    assert_eq!(notes[0]["belief"].as_array().unwrap().len(), 40, "every enemy piece is hidden at the start");
    // Both setups' 80 pieces at the start, and the material falls.
    assert_eq!(d["start"].as_array().unwrap().iter().filter(|c| !c.is_null()).count(), 80);
    let m0 = d["material0"][0].as_f64().unwrap();
    assert!(last["material"][0].as_f64().unwrap() < m0);
}

#[test]
fn a_lab_record_opens_on_the_side_asked_for_and_nothing_is_overwritten() {
    let dir = scratch("view-record");
    let record = dir.join("game.txt");
    stratego_ok(&["play", "--seed", "5", "--max-plies", "120", "--record", record.to_str().unwrap()]);
    let page = dir.join("blue.html");
    stratego_ok(&["view", record.to_str().unwrap(), "--side", "blue", "--out", page.to_str().unwrap()]);
    let d = data(&page);
    assert_eq!((d["view"].as_str(), d["source"].as_str()), (Some("blue"), Some("lab record")));
    assert!(d["notes"].is_null());
    assert_eq!(d["frames"].as_array().unwrap().len(), 120);
    let before = std::fs::read(&page).unwrap();
    assert_refused(&["view", record.to_str().unwrap(), "--out", page.to_str().unwrap()], "exists");
    assert_eq!(std::fs::read(&page).unwrap(), before, "the page is kept");
}

#[test]
fn view_refuses_bad_input_in_one_line() {
    let dir = scratch("view-bad");
    let not_a_game = dir.join("notes.txt");
    std::fs::write(&not_a_game, "hello\n").unwrap();
    assert_refused(&["view", not_a_game.to_str().unwrap()], "neither a lab record nor a UCC referee log");
    assert_refused(&["view", dir.join("missing.log").to_str().unwrap()], "cannot read");
    let log = fixture("celsius-known-miner.log");
    let text = std::fs::read_to_string(&log).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let first_move = lines.iter().position(|l| l.starts_with("1 RED: ")).unwrap();
    lines[first_move] = "1 RED: 0 0 DOWN OK";
    let broken = dir.join("broken.log");
    std::fs::write(&broken, lines.join("\n") + "\n").unwrap();
    assert_refused(&["view", broken.to_str().unwrap()], "ply 1");
    let copy = dir.join("ok.log");
    std::fs::copy(&log, &copy).unwrap();
    let c = copy.to_str().unwrap();
    assert_refused(&["view", c, "--side", "green"], "--side is all, red or blue");
    assert_refused(&["view", c, "--referee-turns", "0"], "0");
    assert_refused(&["view", c, "--net", not_a_game.to_str().unwrap()], "notes.txt");
    assert_refused(&["view", c, "--net", &network(), "--device", "tpu"], "tpu");
    // Nothing was written by any refusal.
    assert!(!dir.join("ok.log.html").exists() && !dir.join("broken.log.html").exists());
}
