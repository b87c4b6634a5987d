//! Exact, versioned Stratego rules behind an OpenSpiel-style state API.
//!
//! The rules are documented in docs/RULES.md (`stratego-rules v1`) and the
//! representation contract (ruleset identity, coordinates, action ids, text
//! formats) in docs/CONTRACT.md. This crate depends on no ML library.
//!
//! The game contract other games implement beside Stratego (`Game`,
//! `GameState`, settings texts, square and move names, seeds,
//! `random_sim_test`) is the `stratego_contract` crate beneath this one;
//! this crate implements it for Stratego and knows no other game.

pub mod action;
pub mod belief;
mod chase;
pub mod error;
pub mod game;
pub mod history;
mod movegen;
pub mod obs;
pub mod piece;
pub mod playout;
pub mod position;
pub mod progress;
pub mod record;
pub mod rules;
pub mod setup;
pub mod speed;
pub mod square;
pub mod state;
mod two_square;
pub mod vecenv;
mod zobrist;

pub use action::{ActionId, Move, MoveSyntaxError, NUM_ACTIONS};
pub use belief::{CountingPrior, TypeDistribution};
pub use error::Refusal;
pub use error::{Error, SetupError};
pub use game::StrategoGame;
pub use history::HistoryFeatures;
pub use obs::{observe, Encoder, Layout, LayoutId, ParseLayoutIdError, SparseObservation};
pub use piece::{battle, BattleResult, Color, Piece, PieceSet, PieceType};
pub use position::{Board, Position};
pub use progress::{ProgressRules, ProgressTracker};
pub use record::GameRecord;
pub use rules::{RulesError, Ruleset, RulesetId, NAMED_RULESETS, REFEREE_MAX_PLIES, RULES_VERSION};
pub use setup::Setup;
pub use square::Square;
pub use state::{BattleRecord, Death, EndReason, Outcome, PlyRecord, State};
pub use stratego_contract::api::{Game, GameState, GameType, Reason};
pub use vecenv::{write_belief_targets, FinishedGame, RandomSetups, SetupSource, SparseBatch, VecEnv, BELIEF_IGNORE};
