//! Games as pictures (issue 53): `stratego view GAME` writes one
//! self-contained HTML page (no server, no network: it opens from a disk)
//! with the board, both setups, the move list with each battle and its
//! outcome, the material over the game as a small chart, and a slider and
//! keys to step through the plies, seen from Red's side, from Blue's (the
//! other side's hidden pieces hidden, as that player saw them) or with
//! everything shown.
//!
//! - [`game`]: what a page shows, read from a lab record, a bot's log
//!   (`ucc-bot --record`) or a UCC referee log (told apart by their content), and replayed in the engine into
//!   per-ply frames: the engine decides every battle, so the page never
//!   repeats a rule.
//! - [`page`]: the frames (and a network's notes, where given) written as
//!   the page.
//!
//! A network's view of each ply (`--net`: its top moves, value and the
//! likeliest type of each hidden piece) is computed by the command line,
//! which has the model; this crate takes it as plain [`Notes`], so that
//! it stays free of burn.

pub mod game;
pub mod page;

pub use game::{read_game, Frame, Game, GameSource, Perspective};
pub use page::{render, Notes};

/// Why a game cannot be shown.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// The text is neither a lab record nor a referee log.
    #[error("neither a lab record nor a UCC referee log ({0})")]
    Unreadable(String),
    /// A lab record (by its first line) that cannot be read.
    #[error("{0}")]
    BadRecord(String),
    /// A move the engine refuses, with its ply (1 = the first).
    #[error("ply {ply} ({mv}) cannot be played: {why}")]
    Replay { ply: usize, mv: String, why: String },
    /// A view the file does not hold.
    #[error("{0}")]
    Perspective(String),
    /// Notes that do not fit the game.
    #[error("{0}")]
    Notes(String),
}
