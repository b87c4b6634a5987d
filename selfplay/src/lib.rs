//! Self-play: actor threads play batched games with the current network and
//! stream finished games to the learner.
//!
//! ```text
//!  actor 0 ─┐  (planes, masks)   ┌──────────────────┐
//!  actor 1 ─┼──────────────────▶ │ inference service │ ◀── new weights (learner)
//!  actor N ─┘ ◀── probabilities ─└──────────────────┘
//!     │
//!     └── GameTrajectory ──▶ bounded channel ──▶ learner
//! ```
//!
//! The inference service owns the network on its device and answers the
//! requests of all actors together, so a GPU sees one large batch per step.
//! Channels are bounded: when the learner falls behind, actors block on
//! `send` instead of filling memory.

mod actor;
mod pool;
mod service;
mod trajectory;
mod wire;

pub use actor::{actor_seeds, spawn_actors, ActorConfig, Actors, Role};
pub use pool::Pool;
pub use service::{InferenceService, PolicyClient, PolicyReply};
pub use trajectory::{Decision, GameTrajectory, OpponentSeat};
pub use wire::{decode_trajectories, encode_trajectories, WireError};

/// What stops self-play.
#[derive(Debug, thiserror::Error)]
pub enum SelfPlayError {
    #[error("engine: {0}")]
    Engine(#[from] stratego_engine::Error),
    #[error("network: {0}")]
    Model(#[from] stratego_model::ModelError),
    /// A fixed opponent could not move (its own error, or a move that is
    /// not on the board).
    #[error("opponent {name}: {why}")]
    Opponent { name: String, why: String },
    /// The policy gave no legal action a positive probability: its
    /// outputs are not a distribution (a diverged network).
    #[error("the network gave no legal action a positive probability (non-finite outputs: has training diverged?)")]
    NoLegalAction,
    #[error("the inference service has stopped")]
    ServiceGone,
    /// An actor thread panicked; `message` is the panic's own.
    #[error("actor {actor} panicked: {message}")]
    ActorPanicked { actor: usize, message: String },
    /// In lockstep, an actor stopped (or its channel closed) before it had
    /// played the steps granted to it; `Actors::stop` says why.
    #[error("actor {0} stopped before playing its steps")]
    ActorGone(usize),
    /// Steps were granted to actors that were not started gated (or to an
    /// actor that does not exist).
    #[error("the actors were not started gated (or there is no such actor)")]
    NotGated,
}

/// A test player: plays the first of its legal moves.
#[cfg(test)]
pub(crate) struct First;

#[cfg(test)]
impl stratego_players::Player for First {
    fn name(&self) -> String {
        "first".into()
    }
    fn choose_move(
        &mut self,
        view: &stratego_players::InfoView<'_>,
        _: &mut stratego_players::AgentRng,
    ) -> Result<stratego_engine::Move, stratego_players::PlayerError> {
        Ok(view.legal_moves[0])
    }
}

/// A tiny network for the tests. burn seeds one generator per backend,
/// which tests running in parallel share: seeding and initialising under
/// one lock makes each network a function of its seed (`StrategoNet::new`
/// draws every parameter at once; burn's lazy initialisation drew most of
/// them at the first forward pass, outside the lock, which let two
/// networks of one seed differ: CI saw it in the lockstep test).
#[cfg(test)]
pub(crate) fn test_net(seed: u64) -> (stratego_model::StrategoNet, stratego_model::Device) {
    static INIT: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = INIT.lock().unwrap_or_else(|e| e.into_inner());
    let device = stratego_model::device("cpu").unwrap();
    device.seed(seed);
    (stratego_model::StrategoNet::tiny(stratego_engine::Layout::Compact, &device), device)
}
