//! The one interface every player implements, and the factory the arena
//! uses to make a fresh player for every game.
//!
//! The trait lives in a crate that depends on the engine only, so that every
//! player crate (the baselines, the network player) implements it and the
//! evaluation crate plays them all without knowing any: each player crate
//! registers its factories in the [`Registry`](crate::registry::Registry).

use std::time::Duration;

use rand_xoshiro::Xoshiro256PlusPlus;
use stratego_engine::{Move, PieceSet, Ruleset, Setup};

use crate::view::InfoView;

/// The generator every player draws from. A concrete type (not a generic)
/// keeps the trait object-safe, and the arena seeds one per game and side so
/// that results do not depend on the order games run in.
pub type AgentRng = Xoshiro256PlusPlus;

/// A Stratego player. It sees only the acting player's information (the
/// view), never the hidden truth, and may keep state between the moves of
/// one game.
pub trait Player: Send {
    /// The spec that makes this player, e.g. `expectimax:depth=3`.
    fn name(&self) -> String;

    /// The starting army, in the owner's frame.
    fn choose_setup(&mut self, set: PieceSet, rng: &mut AgentRng) -> Setup;

    /// One of `view.legal_moves` (the view always has at least one). A
    /// player that cannot decide (a network whose output is not a
    /// distribution, a view it cannot rebuild) says why instead of
    /// panicking; the arena reports it with the game and the ply.
    fn choose_move(&mut self, view: &InfoView<'_>, rng: &mut AgentRng) -> Result<Move, PlayerError>;

    /// An upper bound on the wall-clock time of one decision, for callers
    /// that play against a clock (the UCC referee). Players whose decisions
    /// are fast ignore it. It makes a searching player's choices depend on
    /// the machine's speed, so the arena never sets it.
    fn limit_move_time(&mut self, _limit: Duration) {}
}

/// Why a player could not choose a move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayerError {
    /// The player's own machinery failed (a network's inference, its
    /// output, a rebuilt state); the text says what.
    #[error("{0}")]
    Failed(String),
}

/// Makes fresh players of one kind: the arena asks for a new one per game,
/// so games share no state and can run on any thread in any order.
pub trait PlayerFactory: Send + Sync {
    /// The spec of the players it makes.
    fn name(&self) -> String;
    fn make(&self) -> Box<dyn Player>;

    /// Whether its players can play under `rules`; `Err` says why not. A
    /// network knows only the ruleset it was trained for, so its factory
    /// refuses the others; the arena asks before the first game.
    fn check_rules(&self, _rules: &Ruleset) -> Result<(), String> {
        Ok(())
    }

    /// The ruleset its players were trained under, for those that have one
    /// (a network, n-tuple tables): a match whose command names no rules
    /// plays theirs.
    fn trained_rules(&self) -> Option<Ruleset> {
        None
    }
}

/// `check_rules` of a player trained under `own`: refused unless the match
/// plays exactly `own`, with a message that says which ruleset is whose.
pub fn same_rules(trained: &str, own: &Ruleset, match_rules: &Ruleset) -> Result<(), String> {
    if own == match_rules {
        return Ok(());
    }
    Err(format!(
        "{trained} trained for {} (id {}), but the match plays {} (id {}); give the match the player's rules, or a \
         player trained for the match's",
        own.canonical(),
        own.id(),
        match_rules.canonical(),
        match_rules.id()
    ))
}
