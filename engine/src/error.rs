//! Typed errors. Every bad input the engine can be handed (a ruleset text, a
//! setup, a position, a move, a record) ends here with a message that says
//! what was wrong and where; nothing in the engine panics on input.

use crate::action::{Move, MoveSyntaxError};
use crate::piece::{Color, PieceType};
use crate::rules::RulesError;
use crate::square::Square;

/// A setup string that is not a legal army for the piece set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("setup must have 40 letters (one per home square), found {0}")]
    WrongLength(usize),
    #[error(
        "setup letter {letter:?} at position {index} is not a piece letter (SONELPJCGMFB, or `.` for an empty square)"
    )]
    BadLetter { letter: char, index: usize },
    #[error("setup has {found} {kind}(s), the {set} army has {expected}")]
    WrongCount { kind: PieceType, found: usize, expected: usize, set: &'static str },
    #[error("setup has {found} empty squares, the {set} army leaves {expected}")]
    WrongEmpties { found: usize, expected: usize, set: &'static str },
}

/// Why the side to move may not make a move (`State::refusal`). Each reason
/// prints the sentence the engine's `illegal move` errors end with.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub enum Refusal {
    /// The game is over: no move can be made.
    #[error("the game is over: no move can be applied")]
    GameOver,
    /// The origin square is empty.
    #[error("there is no piece on {square}")]
    NoPiece { square: Square },
    /// The piece on the origin square belongs to the other side.
    #[error("the piece on {square} is not {player}'s")]
    NotYourPiece { square: Square, player: Color },
    /// The piece is a Bomb or the Flag.
    #[error("a {piece} never moves")]
    Immovable { piece: PieceType },
    /// The destination is a lake square.
    #[error("{square} is a lake")]
    Lake { square: Square },
    /// The destination holds a piece of the side to move.
    #[error("{square} holds an own piece")]
    OwnPiece { square: Square },
    /// The destination is not on a line with the origin, is more than one
    /// step away for a piece other than a Scout, or the path there is not
    /// empty (a piece or a lake in between, or the move goes nowhere).
    #[error(
        "the piece cannot reach that square (one step for all but Scouts, who run over empty squares in a straight line)"
    )]
    Unreachable,
    /// The two-square rule: the piece would cross the same border more than
    /// `limit` times in a row.
    #[error("the two-square rule forbids crossing the same border more than {limit} times in a row")]
    TwoSquare { limit: u8 },
    /// The more-squares (chasing) rule: a chasing move that recreates a
    /// position of the chase in progress.
    #[error("the more-squares rule forbids a chasing move that repeats a position of the chase")]
    MoreSquares,
}

/// The engine's error type.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Rules(#[from] RulesError),
    #[error("{color} setup: {source}")]
    Setup { color: Color, source: SetupError },
    #[error("malformed position: {0}")]
    Position(String),
    #[error(transparent)]
    MoveSyntax(#[from] MoveSyntaxError),
    /// A move the side to move may not make, and why. A finished game
    /// refuses every move with `GameOver` instead, so `reason` is never
    /// `Refusal::GameOver` here.
    #[error("illegal move {mv}: {reason}")]
    IllegalMove { mv: Move, reason: Refusal },
    #[error("action {0} is not an action id (0-1799 with endpoints on one line)")]
    BadAction(u32),
    #[error("the game is over: no move can be applied")]
    GameOver,
    #[error("malformed game record: {0}")]
    Record(String),
    /// `Layout::from_name` was given a name that is no layout.
    #[error("unknown observation layout `{0}` (expected compact or full)")]
    UnknownLayout(String),
    /// A layout cannot be written from what was given (the full layout
    /// without the game's piece histories).
    #[error("observation: {0}")]
    Layout(String),
    /// `VecEnv` with a batch of zero games.
    #[error("a batch needs at least one game")]
    EmptyBatch,
    /// An output or input buffer (`what`: observation, legal mask, belief
    /// target, player, action) of the wrong length.
    #[error("{what} buffer has {found} elements, expected {expected}")]
    BufferLength { what: &'static str, found: usize, expected: usize },
    /// A `VecEnv` game index past the batch.
    #[error("no game {game} in a batch of {batch}")]
    NoSuchGame { game: usize, batch: usize },
    /// A setup replaced after the game's first ply (`VecEnv::seat_setup`).
    #[error("the game has begun: its setups are fixed")]
    GameBegun,
    /// The error of one game of a `VecEnv` batch.
    #[error("game {game}: {source}")]
    InGame { game: usize, source: Box<Error> },
    #[error("ply {ply}: {source}")]
    AtPly { ply: usize, source: Box<Error> },
}
