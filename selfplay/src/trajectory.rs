//! What actors send: a finished game and, for each ply the network played,
//! what its policy saw and did (both seats in self-play; only the learner's
//! seat in a game against a fixed opponent).
//!
//! Observation planes are not stored (a 488-plane observation is 195 KB):
//! the game record rebuilds every observation exactly, and the learner
//! encodes only the samples it keeps.

use stratego_engine::{ActionId, Color, GameRecord, Outcome};

/// One decision of the side to move.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The ply of the game it was taken at (0 = the first move).
    pub ply: usize,
    /// The side that acted.
    pub player: Color,
    /// The policy version (learner iteration) whose network chose.
    pub version: u64,
    /// The action played, in the acting player's frame.
    pub action: ActionId,
    /// The legal actions, ascending...
    pub legal: Vec<ActionId>,
    /// ... and the behaviour policy's probability of each.
    pub behaviour: Vec<f32>,
    /// The network's loss / draw / win probabilities for the acting player.
    pub value: [f32; 3],
}

impl Decision {
    /// The behaviour probability of the action played.
    pub fn behaviour_of_action(&self) -> f32 {
        self.legal.iter().position(|&a| a == self.action).map_or(0.0, |i| self.behaviour[i])
    }
}

/// The fixed player the network met in a game, and its seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpponentSeat {
    /// Its index in the actors' `opponents`.
    pub index: usize,
    pub color: Color,
}

/// A finished game: its record and the network's decisions, in ply order.
#[derive(Clone, Debug)]
pub struct GameTrajectory {
    pub record: GameRecord,
    pub outcome: Outcome,
    /// One per ply in self-play; in a game against `opponent`, one per ply
    /// of the other seat.
    pub decisions: Vec<Decision>,
    /// `None` in self-play.
    pub opponent: Option<OpponentSeat>,
}

impl GameTrajectory {
    /// The decisions of `player`: its own ("solipsistic") trajectory.
    pub fn decisions_of(&self, player: Color) -> impl Iterator<Item = &Decision> + '_ {
        self.decisions.iter().filter(move |d| d.player == player)
    }

    /// The network's decision at `ply`, if it played that ply.
    pub fn decision_at(&self, ply: usize) -> Option<&Decision> {
        self.decisions.binary_search_by_key(&ply, |d| d.ply).ok().map(|i| &self.decisions[i])
    }

    /// The network's decisions (the samples the game can give).
    pub fn plies(&self) -> usize {
        self.decisions.len()
    }
}
