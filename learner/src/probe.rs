//! What the value and belief heads know, measured on finished games the
//! network did not train on (issue 50): `stratego probe`, and the `probe/...`
//! scalars of every evaluation during training.
//!
//! Each sampled position is seen by the side to move, with the true game
//! behind it (both setups are known after the game), so every hidden type
//! and the result are known:
//!
//! - **value**: the head's expected score `P(win) + P(draw) / 2` against the
//!   game's score for the mover (1, 1/2, 0), as a log-loss (cross-entropy with
//!   that score as the target) and a Brier score, beside the same scores of
//!   the hand-written leaf that `netrollout` scores its rollouts with, mapped
//!   to a probability by a logistic fit on *other* games (two folds by game:
//!   each fold's leaf is fitted on the other), and of a constant (the other
//!   fold's mean score: what knowing nothing about the position scores). A
//!   head that sees material must beat the leaf; one that sees nothing scores
//!   like the constant.
//! - **belief**: the mean log-likelihood of the true type of each hidden
//!   opponent piece under the belief head (raw, and restricted to the
//!   counting prior's support and renormalised, as the searches use it)
//!   beside the counting prior's, for pieces that have moved and pieces that
//!   have not. The counting prior knows nothing of how an army is set up or
//!   played; a belief that beats it has learned something about both. And
//!   the two **pooled** (a product of experts, `prior^(1-w) · head^w`
//!   renormalised on the prior's support), the weight w fitted on the other
//!   fold, for moved and unmoved pieces apart: how much of the head to trust
//!   where it learned a setup recipe the opponent may not use (w = 0 is the
//!   prior, w = 1 the head on the support).
//!
//! Expected scores and not the three-way outcome: the leaf has no draw
//! probability, and both must be scored by one rule.

use std::collections::BTreeMap;

use burn::tensor::Device;
use serde::Serialize;
use stratego_engine::record::GameRecord;
use stratego_engine::Ruleset;
use stratego_engine::{observe, Color, CountingPrior, Layout, Move, PieceSet, PieceType, Setup, Square, State};
use stratego_model::{infer, ModelError, StrategoNet, DRAW, WIN};

/// One finished game: the rules it was played under, both setups, the moves
/// and the winner (`None`: a draw).
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeGame {
    pub rules: Ruleset,
    pub red: Setup,
    pub blue: Setup,
    pub moves: Vec<Move>,
    pub winner: Option<Color>,
}

impl ProbeGame {
    /// The game of a lab record; `None` for a record without a result (an
    /// unfinished game has no score to predict).
    pub fn of_record(record: &GameRecord) -> Option<ProbeGame> {
        let result = record.result?;
        Some(ProbeGame {
            rules: record.rules,
            red: record.red.clone(),
            blue: record.blue.clone(),
            moves: record.moves.clone(),
            winner: result.winner,
        })
    }
}

/// How many positions to look at.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ProbeOptions {
    /// Every `stride`-th ply of each game (from ply 0); an even stride is
    /// made odd, so that the samples alternate between the sides.
    pub stride: usize,
    /// At most this many positions: the stride grows until the games fit.
    pub max_positions: usize,
    /// The pool's weight, the same for every piece; `None`: fitted on the
    /// other fold (see the module documentation).
    pub pool_weight: Option<f64>,
}

impl Default for ProbeOptions {
    fn default() -> ProbeOptions {
        ProbeOptions { stride: 5, max_positions: 20_000, pool_weight: None }
    }
}

/// The phases the value scores are split by, as ply ranges (the game's ply
/// before the position's move).
pub const PHASES: [(&str, u32, u32); 4] =
    [("plies 0-99", 0, 100), ("plies 100-299", 100, 300), ("plies 300-599", 300, 600), ("plies 600+", 600, u32::MAX)];

/// The value scores of one group of positions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValueScores {
    pub phase: String,
    pub positions: usize,
    /// The value head: cross-entropy of its expected score against the game's.
    pub net_log_loss: f64,
    pub net_brier: f64,
    /// The hand-written leaf through the other fold's logistic fit; `None`
    /// when one fold has no games to fit on.
    pub leaf_log_loss: Option<f64>,
    pub leaf_brier: Option<f64>,
    /// The other fold's mean score for every position.
    pub constant_log_loss: Option<f64>,
}

