//! A network checkpoint as an arena player: `net:PATH[,temperature=T][,setup=S]`.
//!
//! Like every player, a [`NetPlayer`] decides from its `InfoView` alone. The
//! network reads the engine's observation planes, which are computed from a
//! `State` with its history, so the player first rebuilds such a state from
//! the public information ([`public_replay`]: the public moves replayed from
//! a root whose hidden opponent types are drawn from the counting prior).
//! The planes never depend on hidden types, so the rebuilt state's planes
//! are the true state's, and the player can learn nothing it may not know.
//! The network's policy over the legal actions (in the acting player's
//! frame) then picks the move: the most likely one by default, or a draw at
//! `temperature=T`.
//!
//! [`register`] adds the `net` entry to a player registry, so `net:PATH`
//! specs work wherever specs are read (the arena, ladders, registrations,
//! the UCC bot, the trainers' evaluations).
//!
//! **Other rulesets.** A network plays every ruleset with its checkpoint's
//! piece set (`PlayerFactory::check_rules` is `same_rules`, which refuses
//! only another piece set, at start-up). The progress rules it was trained
//! under it keeps for its own moves through the callers' self-restriction
//! (`trained_rules`). Its only ruleset-dependent inputs are the two counter
//! planes, `ply / max-plies` and `battleless / max-battleless`: they are
//! computed under the match's rules, so they say how near the match's own
//! caps (its draws) the game is, which is what they told the network in
//! training. Under rules without caps (the UCC referee's, whose turn limit
//! ends a game from outside) they stay near 0, as in the early part of a
//! training game: no draw by a cap is coming.
//!
//! This crate sits above the model and the player interface so that the
//! model depends on the engine and burn only, and above the baselines,
//! whose expectimax the guided search (`netexpectimax`, [`guided`]) runs.

pub mod guided;
pub mod rollout;
pub mod search;
pub mod veto;

use std::path::Path;
use std::sync::Arc;

use burn::module::Module;
use burn::tensor::Device;
use rand::{Rng, SeedableRng};
use stratego_engine::{observe, Layout, Move, PieceSet, Ruleset, Setup, NUM_ACTIONS};
use stratego_model::{checkpoint, choose_action, infer, ModelError, StrategoNet};
use stratego_players::reconstruct::public_replay;
use stratego_players::{
    AgentRng, Entry, InfoView, Naming, Player, PlayerError, PlayerFactory, PlayerSpec, Registry, SetupPolicy, SpecError,
};

/// The options of a network player, after the path in its spec.
#[derive(Copy, Clone, PartialEq, Debug, Default)]
pub struct NetOptions {
    /// 0 plays the most likely legal action; above 0 draws from
    /// `p^(1/temperature)` with the player's generator.
    pub temperature: f32,
    /// With `Some(m)`, the policy chooses among the moves expectimax keeps
    /// ([`veto`]).
    pub veto: Option<f64>,
    /// A wall-clock limit per decision, for the veto's search (the caller's
    /// clock; without one the search has its default fixed size).
    pub time: Option<std::time::Duration>,
    pub setup: SetupPolicy,
}

/// How the options are listed in error messages.
const NET_OPTIONS: &str = concat!(
    "temperature=T (0 = the most likely move), veto=M (0-2: expectimax first searches every \
     root move and vetoes those it values more than M of a won game below its best), time=MS (the veto's clock), \
     ",
    stratego_players::setup_option!()
);

impl NetOptions {
    /// Parses a spec's `key=value` options.
    pub fn parse(options: &[(String, String)]) -> Result<NetOptions, SpecError> {
        let mut parsed = NetOptions::default();
        for (key, value) in options {
            let bad = |why: &str| SpecError::BadValue { key: key.clone(), value: value.clone(), why: why.into() };
            match key.as_str() {
                "temperature" => {
                    parsed.temperature = value
                        .parse::<f32>()
                        .ok()
                        .filter(|t| t.is_finite() && *t >= 0.0)
                        .ok_or_else(|| bad("expected a number, at least 0"))?
                }
                "setup" => parsed.setup = value.parse().map_err(|why: String| bad(&why))?,
                "veto" => parsed.veto = Some(veto::parse(value)?),
                "time" => {
                    parsed.time = Some(std::time::Duration::from_millis(
                        value
                            .parse::<u64>()
                            .ok()
                            .filter(|t| (1..=3_600_000).contains(t))
                            .ok_or_else(|| bad("expected milliseconds from 1 to 3600000"))?,
                    ))
                }
                _ => {
                    return Err(SpecError::UnknownOption {
                        player: "net".into(),
                        key: key.clone(),
                        allowed: NET_OPTIONS.into(),
                    })
                }
            }
        }
        Ok(parsed)
    }

