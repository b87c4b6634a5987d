//! A network checkpoint that looks ahead by playing itself:
//! `netrollout:PATH[,width=K][,worlds=N][,horizon=H][,margin=M][,sure=Z][,reply=T][,veto=M]
//! [,value=W][,prior=counting|belief][,pool=W][,step=margin|mirror][,eta=E][,time=MS][,setup=S]`.
//!
//! The bare `net:` player plays its policy's favourite. This player asks,
//! before it does, what happens next if both sides go on playing that
//! policy, and plays another of the policy's favourites only where the
//! answer is clearly better. It is the rollout algorithm (one step of
//! policy improvement by simulation) over determinised worlds:
//!
//! - **Candidates.** The root's `width` most likely legal moves by the
//!   policy, read once on the rebuilt root (its planes do not depend on the
//!   hidden types drawn).
//! - **Worlds.** `worlds` states rebuilt from the view with the opponent's
//!   hidden types drawn as [`public_replay`] draws them (the counting prior,
//!   the unknown Bombs and Flag only on pieces that never moved), each with
//!   the game's whole history, so that every plane in a rollout is one a
//!   real game could show. Every candidate is played in the same worlds
//!   (common random numbers: the candidates' differences are not blurred by
//!   different draws). With `prior=belief` the hidden types are drawn from
//!   the network's belief head at the root instead, one piece at a time, the
//!   unknown counts keeping each world an army the view allows
//!   ([`public_replay_weighted`]); with `pool=W` from the head pooled with
//!   the counting prior, `prior^(1-W) · head^W`.
//! - **Rollouts.** In each world each candidate is played, then both sides
//!   play the network's most likely move for `horizon` plies, all rollouts
//!   in step: one batched inference per ply (at most [`CHUNK`] positions a
//!   call). The opponent's moves are the network's on the drawn army, as in
//!   self-play; a battle is decided by the drawn types. With `reply=T` the
//!   opponent's moves are drawn from its policy at temperature T instead,
//!   so that the rollouts are not a model of one exact opponent (the
//!   player's own argmax).
//! - **Leaves.** A finished game scores its result (+1, 0, -1). Otherwise
//!   the rollout's end is scored by expectimax's hand-written leaf on the
//!   result's scale (`stratego_baselines::heuristic::leaf_value` with its
//!   guards, divided by `WIN`): material as the player knows it (the
//!   opponent's unrevealed pieces at their expected values, whatever the
//!   drawn types), the threats of the side to move and the Flag's guard.
//!   With `value=W` the value head's P(win) - P(loss) at the leaf (one
//!   more batched inference) has weight W in it and the hand-written leaf
//!   1 - W: the registered networks' heads predict results better than the
//!   leaf on games like their training's and worse on others (EVALUATION.md,
//!   "What the heads know"), so the blend is an option, measured.
//! - **Choice.** A candidate's value is its leaves' mean over the worlds.
//!   The policy's favourite is played unless another candidate's value is
//!   more than `margin` (a share of a won game) above it; then the best
//!   valued is played. So the search overrules the policy only where its
//!   own continuation, in the same worlds, ends clearly worse. With
//!   `sure=Z` the gain beyond the margin must also exceed Z standard errors
//!   of the world-by-world gains: fewer worlds (a short clock) overrule
//!   less often. With `step=mirror` the move is drawn instead from one
//!   magnetic-mirror-descent step from the policy towards the values, as
//!   Ataraxos' search plays ([`Step::Mirror`]; `eta`, its size, 50 there):
//!   the search never strays far from the policy where the values differ
//!   little, and follows them where they differ much.
//! - **Veto.** With `veto=M`, before any rollout, expectimax (the baselines'
//!   hand-written search, at its default size, or for 40 % of the clock)
//!   searches every root move in a determinised root, and the candidates are
//!   the policy's favourites among the moves it values within M of the best
//!   (those `netexpectimax` would choose among). The rollouts then overrule
//!   only with a move the search does not value clearly worse, and a
//!   favourite the search values clearly worse is never played. Off by
//!   default: in the pilots it did not pay (EVALUATION.md).
//!
//! **Clock.** Without a clock the search has a fixed size and is a pure
//! function of the view and the seed (for reproducible arena games). Under
//! `time=MS` or the caller's move time (the tighter decides) worlds are
//! rolled out in groups: the first, of [`FIRST_GROUP`] worlds, is always
//! rolled out, and each next one is as large as the measured cost of a world
//! lets the rest of 80 % of the clock hold (at most `CHUNK / width` worlds,
//! one batch per ply), up to `worlds` in all. No ply is started that would
//! end past that point (by the last ply's cost): a later group cut short is
//! dropped, the first is scored where its rollouts stand (every candidate
//! at the same depth), so a loaded machine costs depth, not the clock.
//! With a veto, its search comes first and has [`VETO_SHARE`] of the clock;
//! the rollouts have what it left of the 80 %.

