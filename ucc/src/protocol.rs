//! The UCC 2012 Stratego referee protocol's texts (`braathwaate/strategoevaluator`'s
//! `manager`; `shared/reference/ucc-protocol.md`), both ways: the lines a
//! bot writes and reads, the referee's frame and piece characters, and the
//! ruleset a referee game is played under.
//!
//! The referee's frame is ours: x is the column (file), y the row, row 0 is
//! Red's back row, so `(x, y)` is the square `from_row_col(y, x)`; `UP` is
//! towards row 0 for both colours.

use stratego_engine::{BattleResult, Color, Move, PieceSet, PieceType, Ruleset, Setup, Square};

use stratego_players::view::Cell;
use stratego_players::InfoView;

/// The engine ruleset that tracks a referee game: `Ruleset::referee()`
/// without its turn cap, since the referee's own cap (`-m`) ends the game
/// with a QUIT line, whatever it was set to.
pub const fn ucc_rules() -> Ruleset {
    Ruleset { max_plies: u32::MAX, ..Ruleset::referee() }
}

/// The referee's character of a piece type (`1` Marshal ... `9` Scout, `s` Spy).
pub fn ucc_char(kind: PieceType) -> char {
    match kind {
        PieceType::Marshal => '1',
        PieceType::General => '2',
        PieceType::Colonel => '3',
        PieceType::Major => '4',
        PieceType::Captain => '5',
        PieceType::Lieutenant => '6',
        PieceType::Sergeant => '7',
        PieceType::Miner => '8',
        PieceType::Scout => '9',
        PieceType::Spy => 's',
        PieceType::Bomb => 'B',
        PieceType::Flag => 'F',
    }
}

pub fn from_ucc_char(c: char) -> Option<PieceType> {
    PieceType::ALL.into_iter().find(|&t| ucc_char(t) == c)
}

#[derive(Debug, thiserror::Error)]
pub enum UccError {
    #[error("cannot read from the referee: {0}")]
    Read(String),
    #[error("cannot write to the referee: {0}")]
    Write(String),
    #[error("cannot write the game record: {0}")]
    Record(String),
    #[error("unexpected line from the referee: `{line}` ({why})")]
    Protocol { line: String, why: String },
    #[error("the referee's moves contradict a standard army: {0}")]
    Inconsistent(String),
    #[error("our player could not choose a move: {0}")]
    Player(#[from] stratego_players::PlayerError),
}

pub(crate) fn protocol(line: &str, why: impl Into<String>) -> UccError {
    // Escaped, so that a line with control characters still reads as one.
    UccError::Protocol { line: line.escape_debug().to_string(), why: why.into() }
}

/// What a battle or quiet move did, as the referee reports it.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum UccOutcome {
    Ok,
    /// The attacker won; the types of the attacker and the defender.
    Kills(PieceType, PieceType),
    Dies(PieceType, PieceType),
    BothDie(PieceType, PieceType),
}

impl UccOutcome {
    pub(crate) fn battle(self) -> Option<(BattleResult, PieceType, PieceType)> {
        match self {
            UccOutcome::Ok => None,
            UccOutcome::Kills(a, d) => Some((BattleResult::AttackerWins, a, d)),
            UccOutcome::Dies(a, d) => Some((BattleResult::DefenderWins, a, d)),
            UccOutcome::BothDie(a, d) => Some((BattleResult::BothRemoved, a, d)),
        }
    }

    /// The outcome words the referee appends to a move line.
    pub fn to_words(self) -> String {
        match self.battle() {
            None => "OK".to_string(),
            Some((result, a, d)) => {
                let word = match result {
                    BattleResult::AttackerWins => "KILLS",
                    BattleResult::DefenderWins => "DIES",
                    BattleResult::BothRemoved => "BOTHDIE",
                };
                format!("{word} {} {}", ucc_char(a), ucc_char(d))
            }
        }
    }
}

/// The protocol's text of a move: `X Y DIR`, with `N` only for runs of 2+.
pub fn move_line(mv: Move) -> String {
    let (fx, fy) = (mv.from.col() as i32, mv.from.row() as i32);
    let (tx, ty) = (mv.to.col() as i32, mv.to.row() as i32);
    let dir = match (tx - fx, ty - fy) {
        (0, dy) if dy < 0 => "UP",
        (0, _) => "DOWN",
        (dx, _) if dx < 0 => "LEFT",
        _ => "RIGHT",
    };
    let n = mv.distance();
    if n > 1 {
        format!("{fx} {fy} {dir} {n}")
    } else {
        format!("{fx} {fy} {dir}")
    }
}

