//! The baseline Stratego players, the yardsticks every trained player is
//! measured against.
//!
//! - [`random`], [`greedy`] (one ply, counting prior), [`expectimax`] (search
//!   with chance nodes and Star1 pruning over determinized states, scored by
//!   [`heuristic`] with the piece [`values`]); [`press`]: pressing when ahead under
//!   rules that do not end shuffling;
//! - [`ntuple`]: an n-tuple network trained by TD(lambda) self-play: the
//!   afterstate player `ntuple:PATH` and a learned leaf for expectimax;
//! - [`entries`]: their entries in the player registry
//!   ([`register`]) and their canonical names; [`bench`](mod@bench): search speed.
//!
//! Depends on the engine and the player interface only.

pub mod bench;
pub mod entries;
pub mod expectimax;
pub mod greedy;
pub mod heuristic;
pub mod ntuple;
pub mod press;
pub mod random;
pub mod values;

pub use entries::{factory_of, register, registry};
