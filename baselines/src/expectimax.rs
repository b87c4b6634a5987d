//! The expectimax player: a depth-limited expectiminimax search with chance
//! nodes over hidden types, iterative deepening within a node budget, and
//! Star1 pruning.
//!
//! **Tree.** The searcher first determinizes the hidden opponent pieces from
//! its view (`determinize`), which fixes what each hidden piece can do when it
//! moves (Bombs and the Flag stay put, Scouts run). Its own plies are max
//! nodes, the opponent's min nodes (the opponent is assumed to play its best
//! reply). A move that starts a battle with a piece hidden from the searcher —
//! its attack on a hidden defender, or a hidden opponent piece attacking — is
//! a **chance node**: one branch per possible type of that piece, weighted by
//! the counting prior at that node (for an attacker, restricted to movable
//! types), in which the piece is given that type (`with_hidden_type`, which
//! keeps the army) before the battle is played. So battle outcomes follow the
//! prior, not the sampled determinization. Depth counts plies; chance nodes
//! cost none. Leaves are scored by `heuristic::evaluate`, or with `leaf=ntuple:PATH`
//! by n-tuple tables (`NTupleNet::leaf_value` times `ntuple::LEAF_SCALE`);
//! finished games by `heuristic::terminal_score`.
//!
//! **Budget.** Iterative deepening runs depth 1, 2, ... up to `depth`, each
//! iteration ordered by the previous one's values. Once the node budget (or
//! the optional time limit) is spent, the iteration in progress is dropped
//! and the last completed one decides; depth 1 always completes. Without a
//! time limit the search is a pure function of the view and the seed.
//!
//! **Pruning, and why it is sound.** Max and min nodes use ordinary
//! alpha-beta (fail-soft). Chance nodes use Ballard's Star1: with outcome
//! probabilities `p_i`, the value is `sum p_i v_i`, and every `v_i` lies in
//! `[L, U] = [-WIN, WIN]` (evaluations are clamped inside it and terminal
//! scores never leave it). After searching outcomes `1..k`, the node's value
//! is at most `S_k + R_k U` and at least `S_k + R_k L`, with `S_k` the
//! weighted sum so far and `R_k` the probability left. So outcome `k+1` is
//! searched with the window `((alpha - S_k - R_{k+1} U) / p_{k+1},
//! (beta - S_k - R_{k+1} L) / p_{k+1})`: if its value falls at or below the
//! lower end, the node's value cannot exceed alpha whatever the remaining
//! outcomes are, and the node returns that upper bound; at or above the upper
//! end, it cannot fall below beta, and it returns that lower bound. In both
//! cases the parent would cut this node off with its exact value too, so the
//! remaining outcomes cannot change the choice at the root. Nothing is
//! pruned on estimates; only bounds that hold for every possible value are
//! used. (Star2's probing and forward pruning such as ChanceProbCut are not
//! used: they need move ordering heuristics to pay off and prune unsoundly
//! or only probabilistically.)
//!
//! **The opponent knows its own pieces** (`informed`, on by default). A
//! plain expectimax lets the opponent choose a move before chance draws its
//! piece's type, so an attack by a hidden piece is valued over all the types
//! it may be, and the opponent never makes an attack that loses on average:
//! a revealed Marshal next to a piece that may be the Spy looks safe. But the
//! opponent knows what its piece is, and attacks with the types that win. So
//! at a min node its attacks with pieces hidden from us are searched after
//! its other moves, each type's value capped by the best of those other
//! moves: `sum p_t min(v_t, best other)`. The outcomes are searched with the
//! window `(-WIN, best other)`, which keeps every capped value exact.
//!
//! **Leaves** (`heuristic::leaf_value`) weigh the side to move's threats and the
//! Flag's guard and are on the scale of the result (`scale`, `guard`; see
//! the evaluation's documentation), so chance nodes weigh risk as it bears
//! on the game. `scale=0,guard=off,informed=off` is the player as it was.
//!
//! **Ties** at the root are searched with a window just below the best value
//! so that equal moves get exact values, and the seeded generator picks one.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::Rng;
use stratego_engine::{Color, CountingPrior, Move, PieceSet, PieceType, Setup, Square, State};

use stratego_players::determinize::{determinize, with_hidden_type};
use stratego_players::{AgentRng, InfoView, Naming, Player, PlayerError, PlayerSpec, SetupPolicy, SpecError};

