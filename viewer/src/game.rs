//! A game to show, from either kind of file, and its frames.

use serde::Serialize;
use stratego_baselines::values::PIECE_VALUES;
use stratego_engine::{BattleResult, Color, GameRecord, Move, Piece, PieceType, Ruleset, Setup, Square, State};
use stratego_ucc::botlog::{BotLog, BOT_LOG_HEADER};
use stratego_ucc::protocol::RefereeLog;

use crate::ViewError;

/// Which kind of file a game came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GameSource {
    /// `play --record`, `ucc-bot --record`, `arena --keep-games`: the lab's
    /// `stratego-record v1` text.
    LabRecord,
    /// The UCC 2012 referee's log.
    RefereeLog,
    /// `ucc-bot --record`: one side's log of a referee game, without the
    /// opponent's setup (`stratego_ucc::botlog`).
    BotLog,
}

/// A game as both kinds of file hold it: the rules it is replayed under,
/// both setups, the moves, and the result where there is one.
#[derive(Clone, Debug)]
pub struct Game {
    pub source: GameSource,
    pub rules: Ruleset,
    pub red: Setup,
    pub blue: Setup,
    pub moves: Vec<Move>,
    /// `None` for an unfinished game or a draw; see `result`.
    pub winner: Option<Color>,
    /// The result in words (`red wins (flag-captured)`), or `None` for an
    /// unfinished game.
    pub result: Option<String>,
    /// The only side whose view the file holds (a bot's log: the
    /// opponent's army in it is a guess, shown only as the bot saw it).
    pub own_side: Option<Color>,
}

/// The result of a finished game in words.
fn result_text(outcome: &stratego_engine::Outcome) -> String {
    match outcome.winner {
        Some(w) => format!("{w} wins ({})", outcome.reason.name()),
        None => format!("draw ({})", outcome.reason.name()),
    }
}

/// Reads a lab record, a bot's log or a UCC referee log, told apart by the
/// content (a record and a bot's log start with their format lines). A
/// referee log is replayed under `referee` (the referee ends its games
/// itself: `ucc_rules()`, or the turn cap a bot was told).
pub fn read_game(text: &str, referee: Ruleset) -> Result<Game, ViewError> {
    if text.trim_start().starts_with(BOT_LOG_HEADER) {
        let log = BotLog::parse(text).map_err(ViewError::BadRecord)?;
        let outcome = log.state.outcome();
        let result = match (&outcome, &log.end) {
            (Some(o), _) => Some(result_text(o)),
            (None, Some(end)) => Some(format!("the referee ended it: {end}")),
            (None, None) => None,
        };
        return Ok(Game {
            source: GameSource::BotLog,
            rules: log.rules,
            red: log.red,
            blue: log.blue,
            moves: log.moves,
            winner: outcome.and_then(|o| o.winner),
            result,
            own_side: Some(log.me),
        });
    }
    if text.trim_start().starts_with("stratego-record v1") {
        let record = GameRecord::parse(text).map_err(|e| ViewError::BadRecord(e.to_string()))?;
        let result = record.result.as_ref().map(result_text);
        return Ok(Game {
            source: GameSource::LabRecord,
            rules: record.rules,
            red: record.red.clone(),
            blue: record.blue.clone(),
            moves: record.moves.clone(),
            winner: record.result.and_then(|o| o.winner),
            result,
            own_side: None,
        });
    }
    let log = RefereeLog::parse(text).map_err(ViewError::Unreadable)?;
    let winner = log.winner();
    let result = Some(match winner {
        Some(w) => format!("{w} wins: {} ({})", log.reason, log.outcome),
        None => format!("no winner: {} ({})", log.reason, log.outcome),
    });
    Ok(Game {
        source: GameSource::RefereeLog,
        rules: referee,
        red: log.red.clone(),
        blue: log.blue.clone(),
        moves: log.moves.iter().map(|(mv, _)| *mv).collect(),
        winner,
        result,
        own_side: None,
    })
}

/// Whose information a page holds: everything, or what one side knew.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Perspective {
    All,
    /// The other side's pieces whose type this side had not seen have no
    /// type in the page at all (not merely hidden by its script), and the
    /// other side's setup and the network's notes on its moves are left out.
    Side(Color),
}

impl Perspective {
    /// `all`, `red` or `blue`.
    pub fn parse(text: &str) -> Option<Perspective> {
        match text {
            "all" => Some(Perspective::All),
            "red" => Some(Perspective::Side(Color::Red)),
            "blue" => Some(Perspective::Side(Color::Blue)),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Perspective::All => "all",
            Perspective::Side(c) => side_name(c),
        }
    }

    /// Whether this perspective sees `piece`'s type.
    pub fn sees(self, piece: &Piece) -> bool {
        match self {
            Perspective::All => true,
            Perspective::Side(c) => piece.color == c || piece.revealed,
        }
    }
}

/// The letter that stands for a type the perspective has not seen.
pub const UNSEEN: char = '?';

