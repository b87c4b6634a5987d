//! Seeded sources of CoToan states for tests, diagnostics and the GDL
//! conformance check: random games from the starting position (reachable
//! states) and random structurally valid positions (synthetic states).

use rand::seq::IndexedRandom;
use rand::Rng;

use crate::board::{zero_home, Board, Piece};
use crate::moves::Move;
use crate::settings::{Operator, Settings};
use crate::square::{Direction, Square, COLS, ROWS};
use crate::state::CoToanState;
use stratego_contract::Color;

/// Plays up to `max_plies` plies from the starting position and returns
/// every state visited, the start first. The policy favours captures so
/// that short games reach captures, threshold wins and lost zeros: when a
/// capture is legal it plays one (uniformly among them) with probability
/// 1/2, and otherwise a uniformly drawn legal move.
pub fn random_trajectory(settings: Settings, max_plies: u32, rng: &mut impl Rng) -> Vec<CoToanState> {
    let mut state = CoToanState::new(settings).expect("the caller's settings are valid");
    let mut states = vec![state.clone()];
    for _ in 0..max_plies {
        let Some(mv) = pick_move(&state, rng) else { break };
        state.apply_move(mv).expect("a listed move is legal");
        states.push(state.clone());
    }
    states
}

fn pick_move(state: &CoToanState, rng: &mut impl Rng) -> Option<Move> {
    let legal = state.legal_moves_with_witnesses();
    let captures: Vec<Move> = legal.iter().filter(|m| m.is_capture()).map(|m| m.mv).collect();
    if !captures.is_empty() && rng.random_bool(0.5) {
        return captures.choose(rng).copied();
    }
    legal.choose(rng).map(|m| m.mv)
}

/// A random structurally valid state (well formed, not necessarily
/// reachable): both zeros on their home squares (except, one time in
/// twelve, the side to move's, which makes it a finished game); half of the
/// time an arithmetic probe (see `place_probe`); each other nonzero piece
/// present with a random per-side probability; pieces scattered over the
/// board or, half of the time, packed into a small window so that captures
/// and blocked paths are common; the ply anywhere up to the horizon (a tenth
/// of the time exactly at it). Draws that break a well-formedness rule (a
/// threshold passed by the wrong side) are redrawn.
pub fn synthetic_state(settings: Settings, rng: &mut impl Rng) -> CoToanState {
    loop {
        let ply = if rng.random_bool(0.1) { settings.horizon } else { rng.random_range(0..=settings.horizon) };
        let to_move = settings.player_at(ply);
        let mut pieces: Vec<(Square, Piece)> = Vec::new();
        for side in Color::BOTH {
            if !(side == to_move && rng.random_bool(1.0 / 12.0)) {
                pieces.push((zero_home(side), Piece { side, value: 0 }));
            }
        }
        if rng.random_bool(0.5) {
            place_probe(&mut pieces, to_move, rng);
        }
        let (col0, row0, width, height) = if rng.random_bool(0.5) {
            (0, 0, COLS, ROWS)
        } else {
            let (w, h) = (rng.random_range(3..=6u8), rng.random_range(3..=6u8));
            (rng.random_range(0..=COLS - w), rng.random_range(0..=ROWS - h), w, h)
        };
        for side in Color::BOTH {
            let keep = rng.random_range(0.2..1.0);
            for value in 1..=9 {
                if !rng.random_bool(keep) || pieces.iter().any(|(_, p)| *p == Piece { side, value }) {
                    continue;
                }
                let free = |sq: &Square| pieces.iter().all(|(s, _)| s != sq);
                let window: Vec<Square> = (0..width * height)
                    .filter_map(|i| Square::from_col_row(col0 + i % width, row0 + i / width))
                    .filter(free)
                    .collect();
                let anywhere: Vec<Square> = Square::all().filter(free).collect();
                let sq = *window.choose(rng).or_else(|| anywhere.choose(rng)).expect("20 pieces fit on 99 squares");
                pieces.push((sq, Piece { side, value }));
            }
        }
        let board = Board::from_pieces(&pieces).expect("distinct squares and identities");
        if let Ok(state) = CoToanState::from_parts(settings, board, to_move, ply) {
            return state;
        }
    }
}

/// Places an arithmetic probe for `side`: a random attacker next to a random
/// own support (its 0 on the home square, or a nonzero piece anywhere), and,
/// when a randomly chosen operator (enabled or not) gives a positive distance
/// that stays on the board, an enemy exactly there beyond the support. Random
/// positions rarely line up like this; the probes make captures, witnesses
/// of several operators, disabled operators and supporting zeros common.
fn place_probe(pieces: &mut Vec<(Square, Piece)>, side: Color, rng: &mut impl Rng) {
    let has_zero = pieces.iter().any(|(_, p)| *p == Piece { side, value: 0 });
    let attacker = rng.random_range(1..=9u8);
    let support = loop {
        let v = rng.random_range(0..=9u8);
        if v != attacker && (v != 0 || has_zero) {
            break v;
        }
    };
    let support_square = if support == 0 {
        zero_home(side)
    } else {
        *Square::all().filter(|sq| pieces.iter().all(|(s, _)| s != sq)).collect::<Vec<_>>().choose(rng).expect("room")
    };
    let dir = *Direction::ALL.choose(rng).expect("eight directions");
    let Some(from) = support_square.offset(dir.opposite(), 1).filter(|sq| pieces.iter().all(|(s, _)| s != sq)) else {
        return;
    };
    if support != 0 {
        pieces.push((support_square, Piece { side, value: support }));
    }
    pieces.push((from, Piece { side, value: attacker }));
    let op = *Operator::ALL.choose(rng).expect("five operators");
    let Some(distance) = op.capture_distance(attacker, support) else { return };
    let Some(target) = support_square.offset(dir, distance) else { return };
    let enemy = side.opponent();
    let free_values: Vec<u8> =
        (1..=9).filter(|&v| pieces.iter().all(|(_, p)| *p != Piece { side: enemy, value: v })).collect();
    if pieces.iter().all(|(s, _)| *s != target) {
        if let Some(&value) = free_values.choose(rng) {
            pieces.push((target, Piece { side: enemy, value }));
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;

    #[test]
    fn sources_are_deterministic_under_a_seed() {
        let settings = Settings { threshold: 9, ..Settings::default() };
        let run = |seed| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let mut texts: Vec<String> =
                random_trajectory(settings, 40, &mut rng).iter().map(CoToanState::serialize).collect();
            texts.extend((0..20).map(|_| synthetic_state(settings, &mut rng).serialize()));
            texts
        };
        assert_eq!(run(5), run(5));
        assert_ne!(run(5), run(6));
    }
}
