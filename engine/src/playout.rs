//! Random playouts: the engine's own speed test and a source of random games
//! for property tests.

use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

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
    while !state.is_terminal() {
        let mv = state.sample_legal_move(rng).expect("an unfinished game has a legal move");
        state.apply_move(mv).expect("a sampled move is legal");
    }
    GameRecord::new(rules, red, blue, &state)
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

/// Speed of random playouts under one ruleset, over several rounds.
#[derive(Clone, Debug)]
pub struct PlayoutSpeed {
    pub name: &'static str,
    pub rules: Ruleset,
    /// Plies per second on one core: the best round (interference from the
    /// rest of the machine only ever slows a round down) ...
    pub plies_per_second: f64,
    /// ... and the median round.
    pub median: f64,
    /// Every round's figure, in the order measured.
    pub rounds: Vec<f64>,
    /// The games of the first round.
    pub stats: PlayoutStats,
}

/// Measures random playouts (uniform random setups, then a uniform random
/// legal move each ply) under the full rules, without the chasing rule,
/// and without both move rules, so the rules' costs can be read off.
/// Rounds interleave the variants so a slow spell of the machine hits all
/// of them; every round of a variant replays the same seeded games.
pub fn measure_playout_speed(plies_per_round: u64, rounds: usize, seed: u64) -> Vec<PlayoutSpeed> {
    let full = Ruleset::classic();
    let mut speeds: Vec<PlayoutSpeed> = [
        ("full rules", full),
        ("chasing rule off", Ruleset { chase_rule: false, ..full }),
        ("chasing and two-square rules off", Ruleset { chase_rule: false, two_square_limit: 0, ..full }),
    ]
    .into_iter()
    .map(|(name, rules)| PlayoutSpeed {
        name,
        rules,
        plies_per_second: 0.0,
        median: 0.0,
        rounds: Vec::new(),
        stats: PlayoutStats::default(),
    })
    .collect();
    for round in 0..rounds.max(1) {
        for speed in &mut speeds {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let start = Instant::now();
            let stats = random_playouts(speed.rules, plies_per_round, &mut rng);
            speed.rounds.push(stats.plies as f64 / start.elapsed().as_secs_f64());
            if round == 0 {
                speed.stats = stats;
            }
        }
    }
    for speed in &mut speeds {
        let mut sorted = speed.rounds.clone();
        sorted.sort_by(f64::total_cmp);
        speed.median = sorted[sorted.len() / 2];
        speed.plies_per_second = sorted[sorted.len() - 1];
    }
    speeds
}

/// Random playouts under the full rules on `threads` threads at once, each
/// with its own seeded generator: total plies per second of the machine.
pub fn measure_parallel_playouts(threads: usize, plies_per_thread: u64, seed: u64) -> f64 {
    let start = Instant::now();
    let plies: u64 = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1) as u64)
            .map(|t| {
                scope.spawn(move || {
                    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed.wrapping_add(t));
                    random_playouts(Ruleset::classic(), plies_per_thread, &mut rng).plies
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("a playout thread does not panic")).sum()
    });
    plies as f64 / start.elapsed().as_secs_f64()
}