/// A piece as the page draws it: `rM10` is Red's Marshal, revealed, not
/// yet moved (colour `r`/`b`, the type's letter or [`UNSEEN`], then
/// revealed and moved as `0`/`1`; whether a piece has moved is public).
pub fn piece_code(piece: &Piece, perspective: Perspective) -> String {
    let color = if piece.color == Color::Red { 'r' } else { 'b' };
    let letter = if perspective.sees(piece) { piece.kind.letter() } else { UNSEEN };
    format!("{color}{letter}{}{}", u8::from(piece.revealed), u8::from(piece.moved))
}

/// A battle, in words the page prints.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Battle {
    pub attacker: &'static str,
    pub defender: &'static str,
    /// `wins`, `loses` or `both die` (the attacker's fate).
    pub result: &'static str,
}

/// One ply: the move, the battle, and the squares it changed (each with
/// the piece that stands there after it, `None` for an empty square), so
/// that the page steps forward and back without knowing a rule.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Frame {
    /// 1 = the first ply.
    pub ply: usize,
    pub player: &'static str,
    /// `b4-b5`.
    pub mv: String,
    pub from: usize,
    pub to: usize,
    /// The moving piece's type, or `unknown` where the perspective had not
    /// seen it before the move and the move did not show it.
    pub piece: &'static str,
    pub battle: Option<Battle>,
    /// Whether the move showed the mover's type (a battle or a Scout's run).
    pub reveals: bool,
    pub changes: Vec<(usize, Option<String>)>,
    /// Each side's material after the ply (`baselines::values`, the Flag
    /// left out), Red first.
    pub material: [f64; 2],
}

/// The board before the first ply, as piece codes by cell.
pub fn start_board(game: &Game, perspective: Perspective) -> Result<Vec<Option<String>>, ViewError> {
    Ok(board_codes(&start(game)?, perspective))
}

/// `state`'s board as piece codes by cell, as `perspective` sees it.
pub fn board_codes(state: &State, perspective: Perspective) -> Vec<Option<String>> {
    Square::all().map(|sq| state.board()[sq].as_ref().map(|p| piece_code(p, perspective))).collect()
}

/// The game's state before its first ply.
pub fn start(game: &Game) -> Result<State, ViewError> {
    State::from_setups(game.rules, &game.red, &game.blue).map_err(|e| ViewError::Replay {
        ply: 0,
        mv: "the setups".into(),
        why: e.to_string(),
    })
}

/// Each side's material on the board, the Flag left out.
pub fn material(state: &State) -> [f64; 2] {
    let mut m = [0.0; 2];
    for (_, piece) in state.board().pieces() {
        if piece.kind != PieceType::Flag {
            m[piece.color.index()] += PIECE_VALUES[piece.kind.index()];
        }
    }
    m
}

/// Replays `game` in the engine, calling `before(state)` on the state
/// before each ply (for a network's notes), and returns the frames as
/// `perspective` saw them.
pub fn frames(game: &Game, perspective: Perspective, mut before: impl FnMut(&State)) -> Result<Vec<Frame>, ViewError> {
    let mut state = start(game)?;
    let mut frames = Vec::with_capacity(game.moves.len());
    for (i, &mv) in game.moves.iter().enumerate() {
        before(&state);
        let board = state.board().clone();
        let player = state.to_move();
        state.apply_move(mv).map_err(|e| ViewError::Replay { ply: i + 1, mv: mv.to_string(), why: e.to_string() })?;
        let record = *state.history().last().expect("a ply was just played");
        let changes = Square::all()
            .filter(|&sq| board[sq] != state.board()[sq])
            .map(|sq| (sq.index(), state.board()[sq].as_ref().map(|p| piece_code(p, perspective))))
            .collect();
        let reveals = record.battle.is_some() || record.scout_run;
        let seen = reveals || board[mv.from].as_ref().is_some_and(|p| perspective.sees(p));
        frames.push(Frame {
            ply: i + 1,
            player: side_name(player),
            mv: mv.to_string(),
            from: mv.from.index(),
            to: mv.to.index(),
            piece: if seen { record.piece.name() } else { "unknown" },
            battle: record.battle.map(|b| Battle {
                attacker: record.piece.name(),
                defender: b.defender.name(),
                result: match b.result {
                    BattleResult::AttackerWins => "wins",
                    BattleResult::DefenderWins => "loses",
                    BattleResult::BothRemoved => "both die",
                },
            }),
            reveals,
            changes,
            material: material(&state),
        });
    }
    Ok(frames)
}