/// The belief scores of one group of hidden pieces.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BeliefScores {
    /// `moved`, `unmoved` or `all`.
    pub pieces: String,
    pub count: usize,
    /// Mean log-likelihood of the true type (natural log; higher is better).
    pub net: f64,
    /// The same, the head restricted to the counting prior's support.
    pub net_on_support: f64,
    pub counting: f64,
    /// The pooled belief, its weight fitted on the other fold; `None` when
    /// one fold has no pieces to fit on.
    pub pooled: Option<f64>,
    /// The pool's weights: for fold 0's pieces (fitted on fold 1) and fold
    /// 1's, each for moved then unmoved pieces (`None`: none to fit on).
    pub pool_weights: [[Option<f64>; 2]; 2],
}

/// What the heads know about a set of games.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProbeReport {
    pub games: usize,
    pub positions: usize,
    /// The stride the positions were sampled at (grown to fit `max_positions`).
    pub stride: usize,
    /// Per phase, then `all`.
    pub value: Vec<ValueScores>,
    /// `moved`, `unmoved`, `all`.
    pub belief: Vec<BeliefScores>,
}

impl ProbeReport {
    /// The scores over all positions.
    pub fn all(&self) -> &ValueScores {
        self.value.last().expect("the report ends with `all`")
    }

    /// The belief scores over all hidden pieces.
    pub fn all_pieces(&self) -> &BeliefScores {
        self.belief.last().expect("the report ends with `all`")
    }
}

/// Why a probe could not run.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("no positions to probe: {0}")]
    Empty(String),
    #[error("game {game}: played with the {found} piece set, the network knows the {expected} set")]
    PieceSet { game: usize, found: String, expected: String },
    #[error("game {game}, ply {ply}: {why}")]
    Replay { game: usize, ply: usize, why: String },
    #[error(transparent)]
    Model(#[from] ModelError),
}

/// One sampled position, scored.
struct Position {
    fold: usize,
    ply: u32,
    /// The game's score for the side to move.
    score: f64,
    /// The leaf, on its scale (a share of a won game, in [-1, 1]).
    leaf: f64,
    /// The value head's expected score.
    net: f64,
}

/// One hidden opponent piece's true type, under each model.
struct Hidden {
    moved: bool,
    fold: usize,
    net: f64,
    net_on_support: f64,
    counting: f64,
    /// The true type, the counting prior and the head on the prior's
    /// support (the pool's ingredients).
    truth: usize,
    prior: [f32; PieceType::COUNT],
    head: [f32; PieceType::COUNT],
}

/// The pool weights tried when fitting (0, 0.05, ..., 1).
const POOL_STEPS: usize = 20;

/// The log-likelihood of `h`'s true type under `prior^(1-w) · head^w`
/// renormalised over the prior's support (a head with no mass there: the prior).
fn pooled_log_likelihood(h: &Hidden, w: f64) -> f64 {
    let mut total = 0.0;
    let mut truth = 0.0;
    for k in 0..PieceType::COUNT {
        let c = f64::from(h.prior[k]);
        if c <= 0.0 {
            continue;
        }
        let x = (c.ln() * (1.0 - w) + f64::from(h.head[k]).max(FLOOR).ln() * w).exp();
        total += x;
        if k == h.truth {
            truth = x;
        }
    }
    ln(truth / total)
}

/// Inference batch size: large enough to amortise a call, small enough for
/// the `full` layout's planes to stay a few tens of megabytes.
const BATCH: usize = 64;
/// Probabilities are clamped here before a logarithm: one confident miss
/// must not make a mean infinite.
const FLOOR: f64 = 1e-6;