use crate::heuristic::{leaf_value, press_term, terminal_score, LeafTerms, DEFAULT_SCALE, WIN};
use crate::ntuple::{load_tables, NTupleNet, LEAF_SCALE};
use crate::press::Press;
use crate::press::TABLES_PRESS_SCALE;

/// Root values closer than this are ties.
const TIE: f64 = 1e-6;

/// The search limits of an expectimax player.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct ExpectimaxConfig {
    /// Deepest iteration, in plies.
    pub depth: u32,
    /// Nodes per decision; an iteration that would exceed it is dropped.
    pub nodes: u64,
    /// Wall-clock limit per decision (makes play depend on the machine); the
    /// search spends `CLOCK_SHARE` of it.
    pub time: Option<Duration>,
    /// Whether a clock lifts `depth` and `nodes` (true when the spec named
    /// neither): in timed play the clock decides how deep to search, and a
    /// spec that names a depth or a node budget keeps the reproducible,
    /// fixed-size search.
    pub clock_decides: bool,
    /// Whether the leaves press towards the win when ahead
    /// (`heuristic::evaluate_pressing`).
    pub press: Press,
    /// The hand-written leaves' scale of the result (`heuristic::LeafTerms`; 0:
    /// linear material).
    pub scale: u32,
    /// Whether the hand-written leaves weigh threats and the Flag's guard.
    pub guard: bool,
    /// Whether the Flag's guard counts our defenders and lets a known
    /// attacker's threat fade slowly (`heuristic::LeafTerms::defend`).
    pub defend: bool,
    /// Whether the opponent's attacks with hidden pieces are decided knowing
    /// their types (see the module documentation).
    pub informed: bool,
}

impl ExpectimaxConfig {
    pub const DEFAULT_DEPTH: u32 = 3;
    pub const DEFAULT_NODES: u64 = 20_000;
    pub const MAX_DEPTH: u32 = 20;

    /// The share of a decision's time limit the search itself may spend:
    /// the rest is for determinizing the position before it and for the
    /// caller's bookkeeping after it (the UCC bot's tracker, a slow pipe),
    /// so that the answer arrives within the limit.
    pub const CLOCK_SHARE: f64 = 0.85;

    /// These limits under a clock of `limit`: without a named depth or node
    /// budget, only the clock (and the deepest iteration) stops the search.
    pub fn under_clock(mut self, limit: Duration) -> ExpectimaxConfig {
        self.time = Some(self.time.map_or(limit, |t| t.min(limit)));
        if self.clock_decides {
            self.depth = Self::MAX_DEPTH;
            self.nodes = u64::MAX;
        }
        self
    }
}

impl Default for ExpectimaxConfig {
    fn default() -> Self {
        ExpectimaxConfig {
            depth: Self::DEFAULT_DEPTH,
            nodes: Self::DEFAULT_NODES,
            time: None,
            clock_decides: true,
            press: Press::Auto,
            scale: DEFAULT_SCALE,
            guard: true,
            // Off by default so that every spec registered before keeps
            // naming the player it played (registrations log resolved names);
            // the player for outside play names it: `defend=on`.
            defend: false,
            informed: true,
        }
    }
}

/// What the last decision cost.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct SearchStats {
    pub nodes: u64,
    /// The deepest iteration that completed.
    pub depth: u32,
}

/// What scores the leaves.
#[derive(Clone, Debug, Default)]
pub enum Leaf {
    /// `heuristic::evaluate`.
    #[default]
    Handwritten,
    /// N-tuple tables read from `path`.
    NTuple { path: String, net: Arc<NTupleNet> },
}