pub fn side_name(color: Color) -> &'static str {
    if color == Color::Red {
        "red"
    } else {
        "blue"
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Three plies and a surrender, as the referee writes them (at ply 3
    /// a Red and a Blue Scout meet, and both die).
    const LOG: &str = include_str!("../../tests/fixtures/ucc/three-plies-surrender.log");

    #[test]
    fn a_referee_log_is_read_and_replayed_into_frames() {
        let game = read_game(LOG, stratego_ucc::protocol::ucc_rules()).unwrap();
        assert_eq!(game.source, GameSource::RefereeLog);
        assert_eq!((game.moves.len(), game.winner), (3, Some(Color::Red)));
        let start = start_board(&game, Perspective::All).unwrap();
        assert_eq!(start.iter().filter(|c| c.is_some()).count(), 80);
        let mut seen = 0;
        let frames = frames(&game, Perspective::All, |_| seen += 1).unwrap();
        assert_eq!((frames.len(), seen), (3, 3));
        assert_eq!(frames[0].player, "red");
        assert_eq!(frames[0].battle, None);
        assert_eq!(frames[0].changes.len(), 2, "the square left and the square reached");
        let both = frames[2].battle.as_ref().unwrap();
        assert_eq!((both.attacker, both.defender, both.result), ("scout", "scout", "both die"));
        assert!(frames[2].reveals);
        assert!(frames[2].changes.iter().all(|(_, p)| p.is_none()), "both squares empty: {:?}", frames[2].changes);
        // Each side lost one Scout.
        let full = frames[0].material[0];
        assert_eq!(frames[2].material, [full - 10.0, full - 10.0]);
    }

    /// A lab record of random moves to the ply cap, read by its content
    /// and replayed into frames that end on the record's own board.
    pub(crate) fn random_record(seed: u64, plies: u32) -> (String, State) {
        use rand::{Rng, SeedableRng};
        let rules = Ruleset { max_plies: plies, ..Ruleset::classic() };
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        let set = stratego_engine::PieceSet::Classic;
        let (red, blue) = (Setup::random(set, &mut rng), Setup::random(set, &mut rng));
        let mut state = State::from_setups(rules, &red, &blue).unwrap();
        while !state.is_terminal() {
            let legal = state.legal_actions();
            state.apply_action(legal[rng.random_range(0..legal.len())]).unwrap();
        }
        (GameRecord::new(rules, red, blue, &state).to_text(), state)
    }

    #[test]
    fn a_lab_record_is_read_by_its_content() {
        let (text, end) = random_record(1, 60);
        let game = read_game(&text, stratego_ucc::protocol::ucc_rules()).unwrap();
        assert_eq!(game.source, GameSource::LabRecord);
        assert_eq!(game.moves.len(), end.ply() as usize);
        assert!(game.result.is_some(), "the record has its result");
        let mut board = start_board(&game, Perspective::All).unwrap();
        for frame in frames(&game, Perspective::All, |_| {}).unwrap() {
            for (cell, piece) in frame.changes {
                board[cell] = piece;
            }
        }
        let expected: Vec<Option<String>> =
            Square::all().map(|sq| end.board()[sq].as_ref().map(|p| piece_code(p, Perspective::All))).collect();
        assert_eq!(board, expected, "the changes step the board to the record's end");
        assert_eq!(frames(&game, Perspective::All, |_| {}).unwrap().last().unwrap().material, material(&end));
    }

    /// From one side, the other side's types appear only once that side
    /// has seen them: at the start none, after a battle the two fighters.
    #[test]
    fn a_side_sees_only_what_it_was_shown() {
        let game = read_game(LOG, stratego_ucc::protocol::ucc_rules()).unwrap();
        let red = Perspective::Side(Color::Red);
        let start = start_board(&game, red).unwrap();
        let blue_codes: Vec<&String> = start.iter().flatten().filter(|c| c.starts_with('b')).collect();
        assert_eq!(blue_codes.len(), 40);
        assert!(blue_codes.iter().all(|c| c.chars().nth(1) == Some(UNSEEN)), "{blue_codes:?}");
        assert!(start.iter().flatten().filter(|c| c.starts_with('r')).all(|c| !c.contains(UNSEEN)));
        let frames = frames(&game, red, |_| {}).unwrap();
        // Blue's quiet first move: its piece's type is not given.
        assert_eq!(frames[1].piece, "unknown");
        assert!(frames[1].changes.iter().flat_map(|(_, p)| p).all(|c| c.contains(UNSEEN)));
        // Red's battle at ply 3 names both types: both sides saw them.
        assert_eq!(frames[2].piece, "scout");
        assert_eq!(frames[2].battle.as_ref().unwrap().defender, "scout");
    }

    #[test]
    fn what_is_neither_is_refused_with_why() {
        let e = read_game("hello\n", stratego_ucc::protocol::ucc_rules()).unwrap_err();
        assert!(e.to_string().starts_with("neither a lab record nor a UCC referee log"), "{e}");
        let broken = LOG.replace("2 RED: 0 4 DOWN", "2 RED: 0 4 LEFT");
        let game = read_game(&broken, stratego_ucc::protocol::ucc_rules());
        match game.and_then(|g| frames(&g, Perspective::All, |_| {})) {
            Err(ViewError::Replay { ply: 3, .. }) | Err(ViewError::Unreadable(_)) => {}
            other => panic!("{other:?}"),
        }
    }
}
