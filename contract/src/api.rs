//! The game contract, with OpenSpiel's names (docs/CONTRACT.md, section 4).
//!
//! As in OpenSpiel, the game object is apart from its states: a `Game` says
//! what the game is (`GameType`), its parameters (its canonical settings
//! keys and values), the sizes of its action space, games and observations,
//! and creates initial states; a `GameState` is one moment of one game
//! (player to act, legal actions, play, returns, observations, an exact
//! text form). `Outcome` is the shared result type, over each game's
//! `Reason` for ending.
//!
//! What is generic is this contract and what is written against it alone,
//! the rest of this crate: the two sides (`Color`), the canonical settings
//! texts (`canonical`) and their short ids, the seed derivation (`seed`), the
//! square and move notation (`notation`), the fields of state texts
//! (`snapshot`), the conformance check `conformance::random_sim_test` (with
//! the checks of outcomes, square names and parameters beside it), and the
//! generic arena (`arena`: bots, games, paired matches), the UCT search
//! (`mcts`, for perfect-information games) and the generic bots' specs
//! (`bots`), which play any `Game` through these traits; and the macros that
//! declare what a game's types share (`end_reasons!`, `forward_game_state!`,
//! `endpoint_move!`). Stratego implements the contract in `stratego-engine` (its
//! `StrategoGame`, and `GameState` for its `State`); CoToan in
//! `stratego-cotoan`; neither knows the other. The Stratego players and the
//! Stratego arena (`stratego-evaluation`) are not generic: they decide from
//! Stratego's information views (hidden pieces, beliefs, setups), so they
//! play Stratego only.

use std::fmt;
use std::hash::Hash;

use crate::Color;

/// An action's id: an index into a game's fixed action space
/// (`Game::num_distinct_actions`), as in OpenSpiel.
pub type ActionId = u16;

/// One moment of a game on the contract: what OpenSpiel calls a state.
/// Players are 0 and 1 (Red and Blue).
pub trait GameState: Clone + PartialEq {
    type Error: std::error::Error;

    /// Size of the fixed action space (every id is below it).
    fn num_distinct_actions(&self) -> usize;
    /// The player to act (0 or 1), or `None` once the game is over.
    fn current_player(&self) -> Option<usize>;
    /// Legal action ids of the player to act, sorted ascending; empty at the end.
    fn legal_actions(&self) -> Vec<ActionId>;
    /// A `num_distinct_actions`-long mask of `legal_actions`.
    fn legal_action_mask(&self) -> Vec<bool> {
        let mut mask = vec![false; self.num_distinct_actions()];
        for a in self.legal_actions() {
            mask[a as usize] = true;
        }
        mask
    }
    /// Plays an action of the player to act; an illegal one is an error and
    /// leaves the state unchanged.
    fn apply_action(&mut self, action: ActionId) -> Result<(), Self::Error>;
    fn is_terminal(&self) -> bool;
    /// Final returns per player (zero-sum); zeros before the end.
    fn returns(&self) -> Vec<f32>;
    /// A readable name of an action of the player to act.
    fn action_to_string(&self, action: ActionId) -> String;
    /// An exact text form; `deserialize` of it gives an equal state.
    fn serialize(&self) -> String;
    fn deserialize(text: &str) -> Result<Self, Self::Error>;
    /// What `player` (0 or 1) observes now, as a flat vector of the game's
    /// `Game::observation_shape` (OpenSpiel's observation tensor). It is a
    /// function of that player's information only. Panics for a player
    /// other than 0 or 1.
    fn observation(&self, player: usize) -> Vec<f32>;
}

/// A game on the contract: the object a state is created from, apart from
/// the states (OpenSpiel's `Game`).
pub trait Game {
    type State: GameState;