use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use stratego_baselines::heuristic::{leaf_value, LeafTerms, DEFAULT_SCALE, WIN};
use stratego_engine::{Color, CountingPrior, Move, PieceType, Square, State};
use stratego_model::{choose_action, Inference};
use stratego_players::reconstruct::{public_replay, public_replay_weighted};
use stratego_players::{AgentRng, InfoView, Naming, PlayerSpec, SpecError};

use crate::kind::named::{changed, clock, resolved, some};
use crate::kind::options::{number, parsed, time, veto, whole};
use crate::kind::{
    from_the_table, kind_options, play, result_value, Decision, NetworkPlayer, NetworkPlayerKind, Reads,
};
use crate::network::{Network, NetworkFactory, CHUNK};
use crate::search::ChancePrior;
use crate::NetPlayerError;

/// Worlds in the first group under a clock: its cost sizes the next groups.
pub const FIRST_GROUP: usize = 2;

/// With a veto, the share of the clock expectimax's search of the root
/// has; the rollouts have the rest of `CLOCK_SHARE`.
pub const VETO_SHARE: f64 = 0.4;

kind_options! {
    /// The options of a rollout player, after the path in its spec.
    #[derive(Copy, Clone, PartialEq, Debug)]
    pub struct RolloutOptions {
        /// The policy's most likely moves that are rolled out.
        width: usize = 4, read whole(1, 16), named resolved,
            "width=K (1-16, the policy's moves rolled out, default 4)";
        /// Determinised worlds per decision (the most, under a clock).
        worlds: usize = 8, read whole(1, 256), named resolved,
            "worlds=N (1-256, determinised worlds, the most under a clock, default 8)";
        /// Plies the network plays after each candidate.
        horizon: u32 = 8, read whole(0, 200), named resolved,
            "horizon=H (0-200, plies played by the network after each move, default 8)";
        /// How far (a share of a won game) a candidate's value must lie above
        /// the policy's favourite's to be played instead.
        margin: f64 = 0.1, read number(2.0), named resolved,
            "margin=M (0-2, a share of a won game a move must gain over the policy's favourite, default 0.1)";
        /// How sure the overruling must be: the mean gain over the favourite,
        /// less `margin`, must exceed `sure` standard errors of the world-by-world
        /// gains (0: the margin alone decides).
        sure: f64 = 0.0, read number(10.0), named resolved,
            "sure=Z (0-10, standard errors of the world-by-world gain that must also exceed the margin, default 0: off)";
        /// The temperature of the opponent's moves in the rollouts: 0 plays its
        /// most likely move (the player's own answer); above 0 a draw from
        /// `p^(1/reply)`, so that a candidate is judged against more than one
        /// way of answering it.
        reply: f32 = 0.0, read number(10.0), named resolved,
            "reply=T (0-10, the temperature of the opponent's moves in the rollouts, default 0: its most likely move)";
        /// With `Some(m)`, expectimax first searches every root move, and those
        /// it values more than `m` (a share of a won game) below the best are
        /// vetoed: the candidates are the policy's favourites among the rest
        /// (as `netexpectimax` chooses). `None`: no search but the rollouts.
        veto: Option<f64> = None, read veto, named some,
            "veto=M (0-2: expectimax first searches every root move and vetoes those it values more than M below the \
             best; default off)";
        // The options from here to `eta` are named only when not the
        // default (`named changed`), as a veto: the players registered
        // before these options keep their resolved names.
        /// The weight of the value head in a rollout's leaf (0: the hand-written
        /// leaf alone, 1: the value head alone; between, the blend).
        value: f64 = 0.0, read number(1.0), named changed,
            "value=W (0-1, the value head's weight in a rollout's leaf beside the hand-written leaf, default 0)";
        /// What the worlds' hidden types are drawn from (`Belief`: the belief
        /// head at the root, one hidden piece at a time, the counts keeping the
        /// army whole: `public_replay_weighted`).
        prior: ChancePrior = ChancePrior::Counting, read parsed, named changed,
            "prior=counting|belief (the worlds' hidden types, default counting)";
        /// With the belief's worlds, the head's weight in its pool with the
        /// counting prior, `prior^(1-pool) · head^pool` (1: the head alone; the
        /// probe's pooled belief: EVALUATION.md, "The belief pooled with the
        /// counting prior").
        pool: f64 = 1.0, read pool, named changed,
            "pool=W (0-1, with prior=belief the head's weight in its pool with the counting prior, default 1: the \
             head alone)";
        /// How the rollouts' values choose the move (`step=`, and `eta=` with
        /// the mirror step).
        step: Step = Step::Margin, read step, named step_and_eta,
            "step=margin|mirror (the policy's favourite unless overruled by the margin, or a magnetic-mirror-descent \
             step drawn from, default margin), eta=E (0-1000, the mirror step's size, default 50)";
        /// A wall-clock limit per decision (makes play depend on the machine).
        time: Option<Duration> = None, read time, named clock,
            "time=MS (a clock per decision; none by default: fixed size, reproducible)";
    }
}

