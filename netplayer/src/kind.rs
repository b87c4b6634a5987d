//! The scaffold every network player stands on: a kind is its options and
//! one `decide`; the `Player` it becomes, its registry entry, its clock and
//! its errors are written here once.
//!
//! Adding a kind is one file (its options with [`NetworkPlayerKind`], its
//! search in `decide`) and one line in [`register`](crate::register).

use std::sync::Arc;
use std::time::{Duration, Instant};

use burn::tensor::Device;
use rand::{Rng, SeedableRng};
use stratego_engine::{Color, Move, PieceSet, Setup, State};
use stratego_model::Inference;
use stratego_players::reconstruct::public_replay;
use stratego_players::{AgentRng, Entry, InfoView, Naming, Player, PlayerError, PlayerSpec, SetupPolicy, SpecError};

use crate::network::{load_for_spec, Network};
use crate::NetPlayerError;

/// The share of a decision's clock every kind plans on; the rest is for the
/// caller's bookkeeping and a slow pipe.
pub const CLOCK_SHARE: f64 = 0.8;

/// What every registry entry of a network player says its path is.
pub const CHECKPOINT_PATH: &str = "a network checkpoint, e.g. runs/x/checkpoints/latest.safetensors";

/// A kind of network player: its options, which know how to parse and name
/// themselves, and the decision it makes with the network.
pub trait NetworkPlayerKind: Copy + Send + Sync + 'static {
    /// What the last decision did, for tests and the decision statistics
    /// (`()` for a kind without a search).
    type Stats: Clone + Default + Send + 'static;
    /// The spec's name (`netsearch`).
    const NAME: &'static str;
    /// The options as help and error messages list them.
    const OPTIONS: &'static str;
    /// One line for the help text.
    const ABOUT: &'static str;
    /// Whether a forced move (one legal move) is decided like any other:
    /// the bare policy reads its network even then, and its generator's
    /// draws (and so its registered games) depend on it. The searches play
    /// a forced move at once.
    const DECIDES_FORCED_MOVES: bool = false;

    /// The options of a spec of this kind (its name already checked).
    fn parse(spec: &PlayerSpec) -> Result<Self, SpecError>;

    /// `spec` (the kind's name and the checkpoint's path) with these
    /// options in a fixed order, `setup=` left to [`spec`](Self::spec): those
    /// that differ from the defaults (canonical), or all (resolved).
    fn name_options(&self, spec: PlayerSpec, naming: Naming) -> PlayerSpec;

    /// The spec of a player with these options on the checkpoint `path`,
    /// `setup=` last.
    fn spec(&self, path: &str, naming: Naming) -> PlayerSpec {
        self.name_options(PlayerSpec::named(Self::NAME).with_path(path), naming).with_setup(self.setup(), naming)
    }

    /// How the player sets up its army.
    fn setup(&self) -> SetupPolicy;

    /// The clock per decision, if any: the scaffold plans
    /// [`CLOCK_SHARE`] of it ([`Decision::deadline`]).
    fn clock(&self) -> Option<Duration>;

    /// The caller's clock joins the options' own, the tighter deciding.
    fn limit_move_time(&mut self, limit: Duration);

    /// The move to play in the decision's view (of the network's piece
    /// set, with more than one legal move unless
    /// [`DECIDES_FORCED_MOVES`](Self::DECIDES_FORCED_MOVES)), writing what
    /// the decision did into its statistics.
    fn decide(&self, decision: Decision<'_, '_, Self::Stats>) -> Result<Move, NetPlayerError>;
}

/// What a kind decides with: the shared network, the player's view, its
/// generator (a decision is a function of the view and the generator's
/// state), the statistics to fill, and the clock.
pub struct Decision<'a, 'v, S> {
    pub network: &'a Network,
    pub view: &'a InfoView<'v>,
    pub rng: &'a mut AgentRng,
    pub stats: &'a mut S,
    /// When the decision began.
    pub start: Instant,
    /// With a clock, when the kind should have decided: [`CLOCK_SHARE`] of
    /// the clock after `start`.
    pub deadline: Option<Instant>,
}

