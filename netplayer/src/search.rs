//! A network checkpoint that searches: `netsearch:PATH[,width=K][,depth=D]
//! [,replies=R][,time=MS][,prior=belief|counting][,mix=M][,setup=S]`.
//!
//! The bare `net:` player plays its policy head. This player uses all three
//! heads of the same checkpoint in a small expectimax search over the
//! acting player's information:
//!
//! **Root.** The player rebuilds a state with the game's whole history from
//! its view ([`public_replay`](stratego_players::reconstruct::public_replay): the hidden opponent types drawn from the
//! counting prior) and runs the network on it once: the policy over its
//! legal moves and the belief head (`[100, 12]` type probabilities of the
//! opponent's pieces, in its own frame). The candidates are the `width` most
//! likely legal moves plus every attack (a move onto an opponent piece),
//! whatever the policy thinks of them.
//!
//! **Chance nodes.** A candidate that attacks a hidden opponent piece has one
//! branch per type that piece can have. With `prior=belief` (the default) the
//! branch probabilities are the belief head's for that square, set to zero
//! where the counting prior is zero (types the public information rules out)
//! and renormalised; with `prior=counting` they are the counting prior's, so
//! the two can be measured against each other. In each branch the piece gets
//! that type in the rebuilt state before the battle is played (the hidden
//! pieces of its side trade types so that its army stays the same, as
//! `with_hidden_type` does, and the history is replayed on the retyped root,
//! so the planes after the battle show what the battle revealed).
//!
//! **Depth 1** (always completed): every branch's afterstate, the opponent
//! to move, goes into one batch; its value is minus the network's value for
//! the opponent. **Depth 2** (when `depth=2`, the default, and the clock
//! allows): in each afterstate the opponent's replies are its `replies` most
//! likely moves by the network's policy at that afterstate (computed in the
//! depth-1 batch, so it costs nothing more) plus every attack it can make;
//! each reply's position, us to move, is a leaf valued by the network, and
//! the opponent takes the reply worst for us (min). A finished game is
//! scored exactly (+1, 0, -1) at any depth. The move with the best
//! expected value is played, ties going to the policy's favourite.
//!
//! **Mixing.** `mix=M` adds `M` times the root policy's probability of a
//! move to its searched value before choosing; `mix=0` is the value alone.
//! The default is 1: the checkpoints' value heads are flat (a whole
//! Captain moves the value by about 0.02), so the value alone lets noise
//! pick among the candidates, and over 40 games against the bare policy
//! `mix=1` scored +35 Elo where `mix=0` scored -52 (neither interval
//! excludes 0; see the report that introduced this player).
//!
//! **Why the leaves are ours to move.** The planes of a state are computed
//! for its side to move from public information plus that side's own
//! pieces. For us that is all known, so the planes of a depth-2 leaf are
//! exactly those of the real game would it go that way (the opponent's
//! hidden types only decide which replies exist and how its attacks end:
//! these follow the one determinization of the rebuilt root). A state with
//! the opponent to move needs the opponent's own types, which we only draw,
//! so the depth-1 values read the network on an army the opponent may not
//! have: they are the fallback when depth 2 does not fit in the clock, and
//! they order the opponent's replies. Averaging depth-1 values over several
//! determinizations would cost one batch entry per draw for a value that
//! depth 2 replaces anyway, so the player goes one reply deeper instead.
//!
//! **Inference is batched**: the root is one call, the depth-1 afterstates
//! one call, the depth-2 leaves calls of at most [`CHUNK`] positions.
//!
//! **Clock.** Without a clock the search has a fixed size (`width`, `depth`,
//! `replies`) and is a pure function of the view and the seed, for
//! reproducible arena games: this is the default, as for `expectimax`,
//! because the arena never sets a clock. `time=MS` or the caller's move time
//! (`Player::limit_move_time`, e.g. the UCC bot's; the tighter one decides)
//! bounds a decision: depth 1 is always finished, and depth 2 is run chunk by
//! chunk while the measured cost of a chunk still fits in 80% of the limit;
//! an unfinished depth 2 is dropped.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use stratego_engine::{Color, CountingPrior, Move, PieceType, Square, State};
use stratego_model::Inference;
use stratego_players::determinize::with_hidden_type;
use stratego_players::view::Cell;
use stratego_players::{AgentRng, InfoView};

