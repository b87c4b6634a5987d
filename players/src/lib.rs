//! The player interface every Stratego player implements and every caller
//! (the arena, the UCC bot, the trainers) speaks.
//!
//! - [`player`]: the `Player` trait, its factory and its error; every player
//!   decides from an [`view::InfoView`], the acting player's information only;
//! - [`spec`]: the command-line names of players (a name, a path, options),
//!   parsed without knowing any player; [`registry`]: the name of a player to
//!   its constructor, filled by the player crates themselves;
//! - [`setup_policy`]: random and handcrafted starting armies;
//! - [`determinize`], [`reconstruct`]: engine states consistent with a view,
//!   for players that search or read the engine's observation planes.
//!
//! Depends on the engine only, and names no concrete player.

pub mod determinize;
pub mod player;
pub mod reconstruct;
pub mod registry;
pub mod setup_policy;
pub mod spec;
pub mod view;

pub use player::{AgentRng, FnFactory, Player, PlayerError, PlayerFactory, RulesRefused};
pub use registry::{Entry, Registry};
pub use setup_policy::SetupPolicy;
pub use spec::{Naming, PlayerSpec, SpecError};
pub use view::InfoView;