/// The items of [`NetworkPlayerKind`] that a kind whose options are a
/// [`kind_options!`] table, with a `time` row (its `time=` option, joined
/// with the caller's clock), writes as every other such kind does: the
/// option list, the parser and the namer from the table; `setup`, `clock`
/// and `limit_move_time` from its fields.
macro_rules! from_the_table {
    () => {
        const OPTIONS: &'static str = Self::OPTION_LIST;

        fn parse(spec: &stratego_players::PlayerSpec) -> Result<Self, stratego_players::SpecError> {
            Self::read_options(spec)
        }

        fn name_options(
            &self,
            spec: stratego_players::PlayerSpec,
            naming: stratego_players::Naming,
        ) -> stratego_players::PlayerSpec {
            self.name_fields(spec, naming)
        }

        fn setup(&self) -> stratego_players::SetupPolicy {
            self.setup
        }

        fn clock(&self) -> Option<std::time::Duration> {
            self.time
        }

        fn limit_move_time(&mut self, limit: std::time::Duration) {
            $crate::kind::join_clock(&mut self.time, limit);
        }
    };
}
pub(crate) use from_the_table;

/// A player of any kind: its name, the shared network, its options and what
/// its last decision did.
pub struct NetworkPlayer<K: NetworkPlayerKind> {
    name: String,
    network: Arc<Network>,
    options: K,
    /// The statistics of the last decision.
    pub last: K::Stats,
}

impl<K: NetworkPlayerKind> NetworkPlayer<K> {
    pub(crate) fn new(name: String, network: Arc<Network>, options: K) -> NetworkPlayer<K> {
        NetworkPlayer { name, network, options, last: K::Stats::default() }
    }

    pub fn options(&self) -> &K {
        &self.options
    }

    pub(crate) fn network(&self) -> &Network {
        &self.network
    }

    /// The move this player chooses, or why it cannot.
    pub fn try_choose_move(&mut self, view: &InfoView<'_>, rng: &mut AgentRng) -> Result<Move, NetPlayerError> {
        self.last = K::Stats::default();
        if view.legal_moves.len() == 1 && !K::DECIDES_FORCED_MOVES {
            return Ok(view.legal_moves[0]);
        }
        // Another piece set is refused at start-up (`check_rules`); a view
        // that still gets here is an error, not a panic. Progress rules and
        // caps may differ (see the crate documentation).
        self.network.check_rules(&view.rules)?;
        let mut stats = K::Stats::default();
        let start = Instant::now();
        let deadline = self.options.clock().map(|t| start + t.mul_f64(CLOCK_SHARE));
        let decision = Decision { network: &self.network, view, rng, stats: &mut stats, start, deadline };
        let mv = self.options.decide(decision)?;
        self.last = stats;
        Ok(mv)
    }
}

impl<K: NetworkPlayerKind> Player for NetworkPlayer<K> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose_setup(&mut self, set: PieceSet, rng: &mut AgentRng) -> Setup {
        self.options.setup().choose(set, rng)
    }

    /// A view the network cannot play (another piece set than the network's,
    /// which the arena refuses beforehand through `check_rules`, a view no
    /// game can lead to, an output that is not a distribution) is an error
    /// that says why.
    fn choose_move(&mut self, view: &InfoView<'_>, rng: &mut AgentRng) -> Result<Move, PlayerError> {
        self.try_choose_move(view, rng)
            .map_err(|e| PlayerError::Failed(format!("{} player `{}`: {e}", K::NAME, self.name)))
    }

    fn limit_move_time(&mut self, limit: Duration) {
        self.options.limit_move_time(limit);
    }
}

/// The registry entry of kind `K`: checkpoints are loaded onto `device`, or,
/// with `None`, onto the CPU, the device made only when a network spec asks
/// for one (the command line, where most specs name baselines).
pub fn entry<K: NetworkPlayerKind>(device: Option<Device>) -> Entry {
    Entry {
        name: K::NAME,
        path: Some(CHECKPOINT_PATH),
        options: K::OPTIONS,
        about: K::ABOUT,
        build: Box::new(move |spec, _| load_for_spec(spec, &device, K::parse(spec)?)),
    }
}

/// A clock joined with the caller's: the tighter decides.
pub fn join_clock(time: &mut Option<Duration>, limit: Duration) {
    *time = Some(time.map_or(limit, |t| t.min(limit)));
}

/// The game rebuilt from the view's public information, the hidden types
/// drawn from the counting prior on a generator of its own, itself drawn
/// from the player's (so that the player's later draws do not depend on how
/// many the rebuild needed); an error unless it has the viewer to move.
pub fn rebuild(view: &InfoView<'_>, rng: &mut AgentRng) -> Result<State, NetPlayerError> {
    let state = public_replay(view, &mut AgentRng::seed_from_u64(rng.random()))?;
    if state.to_move() != view.me || state.is_terminal() {
        return Err(NetPlayerError::NotToMove);
    }
    Ok(state)
}