use crate::kind::named::{clock, resolved, some};
use crate::kind::options::{number, parsed, time, veto, whole};
use crate::kind::{
    from_the_table, kind_options, play, result_value, Decision, NetworkPlayer, NetworkPlayerKind, Reads,
};
use crate::network::{Network, NetworkFactory, CHUNK};
use crate::NetPlayerError;

/// Where the probabilities of a hidden piece's types come from: at this
/// search's chance nodes, and in `netrollout`'s worlds (`prior=`).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum ChancePrior {
    /// The network's belief head, restricted to the counting prior's support.
    #[default]
    Belief,
    /// The counting prior alone.
    Counting,
}

impl std::str::FromStr for ChancePrior {
    type Err = &'static str;

    fn from_str(text: &str) -> Result<ChancePrior, &'static str> {
        match text {
            "belief" => Ok(ChancePrior::Belief),
            "counting" => Ok(ChancePrior::Counting),
            _ => Err("expected belief or counting"),
        }
    }
}

impl std::fmt::Display for ChancePrior {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ChancePrior::Belief => "belief",
            ChancePrior::Counting => "counting",
        })
    }
}

kind_options! {
    /// The options of a searching network player, after the path in its spec.
    #[derive(Copy, Clone, PartialEq, Debug)]
    pub struct SearchOptions {
        /// Our candidate moves by policy (every attack is searched besides).
        width: usize = 8, read whole(1, 64), named resolved,
            "width=K (1-64, our moves by policy besides every attack, default 8)";
        /// 1: our move (and its battles); 2: and the opponent's replies.
        depth: u32 = 2, read whole(1, 2), named resolved, "depth=1|2 (default 2)";
        /// The opponent's replies by policy (every attack of its besides).
        replies: usize = 6, read whole(1, 64), named resolved,
            "replies=R (1-64, the opponent's replies by policy besides its attacks, default 6)";
        /// A wall-clock limit per decision (makes play depend on the machine).
        time: Option<Duration> = None, read time, named clock,
            "time=MS (a clock per decision; none by default: fixed size, reproducible)";
        prior: ChancePrior = ChancePrior::Belief, read parsed, named resolved, "prior=belief|counting (chance nodes)";
        /// The weight of the policy's probability added to a move's searched
        /// value when choosing (0: the value alone; default 1).
        mix: f64 = 1.0, read number(100.0), named resolved,
            "mix=M (0-100, adds M times the policy's probability to a move's value; default 1)";
        /// With `Some(m)`, the candidates are only the moves expectimax keeps
        /// ([`veto`](crate::veto)), searched for [`VETO_SHARE`] of the clock.
        veto: Option<f64> = None, read veto, named some,
            "veto=M (0-2: expectimax first searches every root move and vetoes those it values more than M of a won \
             game below its best)";
    }
}

/// With a veto, the share of the clock expectimax's search of the root has.
pub const VETO_SHARE: f64 = 0.4;

/// Makes [`NetSearchPlayer`]s that share one loaded network.
pub type NetSearchFactory = NetworkFactory<SearchOptions>;

/// Searches with its network's heads (see the module documentation).
pub type NetSearchPlayer = NetworkPlayer<SearchOptions>;

impl NetworkPlayerKind for SearchOptions {
    type Stats = SearchStats;
    const NAME: &'static str = "netsearch";
    const ABOUT: &'static str = "a network checkpoint searching with its policy, value and belief heads";

    from_the_table!();

