//! The players the command line knows: `stratego_roster::players`, the one
//! list the learner's evaluations and the Python package use too.
//! `stratego players` lists them; every command that takes a player spec
//! builds it here.

use std::sync::Arc;

use stratego_players::{PlayerFactory, Registry, SpecError};

/// Every player: the baselines, and network checkpoints loaded on the CPU
/// (the device is made only when a `net:` spec asks for one).
pub fn registry() -> Registry {
    stratego_roster::players()
}

/// The factory of a spec text.
pub fn factory(text: &str) -> Result<Arc<dyn PlayerFactory>, SpecError> {
    registry().factory(text)
}

/// A player flag's help, listing every registered kind (so a new kind
/// shows up in every command's help without touching it).
pub fn spec_help(what: &str) -> String {
    format!("{what}: a player spec, one of {} (`stratego players` explains each)", registry().known())
}