    /// What kind of game this is.
    fn game_type(&self) -> GameType;
    /// Players per game: the game type's (fixed) number.
    fn num_players(&self) -> usize {
        self.game_type().max_num_players
    }
    /// Size of the fixed action space: every action id is below it.
    fn num_distinct_actions(&self) -> usize;
    /// The most plies a game from `new_initial_state` can last.
    fn max_game_length(&self) -> usize;
    /// The smallest return a player can get (a loss).
    fn min_utility(&self) -> f32 {
        -1.0
    }
    /// The largest return a player can get (a win).
    fn max_utility(&self) -> f32 {
        1.0
    }
    /// The game's parameters: the keys and values of its canonical settings
    /// text, in canonical order (`canonical::CanonicalSettings::parameters`).
    fn parameters(&self) -> Vec<(String, String)>;
    /// The shape of `GameState::observation`.
    fn observation_shape(&self) -> Vec<usize>;
    /// The length of `GameState::observation`: the product of the shape.
    fn observation_size(&self) -> usize {
        self.observation_shape().iter().product()
    }
    /// A new game. `seed` draws the game's chance events at the start (how
    /// depends on the game type's `ChanceMode`); a deterministic game ignores
    /// it. The same seed gives an equal state.
    fn new_initial_state(&self, seed: u64) -> Result<Self::State, <Self::State as GameState>::Error>;
    /// `GameState::deserialize`, refusing a state of another game (another
    /// ruleset or settings).
    fn deserialize_state(&self, text: &str) -> Result<Self::State, <Self::State as GameState>::Error>;
}

/// What kind of game a `Game` is (OpenSpiel's `GameType`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GameType {
    /// A short name without spaces: `stratego`.
    pub short_name: &'static str,
    pub long_name: &'static str,
    pub dynamics: Dynamics,
    pub chance_mode: ChanceMode,
    pub information: Information,
    pub utility: Utility,
    pub reward_model: RewardModel,
    pub min_num_players: usize,
    pub max_num_players: usize,
    /// Whether `GameState::observation` is implemented.
    pub provides_observation_tensor: bool,
}

impl GameType {
    /// A sequential two-player zero-sum game with returns at the end and an
    /// observation tensor: the shape of the board games on this contract.
    pub const fn two_player_zero_sum(
        short_name: &'static str,
        long_name: &'static str,
        chance_mode: ChanceMode,
        information: Information,
    ) -> GameType {
        GameType {
            short_name,
            long_name,
            dynamics: Dynamics::Sequential,
            chance_mode,
            information,
            utility: Utility::ZeroSum,
            reward_model: RewardModel::Terminal,
            min_num_players: 2,
            max_num_players: 2,
            provides_observation_tensor: true,
        }
    }
}

/// Whether players act in turn or together.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dynamics {
    /// One player acts per ply.
    Sequential,
    /// All players act together.
    Simultaneous,
}

/// How chance enters the game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ChanceMode {
    /// No chance events.
    Deterministic,
    /// Chance events are nodes of the game tree, with listed outcomes and
    /// probabilities.
    ExplicitStochastic,
    /// Chance events are drawn when they happen (from the seed given to
    /// `Game::new_initial_state`); their outcomes are not listed.
    SampledStochastic,
}

/// Whether every player sees the whole state.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Information {
    PerfectInformation,
    ImperfectInformation,
}

/// How the players' returns relate.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Utility {
    /// The returns sum to 0.
    ZeroSum,
    /// The returns sum to a constant.
    ConstantSum,
    GeneralSum,
    /// Every player gets the same return.
    Identical,
}

/// When rewards are given.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RewardModel {
    /// Only at the end: the returns.
    Terminal,
    /// After every ply.
    Rewards,
}

/// Why a game ended: each game's enumeration of its end reasons.
pub trait Reason: Copy + Eq + Hash + fmt::Debug + 'static {
    /// Every reason, in the order the game's end checks run.
    const ALL: &'static [Self];
    /// The reason's name in texts (`flag-captured`).
    fn name(self) -> &'static str;
    /// The reason of this name.
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|r| r.name() == name)
    }
}

