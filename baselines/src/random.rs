//! The uniform random player: the floor of every ladder.

use rand::Rng;
use stratego_engine::{Move, PieceSet, Setup};

use stratego_players::{AgentRng, InfoView, Naming, Player, PlayerError, PlayerSpec, SetupPolicy};

/// `random[:setup=S]`.
pub fn random_spec(setup: SetupPolicy, naming: Naming) -> PlayerSpec {
    PlayerSpec::named("random").with_setup(setup, naming)
}

/// Plays a uniformly random legal move.
#[derive(Clone, Debug, Default)]
pub struct RandomPlayer {
    pub setup: SetupPolicy,
}

impl Player for RandomPlayer {
    fn name(&self) -> String {
        random_spec(self.setup, Naming::Canonical).to_string()
    }

    fn choose_setup(&mut self, set: PieceSet, rng: &mut AgentRng) -> Setup {
        self.setup.choose(set, rng)
    }

    fn choose_move(&mut self, view: &InfoView<'_>, rng: &mut AgentRng) -> Result<Move, PlayerError> {
        Ok(view.legal_moves[rng.random_range(0..view.legal_moves.len())])
    }
}
