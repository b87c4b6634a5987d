//! CoToan's game object on the contract (`stratego_contract::api::Game`).

use stratego_contract::api::{ChanceMode, Game, GameType, Information};
use stratego_contract::canonical::CanonicalSettings;

use crate::error::CoToanError;
use crate::moves::NUM_ACTIONS;
use crate::observation::OBSERVATION_LEN;
use crate::settings::Settings;
use crate::state::CoToanState;

/// CoToan under one task's settings. Perfect information and no chance:
/// every game of a task starts from the same state.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct CoToanGame {
    settings: Settings,
}

impl CoToanGame {
    /// The game of a task; its settings are validated.
    pub fn new(settings: Settings) -> Result<CoToanGame, CoToanError> {
        settings.validate()?;
        Ok(CoToanGame { settings })
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }
}

impl Game for CoToanGame {
    type State = CoToanState;

    fn game_type(&self) -> GameType {
        GameType::two_player_zero_sum(
            "cotoan",
            "CoToan (Cờ Toán, Vietnamese mathematical chess)",
            ChanceMode::Deterministic,
            Information::PerfectInformation,
        )
    }

    /// 9801: `99 * SRC + DST`.
    fn num_distinct_actions(&self) -> usize {
        NUM_ACTIONS
    }

    /// The horizon: a game is adjudicated once that many plies are played.
    fn max_game_length(&self) -> usize {
        self.settings.horizon as usize
    }

    /// The settings' canonical keys: `threshold`, `horizon`, `horizon-rule`,
    /// `operators`, `start`.
    fn parameters(&self) -> Vec<(String, String)> {
        self.settings.parameters()
    }

    /// `[1993]`: the flat vector of `observation::observe`.
    fn observation_shape(&self) -> Vec<usize> {
        vec![OBSERVATION_LEN]
    }

    /// The task's starting position (`seed` is not used: no chance).
    fn new_initial_state(&self, _seed: u64) -> Result<CoToanState, CoToanError> {
        CoToanState::new(self.settings)
    }

    fn deserialize_state(&self, text: &str) -> Result<CoToanState, CoToanError> {
        CoToanState::deserialize_under(&self.settings, text)
    }
}