/// Measures `net` (reading `layout`, trained with the `pieces` set) on
/// `games`: see the module documentation.
pub fn probe(
    net: &StrategoNet,
    layout: Layout,
    pieces: PieceSet,
    device: &Device,
    games: &[ProbeGame],
    options: ProbeOptions,
) -> Result<ProbeReport, ProbeError> {
    if let Some((game, g)) = games.iter().enumerate().find(|(_, g)| g.rules.piece_set != pieces) {
        return Err(ProbeError::PieceSet {
            game: game + 1,
            found: g.rules.piece_set.name().to_string(),
            expected: pieces.name().to_string(),
        });
    }
    let total: usize = games.iter().map(|g| g.moves.len()).sum();
    // An odd stride: the samples of a game alternate between the sides, so
    // that no game's positions all see it from one side (a set of paired
    // games would otherwise put the winners in one fold).
    let stride = options.stride.max(1).max(total.div_ceil(options.max_positions.max(1))) | 1;
    let mut positions = Vec::new();
    let mut hidden = Vec::new();
    let mut batch: Vec<(State, usize, f64)> = Vec::with_capacity(BATCH);
    for (g, game) in games.iter().enumerate() {
        let mut state = State::from_setups(game.rules, &game.red, &game.blue).map_err(|e| ProbeError::Replay {
            game: g + 1,
            ply: 0,
            why: e.to_string(),
        })?;
        for (ply, &mv) in game.moves.iter().enumerate() {
            if state.is_terminal() {
                break;
            }
            if ply % stride == 0 {
                let mover = state.to_move();
                let score = match game.winner {
                    Some(w) if w == mover => 1.0,
                    Some(_) => 0.0,
                    None => 0.5,
                };
                batch.push((state.clone(), g % 2, score));
                if batch.len() == BATCH {
                    score_batch(net, layout, device, &mut batch, &mut positions, &mut hidden)?;
                }
            }
            state.apply_move(mv).map_err(|e| ProbeError::Replay { game: g + 1, ply: ply + 1, why: e.to_string() })?;
        }
    }
    if !batch.is_empty() {
        score_batch(net, layout, device, &mut batch, &mut positions, &mut hidden)?;
    }
    if positions.is_empty() {
        return Err(ProbeError::Empty(format!("{} game(s) with no position before their end", games.len())));
    }
    Ok(ProbeReport {
        games: games.len(),
        positions: positions.len(),
        stride,
        value: value_scores(&positions),
        belief: belief_scores(&hidden, options.pool_weight),
    })
}

/// Runs the network on the batch's positions and scores each.
fn score_batch(
    net: &StrategoNet,
    layout: Layout,
    device: &Device,
    batch: &mut Vec<(State, usize, f64)>,
    positions: &mut Vec<Position>,
    hidden: &mut Vec<Hidden>,
) -> Result<(), ProbeError> {
    let mut planes = Vec::with_capacity(batch.len() * layout.size());
    let mut legal = Vec::with_capacity(batch.len() * stratego_engine::NUM_ACTIONS);
    for (state, _, _) in batch.iter() {
        planes.extend(observe(state, layout));
        legal.extend(state.legal_action_mask());
    }
    let out = infer(net, layout, &planes, &legal, device)?;
    for (b, (state, fold, score)) in batch.drain(..).enumerate() {
        let mover = state.to_move();
        let outcome = &out.outcome[b * 3..b * 3 + 3];
        positions.push(Position {
            fold,
            ply: state.ply(),
            score,
            leaf: stratego_netplayer::rollout::leaf(&state, mover),
            net: f64::from(outcome[WIN]) + f64::from(outcome[DRAW]) / 2.0,
        });
        let prior = CountingPrior::new(&state, mover);
        for (sq, piece) in state.board().pieces().filter(|(_, p)| p.color != mover && !p.revealed) {
            let frame = sq.in_frame(mover).index();
            let belief = &out.belief[(b * Square::COUNT + frame) * PieceType::COUNT..][..PieceType::COUNT];
            let counting = prior.of(&piece);
            let t = piece.kind.index();
            let support: f64 =
                PieceType::ALL.iter().filter(|k| counting[k.index()] > 0.0).map(|k| f64::from(belief[k.index()])).sum();
            let on_support = if support > 0.0 { f64::from(belief[t]) / support } else { f64::from(counting[t]) };
            let head: [f32; PieceType::COUNT] = std::array::from_fn(|k| {
                if counting[k] <= 0.0 {
                    0.0
                } else if support > 0.0 {
                    (f64::from(belief[k]) / support) as f32
                } else {
                    counting[k]
                }
            });
            hidden.push(Hidden {
                moved: piece.moved,
                fold,
                net: ln(f64::from(belief[t])),
                net_on_support: ln(on_support),
                counting: ln(f64::from(counting[t])),
                truth: t,
                prior: *counting,
                head,
            });
        }
    }
    Ok(())
}

