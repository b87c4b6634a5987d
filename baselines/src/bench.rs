//! Throughput figures of the searching player, for BENCHMARKS.md (the
//! arena's games per second are measured in the evaluation crate).

use std::time::Instant;

use rand::SeedableRng;
use stratego_engine::playout::random_position;
use stratego_engine::Ruleset;

use stratego_players::determinize::determinize;
use stratego_players::player::AgentRng;
use stratego_players::setup_policy::SetupPolicy;
use stratego_players::view::{public_history, InfoView};

use crate::expectimax::{ExpectimaxConfig, ExpectimaxPlayer};

/// Expectimax search speed on one core: nodes per second over `positions`
/// midgame positions (random setups, then 20-120 random plies), and the mean
/// depth completed.
pub fn expectimax_nodes_per_second(config: ExpectimaxConfig, positions: usize, seed: u64) -> (f64, f64) {
    let mut rng = AgentRng::seed_from_u64(seed);
    let mut player = ExpectimaxPlayer::new(config, SetupPolicy::Random);
    let (mut nodes, mut seconds, mut depth, mut searched) = (0u64, 0.0, 0u64, 0usize);
    while searched < positions {
        let state = random_position(Ruleset::classic(), 20 + searched % 100, &mut rng);
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
