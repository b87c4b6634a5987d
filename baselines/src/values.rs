//! Piece values for the hand-written players, in one table so that the
//! greedy player and the expectimax evaluation weigh material alike.
//!
//! The scale follows the usual ordering of Stratego material (a Marshal is
//! worth about two Generals, a Miner more than its rank because only Miners
//! clear Bombs, the Spy a lot while the enemy Marshal lives). The Flag's
//! value only matters as a battle outcome (taking it ends the game); it
//! cancels out of any material difference because both Flags stay on the
//! board until the game ends.

use stratego_engine::{PieceType, TypeDistribution};

/// The value of one piece of each type, indexed by `PieceType::index`.
pub const PIECE_VALUES: [f64; PieceType::COUNT] = [
    60.0,   // Spy: the only piece that beats the Marshal (attacking)
    10.0,   // Scout
    30.0,   // Miner: clears Bombs
    15.0,   // Sergeant
    25.0,   // Lieutenant
    40.0,   // Captain
    70.0,   // Major
    120.0,  // Colonel
    220.0,  // General
    400.0,  // Marshal
    1000.0, // Flag: capturing it wins
    15.0,   // Bomb
];

pub fn value(kind: PieceType) -> f64 {
    PIECE_VALUES[kind.index()]
}

/// The expected value of a piece whose type follows `dist`.
pub fn expected_value(dist: &TypeDistribution) -> f64 {
    dist.iter().zip(PIECE_VALUES).map(|(&p, v)| p as f64 * v).sum()
}