fn ln(p: f64) -> f64 {
    p.max(FLOOR).ln()
}

/// Cross-entropy of a predicted score `p` against the score `y` (1, 1/2 or 0).
fn log_loss(p: f64, y: f64) -> f64 {
    let p = p.clamp(FLOOR, 1.0 - FLOOR);
    -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// The logistic map `sigmoid(a x + b)` of the leaf `x` that minimises the
/// cross-entropy against the scores of `fit` (Newton's method; a small
/// ridge keeps a separable or constant set finite). `None` for an empty set.
pub fn fit_logistic(fit: &[(f64, f64)]) -> Option<(f64, f64)> {
    if fit.is_empty() {
        return None;
    }
    let (mut a, mut b) = (0.0f64, 0.0f64);
    for _ in 0..100 {
        let (mut ga, mut gb, mut haa, mut hab, mut hbb) = (1e-4 * a, 1e-4 * b, 1e-4, 0.0, 1e-4);
        for &(x, y) in fit {
            let p = sigmoid(a * x + b);
            let w = p * (1.0 - p);
            ga += (p - y) * x;
            gb += p - y;
            haa += w * x * x;
            hab += w * x;
            hbb += w;
        }
        let det = haa * hbb - hab * hab;
        if det.abs() < 1e-12 {
            break;
        }
        let (da, db) = ((hbb * ga - hab * gb) / det, (haa * gb - hab * ga) / det);
        a -= da;
        b -= db;
        if da.abs() + db.abs() < 1e-10 {
            break;
        }
    }
    Some((a, b))
}

fn value_scores(positions: &[Position]) -> Vec<ValueScores> {
    // Two folds by game: each fold's leaf map and constant come from the other.
    let fold_fit = |fold: usize| {
        let fit: Vec<(f64, f64)> = positions.iter().filter(|p| p.fold != fold).map(|p| (p.leaf, p.score)).collect();
        let mean = (!fit.is_empty()).then(|| fit.iter().map(|f| f.1).sum::<f64>() / fit.len() as f64);
        (fit_logistic(&fit), mean)
    };
    let fits = [fold_fit(0), fold_fit(1)];
    let both = fits.iter().all(|f| f.0.is_some());
    let score = |name: &str, group: Vec<&Position>| {
        let n = group.len() as f64;
        let mean = |f: &dyn Fn(&Position) -> f64| group.iter().map(|p| f(p)).sum::<f64>() / n;
        let leaf_p = |p: &Position| {
            let (a, b) = fits[p.fold].0.expect("both folds fitted");
            sigmoid(a * p.leaf + b)
        };
        ValueScores {
            phase: name.to_string(),
            positions: group.len(),
            net_log_loss: mean(&|p| log_loss(p.net, p.score)),
            net_brier: mean(&|p| (p.net - p.score).powi(2)),
            leaf_log_loss: both.then(|| mean(&|p| log_loss(leaf_p(p), p.score))),
            leaf_brier: both.then(|| mean(&|p| (leaf_p(p) - p.score).powi(2))),
            constant_log_loss: both.then(|| mean(&|p| log_loss(fits[p.fold].1.expect("fitted"), p.score))),
        }
    };
    let mut rows = Vec::new();
    for (name, from, to) in PHASES {
        let group: Vec<&Position> = positions.iter().filter(|p| (from..to).contains(&p.ply)).collect();
        if !group.is_empty() {
            rows.push(score(name, group));
        }
    }
    rows.push(score("all", positions.iter().collect()));
    rows
}

fn belief_scores(hidden: &[Hidden], pool_weight: Option<f64>) -> Vec<BeliefScores> {
    // The pool's weight for each fold and kind of piece: the one given, or
    // fitted on the other fold's pieces of that kind (the best of a grid;
    // ties to the lower weight).
    let fit = |fold: usize, moved: bool| -> Option<f64> {
        if pool_weight.is_some() {
            return pool_weight;
        }
        let train: Vec<&Hidden> = hidden.iter().filter(|h| h.fold != fold && h.moved == moved).collect();
        if train.is_empty() {
            return None;
        }
        let score = |w: f64| train.iter().map(|h| pooled_log_likelihood(h, w)).sum::<f64>();
        let grid = (0..=POOL_STEPS).map(|i| i as f64 / POOL_STEPS as f64);
        grid.map(|w| (w, score(w)))
            .fold(None, |best: Option<(f64, f64)>, (w, s)| match best {
                Some((_, b)) if b >= s => best,
                _ => Some((w, s)),
            })
            .map(|(w, _)| w)
    };
    let weights = [[fit(0, true), fit(0, false)], [fit(1, true), fit(1, false)]];
    let weight = |h: &Hidden| weights[h.fold][usize::from(!h.moved)];
    let score = |name: &str, group: Vec<&Hidden>| {
        let n = group.len().max(1) as f64;
        let pooled = group
            .iter()
            .map(|h| weight(h).map(|w| pooled_log_likelihood(h, w)))
            .sum::<Option<f64>>()
            .map(|total| total / n);
        BeliefScores {
            pieces: name.to_string(),
            count: group.len(),
            net: group.iter().map(|h| h.net).sum::<f64>() / n,
            net_on_support: group.iter().map(|h| h.net_on_support).sum::<f64>() / n,
            counting: group.iter().map(|h| h.counting).sum::<f64>() / n,
            pooled: pooled.filter(|_| !group.is_empty()),
            pool_weights: weights,
        }
    };
    vec![
        score("moved", hidden.iter().filter(|h| h.moved).collect()),
        score("unmoved", hidden.iter().filter(|h| !h.moved).collect()),
        score("all", hidden.iter().collect()),
    ]
}

/// The reports of several sets of games as two Markdown tables (value, then
/// belief), one block of rows per set.
pub fn markdown(reports: &[(String, ProbeReport)]) -> String {
    let opt = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.3}"));
    let mut text = String::from(
        "| games | phase | positions | value head log-loss | leaf log-loss | constant log-loss | value head Brier | leaf Brier |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for (label, r) in reports {
        for v in &r.value {
            text.push_str(&format!(
                "| {label} | {} | {} | {:.3} | {} | {} | {:.3} | {} |\n",
                v.phase,
                v.positions,
                v.net_log_loss,
                opt(v.leaf_log_loss),
                opt(v.constant_log_loss),
                v.net_brier,
                opt(v.leaf_brier)
            ));
        }
    }
    text.push_str(
        "\n| games | hidden pieces | count | belief head log-likelihood | on the prior's support | counting prior | pooled (weights) |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for (label, r) in reports {
        for b in &r.belief {
            // The weights as `moved w0/w1, unmoved w0/w1` (by fold).
            let kinds: Vec<String> = ["moved", "unmoved"]
                .iter()
                .enumerate()
                .filter_map(|(k, name)| {
                    let [a, b] = [b.pool_weights[0][k]?, b.pool_weights[1][k]?];
                    Some(format!("{name} {a:.2}/{b:.2}"))
                })
                .collect();
            let pooled = match b.pooled {
                Some(p) => format!("{p:.3} ({})", kinds.join(", ")),
                None => "-".into(),
            };
            text.push_str(&format!(
                "| {label} | {} | {} | {:.3} | {:.3} | {:.3} | {pooled} |\n",
                b.pieces, b.count, b.net, b.net_on_support, b.counting
            ));
        }
    }
    text
}