/// Parses `x y DIR [N] OUTCOME [a d]` (extra spaces and an explicit `1`
/// allowed, as bots write them).
pub fn parse_move_line(line: &str) -> Result<(Move, UccOutcome), UccError> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let bad = |why: &str| protocol(line, why);
    if tokens.len() < 4 {
        return Err(bad("expected `x y DIR [N] OUTCOME`"));
    }
    let coord = |t: &str| t.parse::<u8>().ok().filter(|&v| v < 10);
    let (x, y) = (coord(tokens[0]).ok_or_else(|| bad("bad x"))?, coord(tokens[1]).ok_or_else(|| bad("bad y"))?);
    let (dx, dy) = match tokens[2] {
        "UP" => (0, -1),
        "DOWN" => (0, 1),
        "LEFT" => (-1, 0),
        "RIGHT" => (1, 0),
        _ => return Err(bad("unknown direction")),
    };
    let (n, rest) = match tokens[3].parse::<i32>() {
        Ok(n) if (1..10).contains(&n) => (n, &tokens[4..]),
        Ok(_) => return Err(bad("bad multiplier")),
        Err(_) => (1, &tokens[3..]),
    };
    let (tx, ty) = (x as i32 + dx * n, y as i32 + dy * n);
    let to = u8::try_from(ty)
        .ok()
        .zip(u8::try_from(tx).ok())
        .and_then(|(r, c)| Square::from_row_col(r, c))
        .ok_or_else(|| bad("the move leaves the board"))?;
    let from = Square::from_row_col(y, x).expect("checked coordinates");
    let kinds = |i: usize| -> Result<PieceType, UccError> {
        rest.get(i)
            .and_then(|t| t.chars().next().filter(|_| t.len() == 1))
            .and_then(from_ucc_char)
            .ok_or_else(|| bad("bad piece character"))
    };
    let outcome = match rest.first().copied() {
        Some("OK") if rest.len() == 1 => UccOutcome::Ok,
        Some("KILLS") if rest.len() == 3 => UccOutcome::Kills(kinds(1)?, kinds(2)?),
        Some("DIES") if rest.len() == 3 => UccOutcome::Dies(kinds(1)?, kinds(2)?),
        Some("BOTHDIE") if rest.len() == 3 => UccOutcome::BothDie(kinds(1)?, kinds(2)?),
        Some("ILLEGAL") => return Err(bad("a move skipped as illegal (referee -i); the engine cannot pass a turn")),
        _ => return Err(bad("expected OK, KILLS a d, DIES a d or BOTHDIE a d")),
    };
    Ok((Move::new(from, to), outcome))
}

/// The four setup lines in board order for `me` (top row first).
pub fn setup_lines(setup: &Setup, me: Color) -> [String; 4] {
    let rows: [u8; 4] = if me == Color::Red { [0, 1, 2, 3] } else { [6, 7, 8, 9] };
    rows.map(|row| {
        (0..10)
            .map(|col| {
                let relative = Square::from_row_col(row, col).expect("on the board").in_frame(me).index();
                ucc_char(setup.get(relative).expect("a classic setup fills its home squares"))
            })
            .collect()
    })
}

/// What a bot answers on its turn.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Reply {
    Move(Move),
    Surrender,
}

