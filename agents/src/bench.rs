//! Throughput figures of the players and the arena, for BENCHMARKS.md.

use std::time::Instant;

use rand::SeedableRng;
use stratego_engine::{PieceSet, Ruleset, Setup, State};

use crate::arena::{play_match, ArenaError, MatchConfig, SetupMode};
use crate::determinize::determinize;
use crate::expectimax::{ExpectimaxConfig, ExpectimaxPlayer};
use crate::player::AgentRng;
use crate::setup_policy::SetupPolicy;
use crate::spec;
use crate::view::{public_history, InfoView};

/// Games per second of a full arena match (all cores), and its mean game length.
pub fn arena_games_per_second(spec_text: &str, games: u32, seed: u64) -> Result<(f64, f64), ArenaError> {
    let factory = spec::factory(spec_text).expect("benchmark specs are valid");
    let config = MatchConfig { rules: Ruleset::classic(), games, seed, setups: SetupMode::Swap, sprt: None };
    let start = Instant::now();
    let result = play_match(factory.as_ref(), factory.as_ref(), &config, &|_| {})?;
    let seconds = start.elapsed().as_secs_f64();
    let plies: u64 = result.games.iter().map(|g| g.plies as u64).sum();
    Ok((result.games.len() as f64 / seconds, plies as f64 / result.games.len() as f64))
}

/// Expectimax search speed on one core: nodes per second over `positions`
/// midgame positions (random setups, then 20-120 random plies), and the mean
/// depth completed.
pub fn expectimax_nodes_per_second(config: ExpectimaxConfig, positions: usize, seed: u64) -> (f64, f64) {
    let mut rng = AgentRng::seed_from_u64(seed);
    let mut player = ExpectimaxPlayer::new(config, SetupPolicy::Random);
    let (mut nodes, mut seconds, mut depth, mut searched) = (0u64, 0.0, 0u64, 0usize);
    while searched < positions {
        let red = Setup::random(PieceSet::Classic, &mut rng);
        let blue = Setup::random(PieceSet::Classic, &mut rng);
        let mut state = State::from_setups(Ruleset::classic(), &red, &blue).expect("random setups are valid");
        let plies = 20 + searched % 100;
        for _ in 0..plies {
            let Some(mv) = state.sample_legal_move(&mut rng) else { break };
            state.apply_move(mv).expect("sampled moves are legal");
        }
        if state.is_terminal() {
            continue;
        }
        let history = public_history(&state);
        let view = InfoView::new(&state, &history);
        let root = determinize(&view, &mut rng);
        let start = Instant::now();
        player.root_values(&root, &view.legal_moves);
        seconds += start.elapsed().as_secs_f64();
        nodes += player.last.nodes;
        depth += player.last.depth as u64;
        searched += 1;
    }
    (nodes as f64 / seconds, depth as f64 / positions as f64)
}