    fn decide(&self, decision: Decision<'_, '_, SearchStats>) -> Result<Move, NetPlayerError> {
        let Decision { network, view, rng, stats, start, deadline } = decision;
        let me = view.me;
        let (root, root_out) = stats.reads.root(network, view, rng)?;

        let chosen = self.candidates(view, &root_out, rng)?;
        let mut candidates = self.branches(&root, &root_out, chosen, me)?;
        let open = self.depth_one(network, view, &mut candidates, stats)?;
        stats.depth = 1;
        // Under a clock, the cost of one position from what depth 1 took (a
        // floor for the first call of depth 2).
        let clock = deadline.map(|d| (d, start.elapsed().as_secs_f64() / stats.reads.positions.max(1) as f64));
        if self.depth >= 2 && !open.is_empty() && self.depth_two(network, me, &mut candidates, &open, clock, stats)? {
            stats.depth = 2;
        }

        let mut values: Vec<(Move, f64, f32)> = candidates
            .iter()
            .map(|cand| {
                let value = cand.branches.iter().map(|b| b.p * b.value).sum::<f64>();
                (cand.mv, value + self.mix * cand.prior as f64, cand.prior)
            })
            .collect();
        if values.iter().any(|v| !v.1.is_finite()) {
            return Err(NetPlayerError::NotANumber("the network"));
        }
        // Best value first; among equal values the policy's favourite (the
        // sort is stable, and the candidates come in policy order).
        values.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.2.total_cmp(&a.2)));
        stats.candidates = values.len();
        stats.values = values.iter().map(|v| (v.0, v.1)).collect();
        stats.elapsed = start.elapsed();
        Ok(values[0].0)
    }
}

/// What the last decision did.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct SearchStats {
    /// The deepest completed iteration (0: a forced move, no search).
    pub depth: u32,
    /// Our candidate moves searched.
    pub candidates: usize,
    /// What the network read (the root included).
    pub reads: Reads,
    /// Every candidate with its value (our P(win) - P(loss)), best first.
    pub values: Vec<(Move, f64)>,
    pub elapsed: Duration,
}

/// One branch of a candidate: a battle outcome (or the only one).
struct Branch {
    p: f64,
    /// The position after our move, the opponent to move.
    after: State,
    /// Its value for us after depth 1, and after depth 2 when it finished.
    value: f64,
    /// The opponent's replies searched at depth 2 (empty at a finished game).
    replies: Vec<Move>,
}

struct Candidate {
    mv: Move,
    prior: f32,
    branches: Vec<Branch>,
}

impl SearchOptions {
    /// The candidates with their policy probabilities, most likely first:
    /// the policy's `width` favourites (among the moves the veto keeps, with
    /// one) and every attack.
    fn candidates(
        &self,
        view: &InfoView<'_>,
        root_out: &Inference,
        rng: &mut AgentRng,
    ) -> Result<Vec<(Move, f32)>, NetPlayerError> {
        let me = view.me;
        let mut by_prior: Vec<(Move, f32)> = view
            .legal_moves
            .iter()
            .map(|&mv| (mv, mv.to_action(me).map_or(0.0, |a| root_out.policy[a as usize])))
            .collect();
        by_prior.sort_by(|a, b| b.1.total_cmp(&a.1));
        if let Some(margin) = self.veto {
            let ordered: Vec<Move> = by_prior.iter().map(|(mv, _)| *mv).collect();
            let clock = self.time.map(|t| t.mul_f64(VETO_SHARE));
            let (kept, _) = crate::veto::kept(view, &ordered, margin, clock, self.setup, rng)?;
            by_prior.retain(|(mv, _)| kept.contains(mv));
        }
        let attacks = |mv: &Move| matches!(view.cell(mv.to), Cell::Opponent(_));
        Ok(by_prior.iter().enumerate().filter(|(i, (mv, _))| *i < self.width || attacks(mv)).map(|(_, c)| *c).collect())
    }

