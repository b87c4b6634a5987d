//! CoToan's typed errors. Every bad input (settings text or task id, square,
//! move, board, snapshot, action) ends here with a message that says what was
//! wrong; nothing in the CoToan engine panics on input.

/// A settings text or task id that cannot be used: the contract's
/// settings-text error (`stratego_contract::canonical::SettingsError`) for
/// CoToan's settings, whose messages say `settings` and `task`
/// (`malformed settings: ...`, `task mismatch: ...`).
pub type SettingsError = stratego_contract::canonical::SettingsError<crate::settings::Settings>;

/// The CoToan engine's error type.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CoToanError {
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error("`{0}` is not a square (expected a file a-i and a rank 1-11, like `c4`)")]
    SquareSyntax(String),
    #[error("`{0}` is not a move (expected two squares like `c4-e6`, or `c4xf4` for a capture)")]
    MoveSyntax(String),
    #[error("malformed board: {0}")]
    Board(String),
    #[error("malformed snapshot: {0}")]
    Snapshot(String),
    #[error("ill-formed state: {0}")]
    IllFormed(String),
    #[error("illegal move {mv}: {why}")]
    IllegalMove { mv: String, why: String },
    #[error("action {0} is not an action id (0-9800, 99 * source + destination)")]
    BadAction(u32),
    #[error("the game is over: no move can be applied")]
    GameOver,
}
