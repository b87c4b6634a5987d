//! The UCC 2012 Stratego referee protocol (`shared/reference/ucc-protocol.md`),
//! both ways, so that the lab meets that competition's bots:
//!
//! - [`protocol`]: the texts of the protocol (move, reply, setup and board
//!   lines, outcome words) and the ruleset a referee game is played under;
//! - [`bot`]: any of our players as a bot of the real referee (`stratego
//!   ucc-bot`), keeping the game from the referee's lines;
//! - [`player`]: any program that speaks the protocol as a lab player
//!   (`ucc:COMMAND`), refereed by the lab, with [`program`] holding the
//!   process as the referee does (its own process group, stopped between
//!   turns, a limit per reply, killed with the game);
//! - [`botlog`]: a bot's own log (`ucc-bot --record`) read back and
//!   replayed, the opponent's army guessed from what the referee told;
//! - [`review`]: how a game against an outside bot was lost, read from the
//!   real referee's log (the Flag to a known Miner, officers on Bombs, the
//!   Marshal to the Spy).
//!
//! Depends on the engine and the player interface only: the arena, ladders,
//! registrations and the learner meet `ucc:` players as any other, through
//! the registry (`stratego_roster::players`).

pub mod bot;
pub mod botlog;
pub mod player;
pub mod program;
pub mod protocol;
pub mod review;

pub use player::{register, UccFactory, UccPlayer};
pub use protocol::{ucc_rules, UccError};
