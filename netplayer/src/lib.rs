//! Network checkpoints as arena players: the bare policy (`net:`, [`policy`])
//! and the searches that use it (`netsearch:`, `netrollout:`,
//! `netexpectimax:`; [`search`], [`rollout`], [`guided`]), each a kind on one
//! scaffold ([`kind`]: the `Player`, the registry entry, the clock and the
//! errors, written once) over one loaded network ([`network`]: loading, the
//! rules check, batched inference).
//!
//! Like every player, a network player decides from its `InfoView` alone. The
//! network reads the engine's observation planes, which are computed from a
//! `State` with its history, so the player first rebuilds such a state from
//! the public information ([`public_replay`](stratego_players::reconstruct::public_replay): the public moves replayed from
//! a root whose hidden opponent types are drawn from the counting prior).
//! The planes never depend on hidden types, so the rebuilt state's planes
//! are the true state's, and the player can learn nothing it may not know.
//! The network's policy over the legal actions (in the acting player's
//! frame) then picks the move: the most likely one by default, or a draw at
//! `temperature=T`.
//!
//! [`register`] adds every kind's entry to a player registry, so `net:PATH`
//! (and the other kinds') specs work wherever specs are read (the arena, ladders, registrations,
//! the UCC bot, the trainers' evaluations).
//!
//! **Other rulesets.** A network plays every ruleset with its checkpoint's
//! piece set (`PlayerFactory::check_rules` is `same_rules`, which refuses
//! only another piece set, at start-up). The progress rules it was trained
//! under it keeps for its own moves through the callers' self-restriction
//! (`trained_rules`). Its only ruleset-dependent inputs are the two counter
//! planes, `ply / max-plies` and `battleless / max-battleless`: they are
//! computed under the match's rules, so they say how near the match's own
//! caps (its draws) the game is, which is what they told the network in
//! training. Under rules without caps (the UCC referee's, whose turn limit
//! ends a game from outside) they stay near 0, as in the early part of a
//! training game: no draw by a cap is coming.
//!
//! This crate sits above the model and the player interface so that the
//! model depends on the engine and burn only, and above the baselines,
//! whose expectimax the guided search (`netexpectimax`, [`guided`]) runs.

mod error;
pub mod guided;
pub mod kind;
pub mod network;
pub mod policy;
pub mod rollout;
pub mod search;
pub mod veto;

use burn::tensor::Device;
use stratego_players::Registry;

pub use error::NetPlayerError;
pub use kind::{entry, NetworkPlayer, NetworkPlayerKind, Reads};
pub use network::{Network, NetworkFactory};
pub use policy::{NetOptions, NetPlayer, NetPlayerFactory};

/// Adds every kind of network player to a registry (one line a kind):
/// checkpoints are loaded onto `device`, or, with `None`, onto the CPU, the
/// device made only when a network spec asks for one (the command line,
/// where most specs name baselines).
pub fn register(registry: &mut Registry, device: Option<Device>) {
    registry.register(entry::<search::SearchOptions>(device.clone()));
    registry.register(entry::<guided::GuidedOptions>(device.clone()));
    registry.register(entry::<rollout::RolloutOptions>(device.clone()));
    registry.register(entry::<NetOptions>(device));
}
