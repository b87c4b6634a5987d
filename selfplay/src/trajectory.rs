//! What actors send: a finished game and, for each of its plies, what the
//! acting player's policy saw and did.
//!
//! Observation planes are not stored (a 488-plane observation is 195 KB):
//! the game record rebuilds every observation exactly, and the learner
//! encodes only the samples it keeps.

use stratego_engine::{ActionId, Color, GameRecord, Outcome};

/// One decision of the side to move.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
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

/// A finished self-play game: its record and one decision per ply.
#[derive(Clone, Debug)]
pub struct GameTrajectory {
    pub record: GameRecord,
    pub outcome: Outcome,
    /// `decisions[p]` was taken at ply `p` of the game.
    pub decisions: Vec<Decision>,
}

impl GameTrajectory {
    /// The plies at which `player` acted: its own ("solipsistic") trajectory.
    pub fn plies_of(&self, player: Color) -> impl Iterator<Item = usize> + '_ {
        self.decisions.iter().enumerate().filter(move |(_, d)| d.player == player).map(|(p, _)| p)
    }

    pub fn plies(&self) -> usize {
        self.decisions.len()
    }
}
