//! The lab as the UCC 2012 referee: any program that speaks the protocol is
//! a player (`ucc:COMMAND`). Programs that misbehave in every way a referee
//! meets (silence, a crash, a bad setup, an illegal or unreadable move, a
//! flood, a surrender, children left behind) lose their game with the
//! reason, the match goes on, nothing hangs and no process outlives its
//! game. A well-behaved program plays whole games. Against the real referee
//! and bots of `shared/ucc` (where `UCC_DIR` names the field built by
//! `shared/ucc/setup.sh`; `.ci/run` builds it): the same two programs play
//! the same game move for move under both referees, the referee's logs
//! replay in our engine with the same battles and winners, and every bot of
//! the field plays a short game through `ucc:`.

mod common;
use common::*;

use std::path::{Path, PathBuf};
use std::process::Command;

use stratego_engine::{EndReason, Ruleset, State};
use stratego_evaluation::arena::{play_match, MatchConfig, MatchResult};
use stratego_ucc::protocol::{outcome_of, RefereeLog};

/// Referee rules with a short cap, for quick games.
fn rules(max_plies: u32) -> Ruleset {
    Ruleset { max_plies, ..Ruleset::referee() }
}

fn play(a: &str, b: &str, games: u32, max_plies: u32) -> MatchResult {
    let registry = stratego_roster::players();
    let (a, b) = (registry.factory(a).unwrap(), registry.factory(b).unwrap());
    play_match(a.as_ref(), b.as_ref(), &MatchConfig::new(rules(max_plies), games, 7), &|_| {}).unwrap()
}

/// A launcher script in `dir` (`#!/bin/sh` and `body`).
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A valid army as four setup lines (either colour may send it).
const SETUP: &str = "echo FB8sB479B8; echo BB31555583; echo 6724898974; echo 967B669999";

/// A bot that reads the colour, sends SETUP, and at each turn (after the ten
/// board rows) runs `turn`.
fn bot_body(turn: &str) -> String {
    format!(
        "read colour rest; {SETUP}\nn=0\nwhile read line; do\n  case \"$line\" in *' '*|START) n=0 ;; *) n=$((n+1)) ;; esac\n  \
         if [ $n -eq 10 ]; then n=0; {turn}; fi\ndone"
    )
}

/// Processes whose command line holds `marker`.
fn processes_with(marker: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| {
            let e = e.ok()?;
            e.file_name().to_str()?.parse::<u32>().ok()?;
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            text.contains(marker).then_some(text)
        })
        .collect()
}