/// Parses a bot's answer on its turn as the referee reads it (a C++
/// stream: `X Y DIR [N]` split at any whitespace, trailing words ignored),
/// or `SURRENDER` exactly. The text is the reason for refusing one.
pub fn parse_reply(line: &str) -> Result<Reply, String> {
    if line == "SURRENDER" {
        return Ok(Reply::Surrender);
    }
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens.len() < 3 {
        return Err("expected `X Y DIR [N]` or `SURRENDER`".into());
    }
    let coord = |t: &str, what: &str| t.parse::<u8>().ok().filter(|&v| v < 10).ok_or(format!("bad {what} `{t}`"));
    let (x, y) = (coord(tokens[0], "x")?, coord(tokens[1], "y")?);
    let (dx, dy) = match tokens[2] {
        "UP" => (0, -1),
        "DOWN" => (0, 1),
        "LEFT" => (-1, 0),
        "RIGHT" => (1, 0),
        other => return Err(format!("unknown direction `{other}`")),
    };
    let n = match tokens.get(3) {
        None => 1,
        Some(t) => t.parse::<i32>().ok().filter(|n| (1..10).contains(n)).ok_or(format!("bad multiplier `{t}`"))?,
    };
    let (tx, ty) = (x as i32 + dx * n, y as i32 + dy * n);
    let to = u8::try_from(ty)
        .ok()
        .zip(u8::try_from(tx).ok())
        .and_then(|(r, c)| Square::from_row_col(r, c))
        .ok_or("the move leaves the board")?;
    Ok(Reply::Move(Move::new(Square::from_row_col(y, x).expect("checked coordinates"), to)))
}

/// The setup a bot sent as `me`: the inverse of [`setup_lines`]. Each line
/// must be exactly 10 piece characters, and the army exactly the classic one
/// (the referee's `BAD_SETUP` otherwise).
pub fn parse_setup_lines(lines: &[String], me: Color) -> Result<Setup, String> {
    if lines.len() != 4 {
        return Err(format!("a setup is 4 lines, got {}", lines.len()));
    }
    let rows: [u8; 4] = if me == Color::Red { [0, 1, 2, 3] } else { [6, 7, 8, 9] };
    let mut slots = [None; 40];
    for (line, row) in lines.iter().zip(rows) {
        let chars: Vec<char> = line.chars().collect();
        if chars.len() != 10 {
            return Err(format!("setup line `{}` is not 10 characters", line.escape_debug()));
        }
        for (col, c) in chars.into_iter().enumerate() {
            let kind = from_ucc_char(c)
                .ok_or_else(|| format!("`{}` in setup line `{line}` is not a piece", c.escape_debug()))?;
            let relative = Square::from_row_col(row, col as u8).expect("on the board").in_frame(me).index();
            slots[relative] = Some(kind);
        }
    }
    Setup::from_slots(slots, PieceSet::Classic).map_err(|e| e.to_string())
}

/// The ten board rows the referee shows the player to move in `view`: its
/// own pieces by character, every enemy piece `#` (revealed or not), lakes
/// `+`, empty squares `.`.
pub fn view_rows(view: &InfoView<'_>) -> [String; 10] {
    std::array::from_fn(|row| {
        (0..10u8)
            .map(|col| {
                let sq = Square::from_row_col(row as u8, col).expect("on the board");
                match view.cell(sq) {
                    _ if sq.is_lake() => '+',
                    Cell::Empty => '.',
                    Cell::Own(p) => ucc_char(p.kind),
                    Cell::Opponent(_) => '#',
                }
            })
            .collect()
    })
}

/// The outcome words of a ply as both sides saw it.
pub fn outcome_of(ply: &stratego_players::view::PublicPly) -> UccOutcome {
    match ply.battle {
        None => UccOutcome::Ok,
        Some(b) => match b.result {
            BattleResult::AttackerWins => UccOutcome::Kills(b.attacker, b.defender),
            BattleResult::DefenderWins => UccOutcome::Dies(b.attacker, b.defender),
            BattleResult::BothRemoved => UccOutcome::BothDie(b.attacker, b.defender),
        },
    }
}

/// A ply as the referee tells it: the move's line and its outcome.
pub fn ply_line(ply: &stratego_players::view::PublicPly) -> String {
    format!("{} {}", move_line(ply.mv), outcome_of(ply).to_words())
}

/// A game as the real referee logs it (`-o FILE`): both setups, every move
/// with its outcome words, and how the game ended.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct RefereeLog {
    pub red: Setup,
    pub blue: Setup,
    /// Each move with the words the referee put after it (`OK`, `KILLS 6 9`,
    /// `VICTORY_FLAG`, ...).
    pub moves: Vec<(Move, String)>,
    /// `Captured the flag`, `Destroyed all mobile enemy pieces`, ...
    pub reason: String,
    /// The result line's side and outcome word: `BLUE VICTORY`.
    pub side: Option<Color>,
    pub outcome: String,
}

