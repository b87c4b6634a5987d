//! CoToan (Cờ Toán, Vietnamese mathematical chess) under the lab's state
//! contract: executable rules `cotoan-rules v1` (docs/COTOAN.md) behind
//! `crate::api::GameState`, so the players and the arena can play it too.
//!
//! - `settings`: the task switches, their canonical text and task id;
//! - `square`, `board`: the 9x11 board, pieces 0-9 per side, text forms;
//! - `moves`: endpoint actions `99 * SRC + DST`, witnesses, move generation;
//! - `state`: the state, its ordered end checks, snapshots, symmetries;
//! - `observation`: the flat observation vector and its layout;
//! - `fixtures`, `diagnostics`: seeded states and the RQ2/RQ3 diagnostics.

pub mod board;
pub mod diagnostics;
pub mod error;
pub mod fixtures;
pub mod moves;
pub mod observation;
pub mod settings;
pub mod square;
pub mod state;

pub use board::{zero_home, Board, Piece};
pub use error::{CoToanError, SettingsError};
pub use moves::{LegalMove, Move, Witness, NUM_ACTIONS};
pub use observation::OBSERVATION_LEN;
pub use settings::{HorizonRule, Operator, OperatorMask, Settings, TaskId, RULES_VERSION};
pub use square::{Direction, Square};
pub use state::{CoToanState, EndReason, Outcome};