    /// Each candidate's branches: one per type an attacked hidden piece can
    /// have (weighted by the chance prior on the counting prior's support),
    /// or the one afterstate.
    fn branches(
        &self,
        root: &State,
        root_out: &Inference,
        chosen: Vec<(Move, f32)>,
        me: Color,
    ) -> Result<Vec<Candidate>, NetPlayerError> {
        let prior = CountingPrior::new(root, me);
        let mut retypes: HashMap<(Square, PieceType), Option<State>> = HashMap::new();
        let mut candidates = Vec::with_capacity(chosen.len());
        for (mv, p) in chosen {
            let mut outcomes: Vec<(f64, State)> = Vec::new();
            if let Some(hidden) = root.board()[mv.to].filter(|t| t.color != me && !t.revealed) {
                let counting = prior.of(&hidden);
                let frame = mv.to.in_frame(me).index();
                let weights: Vec<(PieceType, f64)> = PieceType::ALL
                    .into_iter()
                    .filter(|t| counting[t.index()] > 0.0)
                    .map(|t| {
                        let w = match self.prior {
                            ChancePrior::Counting => counting[t.index()] as f64,
                            ChancePrior::Belief => root_out.belief[frame * 12 + t.index()] as f64,
                        };
                        (t, w)
                    })
                    .collect();
                let total: f64 = weights.iter().map(|w| w.1).sum();
                // A belief with no mass on the possible types falls back to counting.
                let weights: Vec<(PieceType, f64)> = if total > 0.0 && total.is_finite() {
                    weights.into_iter().map(|(t, w)| (t, w / total)).collect()
                } else {
                    let total: f64 = weights.iter().map(|(t, _)| counting[t.index()] as f64).sum();
                    weights.iter().map(|(t, _)| (*t, counting[t.index()] as f64 / total)).collect()
                };
                for (kind, w) in weights.into_iter().filter(|w| w.1 > 0.0) {
                    let Some(base) = retypes.entry((mv.to, kind)).or_insert_with(|| retyped(root, mv.to, kind)) else {
                        continue;
                    };
                    let mut after = base.clone();
                    if after.apply_move(mv).is_ok() {
                        outcomes.push((w, after));
                    }
                }
                let total: f64 = outcomes.iter().map(|o| o.0).sum();
                outcomes.iter_mut().for_each(|o| o.0 /= total);
            }
            if outcomes.is_empty() {
                let mut after = root.clone();
                play(&mut after, mv, "the rebuilt game")?;
                outcomes.push((1.0, after));
            }
            let branches =
                outcomes.into_iter().map(|(p, after)| Branch { p, after, value: 0.0, replies: Vec::new() }).collect();
            candidates.push(Candidate { mv, prior: p, branches });
        }
        Ok(candidates)
    }

    /// Depth 1: every branch's afterstate valued in one batch (a finished
    /// game exactly), and the opponent's replies to search at depth 2
    /// chosen from the same batch's policy; the unfinished branches.
    fn depth_one(
        &self,
        network: &Network,
        view: &InfoView<'_>,
        candidates: &mut [Candidate],
        stats: &mut SearchStats,
    ) -> Result<Vec<(usize, usize)>, NetPlayerError> {
        let open: Vec<(usize, usize)> = candidates
            .iter()
            .enumerate()
            .flat_map(|(c, cand)| (0..cand.branches.len()).map(move |b| (c, b)))
            .filter(|&(c, b)| !candidates[c].branches[b].after.is_terminal())
            .collect();
        for branch in candidates.iter_mut().flat_map(|c| c.branches.iter_mut()) {
            if let Some(value) = result_value(&branch.after, view.me) {
                branch.value = value;
            }
        }
        if open.is_empty() {
            return Ok(open);
        }
        let states: Vec<&State> = open.iter().map(|&(c, b)| &candidates[c].branches[b].after).collect();
        let out = stats.reads.infer(network, &states)?;
        let opponent = view.opponent();
        for (i, &(c, b)) in open.iter().enumerate() {
            let branch = &mut candidates[c].branches[b];
            branch.value = -out.value[i] as f64;
            let policy = out.policy_of(i);
            let mut moves: Vec<(Move, f32)> = branch
                .after
                .legal_moves()
                .into_iter()
                .map(|mv| (mv, mv.to_action(opponent).map_or(0.0, |a| policy[a as usize])))
                .collect();
            moves.sort_by(|a, b| b.1.total_cmp(&a.1));
            let board = branch.after.board();
            branch.replies = moves
                .iter()
                .enumerate()
                .filter(|(k, (mv, _))| *k < self.replies || board[mv.to].is_some())
                .map(|(_, (mv, _))| *mv)
                .collect();
        }
        Ok(open)
    }

