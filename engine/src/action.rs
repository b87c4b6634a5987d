//! Moves and the action encoding.
//!
//! A move is identified by its endpoints only. The action id is the Ataraxos
//! encoding in the acting player's frame: `action = channel * 100 + src`, where
//! channels 0-8 name the target row and 9-17 the target column, each skipping
//! the source's own row or column. 18 channels x 100 sources = 1800 ids.

use crate::piece::Color;
use crate::square::Square;

// Action ids are the contract's (16 bits for every game on it).
pub use stratego_contract::ActionId;

/// The size of Stratego's fixed action space.
pub const NUM_ACTIONS: usize = 1800;

/// Text that is not a move (`Error::MoveSyntax` in the engine's errors).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a move (expected two squares like `b2-b5`)")]
pub struct MoveSyntaxError(pub String);

stratego_contract::endpoint_move! {
    /// A move in absolute coordinates, named by its two endpoints: written
    /// `b2-b5` (absolute squares, whether or not the move is an attack),
    /// read from `b2-b5` or `b2xb5`.
    pub struct Move(Square);
    MoveSyntaxError = MoveSyntaxError
}

impl Move {
    /// The same move seen from the other side of the board.
    pub const fn rotated(self) -> Move {
        Move { from: self.from.rotated(), to: self.to.rotated() }
    }

    /// Squares travelled (1 for a step, more for a Scout's run).
    pub fn distance(self) -> u8 {
        self.from.manhattan(self.to)
    }

    /// The action id of this move when `player` makes it.
    pub fn to_action(self, player: Color) -> Option<ActionId> {
        encode(self.from.in_frame(player), self.to.in_frame(player))
    }

    /// The absolute move that `player`'s action id stands for.
    pub fn from_action(action: ActionId, player: Color) -> Option<Move> {
        let (from, to) = decode(action)?;
        Some(Move { from: from.in_frame(player), to: to.in_frame(player) })
    }
}

/// Action id of a move between two squares of one frame; `None` unless they
/// are distinct and share a row or a column.
pub fn encode(from: Square, to: Square) -> Option<ActionId> {
    let channel = if from.col() == to.col() && from.row() != to.row() {
        to.row() - u8::from(to.row() > from.row())
    } else if from.row() == to.row() && from.col() != to.col() {
        9 + to.col() - u8::from(to.col() > from.col())
    } else {
        return None;
    };
    Some(channel as ActionId * 100 + from.cell() as ActionId)
}

/// The endpoints (in the acting player's frame) of an action id.
pub fn decode(action: ActionId) -> Option<(Square, Square)> {
    if action as usize >= NUM_ACTIONS {
        return None;
    }
    let channel = (action / 100) as u8;
    let from = Square::new((action % 100) as u8)?;
    let to = if channel < 9 {
        let row = channel + u8::from(channel >= from.row());
        Square::from_row_col(row, from.col())?
    } else {
        let c = channel - 9;
        let col = c + u8::from(c >= from.col());
        Square::from_row_col(from.row(), col)?
    };
    Some((from, to))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_move_has_a_unique_id_that_decodes_back() {
        let mut seen = vec![false; NUM_ACTIONS];
        for from in Square::all() {
            for to in Square::all() {
                match encode(from, to) {
                    Some(id) => {
                        assert!(!seen[id as usize]);
                        seen[id as usize] = true;
                        assert_eq!(decode(id), Some((from, to)));
                    }
                    None => assert!(from == to || (from.row() != to.row() && from.col() != to.col())),
                }
            }
        }
        // 100 sources x (9 vertical + 9 horizontal targets) fill the space exactly.
        assert!(seen.iter().all(|&s| s));
        assert_eq!(decode(1800), None);
    }

    #[test]
    fn known_ids() {
        let sq = |s: &str| s.parse::<Square>().unwrap();
        // a1 -> a2: target row 1, above the source row 0, so channel 0; src 0.
        assert_eq!(encode(sq("a1"), sq("a2")), Some(0));
        // b2 (cell 11) -> b5 (row 4): channel 3.
        assert_eq!(encode(sq("b2"), sq("b5")), Some(311));
        // b2 -> a2: target column 0, channel 9.
        assert_eq!(encode(sq("b2"), sq("a2")), Some(911));
        // j10 (99) -> j1 (row 0): channel 0.
        assert_eq!(encode(sq("j10"), sq("j1")), Some(99));
        // j10 -> a10: column 0 -> channel 9.
        assert_eq!(encode(sq("j10"), sq("a10")), Some(999));
    }

    #[test]
    fn blue_actions_are_rotated() {
        let mv: Move = "j7-j6".parse().unwrap();
        // In Blue's frame j7 (cell 69) is cell 30 (a4) and j6 (59) is 40 (a5).
        assert_eq!(mv.to_action(Color::Blue), encode(Square::new(30).unwrap(), Square::new(40).unwrap()));
        let id = mv.to_action(Color::Blue).unwrap();
        assert_eq!(Move::from_action(id, Color::Blue), Some(mv));
        assert_eq!(mv.rotated().to_action(Color::Red), Some(id));
    }

    #[test]
    fn move_text() {
        let mv: Move = "b2-b5".parse().unwrap();
        assert_eq!(mv.to_string(), "b2-b5");
        assert_eq!("b2xb5".parse::<Move>().unwrap(), mv);
        for bad in ["b2", "b2-", "b2-k5", "b2b5", ""] {
            assert!(bad.parse::<Move>().is_err(), "{bad}");
        }
    }
}