#[test]
fn a_misbehaving_program_loses_its_game_with_the_reason_and_the_match_goes_on() {
    let dir = scratch("ucc-misbehaving");
    // Each: the script's body and a word of the reason it must lose with.
    let cases: Vec<(&str, String, &str)> = vec![
        ("silent", "read colour rest; sleep 31401 & sleep 1000".into(), "no reply within"),
        ("crash", "read colour rest; echo 'it broke' >&2; exit 2".into(), "it broke"),
        (
            "bad-setup",
            "read colour rest; echo FB8sB479B8; echo BB31555583; echo 6724898974; echo 96711B9999".into(),
            "bad setup",
        ),
        (
            "short-line",
            "read colour rest; echo FB8sB479B; echo BB31555583; echo 6724898974; echo 967B669999".into(),
            "not 10 characters",
        ),
        ("illegal", bot_body("echo '0 0 DOWN'"), "illegal move `0 0 DOWN`"),
        ("off-board", bot_body("echo '0 0 UP'"), "the move leaves the board"),
        ("garbage", bot_body("echo 'hello there'"), "sent `hello there`"),
        ("surrender", bot_body("echo SURRENDER"), "surrendered"),
        ("late", bot_body("sleep 2; echo '0 3 DOWN'"), "no reply within"),
        ("dies-mid-game", bot_body("exit 0"), "ended its output"),
        ("long-line", bot_body("head -c 100000 /dev/zero | tr '\\0' x; echo"), "floods its output"),
        ("flood", bot_body("yes 0 0 DOWN"), "illegal move"),
        ("orphans", bot_body("sleep 31402 & sleep 31403 & sleep 1000"), "no reply within"),
    ];
    for (name, body, reason) in &cases {
        let path = script(&dir, name, body);
        let spec = format!("ucc:{},timeout=0.5", path.display());
        let started = std::time::Instant::now();
        let result = play(&spec, "random", 4, 200);
        assert_eq!(result.games.len(), 4, "{name}: the match went on after the first forfeit");
        for g in &result.games {
            assert_eq!(g.a_points(), 0.0, "{name}: game {} {:?}", g.index, g.outcome);
            assert_eq!(g.outcome.reason, EndReason::Forfeit, "{name}");
            let why = g.forfeit.as_deref().unwrap_or_default();
            assert!(why.contains(reason) && why.contains("forfeits"), "{name}: `{reason}` in `{why}`");
            // The record says who forfeited, and replays to that end.
            let record = g.record.as_ref().unwrap();
            assert_eq!(record.replay().unwrap().outcome(), Some(g.outcome), "{name}");
        }
        // Four games and four setup draws, each well inside a few timeouts.
        assert!(started.elapsed().as_secs() < 30, "{name}: {:?}", started.elapsed());
    }
    for marker in ["sleep 31401", "sleep 31402", "sleep 31403"] {
        // A process the lab killed is gone once the kernel has run its exit,
        // which on a loaded machine (the field's bots beside this test) can
        // come a little after the match returns: it has a second to go.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
        while !processes_with(marker).is_empty() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(processes_with(marker), Vec::<String>::new(), "a process outlived its game");
    }
    // Through the command: the reasons are printed and written, exit 0.
    let silent = format!("ucc:{},timeout=0.3", dir.join("garbage").display());
    let out = dir.join("arena");
    let o = arena(&silent, "greedy", "2", &["--rules", "referee", "--out", out.to_str().unwrap()]);
    let text = succeeded(&o);
    assert_contains_all(&text, &["W/D/L (A): 0 / 0 / 2", "forfeit 2", "forfeits: sent `hello there`"]);
    let results = std::fs::read_to_string(out.join("results.json")).unwrap();
    assert!(results.contains("\"forfeit\": \"") && results.contains("hello there"), "{results}");
}

#[test]
fn bad_ucc_specs_are_one_line_errors() {
    assert_refused(&["arena", "--a", "ucc:/no/such/bot", "--b", "random"], "cannot load player `ucc:/no/such/bot`");
    let dir = scratch("ucc-specs");
    let plain = dir.join("plain.txt");
    std::fs::write(&plain, "not a program").unwrap();
    let spec = format!("ucc:{}", plain.display());
    assert_refused(&["arena", "--a", &spec, "--b", "random"], "is not executable");
    let bot = script(&dir, "bot", "exit 0");
    let spec = format!("ucc:{},timeout=0", bot.display());
    assert_refused(&["arena", "--a", &spec, "--b", "random"], "bad value `0` for option `timeout`");
    let spec = format!("ucc:{}", bot.display());
    // The lab's progress rules would forbid the bot moves it cannot know of.
    assert_refused(
        &["arena", "--a", &spec, "--b", "random", "--rules", "classic"],
        "no two-square or more-squares rule",
    );
    assert_refused(&["arena", "--a", "ucc:no-such-program-here", "--b", "random"], "no-such-program-here");
}

/// `stratego ucc-bot` as an outside program: the lab's own bot. (A command
/// with `,` or `=` would need a launcher file: the spec's syntax.)
fn own_bot(agent: &str, seed: u64, records: &Path) -> String {
    format!(
        "ucc:{} ucc-bot --agent {agent} --seed {seed} --move-time-ms 60000 --record {}/{seed}-$$.txt",
        env!("CARGO_BIN_EXE_stratego"),
        records.display()
    )
}

#[test]
fn a_well_behaved_program_plays_whole_games_in_both_colours() {
    let dir = scratch("ucc-own-bot");
    let result = play(&own_bot("greedy", 3, &dir), "random", 4, 600);
    for g in &result.games {
        assert_eq!(g.forfeit, None, "game {}", g.index);
        assert_ne!(g.outcome.reason, EndReason::Forfeit);
        g.record.as_ref().unwrap().replay().unwrap();
    }
    assert!(result.games.iter().map(|g| g.a_points()).sum::<f64>() >= 3.0, "greedy beats random moves");
}

