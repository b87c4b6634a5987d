//! Evaluation speed of the tables, with the hand-written players' figures
//! measured in the same run as anchors (for BENCHMARKS.md).

use std::hint::black_box;
use std::time::Instant;

use rand::SeedableRng;
use stratego_engine::playout::random_position;
use stratego_engine::{Ruleset, State};

use super::alphabet::encode_state;
use super::net::NTupleNet;
use crate::greedy::score;
use crate::heuristic::evaluate;
use stratego_players::player::AgentRng;
use stratego_players::view::{public_history, InfoView};

/// Speeds on one core, each the best of the rounds.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalSpeed {
    /// Full evaluations (encode a state from one side, one lookup per tuple, tanh).
    pub full_per_second: f64,
    /// Table lookups alone (an encoded position, one lookup per tuple, tanh).
    pub lookups_per_second: f64,
    /// Afterstate values of legal moves (`move_values`, incremental, with
    /// the prior averages of attacks on hidden pieces), per move.
    pub afterstates_per_second: f64,
    /// Anchor: the greedy player's move scores (`greedy::score`), per move.
    pub greedy_scores_per_second: f64,
    /// Anchor: the expectimax player's hand-written evaluation (`heuristic::evaluate`).
    pub handwritten_per_second: f64,
    pub positions: usize,
    pub moves: usize,
}

/// Mid-game positions of random playouts (random setups, then 10-210
/// random plies), for `rules`.
pub fn positions(rules: Ruleset, count: usize, seed: u64) -> Vec<State> {
    let mut rng = AgentRng::seed_from_u64(seed);
    let mut found = Vec::with_capacity(count);
    while found.len() < count {
        let state = random_position(rules, 10 + (found.len() * 7) % 200, &mut rng);
        if !state.is_terminal() {
            found.push(state);
        }
    }
    found
}

fn best_rate(rounds: usize, work: u64, mut run: impl FnMut()) -> f64 {
    (0..rounds.max(1))
        .map(|_| {
            let start = Instant::now();
            run();
            work as f64 / start.elapsed().as_secs_f64()
        })
        .fold(0.0, f64::max)
}

/// Measures `net` over `positions` (each evaluated `repeat` times a round).
pub fn measure(net: &NTupleNet, positions: &[State], repeat: usize, rounds: usize) -> EvalSpeed {
    let histories: Vec<_> = positions.iter().map(public_history).collect();
    let views: Vec<InfoView<'_>> = positions.iter().zip(&histories).map(|(s, h)| InfoView::new(s, h)).collect();
    let moves: usize = views.iter().map(|v| v.legal_moves.len()).sum();
    let n = (positions.len() * repeat) as u64;
    let full = best_rate(rounds, n, || {
        for _ in 0..repeat {
            for s in positions {
                black_box(net.value(&encode_state(black_box(s), s.to_move())));
            }
        }
    });
    let encoded: Vec<_> = positions.iter().map(|s| encode_state(s, s.to_move())).collect();
    let lookups = best_rate(rounds, n, || {
        for _ in 0..repeat {
            for e in &encoded {
                black_box(net.value(black_box(e)));
            }
        }
    });
    let after = best_rate(rounds, (moves * repeat) as u64, || {
        for _ in 0..repeat {
            for v in &views {
                black_box(net.move_values(black_box(v)));
            }
        }
    });
    let greedy = best_rate(rounds, (moves * repeat) as u64, || {
        for _ in 0..repeat {
            for v in &views {
                let prior = v.prior();
                for &mv in &v.legal_moves {
                    black_box(score(v, &prior, mv));
                }
            }
        }
    });
    let handwritten = best_rate(rounds, n, || {
        for _ in 0..repeat {
            for s in positions {
                black_box(evaluate(black_box(s), s.to_move()));
            }
        }
    });
    EvalSpeed {
        full_per_second: full,
        lookups_per_second: lookups,
        afterstates_per_second: after,
        greedy_scores_per_second: greedy,
        handwritten_per_second: handwritten,
        positions: positions.len(),
        moves,
    }
}
