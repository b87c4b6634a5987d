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

use std::time::Duration;

use stratego_baselines::expectimax::expectimax_config;
use stratego_baselines::expectimax::{ExpectimaxConfig, ExpectimaxPlayer};
use stratego_baselines::heuristic::WIN;
use stratego_engine::Move;
use stratego_players::{Naming, PlayerSpec, SetupPolicy, SpecError};

use crate::kind::{Decision, NetworkPlayer, NetworkPlayerKind};
use crate::network::NetworkFactory;
use crate::veto::{near_best, searched_values};
use crate::NetPlayerError;

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

impl GuidedOptions {
    pub const DEFAULT_MARGIN: f64 = 0.3;
}

/// Makes [`GuidedPlayer`]s that share one loaded network.
pub type GuidedFactory = NetworkFactory<GuidedOptions>;

impl NetworkPlayerKind for GuidedOptions {
    type Stats = GuidedStats;
    const NAME: &'static str = "netexpectimax";
    const OPTIONS: &'static str = concat!(
        "margin=M (0-1; a share of a won game: the policy chooses among moves searched \
     within it of the best; default 0.3), depth=N (1-20), nodes=N, time=MS, press=auto|on|off, scale=N, guard=on|off, \
     defend=on|off, informed=on|off (as for expectimax), ",
        stratego_players::setup_option!()
    );
    const ABOUT: &'static str =
        "expectimax whose root moves a network's policy orders and, among near-equal values, chooses";

    /// Parses a spec's options: `margin`, and the rest as `expectimax`
    /// reads them (its spec parser, so the two cannot drift apart).
    fn parse(spec: &PlayerSpec) -> Result<GuidedOptions, SpecError> {
        spec.check_keys(Self::OPTIONS)?;
        let margin = spec.parse_option(
            "margin",
            GuidedOptions::DEFAULT_MARGIN,
            |m: &f64| m.is_finite() && (0.0..=1.0).contains(m),
            "expected a number from 0 to 1",
        )?;
        Ok(GuidedOptions { search: expectimax_config(spec)?, margin, setup: spec.setup()? })
    }

    /// The margin, then the search's options as `expectimax` names them
    /// (its `setup=`, which is last there, is the scaffold's).
    fn name_options(&self, spec: PlayerSpec, naming: Naming) -> PlayerSpec {
        let searched = stratego_baselines::expectimax::expectimax_spec(&self.search, self.setup, None, naming);
        let mut spec = spec.with_default(naming, "margin", self.margin, GuidedOptions::DEFAULT_MARGIN);
        spec.options.extend(searched.options.into_iter().filter(|(key, _)| key != "setup"));
        spec
    }

    fn setup(&self) -> SetupPolicy {
        self.setup
    }

    /// Its search's clock, which the search plans itself (as `expectimax`).
    fn clock(&self) -> Option<Duration> {
        self.search.time
    }

    /// The caller's clock joins the spec's, the tighter deciding (as for `expectimax`).
    fn limit_move_time(&mut self, limit: Duration) {
        self.search = self.search.under_clock(limit);
    }

    fn decide(&self, decision: Decision<'_, '_, GuidedStats>) -> Result<Move, NetPlayerError> {
        let Decision { network, view, rng, stats, start, .. } = decision;
        let policy = network.policy(view, rng)?;
        let prior = |mv: &Move| mv.to_action(view.me).map_or(0.0, |a| policy[a as usize]);
        let mut ordered = view.legal_moves.clone();
        ordered.sort_by(|a, b| prior(b).total_cmp(&prior(a)));

        let mut search = self.search;
        // The search has what the inference left of the clock.
        search.time = search.time.map(|t| t.saturating_sub(start.elapsed()).max(Duration::from_millis(1)));
        let mut expectimax = ExpectimaxPlayer::new(search, self.setup);
        let values = searched_values(&mut expectimax, view, &ordered, self.margin, rng)?;
        let near = near_best(&values, self.margin);
        // The policy's favourite among them; the first (the best value, the
        // policy's order among equals) where the policy is level.
        let chosen = near.iter().fold(near[0], |pick, &c| if prior(&c.0) > prior(&pick.0) { c } else { pick }).0;
        *stats = GuidedStats {
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
pub type GuidedPlayer = NetworkPlayer<GuidedOptions>;
