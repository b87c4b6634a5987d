//! The UCC bot against a scripted fake referee: the referee knows both
//! armies, plays a random opponent, checks every move the bot sends under the
//! referee's rules, sends every kind of outcome line, and can replace any line
//! it sends with QUIT.

use std::io::{BufRead, BufReader, PipeReader, PipeWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use stratego_engine::{
    BattleResult, Color, Move, PieceSet, PieceType, ProgressRules, ProgressTracker, Setup, Square, State,
};
use stratego_evaluation::ucc::{self, ucc_char, ucc_rules, UccEnd, UccOutcome};
use stratego_players::player::self_restriction;
use stratego_players::AgentRng;

/// What the referee saw of one game.
#[derive(Default, Debug)]
struct Report {
    plies: u32,
    /// Plies the bot was told about (the game-ending one never is).
    told: usize,
    battles: [u32; 3],
    slowest_reply: Duration,
    quit_sent: bool,
    /// Bot moves at which its own progress rules removed some legal move.
    restricted: u32,
}

struct Referee {
    to_bot: Option<PipeWriter>,
    from_bot: BufReader<PipeReader>,
    sent: usize,
    quit_at: Option<usize>,
    report: Report,
}

enum Sent {
    Line,
    Quit,
}

impl Referee {
    fn send(&mut self, line: &str) -> Sent {
        let writer = self.to_bot.as_mut().unwrap();
        let index = self.sent;
        self.sent += 1;
        if self.quit_at == Some(index) {
            self.quit();
            return Sent::Quit;
        }
        writeln!(writer, "{line}").unwrap();
        Sent::Line
    }

    fn quit(&mut self) {
        writeln!(self.to_bot.as_mut().unwrap(), "QUIT ./opponent RED VICTORY 7 120 99").unwrap();
        self.report.quit_sent = true;
    }

    fn read(&mut self) -> String {
        let mut line = String::new();
        self.from_bot.read_line(&mut line).unwrap();
        assert!(line.ends_with('\n'), "a whole line: {line:?}");
        line.trim_end_matches('\n').to_string()
    }
}

/// The referee's own reading of a bot's move line (independent of the bot's parser).
fn referee_parse(line: &str) -> Move {
    let t: Vec<&str> = line.split(' ').collect();
    assert!(t.len() == 3 || t.len() == 4, "`X Y DIR [N]` with single spaces: {line:?}");
    let (x, y): (i32, i32) = (t[0].parse().unwrap(), t[1].parse().unwrap());
    let n: i32 = t.get(3).map_or(1, |n| n.parse().unwrap());
    assert!(n >= 1 && (t.len() == 3 || n > 1), "N only for runs: {line:?}");
    let (dx, dy) = match t[2] {
        "UP" => (0, -1),
        "DOWN" => (0, 1),
        "LEFT" => (-1, 0),
        "RIGHT" => (1, 0),
        d => panic!("direction {d}"),
    };
    let sq = |x: i32, y: i32| Square::from_row_col(y as u8, x as u8).unwrap();
    Move::new(sq(x, y), sq(x + n * dx, y + n * dy))
}

/// An opponent's move as bots write it: sometimes with the explicit `1`
/// (PeternLewis style), sometimes with doubled spaces.
fn opponent_line(mv: Move, rng: &mut AgentRng) -> String {
    let canonical = ucc::move_line(mv);
    match rng.random_range(0..4) {
        0 if mv.distance() == 1 => format!("{canonical} 1"),
        1 => canonical.replacen(' ', "  ", 1),
        _ => canonical,
    }
}

fn outcome_words(state: &State) -> String {
    let r = state.history().last().unwrap();
    let outcome = match r.battle {
        None => UccOutcome::Ok,
        Some(b) => match b.result {
            BattleResult::AttackerWins => UccOutcome::Kills(r.piece, b.defender),
            BattleResult::DefenderWins => UccOutcome::Dies(r.piece, b.defender),
            BattleResult::BothRemoved => UccOutcome::BothDie(r.piece, b.defender),
        },
    };
    outcome.to_words()
}

fn board_rows(state: &State, viewer: Color) -> Vec<String> {
    (0..10u8)
        .map(|row| {
            (0..10u8)
                .map(|col| {
                    let sq = Square::from_row_col(row, col).unwrap();
                    match state.board()[sq] {
                        _ if sq.is_lake() => '+',
                        None => '.',
                        Some(p) if p.color == viewer => ucc_char(p.kind),
                        Some(_) => '#',
                    }
                })
                .collect()
        })
        .collect()
}

fn parse_setup(lines: &[String], color: Color) -> Setup {
    let rows: [u8; 4] = if color == Color::Red { [0, 1, 2, 3] } else { [6, 7, 8, 9] };
    let mut slots = [None; 40];
    for (line, row) in lines.iter().zip(rows) {
        assert_eq!(line.len(), 10, "setup lines are exactly 10 characters: {line:?}");
        for (col, c) in line.chars().enumerate() {
            let kind = PieceType::ALL.into_iter().find(|&t| ucc_char(t) == c).unwrap_or_else(|| panic!("{c}"));
            slots[Square::from_row_col(row, col as u8).unwrap().in_frame(color).index()] = Some(kind);
        }
    }
    Setup::from_slots(slots, PieceSet::Classic).unwrap()
}

fn ply_lines(record: &Path) -> usize {
    std::fs::read_to_string(record).unwrap().lines().filter(|l| l.starts_with("ply ")).count()
}

/// Plays one game; returns the referee's report and the bot's result.
/// One game against a scripted referee. With a `restriction`, the bot holds
/// itself to it and the referee checks every bot move against it (a move the
/// restriction forbids is allowed only when it forbids all of them).
fn referee_game(
    bot: Color,
    spec: &str,
    seed: u64,
    quit_at: Option<usize>,
    max_plies: u32,
    record: &Path,
    restriction: Option<ProgressRules>,
) -> (Report, UccEnd) {
    let _ = std::fs::remove_file(record);
    let (bot_in, to_bot) = std::io::pipe().unwrap();
    let (from_bot, bot_out) = std::io::pipe().unwrap();
    let record_path = record.to_path_buf();
    let mut player = stratego_baselines::factory_of(spec).unwrap().make();
    let bot_thread = std::thread::spawn(move || {
        let mut file = std::fs::File::create(&record_path).unwrap();
        let mut rng = AgentRng::seed_from_u64(seed);
        ucc::play(
            BufReader::new(bot_in),
            bot_out,
            &mut file,
            player.as_mut(),
            &mut rng,
            seed,
            Duration::from_millis(1500),
            restriction,
        )
    });
    let mut referee = Referee {
        to_bot: Some(to_bot),
        from_bot: BufReader::new(from_bot),
        sent: 0,
        quit_at,
        report: Report::default(),
    };
    let mut rng = AgentRng::seed_from_u64(seed ^ 0xABCD);
    'game: {
        let colour = if bot == Color::Red { "RED" } else { "BLUE" };
        if let Sent::Quit = referee.send(&format!("{colour} ./opponent 10 10")) {
            break 'game;
        }
        let lines: Vec<String> = (0..4).map(|_| referee.read()).collect();
        let bot_setup = parse_setup(&lines, bot);
        let opponent_setup = Setup::random(PieceSet::Classic, &mut rng);
        let (red, blue) = if bot == Color::Red { (&bot_setup, &opponent_setup) } else { (&opponent_setup, &bot_setup) };
        let mut truth = State::from_setups(ucc_rules(), red, blue).unwrap();
        let mut progress = restriction.map(ProgressTracker::new);
        let mut happened = String::from("START");
        loop {
            if truth.is_terminal() || truth.ply() >= max_plies {
                referee.quit();
                break;
            }
            if truth.to_move() != bot {
                let mv = truth.sample_legal_move(&mut rng).unwrap();
                let line = opponent_line(mv, &mut rng);
                truth.apply_move(mv).unwrap();
                if let Some(p) = &mut progress {
                    p.update(&truth);
                }
                happened = format!("{line} {}", outcome_words(&truth));
                continue;
            }
            if let Sent::Quit = referee.send(&happened) {
                break;
            }
            if happened != "START" {
                referee.report.told += 1;
            }
            for row in board_rows(&truth, bot) {
                if let Sent::Quit = referee.send(&row) {
                    break 'game;
                }
            }
            let start = Instant::now();
            let reply = referee.read();
            referee.report.slowest_reply = referee.report.slowest_reply.max(start.elapsed());
            assert_eq!(ply_lines(record), truth.ply() as usize, "the record has every ply so far");
            assert_ne!(reply, "SURRENDER", "the bot had a legal move");
            let mv = referee_parse(&reply);
            assert!(truth.is_legal(mv), "the bot sent an illegal move `{reply}` in {}", truth.serialize());
            if let Some(p) = &progress {
                let mut allowed = truth.legal_moves();
                p.restrict(&truth, &mut allowed);
                assert!(
                    allowed.contains(&mv),
                    "the bot's own progress rules forbid `{reply}` ({:?})",
                    p.refusal(&truth, mv)
                );
                referee.report.restricted += (allowed.len() < truth.legal_moves().len()) as u32;
            }
            truth.apply_move(mv).unwrap();
            if let Some(p) = &mut progress {
                p.update(&truth);
            }
            if let Some(b) = truth.history().last().unwrap().battle {
                let i = match b.result {
                    BattleResult::AttackerWins => 0,
                    BattleResult::DefenderWins => 1,
                    BattleResult::BothRemoved => 2,
                };
                referee.report.battles[i] += 1;
            }
            if truth.is_terminal() {
                referee.quit(); // the game-ending move is never echoed
                break;
            }
            if let Sent::Quit = referee.send(&format!("{reply} {}", outcome_words(&truth))) {
                break;
            }
            referee.report.told += 1;
        }
        referee.report.plies = truth.ply();
    }
    referee.to_bot = None; // the bot sees EOF if it reads past the QUIT
    let end = bot_thread.join().unwrap().unwrap_or_else(|e| panic!("the bot failed: {e}"));
    (referee.report, end)
}

fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("stratego-ucc-{name}-{}.txt", std::process::id()))
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
        let (report, end) = referee_game(bot, spec, 10 + i as u64, None, 600, &record, None);
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

/// Issue 16, points 1 and 3: n-tuple tables trained under the lab's rules
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
        let (report, end) = referee_game(bot, spec, 40 + i as u64, None, 400, &record, restriction);
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
            let (report, end) = referee_game(bot, "greedy", 3, Some(quit_at), 400, &record, None);
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
        let result = ucc::play(
            format!("{first}\n").as_bytes(),
            Vec::new(),
            &mut record,
            player.as_mut(),
            &mut AgentRng::seed_from_u64(1),
            1,
            Duration::from_secs(1),
            None,
        );
        assert!(result.is_err(), "{first}");
    }
    // An opponent move from an empty square.
    let mut player = stratego_baselines::factory_of("random").unwrap().make();
    let script = "BLUE ./x 10 10\n5 5 DOWN OK\n";
    let err = ucc::play(
        script.as_bytes(),
        Vec::new(),
        &mut Vec::new(),
        player.as_mut(),
        &mut AgentRng::seed_from_u64(1),
        1,
        Duration::from_secs(1),
        None,
    )
    .unwrap_err();
    assert!(err.to_string().contains("no piece on"), "{err}");
}