impl RefereeLog {
    /// Parses a referee log; the text says what is wrong where.
    pub fn parse(text: &str) -> Result<RefereeLog, String> {
        let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
        let setup = |at: usize, me: Color| -> Result<Setup, String> {
            let header = lines.get(at).copied().unwrap_or_default();
            let word = if me == Color::Red { " RED SETUP" } else { " BLUE SETUP" };
            if !header.ends_with(word) {
                return Err(format!("line {}: expected `NAME{word}`, found `{header}`", at + 1));
            }
            let rows: Vec<String> = lines.iter().skip(at + 1).take(4).map(|l| l.to_string()).collect();
            parse_setup_lines(&rows, me).map_err(|e| format!("{me}'s setup: {e}"))
        };
        let (red, blue) = (setup(0, Color::Red)?, setup(5, Color::Blue)?);
        let mut moves = Vec::new();
        let mut reason = None;
        let mut result = None;
        for (i, line) in lines.iter().enumerate().skip(10) {
            if let Some(rest) = line.strip_prefix("Game ends on ") {
                reason = Some(rest.split_once("REASON: ").map_or(rest, |(_, r)| r).to_string());
                continue;
            }
            let mut words = line.splitn(3, ' ');
            let (turn, side, rest) = (words.next(), words.next(), words.next());
            let numbered = turn.is_some_and(|t| t.parse::<u32>().is_ok());
            match (numbered, side, rest) {
                (true, Some("RED:") | Some("BLU:"), Some(rest)) => {
                    let bad = |why: String| format!("line {}: `{line}`: {why}", i + 1);
                    let tokens: Vec<&str> = rest.split_whitespace().collect();
                    // The referee echoes a surrender with its outcome: `SURRENDER OK`.
                    let cut = match tokens.first() {
                        Some(&"SURRENDER") => 1,
                        _ if tokens.get(3).is_some_and(|t| t.parse::<u32>().is_ok()) => 4,
                        _ => 3,
                    };
                    let words_at = tokens.get(cut..).map(|w| w.join(" ")).unwrap_or_default();
                    let mv = match parse_reply(&tokens[..cut.min(tokens.len())].join(" ")) {
                        Ok(Reply::Move(mv)) => mv,
                        Ok(Reply::Surrender) => continue,
                        Err(why) => return Err(bad(why)),
                    };
                    moves.push((mv, words_at));
                }
                _ if !line.trim().is_empty() => result = Some(line.to_string()),
                _ => {}
            }
        }
        let result = result.ok_or("the log has no result line")?;
        let fields: Vec<&str> = result.split_whitespace().collect();
        if fields.len() < 6 {
            return Err(format!("`{result}` is not a result line (NAME COLOUR OUTCOME TURN RED BLUE)"));
        }
        let side = Color::from_name(&fields[fields.len() - 5].to_lowercase());
        let outcome = fields[fields.len() - 4].to_string();
        Ok(RefereeLog { red, blue, moves, reason: reason.unwrap_or_default(), side, outcome })
    }