/// Defines a game's end reasons: the enum, with `ALL` (every reason, in the
/// order the game's end checks run) and `name` (the reason's name in texts)
/// as inherent items, and its `Reason` implementation from them. Each
/// variant is written `Variant => "name",`, with its doc comment.
///
/// ```
/// stratego_contract::end_reasons! {
///     /// Why a game of the toy ended.
///     pub enum EndReason {
///         /// The goal was reached.
///         Goal => "goal",
///         PlyCap => "ply-cap",
///     }
/// }
/// use stratego_contract::api::Reason;
/// assert_eq!(EndReason::ALL, [EndReason::Goal, EndReason::PlyCap]);
/// assert_eq!((EndReason::PlyCap.name(), EndReason::from_name("goal")), ("ply-cap", Some(EndReason::Goal)));
/// ```
#[macro_export]
macro_rules! end_reasons {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($(#[$doc:meta])* $reason:ident => $text:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
        $vis enum $name {
            $($(#[$doc])* $reason,)+
        }

        impl $name {
            /// Every reason, in the order the end checks run.
            pub const ALL: [$name; [$($text),+].len()] = [$($name::$reason),+];

            /// The reason's name in texts.
            pub const fn name(self) -> &'static str {
                match self {
                    $($name::$reason => $text,)+
                }
            }
        }

        impl $crate::api::Reason for $name {
            const ALL: &'static [$name] = &$name::ALL;

            fn name(self) -> &'static str {
                $name::name(self)
            }
        }
    };
}

/// Implements, inside `impl GameState for ...`, every method of the trait
/// but `observation` by forwarding it to the state's inherent method of the
/// same name (which each must have: the state's own API, with `Color` for
/// the player and `[f32; 2]` for the returns); `num_distinct_actions` is
/// `$actions`, the size of the game's action space.
#[macro_export]
macro_rules! forward_game_state {
    ($actions:expr) => {
        fn num_distinct_actions(&self) -> usize {
            $actions
        }
        fn current_player(&self) -> Option<usize> {
            Self::current_player(self).map(|c| c.index())
        }
        fn legal_actions(&self) -> Vec<$crate::api::ActionId> {
            Self::legal_actions(self)
        }
        fn legal_action_mask(&self) -> Vec<bool> {
            Self::legal_action_mask(self)
        }
        fn apply_action(&mut self, action: $crate::api::ActionId) -> Result<(), Self::Error> {
            Self::apply_action(self, action)
        }
        fn is_terminal(&self) -> bool {
            Self::is_terminal(self)
        }
        fn returns(&self) -> Vec<f32> {
            Self::returns(self).to_vec()
        }
        fn action_to_string(&self, action: $crate::api::ActionId) -> String {
            Self::action_to_string(self, action)
        }
        fn serialize(&self) -> String {
            Self::serialize(self)
        }
        fn deserialize(text: &str) -> Result<Self, Self::Error> {
            Self::deserialize(text)
        }
    };
}

/// The result of a finished game, for any game's end reasons.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Outcome<R> {
    /// `None` for a draw.
    pub winner: Option<Color>,
    pub reason: R,
}

impl<R: Reason> Outcome<R> {
    /// Returns per player (Red, Blue): +1 win, -1 loss, 0 draw.
    pub fn returns(&self) -> [f32; 2] {
        match self.winner {
            Some(Color::Red) => [1.0, -1.0],
            Some(Color::Blue) => [-1.0, 1.0],
            None => [0.0, 0.0],
        }
    }

    /// `red-wins flag-captured`, `draw ply-cap`: the form used in records.
    pub fn to_text(&self) -> String {
        match self.winner {
            Some(c) => format!("{c}-wins {}", self.reason.name()),
            None => format!("draw {}", self.reason.name()),
        }
    }

    /// Reads `to_text`'s form.
    pub fn parse(text: &str) -> Option<Outcome<R>> {
        let (who, why) = text.trim().split_once(' ')?;
        let reason = R::from_name(why.trim())?;
        let winner = match who {
            "draw" => None,
            "red-wins" => Some(Color::Red),
            "blue-wins" => Some(Color::Blue),
            _ => return None,
        };
        Some(Outcome { winner, reason })
    }
}

impl<R: Reason> fmt::Display for Outcome<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}
