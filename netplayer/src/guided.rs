//! Expectimax with a network inside: `netexpectimax:PATH[,margin=M]
//! [,depth=N][,nodes=N][,time=MS][,press=P][,scale=N][,guard=on|off]
//! [,informed=on|off][,setup=S]`.
//!
//! The hand-written expectimax (`stratego_baselines::expectimax`, with its
//! chance nodes, its result-scaled leaves, threats, the Flag's guard and the
//! informed opponent) searches the position as `expectimax` with the same
//! options does; the checkpoint's policy head, read once on the root, guides
//! it in two places:
//!
//! - **Order.** The root moves enter the first iteration in the policy's
//!   order, so among moves that keep equal values through the iterations
//!   (the sort between them is stable) the policy's favourite comes first.
//! - **Choice.** Expectimax tells moves apart by material and by the risks
//!   its leaves weigh; the policy's most likely move among those whose
//!   values lie within `margin` of the best (as a share of a won game,
//!   `WIN`) is played. So the search vetoes the moves it values clearly
//!   worse, and the policy chooses among the rest, where plain expectimax
//!   would draw among exact ties at random. `margin=0` lets the policy break
//!   exact ties only. The default, 0.3, is from the registered comparisons
//!   (EVALUATION.md, "Expectimax guided by the network"): against the bare
//!   network 0.01 loses and 0.3 is level; against `expectimax` at the same
//!   clock both won on one machine, and 0.3 lost on a faster one, where the
//!   clock buys expectimax more search.
//!
//! What the network does not do here, and why: its value head does not
//! score the leaves (the checkpoints' value heads barely react to material,
//! EVALUATION.md, "The network that searches"), and its belief head does not
//! weigh the chance nodes (against the counting prior it made no measurable
//! difference in `netsearch`). One inference a decision (about a
//! millisecond for `tiny`) leaves the clock to the search: under a clock the
//! search gets what the inference left of it.

use std::time::{Duration, Instant};

use stratego_baselines::entries::expectimax_config;
use stratego_baselines::eval::WIN;
use stratego_baselines::expectimax::{ExpectimaxConfig, ExpectimaxPlayer};
use stratego_engine::{Move, PieceSet, Setup};
use stratego_players::determinize::determinize;
use stratego_players::{AgentRng, Entry, InfoView, Naming, Player, PlayerError, PlayerSpec, SetupPolicy, SpecError};

use crate::{NetworkFactory, NetworkPlayerKind};

/// The options of a guided expectimax player, after the path in its spec.
#[derive(Copy, Clone, PartialEq, Debug)]
pub struct GuidedOptions {
    /// The search, as `expectimax` with the same options.
    pub search: ExpectimaxConfig,
    /// Moves within this share of `WIN` of the best value are the policy's
    /// to choose from.
    pub margin: f64,
    pub setup: SetupPolicy,
}

impl Default for GuidedOptions {
    fn default() -> Self {
        GuidedOptions {
            search: ExpectimaxConfig::default(),
            margin: GuidedOptions::DEFAULT_MARGIN,
            setup: SetupPolicy::Random,
        }
    }
}

/// How the options are listed in error messages and help.
pub const GUIDED_OPTIONS: &str = concat!(
    "margin=M (0-1; a share of a won game: the policy chooses among moves searched \
     within it of the best; default 0.3), depth=N (1-20), nodes=N, time=MS, press=auto|on|off, scale=N, guard=on|off, \
     defend=on|off, informed=on|off (as for expectimax), ",
    stratego_players::setup_option!()
);

impl GuidedOptions {
    pub const DEFAULT_MARGIN: f64 = 0.3;

    /// Parses a spec's options: `margin`, and the rest as `expectimax`
    /// reads them (its spec parser, so the two cannot drift apart).
    pub fn parse(spec: &PlayerSpec) -> Result<GuidedOptions, SpecError> {
        spec.check_keys(GUIDED_OPTIONS)?;
        let margin = spec.parse_option(
            "margin",
            GuidedOptions::DEFAULT_MARGIN,
            |m: &f64| m.is_finite() && (0.0..=1.0).contains(m),
            "expected a number from 0 to 1",
        )?;
        Ok(GuidedOptions { search: expectimax_config(spec)?, margin, setup: spec.setup()? })
    }
}

/// Makes [`GuidedPlayer`]s that share one loaded network.
pub type GuidedFactory = NetworkFactory<GuidedOptions>;

impl NetworkPlayerKind for GuidedOptions {
    fn make(factory: &GuidedFactory) -> Box<dyn Player> {
        Box::new(factory.player())
    }

    /// `netexpectimax:PATH`, the margin, then the search's options as
    /// `expectimax` names them.
    fn spec(&self, path: &str, naming: Naming) -> PlayerSpec {
        let searched = stratego_baselines::entries::expectimax_spec(&self.search, self.setup, None, naming);
        let mut spec = PlayerSpec::named("netexpectimax").with_path(path).with_default(
            naming,
            "margin",
            self.margin,
            GuidedOptions::DEFAULT_MARGIN,
        );
        spec.options.extend(searched.options);
        spec
    }
}

impl GuidedFactory {
    /// A fresh player (the concrete type, for its statistics).
    pub fn player(&self) -> GuidedPlayer {
        GuidedPlayer {
            name: self.name.clone(),
            network: std::sync::Arc::clone(&self.network),
            options: self.options,
            last: GuidedStats::default(),
        }
    }
}

