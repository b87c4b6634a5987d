//! A scripted UCC 2012 referee for tests: it knows both armies, plays a
//! random opponent, checks every move the bot sends under the referee's
//! rules, sends every kind of outcome line, and can replace any line it
//! sends with QUIT. Shared by the in-process tests of the protocol
//! (`ucc/tests/bot.rs`) and the test that plays every registered
//! player kind through the `stratego ucc-bot` command (`tests/ucc_players.rs`).

#![allow(dead_code)]

use std::io::{BufRead, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use stratego_engine::{
    BattleResult, Color, Move, PieceSet, PieceType, ProgressRules, ProgressTracker, Setup, Square, State,
};
use stratego_players::AgentRng;
use stratego_ucc::protocol::{self as ucc, ucc_char, ucc_rules, UccOutcome};

/// What the referee saw of one game.
#[derive(Default, Debug)]
pub struct Report {
    pub plies: u32,
    /// Plies the bot was told about (the game-ending one never is).
    pub told: usize,
    pub battles: [u32; 3],
    pub slowest_reply: Duration,
    /// How long the bot took for each of its moves.
    pub replies: Vec<Duration>,
    pub quit_sent: bool,
    /// Bot moves at which its own progress rules removed some legal move.
    pub restricted: u32,
    /// The winner, when the game ended by the rules (not at the referee's cap).
    pub winner: Option<Color>,
    /// Whether the game ended by the rules: a Flag taken or a side without a move.
    pub finished: bool,
}

struct Referee {
    to_bot: Option<Box<dyn Write + Send>>,
    from_bot: Box<dyn BufRead + Send>,
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
        writer.flush().unwrap();
        Sent::Line
    }

    fn quit(&mut self) {
        let writer = self.to_bot.as_mut().unwrap();
        writeln!(writer, "QUIT ./opponent RED VICTORY 7 120 99").unwrap();
        writer.flush().unwrap();
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

pub fn ply_lines(record: &Path) -> usize {
    std::fs::read_to_string(record).unwrap().lines().filter(|l| l.starts_with("ply ")).count()
}

/// One game against the bot on `to_bot`/`from_bot`, the scripted referee
/// playing a random opponent under the referee's rules (`ucc_rules`) and
/// checking every bot move. With `record`, the bot's record is checked to
/// hold every ply so far at each of its turns. With a `restriction`, the bot
/// holds itself to it and the referee checks every bot move against it (a
/// move the restriction forbids is allowed only when it forbids all of
/// them). The referee sends QUIT when the game ends or at `max_plies`, or in
/// place of line `quit_at`; it then closes the bot's input.
#[allow(clippy::too_many_arguments)]
pub fn referee(
    bot: Color,
    to_bot: Box<dyn Write + Send>,
    from_bot: Box<dyn BufRead + Send>,
    seed: u64,
    quit_at: Option<usize>,
    max_plies: u32,
    record: Option<&Path>,
    restriction: Option<ProgressRules>,
) -> Report {
    let mut referee = Referee { to_bot: Some(to_bot), from_bot, sent: 0, quit_at, report: Report::default() };
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
            referee.report.replies.push(start.elapsed());
            if let Some(record) = record {
                assert_eq!(ply_lines(record), truth.ply() as usize, "the record has every ply so far");
            }
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
        referee.report.finished = truth.is_terminal();
        referee.report.winner = truth.outcome().and_then(|o| o.winner);
    }
    referee.to_bot = None; // the bot sees EOF if it reads past the QUIT
    referee.report
}