    /// The options in a fixed order: those that differ from the defaults
    /// (canonical), or all (resolved).
    pub fn to_pairs(&self, naming: Naming) -> Vec<(String, String)> {
        let d = NetOptions::default();
        PlayerSpec::named("net")
            .with_default(naming, "temperature", self.temperature, d.temperature)
            .with_some("veto", self.veto)
            .with_some("time", self.time.map(|t| t.as_millis()))
            .with_default(naming, "setup", self.setup, d.setup)
            .options
    }
}

/// A network with what it needs to play: read-only, shared by every player
/// of a factory (and by the arena's threads).
struct Network {
    net: StrategoNet,
    device: Device,
    layout: Layout,
    rules: Ruleset,
    /// The checkpoint it was loaded from, as the spec names it, or
    /// `in-memory`: the path of every kind's spec.
    path: String,
}

impl Network {
    /// Whether the network plays `rules`: any ruleset with its piece set
    /// (see the module documentation), for every network player.
    fn check_rules(&self, rules: &Ruleset) -> Result<(), String> {
        stratego_players::player::same_rules("its network was", &self.rules, rules)
    }

    /// The policy over the 1800 action ids of the viewer's frame, zero on
    /// illegal ones, from a state rebuilt from the view's public
    /// information (`rng` draws its hidden types; the planes, and so the
    /// policy, do not depend on them).
    fn policy(&self, view: &InfoView<'_>, rng: &mut AgentRng) -> Result<Vec<f32>, ModelError> {
        // Another piece set is refused at start-up (`check_rules`); a view
        // that still gets here is an input error, not a panic. Progress
        // rules and caps may differ (see the module documentation).
        self.check_rules(&view.rules).map_err(ModelError::Input)?;
        // The rebuild draws hidden types; a generator of its own keeps the
        // player's stream (the temperature draws) independent of how many
        // draws the rebuild needed.
        let mut rebuild_rng = AgentRng::seed_from_u64(rng.random());
        let state = public_replay(view, &mut rebuild_rng)
            .map_err(|e| ModelError::Input(format!("cannot rebuild the game from the view: {e}")))?;
        debug_assert_eq!(state.to_move(), view.me, "the rebuilt state has the viewer to move");
        let planes = observe(&state, self.layout);
        let mut legal = vec![false; NUM_ACTIONS];
        for &mv in &view.legal_moves {
            legal[action_of(mv, view)] = true;
        }
        Ok(infer(&self.net, self.layout, &planes, &legal, &self.device)?.policy)
    }
}

/// Makes players that share one loaded network; what kind of player is
/// decided by the options it carries (`NetOptions`: [`NetPlayer`], the
/// policy alone; `SearchOptions`: [`NetSearchPlayer`](search::NetSearchPlayer),
/// a search over its values). What the kinds share (naming, the rules check,
/// the trained rules) is written here once.
#[derive(Clone)]
pub struct NetworkFactory<O> {
    name: String,
    network: Arc<Network>,
    options: O,
}

/// Makes [`NetPlayer`]s.
pub type NetPlayerFactory = NetworkFactory<NetOptions>;

/// The options of a kind of network player, which know how to make one
/// and how to name it.
pub trait NetworkPlayerKind: Copy + Send + Sync + 'static {
    fn make(factory: &NetworkFactory<Self>) -> Box<dyn Player>;

    /// The spec of a player with these options on the checkpoint `path`.
    fn spec(&self, path: &str, naming: Naming) -> PlayerSpec;
}

impl<O> NetworkFactory<O> {
    /// The same players under another name (in results and records).
    pub fn named(self, name: impl Into<String>) -> NetworkFactory<O> {
        NetworkFactory { name: name.into(), ..self }
    }

    /// The ruleset the network was trained for (it plays every ruleset
    /// with the same piece set).
    pub fn rules(&self) -> &Ruleset {
        &self.network.rules
    }

    pub fn layout(&self) -> Layout {
        self.network.layout
    }
}