/// The field built by `shared/ucc/setup.sh`, if `UCC_DIR` names it. CI sets
/// `STRATEGO_REQUIRE_UCC_FIELD=1` (`.ci/run` builds the field), where a
/// missing field fails instead of skipping.
fn field() -> Option<PathBuf> {
    let dir = std::env::var_os("UCC_DIR").map(PathBuf::from).filter(|d| d.join("referee").is_file());
    if dir.is_none() {
        assert!(
            std::env::var_os("STRATEGO_REQUIRE_UCC_FIELD").is_none(),
            "STRATEGO_REQUIRE_UCC_FIELD is set but UCC_DIR does not name a built field (shared/ucc/setup.sh DIR)"
        );
        eprintln!("skipped: UCC_DIR does not name the field of shared/ucc (build it with shared/ucc/setup.sh DIR)");
    }
    dir
}

/// Plays one game through the real referee; returns its log's text.
fn real_referee(field: &Path, dir: &Path, red: &str, blue: &str, turns: u32) -> String {
    let launcher = |name: &str, command: &str| script(dir, name, &format!("exec {command}"));
    let (red, blue) = (launcher("red", red), launcher("blue", blue));
    let log = dir.join("game.log");
    let o = Command::new(field.join("referee"))
        .args(["-T", "30", "-m", &turns.to_string(), "-o"])
        .arg(&log)
        .arg(&red)
        .arg(&blue)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read_to_string(&log).unwrap()
}

/// Replays a referee log in our engine under the referee's rules: every
/// move legal, every battle with the referee's outcome words, and the same
/// winner where the game ended by the rules.
fn replay_log(text: &str, turns: u32) -> State {
    let log = RefereeLog::parse(text).unwrap();
    let mut state = State::from_setups(rules(2 * (turns - 1)), &log.red, &log.blue).unwrap();
    for (i, (mv, words)) in log.moves.iter().enumerate() {
        state.apply_move(*mv).unwrap_or_else(|e| panic!("move {} {mv}: {e}\n{text}", i + 1));
        let ply = stratego_players::view::PublicPly::of(state.history().last().unwrap());
        if words != "VICTORY_FLAG" {
            assert_eq!(&outcome_of(&ply).to_words(), words, "move {} {mv}", i + 1);
        }
    }
    match log.outcome.as_str() {
        "DRAW_DEFAULT" => {
            let reason = state.outcome().map(|o| o.reason);
            assert!(matches!(reason, None | Some(EndReason::PlyCap)), "the referee's cap came first: {text}");
        }
        "VICTORY" | "DRAW" => {
            // The referee ends a game as soon as the side that just moved
            // has no movable piece left; our engine one ply later, when that
            // side would have to move. The winner is the same.
            let mut end = state.clone();
            if let Some(mv) = end.legal_moves().first().copied() {
                end.apply_move(mv).unwrap();
            }
            let outcome = end.outcome().unwrap_or_else(|| panic!("the game is over: {text}"));
            assert_eq!(outcome.winner, log.winner(), "{text}");
        }
        _ => {} // a forfeit by the referee's clock or a bot's reply: nothing to replay
    }
    state
}

#[test]
fn the_lab_referees_as_the_real_referee_does() {
    let Some(field) = field() else { return };
    let dir = scratch("ucc-same-game");
    let turns = 150;
    // Two deterministic programs: the same game under both referees.
    let ntuple = format!("ntuple:{}/registrations/ntuple-td.safetensors", env!("CARGO_MANIFEST_DIR"));
    let (a, b) = (own_bot("greedy", 5, &dir), own_bot(&ntuple, 6, &dir));
    let text = real_referee(&field, &dir, &a["ucc:".len()..], &b["ucc:".len()..], turns);
    replay_log(&text, turns);
    let registry = stratego_roster::players();
    let (fa, fb) = (registry.factory(&a).unwrap(), registry.factory(&b).unwrap());
    // One game, A as Red: the first of a pair.
    let config = MatchConfig::new(rules(2 * (turns - 1)), 2, 1);
    let lab = play_match(fa.as_ref(), fb.as_ref(), &config, &|_| {}).unwrap();
    let ours = lab.games[0].record.as_ref().unwrap();
    let log = RefereeLog::parse(&text).unwrap();
    assert_eq!((&ours.red, &ours.blue), (&log.red, &log.blue), "the same setups");
    let moves: Vec<_> = log.moves.iter().map(|(m, _)| *m).collect();
    // One ply more in the lab where the referee ended the game early (above).
    let extra = ours.moves.len().saturating_sub(moves.len());
    assert!(ours.moves.starts_with(&moves) && extra <= 1, "the same moves under both referees:\n{text}");
    let winner = lab.games[0].outcome.winner;
    match log.outcome.as_str() {
        "DRAW_DEFAULT" => assert_eq!((winner, extra), (None, 0)),
        _ => assert_eq!(winner, log.winner()),
    }
}

