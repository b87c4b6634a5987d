//! The observation: one flat `f32` vector (docs/COTOAN.md, section 7).
//!
//! CoToan has perfect information, so both players see the same vector, in
//! absolute squares (no per-player rotation). Besides the board it carries
//! the controller, the remaining ply budget and every setting: without them
//! states with different outcomes would look alike (the RQ3 diagnostic).

use crate::board::NUM_VALUES;
use crate::settings::{HorizonRule, Operator};
use crate::square::{Square, NUM_SQUARES};
use crate::state::CoToanState;
use stratego_contract::Color;

/// Piece planes: one per (side, value), `side * 10 + value`, Red first.
pub const NUM_PLANES: usize = 2 * NUM_VALUES;
/// Entry `plane * 99 + square` is 1 where that piece stands.
pub const PLANES_LEN: usize = NUM_PLANES * NUM_SQUARES;

/// 1 when Red is the controller (the side to move, kept at the end).
pub const RED_TO_MOVE: usize = PLANES_LEN;
/// 1 when Blue is the controller.
pub const BLUE_TO_MOVE: usize = PLANES_LEN + 1;
/// Plies left before the horizon, as a count.
pub const REMAINING_PLIES: usize = PLANES_LEN + 2;
/// Plies left as a fraction of the horizon (1 at the start, 0 at the horizon).
pub const REMAINING_FRACTION: usize = PLANES_LEN + 3;
/// The threshold (0 = off), as a count.
pub const THRESHOLD: usize = PLANES_LEN + 4;
/// The horizon, as a count.
pub const HORIZON: usize = PLANES_LEN + 5;
/// 1 under the unconditional-draw horizon rule, 0 under score adjudication.
pub const HORIZON_RULE_DRAW: usize = PLANES_LEN + 6;
/// Five entries, 1 for each enabled operator in order add, sub, mul, div, mod.
pub const OPERATORS: usize = PLANES_LEN + 7;
/// 1 when Blue is the starting player.
pub const START_BLUE: usize = OPERATORS + Operator::ALL.len();
/// The observation's length: 1980 plane entries and 13 scalars.
pub const OBSERVATION_LEN: usize = START_BLUE + 1;

/// The observation of a state.
pub fn observe(state: &CoToanState) -> Vec<f32> {
    let mut obs = vec![0.0f32; OBSERVATION_LEN];
    for (sq, piece) in state.board().pieces() {
        let plane = piece.side.index() * NUM_VALUES + piece.value as usize;
        obs[plane * NUM_SQUARES + sq.index()] = 1.0;
    }
    let settings = state.settings();
    obs[RED_TO_MOVE] = f32::from(state.to_move() == Color::Red);
    obs[BLUE_TO_MOVE] = f32::from(state.to_move() == Color::Blue);
    obs[REMAINING_PLIES] = state.remaining_plies() as f32;
    obs[REMAINING_FRACTION] = state.remaining_plies() as f32 / settings.horizon as f32;
    obs[THRESHOLD] = f32::from(settings.threshold);
    obs[HORIZON] = settings.horizon as f32;
    obs[HORIZON_RULE_DRAW] = f32::from(settings.horizon_rule == HorizonRule::Draw);
    for (i, op) in Operator::ALL.into_iter().enumerate() {
        obs[OPERATORS + i] = f32::from(settings.operators.contains(op));
    }
    obs[START_BLUE] = f32::from(settings.starting_player == Color::Blue);
    obs
}

/// A readable name of an entry: `red-3@c4`, `remaining-plies`, `operator-mod`.
pub fn entry_name(index: usize) -> String {
    if index < PLANES_LEN {
        let (plane, square) = (index / NUM_SQUARES, index % NUM_SQUARES);
        let side = Color::BOTH[plane / NUM_VALUES];
        let sq = Square::new(square as u8).expect("the index is within a plane");
        return format!("{side}-{}@{sq}", plane % NUM_VALUES);
    }
    match index {
        RED_TO_MOVE => "red-to-move".into(),
        BLUE_TO_MOVE => "blue-to-move".into(),
        REMAINING_PLIES => "remaining-plies".into(),
        REMAINING_FRACTION => "remaining-fraction".into(),
        THRESHOLD => "threshold".into(),
        HORIZON => "horizon".into(),
        HORIZON_RULE_DRAW => "horizon-rule-draw".into(),
        i if (OPERATORS..START_BLUE).contains(&i) => format!("operator-{}", Operator::ALL[i - OPERATORS]),
        START_BLUE => "start-blue".into(),
        _ => format!("out-of-range-{index}"),
    }
}

/// The entries where two observations differ: (index, left value, right value).
pub fn differences(a: &[f32], b: &[f32]) -> Vec<(usize, f32, f32)> {
    a.iter().zip(b).enumerate().filter(|(_, (x, y))| x != y).map(|(i, (&x, &y))| (i, x, y)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Settings;

    #[test]
    fn layout_is_as_documented() {
        assert_eq!(PLANES_LEN, 1980);
        assert_eq!(OBSERVATION_LEN, 1993);
        let state = CoToanState::new(Settings::default()).unwrap();
        let obs = observe(&state);
        assert_eq!(obs.len(), OBSERVATION_LEN);
        assert_eq!(obs[..PLANES_LEN].iter().sum::<f32>(), 20.0, "one entry per piece");
        // Red's 3 on c1 (square 2), plane 3.
        assert_eq!(obs[3 * NUM_SQUARES + 2], 1.0);
        assert_eq!(entry_name(3 * NUM_SQUARES + 2), "red-3@c1");
        // Blue's 0 on e10 (square 85), plane 10.
        assert_eq!(obs[10 * NUM_SQUARES + 85], 1.0);
        assert_eq!(
            obs[PLANES_LEN..].to_vec(),
            vec![1.0, 0.0, 300.0, 1.0, 0.0, 300.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0]
        );
        let names: Vec<String> = (PLANES_LEN..OBSERVATION_LEN).map(entry_name).collect();
        assert_eq!(names[7], "operator-add");
        assert_eq!(names[12], "start-blue");
    }
}