/// The scalars an evaluation logs (`probe/...`), by tag.
pub fn scalars(report: &ProbeReport) -> BTreeMap<&'static str, f64> {
    use crate::diagnostics::probe_tags as tag;
    let all = report.all();
    let pieces = report.all_pieces();
    let mut out = BTreeMap::new();
    out.insert(tag::VALUE_LOG_LOSS, all.net_log_loss);
    out.insert(tag::VALUE_BRIER, all.net_brier);
    if let (Some(leaf), Some(brier)) = (all.leaf_log_loss, all.leaf_brier) {
        out.insert(tag::LEAF_LOG_LOSS, leaf);
        out.insert(tag::LEAF_BRIER, brier);
    }
    out.insert(tag::BELIEF_LOG_LIKELIHOOD, pieces.net_on_support);
    out.insert(tag::COUNTING_LOG_LIKELIHOOD, pieces.counting);
    if let Some(pooled) = pieces.pooled {
        out.insert(tag::POOLED_LOG_LIKELIHOOD, pooled);
    }
    out
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;
    use stratego_engine::playout::random_game;
    use stratego_model::ModelConfig;

    use super::*;

    fn tiny() -> (StrategoNet, Device) {
        let device = stratego_model::device("cpu").unwrap();
        (StrategoNet::new(&ModelConfig::preset("tiny").unwrap(), Layout::Compact, &device), device)
    }

    /// Finished random games under short caps (some draws at the cap).
    fn games(n: u64) -> Vec<ProbeGame> {
        let rules = Ruleset { max_plies: 120, ..Ruleset::classic() };
        (0..n)
            .map(|seed| {
                ProbeGame::of_record(&random_game(rules, &mut Xoshiro256PlusPlus::seed_from_u64(seed))).unwrap()
            })
            .collect()
    }

    #[test]
    fn the_logistic_fit_finds_the_map_that_made_the_scores() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let data: Vec<(f64, f64)> = (0..20_000)
            .map(|_| {
                let x: f64 = rng.random_range(-1.0..1.0);
                (x, f64::from(u8::from(rng.random::<f64>() < sigmoid(3.0 * x - 0.5))))
            })
            .collect();
        let (a, b) = fit_logistic(&data).unwrap();
        assert!((a - 3.0).abs() < 0.15 && (b + 0.5).abs() < 0.06, "a {a}, b {b}");
        // Scores of 1/2 (draws) pull towards 1/2; a constant set stays finite.
        let (a, b) = fit_logistic(&[(0.3, 0.5), (-0.2, 0.5)]).unwrap();
        assert!(a.abs() < 1e-6 && b.abs() < 1e-6, "a {a}, b {b}");
        let (a, b) = fit_logistic(&[(0.5, 1.0), (-0.5, 0.0)]).unwrap();
        assert!(a.is_finite() && b.is_finite() && a > 5.0, "separable: a {a}, b {b}");
        assert_eq!(fit_logistic(&[]), None);
    }

    #[test]
    fn at_the_first_ply_the_counting_prior_scores_the_armys_entropy_and_the_scores_are_the_known_ones() {
        let (net, device) = tiny();
        // Four games from the same position, one move each, with chosen
        // results: red wins, blue wins, a draw, red wins. Only ply 0 is
        // sampled (Red to move), the same planes in every game.
        let base = games(1).remove(0);
        let winners = [Some(Color::Red), Some(Color::Blue), None, Some(Color::Red)];
        let games: Vec<ProbeGame> = winners
            .iter()
            .map(|&winner| ProbeGame { moves: base.moves[..1].to_vec(), winner, ..base.clone() })
            .collect();
        let report = probe(&net, Layout::Compact, PieceSet::Classic, &device, &games, ProbeOptions::default()).unwrap();
        assert_eq!((report.games, report.positions), (4, 4));
        // 40 hidden, unmoved pieces each: the prior is the army's shares,
        // and its mean log-likelihood the army's negative entropy.
        let counts = PieceSet::Classic.counts();
        let entropy: f64 =
            counts.iter().filter(|&&n| n > 0).map(|&n| f64::from(n) / 40.0 * (f64::from(n) / 40.0).ln()).sum();
        let unmoved = &report.belief[1];
        assert_eq!((unmoved.pieces.as_str(), unmoved.count), ("unmoved", 160));
        assert!((unmoved.counting - entropy).abs() < 1e-5, "{} against {entropy}", unmoved.counting);
        assert_eq!(report.belief[0].count, 0, "nothing has moved at ply 0");
        // The value head's scores, from its output on the position.
        let state = State::from_setups(base.rules, &base.red, &base.blue).unwrap();
        let out = infer(&net, Layout::Compact, &observe(&state, Layout::Compact), &state.legal_action_mask(), &device)
            .unwrap();
        let p = f64::from(out.outcome[WIN]) + f64::from(out.outcome[DRAW]) / 2.0;
        let scores = [1.0, 0.0, 0.5, 1.0];
        let all = report.all();
        let mean = |f: &dyn Fn(f64) -> f64| scores.iter().map(|&y| f(y)).sum::<f64>() / 4.0;
        assert!((all.net_log_loss - mean(&|y| log_loss(p, y))).abs() < 1e-5, "{all:?}");
        assert!((all.net_brier - mean(&|y| (p - y).powi(2))).abs() < 1e-5, "{all:?}");
        // The leaf is the same everywhere, so each fold's fit is the other
        // fold's mean score: games 0 and 2 (scores 1, 1/2) get 1/2 from
        // games 1 and 3 (0, 1), which get 3/4.
        let known = (2.0 * 2f64.ln() - 0.25f64.ln() - 0.75f64.ln()) / 4.0;
        for (what, x) in [("leaf", all.leaf_log_loss.unwrap()), ("constant", all.constant_log_loss.unwrap())] {
            assert!((x - known).abs() < 1e-3, "{what} {x} against {known}");
        }
        assert_eq!(report.value.len(), 2, "one phase and `all`: {:?}", report.value);
    }

    #[test]
    fn every_position_of_a_batch_is_scored_by_its_own_output() {
        // More positions than one inference batch, each recomputed alone.
        let (net, device) = tiny();
        let games = games(2);
        let report = probe(
            &net,
            Layout::Compact,
            PieceSet::Classic,
            &device,
            &games,
            ProbeOptions { stride: 1, max_positions: 1_000, pool_weight: None },
        )
        .unwrap();
        assert!(report.positions > BATCH, "{} positions", report.positions);
        let (mut value, mut belief, mut counting, mut pieces, mut positions) = (0.0, 0.0, 0.0, 0usize, 0usize);
        for game in &games {
            let mut state = State::from_setups(game.rules, &game.red, &game.blue).unwrap();
            for &mv in &game.moves {
                if state.is_terminal() {
                    break;
                }
                let me = state.to_move();
                let out = infer(
                    &net,
                    Layout::Compact,
                    &observe(&state, Layout::Compact),
                    &state.legal_action_mask(),
                    &device,
                )
                .unwrap();
                let p = f64::from(out.outcome[WIN]) + f64::from(out.outcome[DRAW]) / 2.0;
                value += log_loss(p, game.winner.map_or(0.5, |w| f64::from(u8::from(w == me))));
                positions += 1;
                let prior = CountingPrior::new(&state, me);
                for (sq, piece) in state.board().pieces().filter(|(_, p)| p.color != me && !p.revealed) {
                    belief += ln(f64::from(out.belief[sq.in_frame(me).index() * 12 + piece.kind.index()]));
                    counting += ln(f64::from(prior.of(&piece)[piece.kind.index()]));
                    pieces += 1;
                }
                state.apply_move(mv).unwrap();
            }
        }
        assert_eq!((report.positions, report.all_pieces().count), (positions, pieces));
        let all = report.all();
        assert!(
            (all.net_log_loss - value / positions as f64).abs() < 1e-4,
            "{} against {}",
            all.net_log_loss,
            value / positions as f64
        );
        let b = report.all_pieces();
        assert!((b.net - belief / pieces as f64).abs() < 1e-4, "{} against {}", b.net, belief / pieces as f64);
        assert!((b.counting - counting / pieces as f64).abs() < 1e-6);
    }

    /// The pool by hand: weight 0 is the counting prior, weight 1 the head on
    /// the prior's support; between, the normalised geometric mean. The
    /// fitted pool is never below the prior or the head on its support by
    /// more than the fold's difference can make (here both folds agree, so
    /// it is at least the better of the two).
    #[test]
    fn the_pool_runs_from_the_prior_to_the_head_and_its_fit_takes_the_better() {
        let mut prior = [0.0f32; PieceType::COUNT];
        let mut head = [0.0f32; PieceType::COUNT];
        prior[..3].copy_from_slice(&[0.5, 0.25, 0.25]);
        head[..3].copy_from_slice(&[0.2, 0.6, 0.2]);
        let h = |truth, fold| Hidden {
            moved: true,
            fold,
            net: 0.0,
            net_on_support: ln(f64::from(head[truth])),
            counting: ln(f64::from(prior[truth])),
            truth,
            prior,
            head,
        };
        assert!((pooled_log_likelihood(&h(1, 0), 0.0) - 0.25f64.ln()).abs() < 1e-9);
        assert!((pooled_log_likelihood(&h(1, 0), 1.0) - 0.6f64.ln()).abs() < 1e-6);
        let g = |c: f64, x: f64| (c * x).sqrt();
        let half = g(0.25, 0.6) / (g(0.5, 0.2) + g(0.25, 0.6) + g(0.25, 0.2));
        assert!((pooled_log_likelihood(&h(1, 0), 0.5) - half.ln()).abs() < 1e-6);
        // Truths drawn as the head says, in both folds: the fit trusts the head.
        let pieces: Vec<Hidden> =
            (0..2).flat_map(|fold| [0, 1, 1, 1, 2].into_iter().map(move |t| (t, fold))).map(|(t, f)| h(t, f)).collect();
        let all = &belief_scores(&pieces, None)[2];
        assert!(all.pooled.unwrap() >= all.net_on_support.max(all.counting) - 1e-6, "{all:?}");
        assert_eq!(all.pool_weights, [[Some(1.0), None], [Some(1.0), None]], "moved pieces only");
        // One fold only: nothing to fit on.
        let one: Vec<Hidden> = [0, 1, 2].into_iter().map(|t| h(t, 0)).collect();
        assert_eq!(belief_scores(&one, None)[2].pooled, None);
        // A weight given: used for every piece, no fit needed.
        let fixed = &belief_scores(&one, Some(0.0))[2];
        assert!((fixed.pooled.unwrap() - fixed.counting).abs() < 1e-9, "{fixed:?}");
        assert_eq!(fixed.pool_weights, [[Some(0.0); 2]; 2]);
    }

    #[test]
    fn one_game_has_no_other_fold_to_fit_the_leaf_on() {
        let (net, device) = tiny();
        let report =
            probe(&net, Layout::Compact, PieceSet::Classic, &device, &games(1), ProbeOptions::default()).unwrap();
        assert_eq!(report.all().leaf_log_loss, None);
        assert!(markdown(&[("one".into(), report)]).contains("| one | all |"));
    }

    #[test]
    fn the_stride_grows_to_fit_the_positions_asked_for() {
        let (net, device) = tiny();
        let games = games(3);
        let plies: usize = games.iter().map(|g| g.moves.len()).sum();
        let report = probe(
            &net,
            Layout::Compact,
            PieceSet::Classic,
            &device,
            &games,
            ProbeOptions { stride: 1, max_positions: 50, pool_weight: None },
        )
        .unwrap();
        assert!(report.positions <= 50 + games.len() && report.stride == plies.div_ceil(50) | 1, "{report:?}");
        let sides: Vec<bool> = (0..3).map(|k| (k * report.stride).is_multiple_of(2)).collect();
        assert_eq!(sides, [true, false, true], "an odd stride: the samples alternate between the sides");
        let value: usize = report.value.iter().filter(|v| v.phase != "all").map(|v| v.positions).sum();
        assert_eq!(value, report.positions, "the phases split the positions");
    }

    #[test]
    fn games_of_another_piece_set_or_without_positions_are_refused() {
        let (net, device) = tiny();
        let mut barrage = games(1);
        barrage[0].rules.piece_set = PieceSet::Barrage;
        let err = probe(&net, Layout::Compact, PieceSet::Classic, &device, &barrage, ProbeOptions::default());
        assert!(matches!(err, Err(ProbeError::PieceSet { game: 1, .. })), "{err:?}");
        let mut empty = games(1);
        empty[0].moves.clear();
        let err = probe(&net, Layout::Compact, PieceSet::Classic, &device, &empty, ProbeOptions::default());
        assert!(matches!(err, Err(ProbeError::Empty(_))), "{err:?}");
        let err = probe(&net, Layout::Full, PieceSet::Classic, &device, &games(1), ProbeOptions::default());
        assert!(matches!(err, Err(ProbeError::Model(_))), "a layout the network does not read: {err:?}");
    }
}
