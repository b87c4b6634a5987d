//! Why a network player could not decide: one error type for every kind.

use stratego_engine::Move;
use stratego_model::ModelError;
use stratego_players::reconstruct::ReconstructError;
use stratego_players::RulesRefused;

/// A decision that failed. Every kind fails for one of these reasons; the
/// arena stops on any of them (`PlayerError::Failed`), since every later
/// game would fail alike, so the kinds matter to tests and to readers of
/// the message, not to a caller's branch.
#[derive(Debug, thiserror::Error)]
pub enum NetPlayerError {
    /// A view of another piece set than the network's (refused at start-up
    /// by `check_rules`; a view that still gets here says why).
    #[error(transparent)]
    Rules(#[from] RulesRefused),
    /// The view does not replay as a game (no game can lead to it).
    #[error("cannot rebuild the game from the view: {0}")]
    Rebuild(#[from] ReconstructError),
    /// The rebuilt game has the other side to move, or has ended.
    #[error("the rebuilt game does not have the viewer to move")]
    NotToMove,
    /// The network could not be run (its input or its device).
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The policy is zero on every legal move.
    #[error("the network gave no legal action a positive probability")]
    NoLegalAction,
    /// The policy chose an action that is not a legal move.
    #[error("action {0} of the policy is not one of the legal moves")]
    NotLegal(u16),
    /// A move the view or the policy calls legal is refused in a rebuilt
    /// game (`where_` says which game).
    #[error("the move {mv} is refused in {where_}: {why}")]
    Refused { mv: Move, where_: &'static str, why: String },
    /// A value (the network's, a search's, a rollout's) is not a number.
    #[error("{0} gave a value that is not a number")]
    NotANumber(&'static str),
}
