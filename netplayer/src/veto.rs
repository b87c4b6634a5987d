//! The expectimax veto a network player can take (`veto=M` on `net`,
//! `netsearch` and `netrollout`; `netexpectimax` is built on it).
//!
//! A network's policy does not know what the lab's hand-written search
//! knows about the outside field's ways of winning: the chance that a
//! never-moved piece is a Bomb weighed on the game's result, the Spy next to
//! a revealed Marshal, a known Miner walking through our Bombs to the Flag
//! while our defenders could meet it (`stratego_baselines::eval`, the
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
use stratego_engine::Move;
use stratego_players::{AgentRng, InfoView, SetupPolicy, SpecError};

use crate::guided::{near_best, searched_values};

/// How the option reads in help and error texts.
pub const VETO_OPTION: &str = "veto=M (0-2: expectimax first searches every root move and vetoes those it values \
     more than M of a won game below its best)";

/// Parses `veto=M` (0 to 2).
pub fn parse(value: &str) -> Result<f64, SpecError> {
    value
        .parse::<f64>()
        .ok()
        .filter(|m| m.is_finite() && (0.0..=2.0).contains(m))
        .ok_or_else(|| SpecError::bad_value("veto", value, "expected a number from 0 to 2"))
}

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
) -> Result<(Vec<Move>, u32), String> {
    // The veto is for what the outside field does, so its search has every
    // outside-play mechanism, the Flag's defenders included.
    let mut config = ExpectimaxConfig { defend: true, ..ExpectimaxConfig::default() };
    if let Some(t) = clock {
        config = config.under_clock(t);
    }
    let mut search = ExpectimaxPlayer::new(config, setup);
    let values = searched_values(&mut search, view, ordered, rng)?;
    let near = near_best(&values, margin);
    let kept: Vec<Move> = ordered.iter().copied().filter(|mv| near.iter().any(|(m, _)| m == mv)).collect();
    Ok((kept, search.last.depth))
}
