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

/// The piece codes (`rM10`: colour, type letter, revealed, moved) anywhere
/// in a page's text of `color`'s pieces whose type the other side had not
/// seen (revealed `0`) and that still carry a type letter.
fn unseen_types_in(html: &str, color: char) -> Vec<String> {
    let letters = "SONELPJCGMFB";
    let b = html.as_bytes();
    (0..b.len().saturating_sub(5))
        .filter(|&i| {
            b[i] == b'"'
                && b[i + 1] == color as u8
                && letters.contains(b[i + 2] as char)
                && b[i + 3] == b'0'
                && (b[i + 4] == b'0' || b[i + 4] == b'1')
                && b[i + 5] == b'"'
        })
        .map(|i| html[i..i + 6].to_string())
        .collect()
}

/// A one-side page holds no type of the other side's pieces that side had
/// not seen, anywhere in the file: not in the board, the moves or the setups,
/// nor in the network's notes (those on the other side's moves are left
/// out). The page of everything holds them all.
#[test]
fn a_one_side_page_holds_no_type_that_side_had_not_seen() {
    let dir = scratch("view-side");
    let log = dir.join("game.log");
    std::fs::copy(fixture("celsius-marshal-on-bomb.log"), &log).unwrap();
    for (side, other) in [("red", 'b'), ("blue", 'r')] {
        let page = dir.join(format!("{side}.html"));
        stratego_ok(&[
            "view",
            log.to_str().unwrap(),
            "--side",
            side,
            "--out",
            page.to_str().unwrap(),
            "--net",
            &network(),
        ]);
        let html = std::fs::read_to_string(&page).unwrap();
        assert_eq!(unseen_types_in(&html, other), Vec::<String>::new(), "{side}'s page");
        let d = data(&page);
        assert_eq!(d["only"], side);
        let hidden =
            d["start"].as_array().unwrap().iter().filter(|c| c.as_str().is_some_and(|c| c.starts_with(other))).count();
        assert_eq!(hidden, 40);
        for n in d["notes"].as_array().unwrap() {
            assert!(n.is_null() || n["mover"] == side, "{n}");
        }
        // Its own pieces are all there.
        let mine = if other == 'b' { 'r' } else { 'b' };
        assert!(d["start"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c.as_str())
            .filter(|c| c.starts_with(mine))
            .all(|c| !c.contains('?')));
    }
    let all = dir.join("all.html");
    stratego_ok(&["view", log.to_str().unwrap(), "--out", all.to_str().unwrap()]);
    let html = std::fs::read_to_string(&all).unwrap();
    assert!(unseen_types_in(&html, 'b').len() >= 40 && unseen_types_in(&html, 'r').len() >= 40);
}

/// A bot's own log (`ucc-bot --record`, here of a real referee game
/// against celsius) lacks the opponent's setup: it opens as the bot saw the
/// game, and that page is the page of the referee's log of the same game
/// seen from the bot's side, ply for ply. No other view is offered.
#[test]
fn a_bots_log_is_the_referee_game_as_the_bot_saw_it() {
    let dir = scratch("view-bot");
    let (record, log) = (dir.join("bot.txt"), dir.join("referee.log"));
    std::fs::copy(fixture("celsius-bot-record.txt"), &record).unwrap();
    std::fs::copy(fixture("celsius-bot-record.log"), &log).unwrap();
    let text = stratego_ok(&["view", record.to_str().unwrap(), "--net", &network()]);
    assert!(text.contains("248 plies, the referee ended it: QUIT ./red.sh RED VICTORY"), "{text}");
    let bot = data(&dir.join("bot.txt.html"));
    assert_eq!((bot["source"].as_str(), bot["only"].as_str()), (Some("ucc-bot log"), Some("red")));
    assert_eq!(unseen_types_in(&std::fs::read_to_string(dir.join("bot.txt.html")).unwrap(), 'b'), Vec::<String>::new());
    let referee_page = dir.join("referee-red.html");
    stratego_ok(&["view", log.to_str().unwrap(), "--side", "red", "--out", referee_page.to_str().unwrap()]);
    let referee = data(&referee_page);
    assert_eq!(bot["start"], referee["start"]);
    let (bot_frames, referee_frames) = (bot["frames"].as_array().unwrap(), referee["frames"].as_array().unwrap());
    // The referee's log has the winning ply the bot was never told about.
    assert_eq!(bot_frames.len() + 1, referee_frames.len());
    assert_eq!(bot_frames[..], referee_frames[..bot_frames.len()]);
    // Its notes are the bot's side's only.
    assert!(bot["notes"].as_array().unwrap().iter().all(|n| n.is_null() || n["mover"] == "red"));
    for side in ["all", "blue"] {
        assert_refused(
            &["view", record.to_str().unwrap(), "--side", side, "--out", dir.join("x.html").to_str().unwrap()],
            "holds only red's side",
        );
    }
    // The probe scores beliefs against true types: a bot's log has none.
    assert_refused(&["probe", &network(), record.to_str().unwrap()], "probe the referee's log");
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
    let broken = broken_referee_log(&dir, &log);
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

/// `arena --keep-games N` and `register run --keep-games N`: N of the
/// match's games as pages beside their records, A's losses first.
#[test]
fn a_match_keeps_pages_of_player_as_losses_first() {
    let dir = scratch("view-keep");
    let out = dir.join("match");
    let text = succeeded(&arena(
        "random",
        "greedy",
        "6",
        &["--seed", "3", "--threads", "1", "--keep-games", "3", "--out", out.to_str().unwrap()],
    ));
    assert!(text.contains("(3 games, A's losses first)"), "{text}");
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let mut by_points: Vec<(f64, u64)> = results["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["a_points"].as_f64().unwrap(), g["index"].as_u64().unwrap()))
        .collect();
    by_points.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let expected: Vec<String> = by_points[..3].iter().map(|(_, i)| format!("{i:05}.html")).collect();
    let mut pages = listed(&out.join("pages"));
    pages.sort();
    let mut wanted = expected.clone();
    wanted.sort();
    assert_eq!(pages, wanted);
    // Each page is its record's game.
    for page in &expected {
        let d = data(&out.join("pages").join(page));
        let index: u64 = page[..5].parse().unwrap();
        let game = &results["games"][index as usize];
        assert_eq!(d["frames"].as_array().unwrap().len() as u64, game["plies"].as_u64().unwrap());
    }
    assert_refused(&arena_args("random", "greedy", "2", &["--keep-games", "x"]), "keep-games");
}
