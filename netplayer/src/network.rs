//! A loaded network and the factories that share it: loading a checkpoint,
//! the rules it plays, and its batched inference, written once for every
//! kind of network player.

use std::path::Path;
use std::sync::Arc;

use burn::module::Module;
use burn::tensor::Device;
use stratego_engine::{observe, Layout, Move, Ruleset, State, NUM_ACTIONS};
use stratego_model::{checkpoint, infer, Inference, ModelError, StrategoNet};
use stratego_players::{AgentRng, InfoView, Naming, Player, PlayerFactory, PlayerSpec, RulesRefused, SpecError};

use crate::kind::{rebuild, NetworkPlayer, NetworkPlayerKind};
use crate::NetPlayerError;

/// The most positions one inference call reads (a searching player checks
/// its clock between calls).
pub const CHUNK: usize = 64;

/// A network with what it needs to play: read-only, shared by every player
/// of a factory (and by the arena's threads).
pub struct Network {
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
    /// (see the crate documentation), for every network player.
    pub fn check_rules(&self, rules: &Ruleset) -> Result<(), RulesRefused> {
        stratego_players::player::same_rules("its network was", &self.rules, rules)
    }

    /// The network's output on a batch of states: their planes and legal
    /// masks in one inference call.
    pub fn infer(&self, states: &[&State]) -> Result<Inference, NetPlayerError> {
        let mut planes = Vec::with_capacity(states.len() * self.layout.size());
        let mut legal = Vec::with_capacity(states.len() * NUM_ACTIONS);
        for state in states {
            planes.extend(observe(state, self.layout));
            legal.extend(state.legal_action_mask());
        }
        Ok(infer(&self.net, self.layout, &planes, &legal, &self.device)?)
    }

    /// The policy over the 1800 action ids of the viewer's frame, zero on
    /// illegal ones, from a state rebuilt from the view's public
    /// information (`rng` draws its hidden types; the planes, and so the
    /// policy, do not depend on them). The caller has checked the rules.
    pub fn policy(&self, view: &InfoView<'_>, rng: &mut AgentRng) -> Result<Vec<f32>, NetPlayerError> {
        let state = rebuild(view, rng)?;
        let planes = observe(&state, self.layout);
        let mut legal = vec![false; NUM_ACTIONS];
        for &mv in &view.legal_moves {
            legal[action_of(mv, view)] = true;
        }
        Ok(infer(&self.net, self.layout, &planes, &legal, &self.device)?.policy)
    }
}

/// The action id of a legal move, in the acting player's frame (the frame
/// of the planes and of the policy).
pub(crate) fn action_of(mv: Move, view: &InfoView<'_>) -> usize {
    mv.to_action(view.me).expect("legal moves lie on a line") as usize
}

/// Makes players that share one loaded network; what kind of player is
/// decided by the options it carries (`NetOptions`: the policy alone;
/// `SearchOptions`, `RolloutOptions`, `GuidedOptions`: a search). What the
/// kinds share (loading, naming, the rules check, the trained rules) is
/// written here once.
#[derive(Clone)]
pub struct NetworkFactory<K> {
    pub(crate) name: String,
    pub(crate) network: Arc<Network>,
    pub(crate) options: K,
}

impl<K> NetworkFactory<K> {
    /// The same players under another name (in results and records).
    pub fn named(self, name: impl Into<String>) -> NetworkFactory<K> {
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

impl<K: NetworkPlayerKind> PlayerFactory for NetworkFactory<K> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn resolved_name(&self) -> String {
        self.options.spec(&self.network.path, Naming::Resolved).to_string()
    }

    fn make(&self) -> Box<dyn Player> {
        Box::new(self.player())
    }

    fn check_rules(&self, rules: &Ruleset) -> Result<(), RulesRefused> {
        self.network.check_rules(rules)
    }

    fn trained_rules(&self) -> Option<Ruleset> {
        Some(self.network.rules)
    }
}

/// Loading a checkpoint, and deriving players of another kind from a loaded
/// network: written once for every kind. A factory is named by its kind's
/// canonical spec on the network's path (`in-memory` for a network that
/// came from memory) until [`named`](NetworkFactory::named).
impl<K: NetworkPlayerKind> NetworkFactory<K> {
    /// Loads a checkpoint onto `device` (its autodiff wrapper, if any, is
    /// dropped: players only infer).
    pub fn load(path: &Path, options: K, device: &Device) -> Result<NetworkFactory<K>, ModelError> {
        let device = device.clone().without_autodiff();
        let (net, meta) = checkpoint::load(path, None, None, &device)?;
        Ok(NetworkFactory::new(path.display().to_string(), net, device, meta.layout, meta.rules, options))
    }

    /// Players of a network in memory (the training loop's current one).
    /// The network is put in validation mode (no autodiff, no dropout) on
    /// its own device; `layout` and `rules` must be the ones it was built
    /// and trained for.
    pub fn from_network(net: StrategoNet, layout: Layout, rules: Ruleset, options: K) -> NetworkFactory<K> {
        let device = net.devices().into_iter().next().expect("a network has parameters").without_autodiff();
        NetworkFactory::new("in-memory".into(), net, device, layout, rules, options)
    }

    /// Players of this kind on the network of another factory (shared, not
    /// copied).
    pub fn from_net<P>(net: &NetworkFactory<P>, options: K) -> NetworkFactory<K> {
        let name = options.spec(&net.network.path, Naming::Canonical).to_string();
        NetworkFactory { name, network: Arc::clone(&net.network), options }
    }

    /// A fresh player (the concrete type, for its statistics).
    pub fn player(&self) -> NetworkPlayer<K> {
        NetworkPlayer::new(self.name.clone(), Arc::clone(&self.network), self.options)
    }

    fn new(
        path: String,
        net: StrategoNet,
        device: Device,
        layout: Layout,
        rules: Ruleset,
        options: K,
    ) -> NetworkFactory<K> {
        let name = options.spec(&path, Naming::Canonical).to_string();
        // Validation mode: inference must not depend on dropout draws, so
        // that a seed fixes a game.
        let network = Arc::new(Network { net: net.valid(), device, layout, rules, path });
        NetworkFactory { name, network, options }
    }
}

/// Loads the checkpoint a spec names onto `device`, or onto a CPU device
/// made now: a failure is the spec's load error (which names the path
/// already), for every network player's registry entry.
pub(crate) fn load_for_spec<K: NetworkPlayerKind>(
    spec: &PlayerSpec,
    device: &Option<Device>,
    options: K,
) -> Result<Arc<dyn PlayerFactory>, SpecError> {
    let path = spec.path.as_deref().expect("the registry checked the path");
    let error = |why: String| SpecError::Load { spec: spec.to_string(), why };
    let device = match device {
        Some(device) => device.clone(),
        None => stratego_model::device("cpu").map_err(|e| error(e.to_string()))?,
    };
    let factory = NetworkFactory::load(Path::new(path), options, &device).map_err(|e| {
        error(match e {
            ModelError::Checkpoint { why, .. } => why,
            other => other.to_string(),
        })
    })?;
    Ok(Arc::new(factory))
}