/// What a searching decision asked of the network: the positions it read
/// and the inference calls that read them. Every read goes through
/// [`Reads::infer`], so the count cannot miss one.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct Reads {
    pub positions: usize,
    pub calls: usize,
}

impl Reads {
    /// The network's output on `states`, in one call, counted.
    pub fn infer(&mut self, network: &Network, states: &[&State]) -> Result<Inference, NetPlayerError> {
        let out = network.infer(states)?;
        self.positions += states.len();
        self.calls += 1;
        Ok(out)
    }

    /// The decision's root: the game rebuilt from the view ([`rebuild`])
    /// and the network's output on it.
    pub fn root(
        &mut self,
        network: &Network,
        view: &InfoView<'_>,
        rng: &mut AgentRng,
    ) -> Result<(State, Inference), NetPlayerError> {
        let state = rebuild(view, rng)?;
        let out = self.infer(network, &[&state])?;
        Ok((state, out))
    }
}

/// Plays `mv` in `state`, a game rebuilt by the player (`where_` names it
/// in the error): a move the view or the policy calls legal that the rebuilt
/// game refuses is the player's fault, never the opponent's.
pub fn play(state: &mut State, mv: Move, where_: &'static str) -> Result<(), NetPlayerError> {
    state.apply_move(mv).map(|_| ()).map_err(|e| NetPlayerError::Refused { mv, where_, why: e.to_string() })
}

/// A finished game's value for `me` (+1, 0, -1); `None` while it goes on.
/// Every kind that scores positions scores a finished one so.
pub fn result_value(state: &State, me: Color) -> Option<f64> {
    state.outcome().map(|outcome| match outcome.winner {
        Some(w) if w == me => 1.0,
        Some(_) => -1.0,
        None => 0.0,
    })
}

/// A kind's options, declared once: each option is one row (its doc, field,
/// type, default, how a spec's text is read, how a spec names it, and its
/// entry in the option list), from which come the struct (with `setup`
/// last), its `Default`, the option list for help and errors
/// (`OPTION_LIST`, `setup=` last), the parser (`read_options`: unknown keys
/// refused, then each row) and the namer (`name_fields`, in the rows'
/// order, which is the order of every spec the player names).
///
/// A row reads `field: Type = default, read READER(ARGS), named NAMER,
/// "key=... (help)";`. `READER` is a function of [`options`] (or one in
/// scope with its signature: spec, key, default, then `ARGS`), `NAMER` one
/// of [`named`] (or one in scope with its signature). Adding an option to a
/// kind is one row and its use in the kind's `decide`.
macro_rules! kind_options {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $field:ident : $ty:ty = $default:expr,
                    read $read:ident $(($($arg:expr),* $(,)?))?,
                    named $named:ident,
                    $help:literal;
            )*
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $( $(#[doc = $doc])* pub $field: $ty, )*
            /// How the player sets up its army (`setup=`).
            pub setup: stratego_players::SetupPolicy,
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $($field: $default,)* setup: stratego_players::SetupPolicy::Random }
            }
        }

        impl $name {
            /// The options as help and error messages list them, `setup=` last.
            pub const OPTION_LIST: &'static str = concat!($($help, ", ",)* stratego_players::setup_option!());

            /// The options of a spec of this kind: unknown keys refused, a
            /// missing option its default, a bad value the option's error.
            fn read_options(spec: &stratego_players::PlayerSpec) -> Result<Self, stratego_players::SpecError> {
                spec.check_keys(Self::OPTION_LIST)?;
                let defaults = Self::default();
                Ok($name {
                    $($field: $read(spec, stringify!($field), defaults.$field $(, $($arg),*)?)?,)*
                    setup: spec.setup()?,
                })
            }

            /// `spec` with these options in the rows' order, `setup=` left
            /// to the scaffold.
            fn name_fields(
                &self,
                spec: stratego_players::PlayerSpec,
                naming: stratego_players::Naming,
            ) -> stratego_players::PlayerSpec {
                let defaults = Self::default();
                $( let spec = $named(spec, naming, stringify!($field), self.$field, defaults.$field); )*
                spec
            }
        }
    };
}
pub(crate) use kind_options;

