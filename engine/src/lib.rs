//! Exact, versioned Stratego rules behind an OpenSpiel-style state API.
//!
//! The rules are documented in docs/RULES.md (`stratego-rules v1`) and the
//! representation contract (ruleset identity, coordinates, action ids, text
//! formats) in docs/CONTRACT.md. This crate depends on no ML library.

pub mod action;
pub mod api;
pub mod belief;
mod chase;
pub mod cotoan;
pub mod error;
pub mod history;
mod movegen;
pub mod obs;
pub mod piece;
pub mod playout;
pub mod position;
pub mod record;
pub mod rules;
pub mod setup;
mod short_id;
pub mod speed;
pub mod square;
pub mod state;
mod two_square;
pub mod vecenv;
mod zobrist;

pub use action::{ActionId, Move, NUM_ACTIONS};
pub use api::GameState;
pub use belief::{CountingPrior, TypeDistribution};
pub use error::{Error, RulesError, SetupError};
pub use history::HistoryFeatures;
pub use obs::{observe, Encoder, Layout};
pub use piece::{battle, BattleResult, Color, Piece, PieceSet, PieceType};
pub use position::{Board, Position};
pub use record::GameRecord;
pub use rules::{Ruleset, RulesetId, RULES_VERSION};
pub use setup::Setup;
pub use square::Square;
pub use state::{BattleRecord, Death, EndReason, Outcome, PlyRecord, State};
pub use vecenv::{write_belief_targets, FinishedGame, RandomSetups, SetupSource, VecEnv, BELIEF_IGNORE};