/// `pool=W` (0 to 1) belongs to the belief's worlds: refused without
/// `prior=belief`.
fn pool(spec: &PlayerSpec, key: &str, default: f64) -> Result<f64, SpecError> {
    match spec.option(key) {
        Some(text) if spec.option("prior") != Some("belief") => {
            Err(SpecError::bad_value(key, text, "pool is the belief's: name prior=belief with it"))
        }
        _ => number(spec, key, default, 1.0),
    }
}

/// `step=margin|mirror`, with `eta=E` (0 to 1000) the mirror step's size,
/// refused with the margin's step.
fn step(spec: &PlayerSpec, key: &str, default: Step) -> Result<Step, SpecError> {
    let eta = number(spec, "eta", MMD_ETA, 1000.0)?;
    match spec.option(key) {
        None | Some("margin") => match spec.option("eta") {
            None => Ok(default),
            Some(text) => Err(SpecError::bad_value("eta", text, "eta is the mirror step's: name step=mirror with it")),
        },
        Some("mirror") => Ok(Step::Mirror { eta }),
        Some(other) => Err(SpecError::bad_value(key, other, "expected margin or mirror")),
    }
}

/// The step when not the margin's, and the mirror step's size.
fn step_and_eta(spec: PlayerSpec, _: Naming, key: &str, value: Step, default: Step) -> PlayerSpec {
    spec.with_default(Naming::Canonical, key, value.name(), default.name()).with_some("eta", value.eta())
}

/// How the candidates' values choose the move.
#[derive(Copy, Clone, PartialEq, Debug)]
pub enum Step {
    /// The policy's favourite, unless another candidate is valued more than
    /// `margin` above it (and `sure` standard errors), then the best valued.
    Margin,
    /// One magnetic-mirror-descent step from the policy (Ataraxos' search):
    /// among the candidates, pi(a) ∝ exp[(log pi_net(a) + eta·q(a) + eta·tau·log
    /// magnet(a)) / (1 + eta·tau)] with a uniform magnet and tau = [`MMD_TAU`];
    /// the move is drawn from pi. `eta` (Ataraxos: 1/beta = 50) says how far the
    /// values may pull the play from the policy.
    Mirror { eta: f64 },
}

/// The magnet's weight tau of the mirror-descent step (Ataraxos' alpha).
pub const MMD_TAU: f64 = 0.002;

/// Ataraxos' step size eta = 1/beta (beta = 0.02).
pub const MMD_ETA: f64 = 50.0;

impl Step {
    pub fn name(self) -> &'static str {
        match self {
            Step::Margin => "margin",
            Step::Mirror { .. } => "mirror",
        }
    }

    fn eta(self) -> Option<f64> {
        match self {
            Step::Margin => None,
            Step::Mirror { eta } => Some(eta),
        }
    }
}

/// Makes [`RolloutPlayer`]s that share one loaded network.
pub type RolloutFactory = NetworkFactory<RolloutOptions>;