/// How a spec's text becomes an option's value: each reader takes the spec,
/// the key and the default (returned when the key is absent), then its own
/// bounds.
pub mod options {
    use std::time::Duration;

    use stratego_players::{PlayerSpec, SpecError};

    /// `time=MS`: a clock per decision, 1 ms to an hour; none when absent.
    pub fn time(spec: &PlayerSpec, key: &str, default: Option<Duration>) -> Result<Option<Duration>, SpecError> {
        Ok(match spec.option(key) {
            None => default,
            Some(_) => Some(Duration::from_millis(whole(spec, key, 0u64, 1, 3_600_000)?)),
        })
    }

    /// `veto=M` (0 to 2, a share of a won game); none when absent.
    pub fn veto(spec: &PlayerSpec, key: &str, default: Option<f64>) -> Result<Option<f64>, SpecError> {
        Ok(match spec.option(key) {
            None => default,
            Some(_) => Some(number(spec, key, 0.0, 2.0)?),
        })
    }

    /// A whole number from `lo` to `hi`.
    pub fn whole<T>(spec: &PlayerSpec, key: &str, default: T, lo: u64, hi: u64) -> Result<T, SpecError>
    where
        T: TryFrom<u64>,
    {
        let why = format!("expected a whole number from {lo} to {hi}");
        match spec.option(key) {
            None => Ok(default),
            Some(text) => text
                .parse::<u64>()
                .ok()
                .filter(|n| (lo..=hi).contains(n))
                .and_then(|n| T::try_from(n).ok())
                .ok_or_else(|| SpecError::bad_value(key, text, why)),
        }
    }

    /// A finite number from 0 to `hi`.
    pub fn number<T: Real>(spec: &PlayerSpec, key: &str, default: T, hi: f64) -> Result<T, SpecError> {
        let read = spec.parse_option(
            key,
            default.to_f64(),
            |x: &f64| x.is_finite() && (0.0..=hi).contains(x),
            &format!("expected a number from 0 to {hi}"),
        )?;
        Ok(T::from_f64(read))
    }

    /// A value of a type that reads itself (`prior=belief`), its parse
    /// error the option's.
    pub fn parsed<T>(spec: &PlayerSpec, key: &str, default: T) -> Result<T, SpecError>
    where
        T: std::str::FromStr,
        T::Err: std::fmt::Display,
    {
        match spec.option(key) {
            None => Ok(default),
            Some(text) => text.parse().map_err(|why: T::Err| SpecError::bad_value(key, text, why.to_string())),
        }
    }

    /// The option types a number is read into.
    pub trait Real: Copy {
        fn to_f64(self) -> f64;
        fn from_f64(x: f64) -> Self;
    }

    impl Real for f64 {
        fn to_f64(self) -> f64 {
            self
        }
        fn from_f64(x: f64) -> f64 {
            x
        }
    }

    impl Real for f32 {
        fn to_f64(self) -> f64 {
            f64::from(self)
        }
        fn from_f64(x: f64) -> f32 {
            x as f32
        }
    }
}

/// How a spec names an option: each namer takes the spec so far, the
/// naming, the key, the value and the default.
pub mod named {
    use std::fmt::Display;
    use std::time::Duration;

    use stratego_players::{Naming, PlayerSpec};

    /// Named when not the default, and always in a resolved name.
    pub fn resolved<T: PartialEq + Display>(
        spec: PlayerSpec,
        naming: Naming,
        key: &str,
        value: T,
        default: T,
    ) -> PlayerSpec {
        spec.with_default(naming, key, value, default)
    }

    /// Named only when not the default, in a resolved name too: options
    /// added after players were registered, so that those players keep
    /// their resolved names.
    pub fn changed<T: PartialEq + Display>(spec: PlayerSpec, _: Naming, key: &str, value: T, default: T) -> PlayerSpec {
        spec.with_default(Naming::Canonical, key, value, default)
    }

    /// Named when there is a value (a veto).
    pub fn some<T: Display>(spec: PlayerSpec, _: Naming, key: &str, value: Option<T>, _: Option<T>) -> PlayerSpec {
        spec.with_some(key, value)
    }

    /// A clock, in milliseconds, when there is one.
    pub fn clock(spec: PlayerSpec, _: Naming, key: &str, value: Option<Duration>, _: Option<Duration>) -> PlayerSpec {
        spec.with_some(key, value.map(|t| t.as_millis()))
    }
}
