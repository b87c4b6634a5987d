//! The game contract beneath the lab's games (docs/CONTRACT.md): what every
//! game implements and what is written against that alone. Stratego
//! (`stratego-engine`) and CoToan (`stratego-cotoan`) stand on it side by
//! side; nothing here knows either. A third game is one crate on this
//! contract and one line in the command line's game registry
//! (docs/ARCHITECTURE.md, "Where a change goes"); the generic arena
//! (`arena`), search (`mcts`) and bots (`bots`) play it from the start.

pub mod api;
pub mod arena;
pub mod bots;
pub mod canonical;
pub mod conformance;
pub mod mcts;
pub mod notation;
pub mod seed;
pub mod short_id;
mod side;
pub mod snapshot;

pub use api::{ActionId, Game, GameState, GameType, Reason};
pub use side::Color;