/// What the last decision did.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct GuidedStats {
    /// The deepest completed iteration of the search (0: a forced move).
    pub depth: u32,
    pub nodes: u64,
    /// The moves within the margin of the best, the policy's to choose from.
    pub near_best: usize,
    /// Whether the played move is not the first of the searched order
    /// (the policy chose otherwise than the values' order would have).
    pub overruled: bool,
    /// Every root move: its searched value as a share of `WIN` and the
    /// policy's probability, in the searched order (best value first).
    pub values: Vec<(Move, f64, f32)>,
    pub elapsed: Duration,
}

/// Expectimax guided by its network's policy (see the module documentation).
pub struct GuidedPlayer {
    name: String,
    network: std::sync::Arc<crate::Network>,
    options: GuidedOptions,
    /// The statistics of the last decision.
    pub last: GuidedStats,
}

impl GuidedPlayer {
    /// The move this player chooses, or why it cannot.
    pub fn try_choose_move(&mut self, view: &InfoView<'_>, rng: &mut AgentRng) -> Result<Move, String> {
        let start = Instant::now();
        self.last = GuidedStats::default();
        if view.legal_moves.len() == 1 {
            return Ok(view.legal_moves[0]);
        }
        let policy = self.network.policy(view, rng).map_err(|e| e.to_string())?;
        let prior = |mv: &Move| mv.to_action(view.me).map_or(0.0, |a| policy[a as usize]);
        let mut ordered = view.legal_moves.clone();
        ordered.sort_by(|a, b| prior(b).total_cmp(&prior(a)));

        let mut search = self.options.search;
        // The search has what the inference left of the clock.
        search.time = search.time.map(|t| t.saturating_sub(start.elapsed()).max(Duration::from_millis(1)));
        let mut expectimax = ExpectimaxPlayer::new(search, self.options.setup);
        let values = searched_values(&mut expectimax, view, &ordered, rng)?;
        let near = near_best(&values, self.options.margin);
        // The policy's favourite among them; the first (the best value, the
        // policy's order among equals) where the policy is level.
        let chosen = near.iter().fold(near[0], |pick, &c| if prior(&c.0) > prior(&pick.0) { c } else { pick }).0;
        self.last = GuidedStats {
            depth: expectimax.last.depth,
            nodes: expectimax.last.nodes,
            near_best: near.len(),
            overruled: chosen != values[0].0,
            values: values.iter().map(|&(mv, v)| (mv, v / WIN, prior(&mv))).collect(),
            elapsed: start.elapsed(),
        };
        Ok(chosen)
    }
}

/// Expectimax's values of the root moves `ordered` (entering the first
/// iteration in that order) in a root determinised from `view`, as
/// `root_values` gives them (the searched order, best first); an error if
/// a move has none or one is not a number.
pub(crate) fn searched_values(
    search: &mut ExpectimaxPlayer,
    view: &InfoView<'_>,
    ordered: &[Move],
    rng: &mut AgentRng,
) -> Result<Vec<(Move, f64)>, String> {
    let values = search.root_values(&determinize(view, rng), ordered);
    if values.len() != ordered.len() || values.iter().any(|(_, v)| !v.is_finite()) {
        return Err("the search did not give every root move a value that is a number".into());
    }
    Ok(values)
}

/// The searched moves whose values lie within `margin` (a share of a won
/// game, `WIN`) of the best, in the order given.
pub(crate) fn near_best(values: &[(Move, f64)], margin: f64) -> Vec<(Move, f64)> {
    let best = values.iter().map(|(_, v)| *v).fold(f64::NEG_INFINITY, f64::max);
    let floor = best - margin * WIN - 1e-6;
    values.iter().copied().filter(|(_, v)| *v >= floor).collect()
}

impl Player for GuidedPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose_setup(&mut self, set: PieceSet, rng: &mut AgentRng) -> Setup {
        self.options.setup.choose(set, rng)
    }

    fn choose_move(&mut self, view: &InfoView<'_>, rng: &mut AgentRng) -> Result<Move, PlayerError> {
        self.try_choose_move(view, rng)
            .map_err(|e| PlayerError::Failed(format!("guided expectimax player `{}`: {e}", self.name)))
    }

    /// The caller's clock joins the spec's, the tighter deciding (as for `expectimax`).
    fn limit_move_time(&mut self, limit: Duration) {
        self.options.search = self.options.search.under_clock(limit);
    }
}

/// The registry entry `netexpectimax:PATH`: checkpoints are loaded onto
/// `device`, or, with `None`, onto the CPU made on demand (as `net:`).
pub fn entry(device: Option<burn::tensor::Device>) -> Entry {
    Entry {
        name: "netexpectimax",
        path: Some("a checkpoint path, e.g. netexpectimax:runs/x/ckpt.safetensors"),
        options: GUIDED_OPTIONS,
        about: "expectimax whose root moves a network's policy orders and, among near-equal values, chooses",
        build: Box::new(move |spec, _| {
            let options = GuidedOptions::parse(spec)?;
            crate::load_for_spec(spec, &device, |path, device| GuidedFactory::load(path, options, device))
        }),
    }
}