impl NetworkPlayerKind for RolloutOptions {
    type Stats = RolloutStats;
    const NAME: &'static str = "netrollout";
    const ABOUT: &'static str =
        "a network's policy, overruled where its own rollouts in determinised worlds end clearly better";

    from_the_table!();

    fn decide(&self, decision: Decision<'_, '_, RolloutStats>) -> Result<Move, NetPlayerError> {
        let Decision { network, view, rng, stats, start, deadline } = decision;
        let me = view.me;
        // The root's planes do not depend on the hidden types drawn. Each
        // world has a generator of its own, drawn in order from the
        // player's: a decision is a function of the view and the seed.
        let (first, root) = stats.reads.root(network, view, rng)?;
        // The belief, pooled with the counting prior by `pool` (the prior
        // is public: any rebuilt world gives the same). Built only for a
        // pool: the other players' decisions do not pay for it.
        let pool = self.pool;
        let pooled = (self.prior == ChancePrior::Belief && pool < 1.0)
            .then(|| (CountingPrior::new(&first, me), first.board().clone()));
        let belief = |sq: Square, t: PieceType| {
            let head = f64::from(root.belief[sq.in_frame(me).index() * 12 + t.index()]);
            let Some((counting, board)) = &pooled else { return head };
            let prior = board[sq].map_or(0.0, |piece| f64::from(counting.of(&piece)[t.index()]));
            if prior <= 0.0 {
                return 0.0;
            }
            (prior.ln() * (1.0 - pool) + head.max(1e-30).ln() * pool).exp()
        };
        let draw_world = |rng: &mut AgentRng| {
            let mut world_rng = AgentRng::seed_from_u64(rng.random());
            match self.prior {
                ChancePrior::Counting => public_replay(view, &mut world_rng),
                ChancePrior::Belief => public_replay_weighted(view, &belief, &mut world_rng),
            }
            .map_err(NetPlayerError::from)
        };
        // With the belief the first world is drawn again, from it.
        let first = match self.prior {
            ChancePrior::Counting => first,
            ChancePrior::Belief => draw_world(rng)?,
        };
        let prior = |mv: &Move| mv.to_action(me).map_or(0.0, |a| root.policy[a as usize]);
        let mut candidates = view.legal_moves.clone();
        // Most likely first; the sort is stable, so equal priors keep the view's order.
        candidates.sort_by(|a, b| prior(b).total_cmp(&prior(a)));
        if let Some(margin) = self.veto {
            let (kept, depth) = self.veto(view, &candidates, margin, rng)?;
            stats.vetoed = candidates.len() - kept.len();
            stats.veto_first = kept[0] != candidates[0];
            stats.veto_depth = depth;
            candidates = kept;
        }
        candidates.truncate(self.width);
        // One move left (`width=1`, or a veto of all but one): nothing to compare.
        if candidates.len() == 1 {
            stats.elapsed = start.elapsed();
            return Ok(candidates[0]);
        }

        // Without a clock every group is one batch per ply. Under a clock
        // the first group is small, and each next one as large as the
        // measured cost of a world lets the rest of the clock hold.
        let batch = (CHUNK / candidates.len()).max(1);
        let mut size = if deadline.is_some() { FIRST_GROUP.min(batch) } else { batch };
        // Leaf values world by world, each world's candidates in order.
        let mut leaves: Vec<f64> = Vec::new();
        let mut worlds = vec![first];
        let mut done = 0;
        while done < self.worlds && size > 0 {
            let started = Instant::now();
            let size_now = size.min(self.worlds - done);
            while worlds.len() < size_now {
                worlds.push(draw_world(rng)?);
            }
            // The opponent's draws in the rollouts (`reply` > 0) come from a
            // seed of the group's own; without them the player's stream is
            // untouched, so the default replays as it did before the option.
            let replies = if self.reply > 0.0 { rng.random() } else { 0 };
            let (values, whole) = self.roll_out(network, &worlds, &candidates, replies, deadline, stats)?;
            // A group the clock cuts short is dropped, but the first: its
            // leaves, all at the same shorter horizon, still compare the
            // candidates, and some values are needed.
            if !whole && done > 0 {
                break;
            }
            leaves.extend(values);
            done += size_now;
            worlds.clear();
            if let Some(deadline) = deadline {
                let per_world = started.elapsed().as_secs_f64() / size_now as f64;
                let left = deadline.saturating_duration_since(Instant::now()).as_secs_f64();
                size = ((left / per_world.max(1e-9)) as usize).min(batch);
            }
        }

        if leaves.iter().any(|v| !v.is_finite()) {
            return Err(NetPlayerError::NotANumber("a rollout"));
        }
        let n = candidates.len();
        let values: Vec<f64> = (0..n).map(|c| leaves.iter().skip(c).step_by(n).sum::<f64>() / done as f64).collect();
        // The best valued; the policy's order decides among equal values.
        let best = (0..n).fold(0, |b, c| if values[c] > values[b] { c } else { b });
        let gain = values[best] - values[0];
        // With `sure` off the error is not asked for: 0 times an infinite
        // error (one world) is NaN, which no gain exceeds.
        let sure = |c| self.sure == 0.0 || gain - self.margin > self.sure * paired_standard_error(&leaves, n, c);
        let chosen = match self.step {
            Step::Margin if gain > self.margin && sure(best) => best,
            Step::Margin => 0,
            Step::Mirror { eta } => {
                let policy: Vec<f64> = candidates.iter().map(|mv| f64::from(prior(mv))).collect();
                mirror_draw(&policy, &values, eta, rng)
            }
        };
        stats.worlds = done;
        stats.values = candidates.iter().zip(&values).map(|(&mv, &v)| (mv, v, prior(&mv))).collect();
        stats.overruled = chosen != 0;
        stats.elapsed = start.elapsed();
        Ok(candidates[chosen])
    }
}

