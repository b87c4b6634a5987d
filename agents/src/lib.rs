//! Baseline Stratego players and the arena that measures them.
//!
//! - [`player`]: the one `Player` trait (and the factory the arena uses);
//!   every player decides from an [`view::InfoView`], the acting player's
//!   information only.
//! - Players: [`random`], [`greedy`] (one ply, counting prior), [`expectimax`]
//!   (search with chance nodes and Star1 pruning, over [`determinize`]d
//!   states, scored by [`eval`]); setups by [`setup_policy`]; names by [`spec`].
//! - [`ntuple`]: an n-tuple network trained by TD(lambda) self-play: the
//!   afterstate player `ntuple:PATH` and a learned leaf for expectimax.
//! - [`reconstruct`]: a state with the whole game's history rebuilt from a
//!   view, for network players that need the engine's observation planes.
//! - [`arena`]: paired, seeded, parallel matches; [`report`]: their summary,
//!   results JSON and game records; [`stats`]: pentanomial Elo, LOS, SPRT and
//!   Bradley-Terry; [`ladder`] and
//!   [`chart`]: round robins and their PNG; [`registration`]: pre-registered
//!   comparisons with an append-only results log.
//! - [`ucc`]: the UCC 2012 referee protocol, so our players can meet that
//!   competition's bots; [`bench`](mod@bench): throughput figures.
//!
//! Depends on the engine only: a network player implements `Player` from the
//! model crate.

pub mod arena;
pub mod bench;
pub mod chart;
pub mod determinize;
pub mod eval;
pub mod expectimax;
pub mod greedy;
pub mod ladder;
pub mod ntuple;
pub mod player;
pub mod random;
pub mod reconstruct;
pub mod registration;
pub mod report;
pub mod setup_policy;
pub mod spec;
pub mod stats;
pub mod ucc;
pub mod values;
pub mod view;

pub use player::{AgentRng, Player, PlayerFactory};
pub use spec::{PlayerSpec, SpecError};
pub use view::InfoView;
