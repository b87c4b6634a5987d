//! The expectimax veto a network player can take (`veto=M` on `net`,
//! `netsearch` and `netrollout`; `netexpectimax` is built on it).
//!
//! A network's policy does not know what the lab's hand-written search
//! knows about the outside field's ways of winning: the chance that a
//! never-moved piece is a Bomb weighed on the game's result, the Spy next to
//! a revealed Marshal, a known Miner walking through our Bombs to the Flag
//! while our defenders could meet it (`stratego_baselines::heuristic`, the
//! leaves' guards). With a veto, before the player decides, expectimax
//! searches every root move in a determinised root (at its default fixed
//! size, or for a share of the clock) and the moves it values more than `M`
//! (a share of a won game, `WIN`) below its best are taken from the
//! player's choice; the player then decides among the rest as it would
//! have. Through the UCC referee the veto took `netrollout` from 67.5 % to
//! 87.5 % of 20 games against the outside field (EVALUATION.md, "The outside
//! field").

use std::time::Duration;

use stratego_baselines::expectimax::{ExpectimaxConfig, ExpectimaxPlayer};
use stratego_baselines::heuristic::WIN;
use stratego_engine::Move;
use stratego_players::determinize::determinize;
use stratego_players::{AgentRng, InfoView, SetupPolicy};

use crate::NetPlayerError;

/// The moves of `ordered` (in its order) that expectimax, searching every
/// one in a determinised root under `clock` (or at its default fixed size
/// without one), values within `margin` of the best; and the search's
/// deepest iteration. `setup` only names the search player.
pub fn kept(
    view: &InfoView<'_>,
    ordered: &[Move],
    margin: f64,
    clock: Option<Duration>,
    setup: SetupPolicy,
    rng: &mut AgentRng,
) -> Result<(Vec<Move>, u32), NetPlayerError> {
    // The veto is for what the outside field does, so its search has every
    // outside-play mechanism, the Flag's defenders included.
    let mut config = ExpectimaxConfig { defend: true, ..ExpectimaxConfig::default() };
    if let Some(t) = clock {
        config = config.under_clock(t);
    }
    let mut search = ExpectimaxPlayer::new(config, setup);
    let values = searched_values(&mut search, view, ordered, margin, rng)?;
    let near = near_best(&values, margin);
    let kept: Vec<Move> = ordered.iter().copied().filter(|mv| near.iter().any(|(m, _)| m == mv)).collect();
    Ok((kept, search.last.depth))
}

/// Expectimax's values of the root moves `ordered` (entering the first
/// iteration in that order) in a root determinised from `view`, as
/// `root_values_within` gives them (the searched order, best first): exact
/// within `margin` (a share of a won game) of the best, so that
/// [`near_best`] keeps exactly the moves within it; an error if a move has
/// none or one is not a number.
pub(crate) fn searched_values(
    search: &mut ExpectimaxPlayer,
    view: &InfoView<'_>,
    ordered: &[Move],
    margin: f64,
    rng: &mut AgentRng,
) -> Result<Vec<(Move, f64)>, NetPlayerError> {
    let values = search.root_values_within(&determinize(view, rng), ordered, margin * WIN);
    if values.len() != ordered.len() || values.iter().any(|(_, v)| !v.is_finite()) {
        return Err(NetPlayerError::NotANumber("the expectimax search of the root moves"));
    }
    Ok(values)
}

/// The searched moves whose values lie within `margin` (a share of a won
/// game, `WIN`) of the best, in the order given.
pub(crate) fn near_best(values: &[(Move, f64)], margin: f64) -> Vec<(Move, f64)> {
    let best = values.iter().map(|(_, v)| *v).fold(f64::NEG_INFINITY, f64::max);
    let floor = best - margin * WIN - 1e-6;
    values.iter().copied().filter(|(_, v)| *v >= floor).collect()
}