impl Leaf {
    /// Players of a factory whose leaves this scores: an n-tuple leaf
    /// carries the ruleset its tables were trained under.
    pub fn factory_of<F: Fn() -> Box<dyn stratego_players::Player> + Send + Sync>(
        &self,
        players: stratego_players::FnFactory<F>,
    ) -> stratego_players::FnFactory<F> {
        match self {
            Leaf::Handwritten => players,
            Leaf::NTuple { net, .. } => players.trained_for("its leaf tables were", *net.rules()),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct ExpectimaxPlayer {
    pub config: ExpectimaxConfig,
    pub setup: SetupPolicy,
    pub leaf: Leaf,
    pub last: SearchStats,
}

impl ExpectimaxPlayer {
    pub fn new(config: ExpectimaxConfig, setup: SetupPolicy) -> ExpectimaxPlayer {
        ExpectimaxPlayer { config, setup, leaf: Leaf::Handwritten, last: SearchStats::default() }
    }

    /// The same player with another leaf evaluation.
    pub fn with_leaf(mut self, leaf: Leaf) -> ExpectimaxPlayer {
        self.leaf = leaf;
        self
    }

    /// The values of the root moves after iterative deepening, from a
    /// determinized root, with the moves in the order of the last iteration.
    /// Only the best moves' values are exact: every other move's is an upper
    /// bound (alpha-beta and Star1 stop searching a move once it cannot be
    /// the best). A caller that weighs moves below the best uses
    /// [`root_values_within`](Self::root_values_within).
    pub fn root_values(&mut self, root: &State, legal: &[Move]) -> Vec<(Move, f64)> {
        self.root_values_within(root, legal, TIE)
    }

    /// As [`root_values`](Self::root_values), with the value of every move
    /// within `window` (score points, at least a tie's width) of the best
    /// exact, and every other move's an upper bound that lies more than
    /// `window` below the best: each move is searched with the window's
    /// lower end at the best value so far less `window`. A veto that keeps
    /// the moves within a margin of the best needs this: with the root's
    /// usual window a move that loses the Marshal to the Spy a ply later
    /// showed a bound 400 points below the best (within a 500-point margin)
    /// where its value was 7,000 below (asmodeus, EVALUATION.md "The outside
    /// field").
    pub fn root_values_within(&mut self, root: &State, legal: &[Move], window: f64) -> Vec<(Move, f64)> {
        let mut search = Search {
            me: root.to_move(),
            nodes: 0,
            budget: self.config.nodes,
            deadline: self.config.time.map(|l| Instant::now() + l.mul_f64(ExpectimaxConfig::CLOCK_SHARE)),
            enforce: false,
            aborted: false,
            leaf: match &self.leaf {
                Leaf::Handwritten => None,
                Leaf::NTuple { net, .. } => Some(net.clone()),
            },
            terms: LeafTerms {
                press: self.config.press.applies_after(root.rules(), root.battleless()),
                guard: self.config.guard,
                defend: self.config.defend,
                scale: self.config.scale,
            },
            informed: self.config.informed,
            root_window: window.max(TIE),
        };
        let mut values: Vec<(Move, f64)> = legal.iter().map(|&mv| (mv, 0.0)).collect();
        self.last = SearchStats::default();
        for depth in 1..=self.config.depth.max(1) {
            search.enforce = depth > 1;
            match search.root(root, &values, depth) {
                Some(mut found) => {
                    found.sort_by(|a, b| b.1.total_cmp(&a.1));
                    values = found;
                    self.last.depth = depth;
                }
                None => break,
            }
            if values.first().is_some_and(|(_, v)| v.abs() >= WIN - 1000.0) {
                break; // a forced win or loss is found; deeper search cannot change it
            }
        }
        self.last.nodes = search.nodes;
        values
    }
}

struct Search {
    me: Color,
    nodes: u64,
    budget: u64,
    deadline: Option<Instant>,
    /// Whether the budget applies (not during the first iteration).
    enforce: bool,
    aborted: bool,
    /// N-tuple tables for the leaves (`None`: the hand-written evaluation).
    leaf: Option<Arc<NTupleNet>>,
    /// What the hand-written leaves weigh; its `press` also tells whether
    /// learned leaves add `press_term`.
    terms: LeafTerms,
    /// Whether the opponent's hidden attacks are decided knowing their types.
    informed: bool,
    /// How far below the best so far a root move's value is still searched
    /// exactly (`root_values_within`).
    root_window: f64,
}

impl Search {
    fn out_of_budget(&self) -> bool {
        self.enforce && (self.nodes >= self.budget || self.deadline.is_some_and(|d| Instant::now() >= d))
    }

    /// One iteration over the root moves, in the given order. `None` if the
    /// budget ran out.
    fn root(&mut self, root: &State, ordered: &[(Move, f64)], depth: u32) -> Option<Vec<(Move, f64)>> {
        let mut best = f64::NEG_INFINITY;
        let mut out = Vec::with_capacity(ordered.len());
        for &(mv, _) in ordered {
            let v = self.after_move(root, mv, depth, 0, best - self.root_window, f64::INFINITY);
            if self.aborted {
                return None;
            }
            best = best.max(v);
            out.push((mv, v));
        }
        Some(out)
    }

    /// The value of a position `from_root` plies below the root.
    fn node(&mut self, state: &State, depth: u32, from_root: u32, mut alpha: f64, mut beta: f64) -> f64 {
        if self.out_of_budget() {
            self.aborted = true;
            return 0.0;
        }
        self.nodes += 1;
        if state.is_terminal() {
            return terminal_score(state, self.me, from_root);
        }
        if depth == 0 {
            return match &self.leaf {
                None => leaf_value(state, self.me, self.terms),
                Some(net) if self.terms.press => {
                    LEAF_SCALE * net.leaf_value(state, self.me) + TABLES_PRESS_SCALE * press_term(state, self.me)
                }
                Some(net) => LEAF_SCALE * net.leaf_value(state, self.me),
            };
        }
        let maximizing = state.to_move() == self.me;
        let mut moves = state.legal_moves();
        // Battles first: they change the material, so they raise alpha (or
        // lower beta) early and let the quiet moves be cut off.
        moves.sort_by_key(|mv| state.board()[mv.to].is_none());
        let mut best = if maximizing { f64::NEG_INFINITY } else { f64::INFINITY };
        // The opponent's attacks with hidden pieces, decided knowing their
        // types: after its other moves (see the module documentation).
        let mut informed = Vec::new();
        if self.informed && !maximizing {
            moves.retain(|&mv| match self.hidden_battle(state, mv) {
                Some(battle) => {
                    informed.push(battle);
                    false
                }
                None => true,
            });
        }
        for mv in moves {
            let v = self.after_move(state, mv, depth, from_root, alpha, beta);
            if self.aborted {
                return 0.0;
            }
            if maximizing {
                best = best.max(v);
                alpha = alpha.max(v);
            } else {
                best = best.min(v);
                beta = beta.min(v);
            }
            if alpha >= beta {
                return best;
            }
        }
        let best_other = best;
        for battle in informed {
            let v = self.informed_chance(state, &battle, depth, from_root, best_other);
            if self.aborted {
                return 0.0;
            }
            best = best.min(v);
            beta = beta.min(v);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// The value of the opponent's attack `mv` with a piece hidden from us
    /// when it knows the piece's type: each type's outcome capped by
    /// `best_other`, the value of its best other move.
    fn informed_chance(
        &mut self,
        state: &State,
        battle: &HiddenBattle,
        depth: u32,
        from_root: u32,
        best_other: f64,
    ) -> f64 {
        let cap = best_other.min(WIN);
        let mut sum = 0.0;
        for &(kind, p) in &battle.outcomes {
            let child = battle.child(state, kind);
            let v = self.node(&child, depth - 1, from_root + 1, -WIN, cap);
            if self.aborted {
                return 0.0;
            }
            sum += p * v.min(cap);
        }
        sum
    }

    /// The value of playing `mv` in `state`: a chance node if it starts a
    /// battle with a piece hidden from the searcher.
    fn after_move(&mut self, state: &State, mv: Move, depth: u32, from_root: u32, alpha: f64, beta: f64) -> f64 {
        match self.hidden_battle(state, mv) {
            None => {
                let mut child = state.clone();
                child.apply_move(mv).expect("searched moves are legal");
                self.node(&child, depth - 1, from_root + 1, alpha, beta)
            }
            Some(battle) => self.chance(state, &battle, depth, from_root, alpha, beta),
        }
    }

    /// If `mv` is a battle involving a piece whose type the searcher does not
    /// know: that piece's square and its possible types with their
    /// probabilities (normalised, most likely first).
    fn hidden_battle(&self, state: &State, mv: Move) -> Option<HiddenBattle> {
        let board = state.board();
        let mover = board[mv.from]?;
        let target = board[mv.to]?;
        let (sq, piece, attacking) =
            if mover.color == self.me { (mv.to, target, false) } else { (mv.from, mover, true) };
        if piece.revealed || piece.color == self.me {
            return None;
        }
        let prior = CountingPrior::new(state, self.me);
        let dist = prior.of(&piece);
        let mut outcomes: Vec<(PieceType, f64)> = PieceType::ALL
            .into_iter()
            .filter(|t| !attacking || (t.is_movable() && (mv.distance() == 1 || *t == PieceType::Scout)))
            .map(|t| (t, dist[t.index()] as f64))
            .filter(|&(_, p)| p > 0.0)
            .collect();
        let total: f64 = outcomes.iter().map(|(_, p)| p).sum();
        if total <= 0.0 {
            return None; // the determinized type is the only one the rules allow
        }
        outcomes.iter_mut().for_each(|(_, p)| *p /= total);
        outcomes.sort_by(|a, b| b.1.total_cmp(&a.1));
        Some(HiddenBattle { mv, square: sq, outcomes })
    }

    /// Star1 over the outcomes of a battle (see the module documentation).
    fn chance(
        &mut self,
        state: &State,
        battle: &HiddenBattle,
        depth: u32,
        from_root: u32,
        alpha: f64,
        beta: f64,
    ) -> f64 {
        let (lo, hi) = (-WIN, WIN);
        let mut left: f64 = battle.outcomes.iter().map(|(_, p)| p).sum();
        let mut sum = 0.0;
        for &(kind, p) in &battle.outcomes {
            left = (left - p).max(0.0);
            let a_raw = (alpha - sum - left * hi) / p;
            let b_raw = (beta - sum - left * lo) / p;
            if a_raw >= hi {
                return sum + (p + left) * hi; // cannot rise above alpha
            }
            if b_raw <= lo {
                return sum + (p + left) * lo; // cannot fall below beta
            }
            let (a, b) = (a_raw.max(lo), b_raw.min(hi));
            let child = battle.child(state, kind);
            let v = self.node(&child, depth - 1, from_root + 1, a, b);
            if self.aborted {
                return 0.0;
            }
            if v <= a && a > lo {
                return sum + p * v + left * hi; // an upper bound at or below alpha
            }
            if v >= b && b < hi {
                return sum + p * v + left * lo; // a lower bound at or above beta
            }
            sum += p * v;
        }
        sum
    }
}

/// A battle of `mv` with a piece whose type the searcher does not know: the
/// chance node's square and its outcomes (the piece's possible types with
/// their probabilities, normalised, most likely first).
struct HiddenBattle {
    mv: Move,
    square: Square,
    outcomes: Vec<(PieceType, f64)>,
}

impl HiddenBattle {
    /// The position after the battle when the hidden piece is a `kind`.
    fn child(&self, state: &State, kind: PieceType) -> State {
        let mut child = with_hidden_type(state, self.square, kind);
        child.apply_move(self.mv).expect("searched moves are legal");
        child
    }
}

impl Player for ExpectimaxPlayer {
    fn name(&self) -> String {
        expectimax_spec(&self.config, self.setup, Some(&self.leaf), Naming::Canonical).to_string()
    }

    fn choose_setup(&mut self, set: PieceSet, rng: &mut AgentRng) -> Setup {
        self.setup.choose(set, rng)
    }

    fn choose_move(&mut self, view: &InfoView<'_>, rng: &mut AgentRng) -> Result<Move, PlayerError> {
        if view.legal_moves.len() == 1 {
            return Ok(view.legal_moves[0]);
        }
        let root = determinize(view, rng);
        let values = self.root_values(&root, &view.legal_moves);
        let best = values.iter().map(|(_, v)| *v).fold(f64::NEG_INFINITY, f64::max);
        let ties: Vec<Move> = values.iter().filter(|(_, v)| *v >= best - TIE).map(|(mv, _)| *mv).collect();
        if ties.is_empty() {
            // Only a NaN value gets here (the leaf tables are bounded at load).
            return Err(PlayerError::Failed(format!("{}: no legal move has a numeric value", self.name())));
        }
        Ok(ties[rng.random_range(0..ties.len())])
    }

    /// The caller's clock (`ucc-bot`'s move time) joins the config's own
    /// limit, the tighter of the two deciding (`ExpectimaxConfig::under_clock`).
    fn limit_move_time(&mut self, limit: Duration) {
        self.config = self.config.under_clock(limit);
    }
}

// The spec of an expectimax player: its options, its canonical name and
// how a spec's text reads back as a config (the registry's entry,
// `entries.rs`, calls these).

/// The options an `expectimax` spec takes.
pub const EXPECTIMAX_OPTIONS: &str = concat!(
    "depth=N (1-20), nodes=N, time=MS, leaf=handwritten|ntuple:PATH, press=auto|on|off, \
     scale=N (material points; 0 = linear), guard=on|off, defend=on|off, informed=on|off, ",
    stratego_players::setup_option!()
);

/// `expectimax:depth=D[,nodes=N][,time=MS][,leaf=ntuple:PATH][,press=P]
/// [,scale=N][,guard=..][,informed=..][,setup=S]`: the depth always (it is
/// what a reader looks for), the rest when not the default (every one when
/// resolved); `expectimax:time=MS` when the clock alone decides the depth
/// (resolved too: naming a depth would hand the decision back to it).
/// `leaf: None` for a kind that has no `leaf` option (the guided search,
/// whose leaf is always the hand-written one).
pub fn expectimax_spec(
    config: &ExpectimaxConfig,
    setup: SetupPolicy,
    leaf: Option<&Leaf>,
    naming: Naming,
) -> PlayerSpec {
    let timed = config.time.is_some() && config.clock_decides;
    let defaults = ExpectimaxConfig::default();
    let mut spec = PlayerSpec::named("expectimax");
    // A timed search whose depth the clock decides is named by its clock.
    if !timed {
        spec = spec.with("depth", config.depth).with_default(naming, "nodes", config.nodes, defaults.nodes);
    }
    spec = spec.with_some("time", config.time.map(|t| t.as_millis()));
    if let Some(leaf) = leaf {
        let leaf = match leaf {
            Leaf::NTuple { path, .. } => format!("ntuple:{path}"),
            Leaf::Handwritten => "handwritten".to_string(),
        };
        spec = spec.with_default(naming, "leaf", leaf, "handwritten".to_string());
    }
    let switch = |on: bool| if on { "on" } else { "off" };
    let spec = spec
        .with_default(naming, "press", config.press.name(), Press::default().name())
        .with_default(naming, "scale", config.scale, defaults.scale)
        .with_default(naming, "guard", switch(config.guard), switch(defaults.guard))
        // Named only when on, in both namings: the names of players
        // registered before the option existed stay theirs.
        .with_some("defend", config.defend.then_some("on"))
        .with_default(naming, "informed", switch(config.informed), switch(defaults.informed));
    spec.with_setup(setup, naming)
}

/// An `on|off` option of a spec.
fn switch_option(spec: &PlayerSpec, key: &str, default: bool) -> Result<bool, SpecError> {
    match spec.option(key) {
        None => Ok(default),
        Some("on") => Ok(true),
        Some("off") => Ok(false),
        Some(text) => Err(SpecError::bad_value(key, text, "expected on or off")),
    }
}

/// The search limits of an `expectimax` spec.
pub fn expectimax_config(spec: &PlayerSpec) -> Result<ExpectimaxConfig, SpecError> {
    let defaults = ExpectimaxConfig::default();
    let depth = spec.parse_option(
        "depth",
        defaults.depth,
        |d: &u32| (1..=ExpectimaxConfig::MAX_DEPTH).contains(d),
        "expected a whole number of plies from 1 to 20",
    )?;
    let nodes = spec.parse_option("nodes", defaults.nodes, |n: &u64| *n >= 1, "expected a positive whole number")?;
    let time = match spec.option("time") {
        None => None,
        Some(_) => {
            let ms = spec.parse_option("time", 0u64, |n: &u64| *n >= 1, "expected milliseconds, at least 1")?;
            Some(std::time::Duration::from_millis(ms))
        }
    };
    let clock_decides = spec.option("depth").is_none() && spec.option("nodes").is_none();
    let press = Press::option(spec)?;
    let scale =
        spec.parse_option("scale", defaults.scale, |_: &u32| true, "expected a whole number of material points")?;
    let guard = switch_option(spec, "guard", defaults.guard)?;
    let defend = switch_option(spec, "defend", defaults.defend)?;
    let informed = switch_option(spec, "informed", defaults.informed)?;
    let config = ExpectimaxConfig { depth, nodes, time, clock_decides, press, scale, guard, defend, informed };
    Ok(match time {
        Some(limit) => config.under_clock(limit),
        None => config,
    })
}

/// The leaf of an `expectimax` spec, its tables read.
pub fn expectimax_leaf(spec: &PlayerSpec) -> Result<Leaf, SpecError> {
    match spec.option("leaf") {
        None | Some("handwritten") => Ok(Leaf::Handwritten),
        Some(value) => match value.split_once(':') {
            Some(("ntuple", path)) if !path.trim().is_empty() => {
                let path = path.trim().to_string();
                Ok(Leaf::NTuple { net: load_tables(&path, spec)?, path })
            }
            _ => Err(SpecError::bad_value("leaf", value, "expected `handwritten` or `ntuple:PATH`")),
        },
    }
}
