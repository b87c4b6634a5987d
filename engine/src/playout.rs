//! Random playouts: the engine's own speed test and a source of random games
//! for property tests.

use rand::Rng;

use crate::piece::Color;
use crate::record::GameRecord;
use crate::rules::Ruleset;
use crate::setup::Setup;
use crate::state::State;

/// A game between two uniform random players from uniform random setups,
/// all drawn from `rng`.
pub fn random_game(rules: Ruleset, rng: &mut impl Rng) -> GameRecord {
    let red = Setup::random(rules.piece_set, rng);
    let blue = Setup::random(rules.piece_set, rng);
    let mut state = State::from_setups(rules, &red, &blue).expect("random setups are valid");
    play_randomly(&mut state, usize::MAX, rng);
    GameRecord::new(rules, red, blue, &state)
}

/// The position after `plies` uniformly random plies (fewer if the game ends
/// first) from uniformly random setups, all drawn from `rng` in that order:
/// Red's setup, Blue's, then the moves. The test positions, benchmark
/// positions and speed samples of every crate come from here, so a pinned
/// seed names the same position everywhere.
pub fn random_position(rules: Ruleset, plies: usize, rng: &mut impl Rng) -> State {
    let red = Setup::random(rules.piece_set, rng);
    let blue = Setup::random(rules.piece_set, rng);
    let mut state = State::from_setups(rules, &red, &blue).expect("random setups are valid");
    play_randomly(&mut state, plies, rng);
    state
}

/// Plays up to `plies` uniformly random moves, stopping at the end of the game.
pub fn play_randomly(state: &mut State, plies: usize, rng: &mut impl Rng) {
    for _ in 0..plies {
        let Some(mv) = state.sample_legal_move(rng) else { break };
        state.apply_move(mv).expect("a sampled move is legal");
    }
}

/// Plays random games until at least `min_plies` plies have been played;
/// returns (games, plies, red wins, blue wins, draws).
pub fn random_playouts(rules: Ruleset, min_plies: u64, rng: &mut impl Rng) -> PlayoutStats {
    let mut stats = PlayoutStats::default();
    while stats.plies < min_plies {
        let record = random_game(rules, rng);
        stats.games += 1;
        stats.plies += record.moves.len() as u64;
        match record.result.and_then(|o| o.winner) {
            Some(Color::Red) => stats.red_wins += 1,
            Some(Color::Blue) => stats.blue_wins += 1,
            None => stats.draws += 1,
        }
    }
    stats
}

#[derive(Copy, Clone, Default, Debug, PartialEq, Eq)]
pub struct PlayoutStats {
    pub games: u64,
    pub plies: u64,
    pub red_wins: u64,
    pub blue_wins: u64,
    pub draws: u64,
}