/// What the last decision did.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct RolloutStats {
    /// Worlds rolled out (0: a forced move, or one candidate: no rollout).
    pub worlds: usize,
    /// What the network read (the root included).
    pub reads: Reads,
    /// Every candidate, in the policy's order: its mean leaf value (a share
    /// of a won game, -1 to 1) and the policy's probability.
    pub values: Vec<(Move, f64, f32)>,
    /// Whether the rollouts overruled the first candidate (the policy's
    /// favourite; with a veto, its favourite among the moves kept).
    pub overruled: bool,
    /// With `veto`: the root moves expectimax vetoed, whether the policy's
    /// favourite was one of them, and the search's deepest iteration.
    pub vetoed: usize,
    pub veto_first: bool,
    pub veto_depth: u32,
    pub elapsed: Duration,
}

/// Plays its network's policy, overruled by rollouts (see the module documentation).
pub type RolloutPlayer = NetworkPlayer<RolloutOptions>;

/// The leaves' terms: expectimax's defaults for a hand-written leaf (the
/// guards on, the result's scale), without the press (the policy, not the
/// leaf, decides how a lead is pressed here).
const LEAF: LeafTerms = LeafTerms { press: false, guard: true, defend: false, scale: DEFAULT_SCALE };

/// A rollout's end, scored for `me` as a share of a won game.
pub fn leaf(state: &State, me: Color) -> f64 {
    result_value(state, me).unwrap_or_else(|| leaf_value(state, me, LEAF) / WIN)
}

/// The network's output on every unfinished rollout, one inference call a
/// [`CHUNK`]: each call's rollout indices beside its output (none when every
/// rollout has finished).
fn read_live(
    network: &Network,
    rollouts: &[State],
    stats: &mut RolloutStats,
) -> Result<Vec<(Vec<usize>, Inference)>, NetPlayerError> {
    let live: Vec<usize> = (0..rollouts.len()).filter(|&i| !rollouts[i].is_terminal()).collect();
    let mut batches = Vec::with_capacity(live.len().div_ceil(CHUNK));
    for chunk in live.chunks(CHUNK) {
        let states: Vec<&State> = chunk.iter().map(|&i| &rollouts[i]).collect();
        batches.push((chunk.to_vec(), stats.reads.infer(network, &states)?));
    }
    Ok(batches)
}

/// The standard error of the mean of candidate `c`'s world-by-world gain
/// over the favourite (candidate 0) in `leaves` (world by world, `n`
/// candidates each; the worlds are shared, so the gains are paired);
/// infinite from one world, where it cannot be estimated.
fn paired_standard_error(leaves: &[f64], n: usize, c: usize) -> f64 {
    let gains: Vec<f64> = leaves.chunks(n).map(|world| world[c] - world[0]).collect();
    if gains.len() < 2 {
        return f64::INFINITY;
    }
    let k = gains.len() as f64;
    let mean = gains.iter().sum::<f64>() / k;
    let variance = gains.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / (k - 1.0);
    (variance / k).sqrt()
}

