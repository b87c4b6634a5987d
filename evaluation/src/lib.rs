//! Evaluation: how players are measured against each other (outside bots
//! among them: `ucc:` players, from `stratego-ucc`).
//!
//! - [`arena`]: paired, seeded, parallel matches between two factories;
//!   [`report`]: their summary, results JSON and game records;
//! - [`stats`]: pentanomial Elo, LOS, SPRT and Bradley-Terry;
//! - [`ladder`] and [`chart`]: round robins, their ratings and PNG charts
//!   (the only crate, with the command line, that draws);
//! - [`registration`]: comparisons stated before they are run, with an
//!   append-only results log;
//! - [`bench`](mod@bench): the arena's throughput;
//! - [`setup_search`]: armies searched against a field (`stratego setups search`).
//!
//! Depends on the engine and the player interface only: players reach it as
//! factories, built from specs by the caller's registry, so evaluation never
//! names a concrete player.

pub mod arena;
pub mod bench;
pub mod chart;
pub mod ladder;
pub mod registration;
pub mod report;
pub mod setup_search;
pub mod stats;
