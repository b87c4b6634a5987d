//! CoToan (Cờ Toán, Vietnamese mathematical chess) on the lab's game
//! contract: executable rules `cotoan-rules v1` (docs/COTOAN.md), with the
//! game object `CoToanGame` (`stratego_contract::api::Game`) and the state
//! `CoToanState` (`stratego_contract::GameState`). Its settings texts,
//! outcomes, square and move names go through the contract's shared code
//! (`stratego_contract::canonical`, `stratego_contract::api::Outcome`,
//! `stratego_contract::notation`), and `stratego_contract::conformance::random_sim_test`
//! checks it through the traits (cotoan/tests/game.rs). Code written against
//! the traits alone plays it: the contract's generic arena, its random bot
//! and its UCT search (`stratego_contract::arena`, `bots`, `mcts`;
//! cotoan/tests/arena.rs, `stratego game-arena --game cotoan`). The lab's
//! Stratego players and Stratego arena do not: they decide from Stratego's
//! information views (hidden pieces, beliefs, setups).
//!
//! - `game`: the game object (type, parameters, sizes, initial state);
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
pub mod game;
pub mod moves;
pub mod observation;
pub mod settings;
pub mod square;
pub mod state;

pub use board::{zero_home, Board, Piece};
pub use error::{CoToanError, SettingsError};
pub use game::CoToanGame;
pub use moves::{LegalMove, Move, Witness, NUM_ACTIONS};
pub use observation::OBSERVATION_LEN;
pub use settings::{HorizonRule, Operator, OperatorMask, Settings, TaskId, RULES_VERSION};
pub use square::{Direction, Square};
pub use state::{CoToanState, EndReason, Outcome};
