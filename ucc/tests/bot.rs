//! The UCC bot against a scripted fake referee (`support/referee.rs`): the
//! referee knows both armies, plays a random opponent, checks every move the
//! bot sends under the referee's rules, sends every kind of outcome line, and
//! can replace any line it sends with QUIT.

mod support;

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rand::SeedableRng;
use stratego_engine::{Color, ProgressRules, Ruleset};
use stratego_players::player::self_restriction;
use stratego_players::AgentRng;
use stratego_ucc::bot::{self, BotOptions, UccEnd};
use stratego_ucc::protocol::ucc_rules;
use support::referee::{ply_lines, referee, Report};

/// One game of `spec` against the scripted referee, the bot in a thread of
/// this process; returns the referee's report and the bot's result.
fn referee_game(
    bot: Color,
    spec: &str,
    seed: u64,
    quit_at: Option<usize>,
    max_plies: u32,
    record: &Path,
    options: BotOptions,
) -> (Report, UccEnd) {
    let restriction = options.restriction;
    let _ = std::fs::remove_file(record);
    let (bot_in, to_bot) = std::io::pipe().unwrap();
    let (from_bot, bot_out) = std::io::pipe().unwrap();
    let record_path = record.to_path_buf();
    let mut player = stratego_baselines::factory_of(spec).unwrap().make();
    let bot_thread = std::thread::spawn(move || {
        let mut file = std::fs::File::create(&record_path).unwrap();
        let mut rng = AgentRng::seed_from_u64(seed);
        bot::play(BufReader::new(bot_in), bot_out, &mut file, player.as_mut(), &mut rng, seed, &options)
    });
    let report = referee(
        bot,
        Box::new(to_bot),
        Box::new(BufReader::new(from_bot)),
        seed,
        quit_at,
        max_plies,
        Some(record),
        restriction,
    );
    let end = bot_thread.join().unwrap().unwrap_or_else(|e| panic!("the bot failed: {e}"));
    (report, end)
}

/// The bot's options in these games: 1.5 s a decision, the default turn cap.
fn options(restriction: Option<ProgressRules>) -> BotOptions {
    BotOptions { restriction, ..BotOptions::new(Duration::from_millis(1500)) }
}

fn scratch(name: &str) -> PathBuf {
    stratego_testkit::scratch_path(&format!("ucc-{name}.txt"))
}

#[test]
fn whole_games_as_either_colour_with_only_legal_moves_and_a_record_per_move() {
    let record = scratch("games");
    let mut battles = [0; 3];
    for (i, (bot, spec)) in [
        (Color::Red, "greedy"),
        (Color::Blue, "greedy"),
        (Color::Red, "random"),
        (Color::Blue, "random"),
        (Color::Blue, "expectimax:depth=2,nodes=300"),
    ]
    .into_iter()
    .enumerate()
    {
        let (report, end) = referee_game(bot, spec, 10 + i as u64, None, 600, &record, options(None));
        let UccEnd::Quit(quit) = end else { panic!("the game ends with QUIT") };
        assert!(quit.starts_with("QUIT ./opponent"));
        assert!(report.plies > 10, "{report:?}");
        assert!(report.slowest_reply < Duration::from_secs(2), "{spec}: {report:?}");
        battles.iter_mut().zip(report.battles).for_each(|(total, n)| *total += n);
        let text = std::fs::read_to_string(&record).unwrap();
        assert!(text.starts_with("stratego-ucc-log v1\nrules stratego-rules-v1:pieces=classic,two-square=0,chase=off"));
        assert!(text.contains(&format!("agent {spec}")) && text.contains(&format!("colour {bot}")));
        assert_eq!(text.lines().last().unwrap(), format!("end {quit}"));
        assert_eq!(ply_lines(&record), report.told, "every ply the bot was told about was written");
        assert!(report.told + 1 >= report.plies as usize);
    }
    assert!(battles.iter().all(|&n| n > 0), "KILLS, DIES and BOTHDIE all occurred: {battles:?}");
    let _ = std::fs::remove_file(&record);
}

/// N-tuple tables trained under the lab's rules
/// play the referee's (no progress rules, no caps) instead of being
/// refused, and the bot holds its own moves to the progress rules it was
/// trained under, while the opponent moves by the referee's rules.
#[test]
fn a_player_trained_under_the_lab_rules_plays_the_referee_and_keeps_its_own_progress_rules() {
    let spec = concat!("ntuple:", env!("CARGO_MANIFEST_DIR"), "/../registrations/ntuple-td.safetensors");
    let factory = stratego_baselines::factory_of(spec).unwrap();
    factory.check_rules(&ucc_rules()).expect("only the progress rules and caps differ");
    let restriction = self_restriction(factory.as_ref(), &ucc_rules());
    assert_eq!(restriction, Some(ProgressRules::LAB));
    let record = scratch("restricted");
    let mut restricted = 0;
    for (i, bot) in [Color::Red, Color::Blue].into_iter().enumerate() {
        let (report, end) = referee_game(bot, spec, 40 + i as u64, None, 400, &record, options(restriction));
        assert!(matches!(end, UccEnd::Quit(_)), "{end:?}");
        assert!(report.plies > 10, "{report:?}");
        restricted += report.restricted;
        let text = std::fs::read_to_string(&record).unwrap();
        assert!(text.contains("\nself-restriction two-square=3,chase=on\n"), "{text}");
    }
    assert!(restricted > 0, "the restriction never removed a move: the check did not run");
    let _ = std::fs::remove_file(&record);
}

