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
mod service;
mod trajectory;

pub use actor::{spawn_actors, ActorConfig, Actors};
pub use service::{InferenceService, PolicyClient, PolicyReply};
pub use trajectory::{Decision, GameTrajectory};

/// What stops self-play.
#[derive(Debug, thiserror::Error)]
pub enum SelfPlayError {
    #[error("engine: {0}")]
    Engine(#[from] stratego_engine::Error),
    #[error("network: {0}")]
    Model(#[from] stratego_model::ModelError),
    #[error("the inference service has stopped")]
    ServiceGone,
}
