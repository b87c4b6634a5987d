//! Stratego on the game contract (`api`): the state API of `State` and the
//! game object `StrategoGame`.
//!
//! **Setups are a sampled chance event.** A game of Stratego starts with
//! both sides' hidden setups. `StrategoGame` draws them from its setup
//! source (uniform random ones unless given another) with the seed handed to
//! `new_initial_state`, and the game is deterministic after that: its chance
//! mode is `SampledStochastic`. They are not explicit chance nodes because
//! the setup space (about 10^33 classic armies a side) cannot be listed as
//! chance outcomes, and not player actions because the state API's 1800
//! action ids are moves; a setup policy is a setup source.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::action::NUM_ACTIONS;
use crate::error::Error;
use crate::obs::{Encoder, Layout};
use crate::piece::Color;
use crate::rules::Ruleset;
use crate::square::Square;
use crate::state::State;
use crate::vecenv::{RandomSetups, SetupSource};
use stratego_contract::api::{ChanceMode, Game, GameState, GameType, Information};
use stratego_contract::canonical::CanonicalSettings;

/// The layout of `GameState::observation` for Stratego: the compact planes
/// (which need no piece histories), from the observing player's frame.
pub const OBSERVATION_LAYOUT: Layout = Layout::Compact;

/// Rows and columns of every observation plane.
const PLANE_SIDE: usize = 10;
const _: () = assert!(PLANE_SIDE * PLANE_SIDE == Square::COUNT);

impl GameState for State {
    type Error = Error;

    // The state's own API, player ids for colours.
    stratego_contract::forward_game_state!(NUM_ACTIONS);

    /// `player`'s compact planes (`OBSERVATION_LAYOUT`), in its own frame;
    /// for the side to move the same as `observe(state, Layout::Compact)`.
    fn observation(&self, player: usize) -> Vec<f32> {
        assert!(player < 2, "Stratego has players 0 and 1, not {player}");
        let mut out = vec![0.0; OBSERVATION_LAYOUT.size()];
        Encoder::new(self, Color::BOTH[player], None)
            .write(OBSERVATION_LAYOUT, &mut out)
            .expect("the compact layout needs no histories and the buffer has its size");
        out
    }
}

/// Stratego under one ruleset, with a source of setups: the game object of
/// the contract.
pub struct StrategoGame {
    rules: Ruleset,
    setups: Box<dyn SetupSource>,
}

impl StrategoGame {
    /// Games under `rules` with uniform random setups (`RandomSetups`).
    pub fn new(rules: Ruleset) -> Result<StrategoGame, Error> {
        StrategoGame::with_setups(rules, Box::new(RandomSetups(rules.piece_set)))
    }

    /// Games under `rules` whose setups come from `setups`.
    pub fn with_setups(rules: Ruleset, setups: Box<dyn SetupSource>) -> Result<StrategoGame, Error> {
        rules.validate()?;
        Ok(StrategoGame { rules, setups })
    }

    pub fn rules(&self) -> &Ruleset {
        &self.rules
    }
}

impl Game for StrategoGame {
    type State = State;

    fn game_type(&self) -> GameType {
        GameType::two_player_zero_sum(
            "stratego",
            "Stratego",
            ChanceMode::SampledStochastic,
            Information::ImperfectInformation,
        )
    }

    fn num_distinct_actions(&self) -> usize {
        NUM_ACTIONS
    }

    /// The ruleset's ply cap: a game from setups is drawn once it is reached.
    fn max_game_length(&self) -> usize {
        self.rules.max_plies as usize
    }

    /// The ruleset's canonical keys: `pieces`, `two-square`, `chase`,
    /// `max-plies`, `max-battleless` (the setup source is not a rule).
    fn parameters(&self) -> Vec<(String, String)> {
        self.rules.parameters()
    }

    /// `[58, 10, 10]`: planes, rows, columns.
    fn observation_shape(&self) -> Vec<usize> {
        vec![OBSERVATION_LAYOUT.channels(), PLANE_SIDE, PLANE_SIDE]
    }

    /// Red's and Blue's setups drawn from the setup source with a generator
    /// seeded by `seed`; Red to move.
    fn new_initial_state(&self, seed: u64) -> Result<State, Error> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let (red, blue) = self.setups.setups(&mut rng);
        State::from_setups(self.rules, &red, &blue)
    }

    fn deserialize_state(&self, text: &str) -> Result<State, Error> {
        State::deserialize_under(&self.rules, text)
    }
}