#[test]
fn a_quit_in_place_of_any_line_ends_the_bot_cleanly() {
    let record = scratch("quit");
    for bot in [Color::Red, Color::Blue] {
        // Line 0 is the colour line; then the opponent/START lines, board
        // rows and echoes of the first turns.
        for quit_at in 0..40 {
            let (report, end) = referee_game(bot, "greedy", 3, Some(quit_at), 400, &record, options(None));
            assert!(report.quit_sent);
            assert_eq!(end, UccEnd::Quit("QUIT ./opponent RED VICTORY 7 120 99".into()), "quit at line {quit_at}");
            let text = std::fs::read_to_string(&record).unwrap();
            assert!(text.ends_with("end QUIT ./opponent RED VICTORY 7 120 99\n"), "{text}");
        }
    }
    let _ = std::fs::remove_file(&record);
}

#[test]
fn malformed_referee_lines_are_errors_not_panics() {
    for first in ["GREEN ./x 10 10", "RED ./x 8 8", "hello"] {
        let mut record = Vec::new();
        let mut player = stratego_baselines::factory_of("random").unwrap().make();
        let result = bot::play(
            format!("{first}\n").as_bytes(),
            Vec::new(),
            &mut record,
            player.as_mut(),
            &mut AgentRng::seed_from_u64(1),
            1,
            &BotOptions::new(Duration::from_secs(1)),
        );
        assert!(result.is_err(), "{first}");
    }
    // An opponent move from an empty square.
    let mut player = stratego_baselines::factory_of("random").unwrap().make();
    let script = "BLUE ./x 10 10\n5 5 DOWN OK\n";
    let err = bot::play(
        script.as_bytes(),
        Vec::new(),
        &mut Vec::new(),
        player.as_mut(),
        &mut AgentRng::seed_from_u64(1),
        1,
        &BotOptions::new(Duration::from_secs(1)),
    )
    .unwrap_err();
    assert!(err.to_string().contains("no piece on"), "{err}");
}

/// A referee line out of step with the game (a move of our own pieces where
/// the opponent's or `START` belongs, `START` for Blue or in mid-game) is a
/// protocol error, never a resignation.
#[test]
fn a_referee_out_of_step_is_an_error_not_a_resignation() {
    let blue_rows = "..........\n".repeat(10);
    for (script, needle) in [
        // Red's front row is row 3: `0 3 DOWN` moves one of our own pieces.
        ("RED ./x 10 10\n0 3 DOWN OK\n".to_string(), "expected `START`: Red moves first"),
        ("BLUE ./x 10 10\nSTART\n".to_string(), "`START` comes only before Red's first move"),
        // Red's move and the board, our move, and `START` where its echo belongs.
        (format!("BLUE ./x 10 10\n0 3 DOWN OK\n{blue_rows}START\n"), "unexpected line from the referee: `START`"),
    ] {
        let mut player = stratego_baselines::factory_of("random").unwrap().make();
        let mut sent = Vec::new();
        let result = bot::play(
            script.as_bytes(),
            &mut sent,
            &mut Vec::new(),
            player.as_mut(),
            &mut AgentRng::seed_from_u64(1),
            1,
            &BotOptions::new(Duration::from_secs(1)),
        );
        let sent = String::from_utf8(sent).unwrap();
        assert!(!sent.contains("SURRENDER"), "{script:?}: the bot resigned: {sent}");
        let err = result.unwrap_err();
        assert!(matches!(err, stratego_ucc::UccError::Protocol { .. }) && err.to_string().contains(needle), "{err}");
    }
}

/// The player sees the referee's turn cap (by default `-m 1000`, the lab's
/// referee rules), and a referee that plays past the cap the bot was told
/// does not stop the bot: it lifts the cap, says so, and plays on.
#[test]
fn the_turn_cap_is_shown_and_lifted_when_the_referee_plays_past_it() {
    assert_eq!(bot::tracked_rules(Some(BotOptions::REFEREE_TURNS)), Ruleset::referee());
    assert_eq!(bot::tracked_rules(None), ucc_rules());
    let record = scratch("cap");
    let (report, end) = referee_game(Color::Blue, "random", 7, None, 400, &record, options(None));
    assert!(matches!(end, UccEnd::Quit(_)), "{end:?}");
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(text.contains(&format!("\nrules {}\n", Ruleset::referee())), "{text}");
    assert!(!text.contains("played past"), "{report:?}");
    // Told `-m 11` (20 plies), the scripted referee goes on to its 400.
    let short = BotOptions { referee_turns: Some(11), ..options(None) };
    let (report, end) = referee_game(Color::Red, "random", 8, None, 400, &record, short);
    assert!(matches!(end, UccEnd::Quit(_)), "{end:?}");
    assert!(report.plies > 40, "the bot stopped at the cap it was told: {report:?}");
    let text = std::fs::read_to_string(&record).unwrap();
    let told = format!("rules {}", bot::tracked_rules(Some(11)));
    assert!(text.contains(&format!("\n{told}\n")), "{text}");
    assert!(text.contains(&format!("\nrules {} (the referee played past the turn cap)\n", ucc_rules())), "{text}");
    assert_eq!(ply_lines(&record), report.told, "every ply the bot was told about was written");
    let _ = std::fs::remove_file(&record);
}