    /// The winner by the result line: `VICTORY` names the winner, `ILLEGAL`,
    /// `SURRENDER` and `BAD_SETUP` the loser; `None` for a draw.
    pub fn winner(&self) -> Option<Color> {
        match self.outcome.as_str() {
            "VICTORY" => self.side,
            "ILLEGAL" | "SURRENDER" | "BAD_SETUP" => self.side.map(Color::opponent),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_lines_round_trip_and_tolerate_bot_quirks() {
        let mv: Move = "b2-b5".parse().unwrap(); // (1,1) three rows down
        assert_eq!(move_line(mv), "1 1 DOWN 3");
        assert_eq!(parse_move_line("1 1 DOWN 3 OK").unwrap(), (mv, UccOutcome::Ok));
        let step: Move = "e7-e6".parse().unwrap(); // (4,6) one row up
        assert_eq!(move_line(step), "4 6 UP");
        assert_eq!(
            parse_move_line("4  6 UP 1 KILLS 6 9").unwrap(),
            (step, UccOutcome::Kills(PieceType::Lieutenant, PieceType::Scout))
        );
        assert_eq!(
            parse_move_line("4 6 UP BOTHDIE s s\r").unwrap().1,
            UccOutcome::BothDie(PieceType::Spy, PieceType::Spy)
        );
        assert_eq!(parse_move_line("0 3 RIGHT DIES 8 B").unwrap().0, "a4-b4".parse().unwrap());
        for bad in
            ["", "1 1", "1 1 SIDEWAYS OK", "1 1 UP 2 MAYBE", "0 0 UP OK", "1 1 DOWN 3 KILLS x 9", "1 1 UP ILLEGAL"]
        {
            assert!(parse_move_line(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_log_that_ends_in_a_surrender_reads_with_the_surrender_lost() {
        // A real log's shape (`200 RED: SURRENDER OK`, then the referee's
        // reason and result): the fixture's game cut after turn 10.
        let fixture = include_str!("../../tests/fixtures/ucc/celsius-known-miner.log");
        let mut lines: Vec<&str> = fixture.lines().take_while(|l| !l.starts_with("11 RED:")).collect();
        lines.extend([
            "11 RED: SURRENDER OK",
            "Game ends on RED's turn - REASON: This player has surrendered!",
            "celsius RED SURRENDER 11 40 40",
        ]);
        let log = RefereeLog::parse(&lines.join("\n")).unwrap();
        assert_eq!(log.moves.len(), 20, "the moves before the surrender");
        assert_eq!((log.outcome.as_str(), log.winner()), ("SURRENDER", Some(Color::Blue)));
        assert_eq!(log.reason, "This player has surrendered!");
    }

    #[test]
    fn replies_parse_as_the_referee_reads_them() {
        let mv: Move = "b2-b5".parse().unwrap();
        assert_eq!(parse_reply("1 1 DOWN 3"), Ok(Reply::Move(mv)));
        assert_eq!(parse_reply("4 6 UP"), Ok(Reply::Move("e7-e6".parse().unwrap())));
        assert_eq!(parse_reply("4 6 UP 1"), Ok(Reply::Move("e7-e6".parse().unwrap())));
        assert_eq!(parse_reply("SURRENDER"), Ok(Reply::Surrender));
        // Whitespace and trailing words as a C++ stream reads them.
        for tolerated in ["4  6 UP", "4 6 UP ", "4 6 UP\r", " 4 6 UP 1 junk"] {
            assert_eq!(parse_reply(tolerated), Ok(Reply::Move("e7-e6".parse().unwrap())), "{tolerated:?}");
        }
        for bad in
            ["", "1 1", "1 1 SIDEWAYS", "0 0 UP", "1 1 UP 0", "1 1 UP x", "a b UP", "10 1 UP", "NO_MOVE", "SURRENDER "]
        {
            assert!(parse_reply(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn setup_lines_parse_back_in_both_colours() {
        let setup = Setup::parse("FBOOOOOOOOBBNNNNNEEEEBBBLLLLPPPPJJJCCGMS", PieceSet::Classic).unwrap();
        for me in [Color::Red, Color::Blue] {
            assert_eq!(parse_setup_lines(&setup_lines(&setup, me), me).unwrap(), setup);
        }
        let mut lines = setup_lines(&setup, Color::Red).to_vec();
        lines[0] = "FB9999999".into();
        assert!(parse_setup_lines(&lines, Color::Red).unwrap_err().contains("not 10 characters"));
        lines[0] = "FB9999999x".into();
        assert!(parse_setup_lines(&lines, Color::Red).unwrap_err().contains("not a piece"));
        lines[0] = "FB99999991".into();
        assert!(parse_setup_lines(&lines, Color::Red).is_err(), "two Marshals");
        assert!(parse_setup_lines(&lines[..3], Color::Red).is_err());
    }

    #[test]
    fn setup_lines_follow_the_referees_row_order() {
        let setup = Setup::parse("FBOOOOOOOOBBNNNNNEEEEBBBLLLLPPPPJJJCCGMS", PieceSet::Classic).unwrap();
        let red = setup_lines(&setup, Color::Red);
        // Red's back row (relative cells 0-9) is row 0, its front row (30-39) row 3.
        assert_eq!(red, ["FB99999999", "BB88888777", "7BBB666655", "554443321s"]);
        // Blue's front row (relative cells 30-39) is row 6, and its cells run
        // right to left in the shared frame; its back row is row 9.
        let blue = setup_lines(&setup, Color::Blue);
        assert_eq!(blue, ["s123344455", "556666BBB7", "77788888BB", "99999999BF"]);
    }
}
