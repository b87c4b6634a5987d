//! Throughput of the arena, for BENCHMARKS.md.

use std::time::Instant;

use stratego_engine::Ruleset;
use stratego_players::PlayerFactory;

use crate::arena::{play_match, ArenaError, MatchConfig};

/// Games per second of a full arena match of a player against itself (all
/// cores), and its mean game length.
pub fn arena_games_per_second(factory: &dyn PlayerFactory, games: u32, seed: u64) -> Result<(f64, f64), ArenaError> {
    let config = MatchConfig::new(Ruleset::classic(), games, seed);
    let start = Instant::now();
    let result = play_match(factory, factory, &config, &|_| {})?;
    let seconds = start.elapsed().as_secs_f64();
    let plies: u64 = result.games.iter().map(|g| g.plies as u64).sum();
    Ok((result.games.len() as f64 / seconds, plies as f64 / result.games.len() as f64))
}