    /// Depth 2: the opponent's replies in the `open` branches, leaves with
    /// us to move, read chunk by chunk while the `clock` (the deadline and
    /// the measured cost of a position) allows; each branch takes its worst
    /// reply for us. Whether it finished (an unfinished depth 2 leaves the
    /// depth-1 values).
    fn depth_two(
        &self,
        network: &Network,
        me: Color,
        candidates: &mut [Candidate],
        open: &[(usize, usize)],
        clock: Option<(Instant, f64)>,
        stats: &mut SearchStats,
    ) -> Result<bool, NetPlayerError> {
        let mut leaves: Vec<(usize, usize, State)> = Vec::new();
        for &(c, b) in open {
            let branch = &candidates[c].branches[b];
            for &reply in &branch.replies {
                let mut leaf = branch.after.clone();
                if leaf.apply_move(reply).is_ok() {
                    leaves.push((c, b, leaf));
                }
            }
        }
        let mut values: Vec<f64> = leaves.iter().map(|l| result_value(&l.2, me).unwrap_or(f64::NAN)).collect();
        let pending: Vec<usize> = (0..leaves.len()).filter(|&i| !leaves[i].2.is_terminal()).collect();
        for chunk in pending.chunks(CHUNK) {
            if let Some((deadline, per_position)) = clock {
                let estimate = Duration::from_secs_f64(per_position * chunk.len() as f64);
                if Instant::now() + estimate >= deadline {
                    return Ok(false);
                }
            }
            let states: Vec<&State> = chunk.iter().map(|&i| &leaves[i].2).collect();
            let out = stats.reads.infer(network, &states)?;
            for (k, &i) in chunk.iter().enumerate() {
                values[i] = out.value[k] as f64;
            }
        }
        let mut worst: HashMap<(usize, usize), f64> = HashMap::new();
        for (i, (c, b, _)) in leaves.iter().enumerate() {
            let w = worst.entry((*c, *b)).or_insert(f64::INFINITY);
            *w = w.min(values[i]);
        }
        for ((c, b), w) in worst {
            if w.is_finite() {
                candidates[c].branches[b].value = w;
            }
        }
        Ok(true)
    }
}

/// `state` with the hidden piece on `sq` of type `kind`, its side's other
/// hidden pieces trading types as `with_hidden_type` does, and the whole
/// history replayed on the retyped root (so the planes are a real game's).
/// `None` in the rare case where the replay refuses a move (the chasing rule
/// compares placements, types included).
fn retyped(state: &State, sq: Square, kind: PieceType) -> Option<State> {
    if state.board()[sq].map(|p| p.kind) == Some(kind) {
        return Some(state.clone());
    }
    let swapped = with_hidden_type(state, sq, kind);
    let mut root = state.root().clone();
    for (at, piece) in state.board().pieces() {
        let new = swapped.board()[at].expect("trading types keeps the pieces in place");
        if new.kind != piece.kind {
            // A hidden piece never fought, so its identity is its root square.
            let start = root.board[piece.origin].filter(|p| p.origin == piece.origin && p.color == piece.color)?;
            root.board.set(piece.origin, Some(stratego_engine::Piece { kind: new.kind, ..start }));
        }
    }
    let mut replayed = State::from_position(root).ok()?;
    for record in state.history() {
        replayed.apply_move(record.mv).ok()?;
    }
    (replayed.board()[sq].map(|p| p.kind) == Some(kind)).then_some(replayed)
}
