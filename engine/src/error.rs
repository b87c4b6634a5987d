//! Typed errors. Every bad input the engine can be handed (a ruleset text, a
//! setup, a position, a move, a record) ends here with a message that says
//! what was wrong and where; nothing in the engine panics on input.

use crate::piece::{Color, PieceType};

/// A ruleset text or id that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error("malformed ruleset: {0}")]
    Malformed(String),
    #[error("ruleset version `{found}` is not supported (this engine implements `{expected}`)")]
    Version { found: String, expected: String },
    #[error("ruleset key `{key}`: {why}")]
    Invalid { key: &'static str, why: String },
    #[error("`{0}` is not a ruleset id (expected 8 hex digits)")]
    BadId(String),
    #[error("ruleset mismatch: expected {expected}, found {found}")]
    Mismatch { expected: String, found: String },
}

/// A setup string that is not a legal army for the piece set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("setup must have 40 letters (one per home square), found {0}")]
    WrongLength(usize),
    #[error(
        "setup letter `{letter}` at position {index} is not a piece letter (SONELPJCGMFB, or `.` for an empty square)"
    )]
    BadLetter { letter: char, index: usize },
    #[error("setup has {found} {kind}(s), the {set} army has {expected}")]
    WrongCount { kind: PieceType, found: usize, expected: usize, set: &'static str },
    #[error("setup has {found} empty squares, the {set} army leaves {expected}")]
    WrongEmpties { found: usize, expected: usize, set: &'static str },
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
    #[error("`{0}` is not a move (expected two squares like `b2-b5`)")]
    MoveSyntax(String),
    #[error("illegal move {mv}: {why}")]
    IllegalMove { mv: String, why: String },
    #[error("action {0} is not an action id (0-1799 with endpoints on one line)")]
    BadAction(u32),
    #[error("the game is over: no move can be applied")]
    GameOver,
    #[error("malformed game record: {0}")]
    Record(String),
    #[error("observation: {0}")]
    Layout(String),
    #[error("ply {ply}: {source}")]
    AtPly { ply: usize, source: Box<Error> },
}
