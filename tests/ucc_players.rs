//! Every registered player kind plays whole games through `stratego ucc-bot`
//! against a scripted UCC 2012 referee, under the referee's rules (no
//! two-square or more-squares rule, no caps), as Red and as Blue: the way an
//! outside tournament meets our players. A kind added to the registry
//! without a spec here fails the test, so no player escapes it.

mod common;
use common::*;

#[path = "../ucc/tests/support/referee.rs"]
mod referee;

use std::time::Duration;

use stratego_engine::Color;

/// The spec each registered kind plays with. Searching players get the
/// referee's clock (`--move-time-ms`), trained ones their checkpoints.
fn spec_of(kind: &str) -> Option<String> {
    let root = env!("CARGO_MANIFEST_DIR");
    Some(match kind {
        "random" => "random".into(),
        "greedy" => "greedy".into(),
        "expectimax" => "expectimax:setup=handcrafted-v2".into(),
        "ntuple" => format!("ntuple:{root}/registrations/ntuple-td.safetensors"),
        "net" => format!("net:{root}/registrations/cpu-tiny.safetensors,setup=handcrafted-v2"),
        "netsearch" => format!("netsearch:{root}/registrations/cpu-tiny.safetensors,setup=handcrafted-v2"),
        "netexpectimax" => format!("netexpectimax:{root}/registrations/cpu-tiny.safetensors,setup=handcrafted-v2"),
        // The registered checkpoint: with cpu-tiny's rollouts the player
        // lost a game to random moves here in one of two runs.
        "netrollout" => format!("netrollout:{root}/registrations/cpu-continue.safetensors,setup=handcrafted-v2"),
        // An outside program relayed: our own bot behind `ucc:`, which
        // takes its seat and plays the setup the program sends. Seeded, so
        // that its game is the same each run (unseeded, it drew its seed
        // from the clock and lost one game of a CI run to random moves).
        // Its replies may wait two minutes: a debug binary starting beside
        // a loaded test run took longer than the default 10 s to send its
        // setup, and the relaying bot forfeited before the first line.
        "ucc" => format!(
            "ucc:{} ucc-bot --agent greedy --seed 1 --move-time-ms 60000 --record {}/relayed-$$.txt,timeout=120",
            env!("CARGO_BIN_EXE_stratego"),
            std::env::temp_dir().display()
        ),
        _ => return None,
    })
}

/// The referee's clock for one decision, in milliseconds; the bot must
/// answer within it (plus the margin of a loaded test machine).
/// `UCC_MOVE_TIME_MS` sets another for a measurement (EVALUATION.md, with
/// `--nocapture`: each game's median and slowest reply are printed).
fn move_time_ms() -> u64 {
    std::env::var("UCC_MOVE_TIME_MS").ok().and_then(|t| t.parse().ok()).unwrap_or(100)
}
/// The referee's turn cap in plies: only a game of two random players
/// comes near it.
const MAX_PLIES: u32 = 3000;

#[test]
fn every_player_kind_plays_whole_games_through_the_referee_in_both_colours() {
    let kinds: Vec<&str> = stratego_roster::players().entries().iter().map(|e| e.name).collect();
    let missing: Vec<&&str> = kinds.iter().filter(|k| spec_of(k).is_none()).collect();
    assert!(missing.is_empty(), "registered kinds without a spec in this test: {missing:?}");
    let dir = scratch("ucc-players");
    let mut finished = 0;
    let mut games = 0;
    for (k, kind) in kinds.iter().enumerate() {
        let spec = spec_of(kind).unwrap();
        for (c, bot) in [Color::Red, Color::Blue].into_iter().enumerate() {
            let seed = 100 + 2 * k as u64 + c as u64;
            let record = dir.join(format!("{kind}-{bot}.txt"));
            let (seed_arg, clock) = (seed.to_string(), move_time_ms().to_string());
            let args =
                ["--agent", &spec, "--seed", &seed_arg, "--move-time-ms", &clock, "--record", record.to_str().unwrap()];
            let (child, to_bot, from_bot) = spawn_ucc_bot(&args);
            let report = referee::referee(bot, Box::new(to_bot), Box::new(from_bot), seed, None, MAX_PLIES, None, None);
            let out = child.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{spec} as {bot}: {err}");
            // Trained players say once that they play other rules than their own.
            assert!(err.lines().count() <= 1, "{spec} as {bot}: {err}");
            assert!(report.plies > 1, "{spec} as {bot}: {report:?}");
            let mut replies = report.replies.clone();
            replies.sort();
            println!(
                "{kind} as {bot}: {} plies, {} moves, median reply {:?}, slowest {:?} (clock {} ms)",
                report.plies,
                replies.len(),
                replies[replies.len() / 2],
                report.slowest_reply,
                move_time_ms()
            );
            // The referee's clock, with the margin of a loaded debug build.
            assert!(report.slowest_reply < Duration::from_millis(move_time_ms() * 10), "{spec} as {bot}: {report:?}");
            let text = std::fs::read_to_string(&record).unwrap();
            assert!(text.contains(&format!("rules {}\n", stratego_engine::Ruleset::referee())), "{text}");
            assert!(text.lines().last().unwrap().starts_with("end QUIT"), "{spec} as {bot}: {text}");
            games += 1;
            if report.finished {
                finished += 1;
                // Every kind but random beats the referee's random opponent.
                if *kind != "random" {
                    assert_eq!(report.winner, Some(bot), "{spec} as {bot} lost to random moves: {report:?}");
                }
            } else {
                assert_eq!(*kind, "random", "{spec} as {bot} did not finish in {MAX_PLIES} plies: {report:?}");
            }
        }
    }
    assert!(finished + 2 >= games, "{finished} of {games} games ended by the rules");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Caps and progress rules unlike the lab's classic ones, and how the
/// match's ruleset names them.
const OTHER_CAPS: [&str; 8] = ["--two-square", "0", "--chase", "off", "--max-plies", "150", "--max-battleless", "60"];
const OTHER_CAPS_RULES: &str = "two-square=0,chase=off,max-plies=150,max-battleless=60";

/// Every registered player kind plays arena games under caps and progress
/// rules other than any it was trained for (the lab's classic caps): a
/// short cap, a battleless cap, no two-square or more-squares rule.
#[test]
fn every_player_kind_plays_arena_games_under_other_caps() {
    let kinds: Vec<&str> = stratego_roster::players().entries().iter().map(|e| e.name).collect();
    let dir = scratch("arena-players");
    for kind in kinds {
        let spec = spec_of(kind).unwrap_or_else(|| panic!("no spec for the registered kind {kind}"));
        // The searching players get a short clock of their own where they take one.
        let spec = match kind {
            "expectimax" | "netrollout" => format!("{spec},time=50"),
            _ => spec,
        };
        let out = dir.join(kind);
        stratego_ok(&arena_args(&spec, "random", "2", &[&OTHER_CAPS[..], &["--out", out.to_str().unwrap()]].concat()));
        let results = std::fs::read_to_string(out.join("results.json")).unwrap();
        assert!(results.contains(OTHER_CAPS_RULES), "{results}");
        assert_eq!(std::fs::read_dir(out.join("games")).unwrap().count(), 2, "{spec}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
