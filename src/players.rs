//! The players the command line knows: the baselines' and the network
//! player's registry entries. `stratego players` lists them; every command
//! that takes a player spec builds it here.

use std::sync::Arc;

use stratego_players::{PlayerFactory, Registry, SpecError};

/// Every player: the baselines, and network checkpoints loaded on the CPU
/// (the device is made only when a `net:` spec asks for one).
pub fn registry() -> Registry {
    let mut registry = stratego_baselines::registry();
    stratego_netplayer::register(&mut registry, None);
    registry
}

/// The factory of a spec text.
pub fn factory(text: &str) -> Result<Arc<dyn PlayerFactory>, SpecError> {
    registry().factory(text)
}
