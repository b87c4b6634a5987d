//! Moves, action ids, arithmetic witnesses and move generation.
//!
//! An action is identified by its endpoints only: `id = 99 * SRC + DST` in
//! absolute squares, 9801 ids. A capture's justification (which operator,
//! with which support) is a `Witness`, metadata returned beside the action:
//! two witnesses of one capture still make one action.

use std::fmt;

use crate::board::Board;
use crate::error::CoToanError;
use crate::settings::{Operator, OperatorMask};
use crate::square::{Direction, Square, NUM_SQUARES};
use stratego_contract::ActionId;
use stratego_contract::Color;

/// The size of CoToan's action space: 99 sources x 99 destinations.
pub const NUM_ACTIONS: usize = NUM_SQUARES * NUM_SQUARES;

stratego_contract::endpoint_move! {
    /// A move named by its endpoints (absolute squares): written `c4-e6`
    /// (the state writes captures as `c4xf4`), read from either form (the
    /// separator is not checked against the board).
    pub struct Move(Square);
    CoToanError = CoToanError::MoveSyntax
}

impl Move {
    /// `99 * SRC + DST`.
    pub const fn action(self) -> ActionId {
        (self.from.index() * NUM_SQUARES + self.to.index()) as ActionId
    }

    /// Decodes any id below 9801 (ids with equal endpoints decode but are
    /// never legal).
    pub fn from_action(action: ActionId) -> Option<Move> {
        let id = action as usize;
        if id >= NUM_ACTIONS {
            return None;
        }
        Some(Move::new(Square::new((id / NUM_SQUARES) as u8)?, Square::new((id % NUM_SQUARES) as u8)?))
    }

    /// The same move after the colour swap (180-degree rotation).
    pub const fn rotated(self) -> Move {
        Move::new(self.from.rotated(), self.to.rotated())
    }

    pub const fn mirrored(self) -> Move {
        Move::new(self.from.mirrored(), self.to.mirrored())
    }
}

/// One arithmetic justification of a capture: the operator and the support's
/// square. The attacker and target are the action's endpoints.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Witness {
    pub operator: Operator,
    pub support: Square,
}

impl fmt::Display for Witness {
    /// `div@d4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.operator, self.support)
    }
}

/// A legal move with what justifies it.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct LegalMove {
    pub mv: Move,
    /// `None` for an ordinary move; for a capture, the support square (the
    /// attacker's neighbour towards the target, so the same for every
    /// witness) and the operators that give the target's distance.
    pub capture: Option<(Square, OperatorMask)>,
}

impl LegalMove {
    pub fn action(&self) -> ActionId {
        self.mv.action()
    }

    pub fn is_capture(&self) -> bool {
        self.capture.is_some()
    }

    /// The witnesses, in operator order; empty for an ordinary move.
    pub fn witnesses(&self) -> Vec<Witness> {
        match self.capture {
            None => Vec::new(),
            Some((support, ops)) => ops.iter().map(|operator| Witness { operator, support }).collect(),
        }
    }

    /// How many actions this endpoint action becomes when every witness is
    /// a separate action: its witness count for a capture, 1 otherwise.
    pub fn witness_labelled_count(&self) -> usize {
        self.capture.map_or(1, |(_, ops)| ops.iter().count())
    }
}

/// Every legal move of `side` by the movement and capture rules, sorted by
/// action id. Terminal status is not consulted: these are the candidate
/// actions, computed before it (as in the GDL description).
pub fn generate(board: &Board, side: Color, operators: OperatorMask) -> Vec<LegalMove> {
    let mut moves = Vec::new();
    for (from, attacker) in board.pieces() {
        if attacker.side != side || attacker.value == 0 {
            continue; // zeros never move
        }
        for dir in Direction::ALL {
            // Ordinary moves: 1..=value squares over empty squares onto an empty one.
            for distance in 1..=attacker.value {
                match from.offset(dir, distance) {
                    Some(to) if board[to].is_none() => moves.push(LegalMove { mv: Move::new(from, to), capture: None }),
                    _ => break,
                }
            }
            // Captures: an own support next to the attacker in `dir`, an enemy
            // `r` squares beyond it with only empty squares between.
            let Some(support) = from.step(dir) else { continue };
            let Some(helper) = board[support].filter(|p| p.side == side) else { continue };
            let mut justified = OperatorMask::NONE;
            let mut target = None;
            for op in operators.iter() {
                let Some(r) = op.capture_distance(attacker.value, helper.value) else { continue };
                let Some(to) = support.offset(dir, r) else { continue };
                let is_enemy = board[to].is_some_and(|p| p.side != side);
                let path_clear = (1..r).all(|k| support.offset(dir, k).is_some_and(|sq| board[sq].is_none()));
                if is_enemy && path_clear {
                    // Different operators giving the same r reach the same target.
                    debug_assert!(target.is_none_or(|t| t == to));
                    target = Some(to);
                    justified = justified.with(op);
                }
            }
            // Distinct distances cannot both land on enemies: the nearer one
            // would block the farther. So one target per (attacker, direction).
            if let Some(to) = target {
                moves.push(LegalMove { mv: Move::new(from, to), capture: Some((support, justified)) });
            }
        }
    }
    moves.sort_unstable_by_key(LegalMove::action);
    moves
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_ids_round_trip() {
        for id in 0..NUM_ACTIONS as ActionId {
            let mv = Move::from_action(id).unwrap();
            assert_eq!(mv.action(), id);
        }
        assert_eq!(Move::from_action(NUM_ACTIONS as ActionId), None);
        let c4f4: Move = "c4xf4".parse().unwrap();
        assert_eq!(c4f4.action(), 99 * 29 + 32);
        assert_eq!("c4-f4".parse::<Move>().unwrap(), c4f4);
        for bad in ["", "c4", "c4f4", "c4-z9", "c4 - f4"] {
            assert!(bad.parse::<Move>().is_err(), "{bad}");
        }
    }
}