/// One magnetic-mirror-descent step from `policy` (the candidates' network
/// probabilities) towards their `values` (q, -1 to 1), with a uniform magnet
/// ([`Step::Mirror`]), and the index of a candidate drawn from it. A
/// candidate the policy gives no probability keeps none.
fn mirror_draw(policy: &[f64], values: &[f64], eta: f64, rng: &mut AgentRng) -> usize {
    let logits: Vec<f64> = policy
        .iter()
        .zip(values)
        .map(|(p, q)| if *p > 0.0 { (p.ln() + eta * q) / (1.0 + eta * MMD_TAU) } else { f64::NEG_INFINITY })
        .collect();
    let top = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if top == f64::NEG_INFINITY {
        // No candidate has probability: the best valued.
        return (0..values.len()).fold(0, |b, c| if values[c] > values[b] { c } else { b });
    }
    let weights: Vec<f64> = logits.iter().map(|l| (l - top).exp()).collect();
    let mut x = rng.random::<f64>() * weights.iter().sum::<f64>();
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return i;
        }
        x -= w;
    }
    weights.iter().rposition(|w| *w > 0.0).unwrap_or(0)
}

/// The legal move of `state`'s side to move that its policy likes best
/// (`temperature` 0), or one drawn from `p^(1/temperature)`.
fn policy_move(state: &State, policy: &[f32], temperature: f32, rng: &mut AgentRng) -> Result<Move, NetPlayerError> {
    let action = choose_action(policy, temperature, rng).ok_or(NetPlayerError::NoLegalAction)?;
    Move::from_action(action, state.to_move()).ok_or(NetPlayerError::NotLegal(action))
}

impl RolloutOptions {
    /// The root moves (given in the policy's order) that expectimax, having
    /// searched them all in a determinised root for [`VETO_SHARE`] of the
    /// clock (or at its default fixed size without one), values within
    /// `margin` (a share of a won game) of the best, in the same order; and
    /// the search's deepest iteration.
    fn veto(
        &self,
        view: &InfoView<'_>,
        ordered: &[Move],
        margin: f64,
        rng: &mut AgentRng,
    ) -> Result<(Vec<Move>, u32), NetPlayerError> {
        let clock = self.time.map(|t| t.mul_f64(VETO_SHARE));
        crate::veto::kept(view, ordered, margin, clock, self.setup, rng)
    }

    /// Every candidate played in every world, then `horizon` plies of the
    /// network's favourites on both sides: the leaves' values, world by
    /// world, candidates in order, and whether the whole horizon was played
    /// (past `deadline` no further ply is started).
    fn roll_out(
        &self,
        network: &Network,
        worlds: &[State],
        candidates: &[Move],
        replies: u64,
        deadline: Option<Instant>,
        stats: &mut RolloutStats,
    ) -> Result<(Vec<f64>, bool), NetPlayerError> {
        // Every world is the game rebuilt with us to move.
        let me = worlds[0].to_move();
        let mut rollouts = Vec::with_capacity(worlds.len() * candidates.len());
        // Every candidate in a world draws the opponent's moves from the same
        // stream (common random numbers, as for the worlds).
        let mut draws = Vec::with_capacity(rollouts.capacity());
        for (w, world) in worlds.iter().enumerate() {
            for &mv in candidates {
                draws.push(AgentRng::seed_from_u64(replies.wrapping_add(w as u64)));
                let mut state = world.clone();
                play(&mut state, mv, "a rebuilt world")?;
                rollouts.push(state);
            }
        }
        // A ply costs about what the last one did: none is started that
        // would end past the deadline.
        let mut last_ply = Duration::ZERO;
        for _ in 0..self.horizon {
            let ply_start = Instant::now();
            if deadline.is_some_and(|d| ply_start + last_ply >= d) {
                return Ok((self.leaves(network, me, &rollouts, stats)?, false));
            }
            let batches = read_live(network, &rollouts, stats)?;
            if batches.is_empty() {
                break;
            }
            for (chunk, out) in batches {
                for (k, &i) in chunk.iter().enumerate() {
                    let temperature = if rollouts[i].to_move() == me { 0.0 } else { self.reply };
                    let mv = policy_move(&rollouts[i], out.policy_of(k), temperature, &mut draws[i])?;
                    play(&mut rollouts[i], mv, "a rollout")?;
                }
            }
            last_ply = ply_start.elapsed();
        }
        Ok((self.leaves(network, me, &rollouts, stats)?, true))
    }

