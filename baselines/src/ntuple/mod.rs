//! An n-tuple network trained by TD(lambda) self-play (docs/NTUPLE.md); the
//! training itself, algorithm and run, is the learner's (`learner/src/ntuple/`).
//!
//! - [`alphabet`]: the 16 symbols a square shows one player, and the
//!   encoding of a view or a state in that player's frame.
//! - [`layout`]: the tuples (straight lines of 3, the lake mouths, 2x2
//!   squares), each table shared by a tuple and its mirror image.
//! - [`net`]: the evaluator (one lookup per tuple, summed, `tanh`), the
//!   afterstate values of a view's legal moves (attacks on hidden pieces
//!   averaged over the counting prior), the expectimax leaf value and the
//!   TD update.
//! - [`file`]: safetensors table files with checked metadata.
//! - [`player`]: the afterstate player `ntuple:PATH`.
//! - [`speed`]: evaluations per second, with the hand-written players' as anchors.

pub mod alphabet;
pub mod file;
pub mod layout;
pub mod net;
pub mod player;
pub mod speed;

pub use file::{TableFault, TableFileError};
pub use layout::Layout;
pub use net::NTupleNet;
pub use player::{load_tables, ntuple_spec, NTupleFactory, NTuplePlayer, NTUPLE_OPTIONS};

/// Expectimax leaves valued by the tables are scaled by this (the hand-written
/// evaluation's material scale is a few hundred to a few thousand; terminal
/// scores are 100,000).
pub const LEAF_SCALE: f64 = 10_000.0;

#[cfg(test)]
mod tests;