impl<O: NetworkPlayerKind> PlayerFactory for NetworkFactory<O> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn resolved_name(&self) -> String {
        self.options.spec(&self.network.path, Naming::Resolved).to_string()
    }

    fn make(&self) -> Box<dyn Player> {
        O::make(self)
    }

    fn check_rules(&self, rules: &Ruleset) -> Result<(), String> {
        self.network.check_rules(rules)
    }

    fn trained_rules(&self) -> Option<Ruleset> {
        Some(self.network.rules)
    }
}

impl NetworkPlayerKind for NetOptions {
    fn make(factory: &NetPlayerFactory) -> Box<dyn Player> {
        Box::new(factory.player())
    }

    fn spec(&self, path: &str, naming: Naming) -> PlayerSpec {
        net_spec(path, self, naming)
    }
}

/// Loading a checkpoint, and deriving players of another kind from a loaded
/// network: written once for every kind. A factory is named by its kind's
/// canonical spec on the network's path (`in-memory` for a network that
/// came from memory) until [`named`](NetworkFactory::named).
impl<O: NetworkPlayerKind> NetworkFactory<O> {
    /// Loads a checkpoint onto `device` (its autodiff wrapper, if any, is
    /// dropped: players only infer).
    pub fn load(path: &Path, options: O, device: &Device) -> Result<NetworkFactory<O>, ModelError> {
        let device = device.clone().without_autodiff();
        let (net, meta) = checkpoint::load(path, None, None, &device)?;
        Ok(NetworkFactory::new(path.display().to_string(), net, device, meta.layout, meta.rules, options))
    }

    /// Players of a network in memory (the training loop's current one).
    /// The network is put in validation mode (no autodiff, no dropout) on
    /// its own device; `layout` and `rules` must be the ones it was built
    /// and trained for.
    pub fn from_network(net: StrategoNet, layout: Layout, rules: Ruleset, options: O) -> NetworkFactory<O> {
        let device = net.devices().into_iter().next().expect("a network has parameters").without_autodiff();
        NetworkFactory::new("in-memory".into(), net, device, layout, rules, options)
    }

    /// Players of this kind on the network of another factory (shared, not
    /// copied).
    pub fn from_net<P>(net: &NetworkFactory<P>, options: O) -> NetworkFactory<O> {
        let name = options.spec(&net.network.path, Naming::Canonical).to_string();
        NetworkFactory { name, network: Arc::clone(&net.network), options }
    }

    fn new(
        path: String,
        net: StrategoNet,
        device: Device,
        layout: Layout,
        rules: Ruleset,
        options: O,
    ) -> NetworkFactory<O> {
        let name = options.spec(&path, Naming::Canonical).to_string();
        // Validation mode: inference must not depend on dropout draws, so
        // that a seed fixes a game.
        let network = Arc::new(Network { net: net.valid(), device, layout, rules, path });
        NetworkFactory { name, network, options }
    }
}

impl NetPlayerFactory {
    /// A fresh player (the concrete type, for callers that want
    /// [`NetPlayer::try_choose_move`]).
    pub fn player(&self) -> NetPlayer {
        NetPlayer { name: self.name.clone(), network: Arc::clone(&self.network), options: self.options }
    }
}

/// Plays the move its network's policy prefers (see the module documentation).
pub struct NetPlayer {
    name: String,
    network: Arc<Network>,
    options: NetOptions,
}

impl NetPlayer {
    /// The network's probabilities of the view's legal moves, in the view's
    /// order. `rng` draws the hidden types of the rebuilt state; the result
    /// does not depend on it (the planes do not).
    pub fn move_probabilities(&self, view: &InfoView<'_>, rng: &mut AgentRng) -> Result<Vec<f32>, ModelError> {
        let policy = self.policy(view, rng)?;
        Ok(view.legal_moves.iter().map(|m| policy[action_of(*m, view)]).collect())
    }

    /// The move this player chooses, or why it cannot.
    pub fn try_choose_move(&self, view: &InfoView<'_>, rng: &mut AgentRng) -> Result<Move, ModelError> {
        let mut policy = self.policy(view, rng)?;
        if let (Some(margin), true) = (self.options.veto, view.legal_moves.len() > 1) {
            // The veto's search has most of the clock: the policy costs one
            // inference.
            let clock = self.options.time.map(|t| t.mul_f64(0.8));
            let (kept, _) = veto::kept(view, &view.legal_moves, margin, clock, self.options.setup, rng)
                .map_err(|why| ModelError::Input(format!("{}: {why}", self.name)))?;
            for mv in &view.legal_moves {
                if !kept.contains(mv) {
                    policy[action_of(*mv, view)] = 0.0;
                }
            }
            // A policy with no mass left on the kept moves: the first kept
            // (the search's order is the view's) rather than no move.
            if kept.iter().all(|mv| policy[action_of(*mv, view)] <= 0.0) {
                return Ok(kept[0]);
            }
        }
        let action = choose_action(&policy, self.options.temperature, rng)
            .ok_or_else(|| ModelError::Input("the network gave no legal action a positive probability".into()))?;
        let mv = Move::from_action(action, view.me)
            .filter(|m| view.legal_moves.contains(m))
            .ok_or_else(|| ModelError::Input(format!("action {action} of the policy is not one of the legal moves")))?;
        Ok(mv)
    }