    /// The rollouts' ends scored for `me` as a share of a won game: a
    /// finished game by its result; else the hand-written leaf, blended with
    /// the value head's P(win) - P(loss) by `value` (one more batched
    /// inference, on the leaves themselves, when the head has a weight).
    fn leaves(
        &self,
        network: &Network,
        me: Color,
        rollouts: &[State],
        stats: &mut RolloutStats,
    ) -> Result<Vec<f64>, NetPlayerError> {
        let mut leaves: Vec<f64> = rollouts.iter().map(|state| leaf(state, me)).collect();
        let w = self.value;
        if w == 0.0 {
            return Ok(leaves);
        }
        for (chunk, out) in read_live(network, rollouts, stats)? {
            for (k, &i) in chunk.iter().enumerate() {
                // The head speaks for the side to move.
                let head = f64::from(out.value[k]);
                let mine = if rollouts[i].to_move() == me { head } else { -head };
                leaves[i] = w * mine + (1.0 - w) * leaves[i];
            }
        }
        Ok(leaves)
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::{mirror_draw, paired_standard_error, AgentRng, MMD_TAU};

    /// The mirror step by hand: with eta 0 the draw is the policy's
    /// (renormalised over the candidates); a large eta plays the best
    /// valued; Ataraxos' eta 50 turns a value gap of 0.1 against a policy
    /// ratio of 4 (exp(50 * 0.1 / 1.1) = 94 against 4^(1/1.1) = 3.5); a
    /// candidate the policy gives nothing is never drawn.
    #[test]
    fn the_mirror_step_by_hand() {
        let frequencies = |policy: &[f64], values: &[f64], eta: f64| {
            let mut rng = AgentRng::seed_from_u64(3);
            let mut counts = vec![0usize; policy.len()];
            for _ in 0..20_000 {
                counts[mirror_draw(policy, values, eta, &mut rng)] += 1;
            }
            counts.iter().map(|&c| c as f64 / 20_000.0).collect::<Vec<_>>()
        };
        let f = frequencies(&[0.6, 0.2, 0.1, 0.0], &[0.0, 0.3, -0.2, 0.9], 0.0);
        for (got, want) in f.iter().zip([2.0 / 3.0, 2.0 / 9.0, 1.0 / 9.0, 0.0]) {
            assert!((got - want).abs() < 0.015, "{f:?}");
        }
        let f = frequencies(&[0.6, 0.2, 0.1, 0.0], &[0.0, 0.3, -0.2, 0.9], 1000.0);
        assert!(f[1] > 0.999, "{f:?}");
        let f = frequencies(&[0.8, 0.2], &[0.0, 0.1], 50.0);
        let odds = (50.0f64 * 0.1 / (1.0 + 50.0 * MMD_TAU)).exp() * (0.2f64 / 0.8).powf(1.0 / (1.0 + 50.0 * MMD_TAU));
        assert!((f[1] - odds / (1.0 + odds)).abs() < 0.015, "{f:?} against {}", odds / (1.0 + odds));
        assert_eq!(frequencies(&[0.0, 0.0], &[0.1, 0.2], 50.0), vec![0.0, 1.0], "no probability: the best valued");
    }

    #[test]
    fn the_paired_standard_error_by_hand() {
        // Two worlds, two candidates: gains 0.1 and 0.3, mean 0.2, sample
        // variance 0.02, standard error sqrt(0.02 / 2) = 0.1.
        let leaves = [0.0, 0.1, -0.1, 0.2];
        assert!((paired_standard_error(&leaves, 2, 1) - 0.1).abs() < 1e-12);
        // The favourite against itself: no spread.
        assert_eq!(paired_standard_error(&leaves, 2, 0), 0.0);
        // One world: cannot be estimated.
        assert_eq!(paired_standard_error(&leaves[..2], 2, 1), f64::INFINITY);
    }
}