#[test]
fn every_bot_of_the_shared_field_plays_through_ucc_and_its_referee_logs_replay() {
    let Some(field) = field() else { return };
    let dir = scratch("ucc-field");
    // The bots one beside the other: their games wait on the bots' clocks
    // and the referee's pipes more than they compute (57 s one after the
    // other on the 2-core machine).
    std::thread::scope(|threads| {
        for bot in ["asmodeus", "vixen", "celsius", "hunter", "basic_python"] {
            let (field, dir) = (&field, dir.join(bot));
            threads.spawn(move || {
                std::fs::create_dir_all(&dir).unwrap();
                // Named by the bare word, found in $UCC_DIR/bots.
                // Short games (CI's two cores: `hunter` thinks about 70 ms a move).
                let result = play(&format!("ucc:{bot}"), "random", 2, 120);
                for g in &result.games {
                    assert_eq!(g.forfeit, None, "{bot} game {}", g.index);
                    g.record.as_ref().unwrap().replay().unwrap();
                }
                // The same bot under the real referee against another: its log
                // replays in our engine with the same battles and winner.
                let launcher = field.join("bots").join(bot);
                let other = field.join("bots").join("basic_python");
                let text = real_referee(field, &dir, launcher.to_str().unwrap(), other.to_str().unwrap(), 120);
                replay_log(&text, 120);
            });
        }
    });
}

#[test]
fn ucc_review_says_how_each_game_was_lost() {
    let dir = scratch("ucc-review");
    let opponent = dir.join("celsius");
    std::fs::create_dir_all(&opponent).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ucc");
    // match.sh's files: the referee's log, and the result line whose second
    // field is player A's (our) colour.
    std::fs::copy(fixtures.join("celsius-known-miner.log"), opponent.join("game1.log")).unwrap();
    std::fs::write(opponent.join("game1.res"), "1 RED B VICTORY BLUE 148 49 8 20\n").unwrap();
    std::fs::copy(fixtures.join("celsius-marshal-on-bomb.log"), opponent.join("game2.log")).unwrap();
    std::fs::write(opponent.join("game2.res"), "2 RED B VICTORY BLUE 166 0 32 14\n").unwrap();
    let text = stratego_ok(&["ucc-review", opponent.to_str().unwrap()]);
    assert_contains_all(
        &text,
        &[
            "celsius: W 0 L 2 D 0; Flags lost 1 (to a Miner known 4+ plies: 1)",
            "game 1 (lost as red, ply 296): Flag taken by a miner known for 65 plies",
            "game 2 (lost as red",
            "destroyed all mobile enemy pieces",
            "marshal",
            "all: W 0 L 2 D 0 of 2 (score 0.0 %)",
        ],
    );
    let markdown = stratego_ok(&["ucc-review", "--markdown", opponent.to_str().unwrap()]);
    assert!(markdown.starts_with("| opponent | W-L-D |") && markdown.contains("| celsius | 0-2-0 |"), "{markdown}");
    assert_refused(&["ucc-review", dir.join("nothing-here").to_str().unwrap()], "cannot read");
    assert_refused(&["ucc-review", dir.to_str().unwrap()], "holds no gameN.log");
    std::fs::write(opponent.join("game3.log"), "RED SETUP\n").unwrap();
    assert_refused(&["ucc-review", opponent.to_str().unwrap()], "game3.res");
}
