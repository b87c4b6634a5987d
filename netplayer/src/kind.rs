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

/// The three methods of [`NetworkPlayerKind`] that a kind whose options
/// hold `time: Option<Duration>` (its `time=` option, joined with the
/// caller's) and `setup: SetupPolicy` writes as every other such kind does.
macro_rules! time_and_setup_fields {
    () => {
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
pub(crate) use time_and_setup_fields;

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

/// A finished game's value for `me` (+1, 0, -1); `None` while it goes on.
/// Every kind that scores positions scores a finished one so.
pub fn result_value(state: &State, me: Color) -> Option<f64> {
    state.outcome().map(|outcome| match outcome.winner {
        Some(w) if w == me => 1.0,
        Some(_) => -1.0,
        None => 0.0,
    })
}

/// The options every kind reads alike.
pub mod options {
    use std::time::Duration;

    use stratego_players::{PlayerSpec, SpecError};

    /// `time=MS`: a clock per decision, 1 ms to an hour; none when absent.
    pub fn time(spec: &PlayerSpec) -> Result<Option<Duration>, SpecError> {
        Ok(match spec.option("time") {
            None => None,
            Some(_) => Some(Duration::from_millis(whole(spec, "time", 0, 1, 3_600_000)?)),
        })
    }

    /// `veto=M` (0 to 2, a share of a won game); none when absent.
    pub fn veto(spec: &PlayerSpec) -> Result<Option<f64>, SpecError> {
        Ok(match spec.option("veto") {
            None => None,
            Some(_) => Some(number(spec, "veto", 0.0, 2.0)?),
        })
    }

    /// A whole number from `lo` to `hi`, `default` when absent.
    pub fn whole(spec: &PlayerSpec, key: &str, default: u64, lo: u64, hi: u64) -> Result<u64, SpecError> {
        spec.parse_option(
            key,
            default,
            |n: &u64| (lo..=hi).contains(n),
            &format!("expected a whole number from {lo} to {hi}"),
        )
    }

    /// A finite number from 0 to `hi`, `default` when absent.
    pub fn number(spec: &PlayerSpec, key: &str, default: f64, hi: f64) -> Result<f64, SpecError> {
        spec.parse_option(
            key,
            default,
            |x: &f64| x.is_finite() && (0.0..=hi).contains(x),
            &format!("expected a number from 0 to {hi}"),
        )
    }
}