    /// The network's policy over the 1800 action ids of the acting player's
    /// frame, zero on illegal ones.
    fn policy(&self, view: &InfoView<'_>, rng: &mut AgentRng) -> Result<Vec<f32>, ModelError> {
        self.network.policy(view, rng).map_err(|e| match e {
            ModelError::Input(why) => ModelError::Input(format!("{}: {why}", self.name)),
            other => other,
        })
    }
}

/// The action id of a legal move, in the acting player's frame (the frame
/// of the planes and of the policy).
fn action_of(mv: Move, view: &InfoView<'_>) -> usize {
    mv.to_action(view.me).expect("legal moves lie on a line") as usize
}

impl Player for NetPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose_setup(&mut self, set: PieceSet, rng: &mut AgentRng) -> Setup {
        self.options.setup.choose(set, rng)
    }

    /// A view the network cannot play (another piece set than the network's,
    /// which the arena refuses beforehand through `check_rules`, a view no
    /// game can lead to, an output that is not a distribution) is an error
    /// that says why.
    fn choose_move(&mut self, view: &InfoView<'_>, rng: &mut AgentRng) -> Result<Move, PlayerError> {
        self.try_choose_move(view, rng).map_err(|e| PlayerError::Failed(format!("network player `{}`: {e}", self.name)))
    }

    /// The caller's clock joins the spec's, the tighter deciding; only the
    /// veto's search uses it.
    fn limit_move_time(&mut self, limit: std::time::Duration) {
        self.options.time = Some(self.options.time.map_or(limit, |t| t.min(limit)));
    }
}

/// The spec of a network player: `net:PATH` with the options that are not
/// defaults (canonical), or with all of them (resolved).
pub fn net_spec(path: &str, options: &NetOptions, naming: Naming) -> PlayerSpec {
    let mut spec = PlayerSpec::named("net").with_path(path);
    spec.options = options.to_pairs(naming);
    spec
}

/// Adds `net:PATH` to a registry: checkpoints are loaded onto `device`, or,
/// with `None`, onto the CPU, the device made only when a network spec asks
/// for one (the command line, where most specs name baselines).
pub fn register(registry: &mut Registry, device: Option<Device>) {
    registry.register(search::entry(device.clone()));
    registry.register(guided::entry(device.clone()));
    registry.register(rollout::entry(device.clone()));
    registry.register(Entry {
        name: "net",
        path: Some("a checkpoint path, e.g. net:runs/x/ckpt.safetensors"),
        options: NET_OPTIONS,
        about: "a network checkpoint's policy",
        build: Box::new(move |spec, _| {
            let options = NetOptions::parse(&spec.options)?;
            load_for_spec(spec, &device, |path, device| NetPlayerFactory::load(path, options, device))
        }),
    });
}

/// Loads the checkpoint a spec names with `load` onto `device`, or onto a
/// CPU device made now: a failure is the spec's load error (which names the
/// path already), for every network player's registry entry.
pub(crate) fn load_for_spec<F: PlayerFactory + 'static>(
    spec: &PlayerSpec,
    device: &Option<Device>,
    load: impl FnOnce(&Path, &Device) -> Result<F, ModelError>,
) -> Result<Arc<dyn PlayerFactory>, SpecError> {
    let path = spec.path.as_deref().expect("the registry checked the path");
    let error = |why: String| SpecError::Load { spec: spec.to_string(), why };
    let device = match device {
        Some(device) => device.clone(),
        None => stratego_model::device("cpu").map_err(|e| error(e.to_string()))?,
    };
    let factory = load(Path::new(path), &device).map_err(|e| {
        error(match e {
            ModelError::Checkpoint { why, .. } => why,
            other => other.to_string(),
        })
    })?;
    Ok(Arc::new(factory))
}
