//! From finished games to training samples: targets over whole player
//! trajectories, then staleness and advantage filtering, then observations
//! rebuilt by replaying each game record (only for the samples kept).

use rand::seq::SliceRandom;
use rand::Rng;
use rayon::prelude::*;
use stratego_engine::{
    write_belief_targets, Color, CountingPrior, Encoder, HistoryFeatures, Layout, Square, State, NUM_ACTIONS,
};
use stratego_selfplay::GameTrajectory;

use crate::config::LearnerConfig;
use crate::targets::{keep_threshold, player_targets, result_for};
use crate::TrainError;

/// One decision chosen for training.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub game: usize,
    pub ply: usize,
    pub value_target: [f32; 3],
    pub advantage: f32,
    /// The final result for the acting player (0 loss, 1 draw, 2 win).
    pub result: u8,
}

/// How many decisions an iteration saw and kept.
#[derive(Clone, Copy, Debug, Default)]
pub struct Selection {
    pub decisions: usize,
    pub stale: usize,
    pub kept: usize,
    pub threshold: f32,
}

/// Targets for every decision of `games`, then the filters: decisions of a
/// policy more than `max_staleness` versions older than `version` are
/// dropped, and of the rest only those with a large enough |advantage| kept.
pub fn select(
    games: &[GameTrajectory],
    config: &LearnerConfig,
    version: u64,
    max_staleness: u64,
) -> (Vec<Sample>, Selection) {
    let mut candidates = Vec::new();
    let mut selection = Selection::default();
    for (g, game) in games.iter().enumerate() {
        for player in [Color::Red, Color::Blue] {
            let plies: Vec<usize> = game.plies_of(player).collect();
            let values: Vec<[f32; 3]> = plies.iter().map(|&p| game.decisions[p].value).collect();
            let z = result_for(&game.outcome, player);
            let targets = player_targets(&values, z, config.td_lambda, config.gae_lambda);
            let result = z.iter().position(|&x| x == 1.0).unwrap_or(1) as u8;
            for (i, &ply) in plies.iter().enumerate() {
                selection.decisions += 1;
                if game.decisions[ply].version + max_staleness < version {
                    selection.stale += 1;
                    continue;
                }
                candidates.push(Sample {
                    game: g,
                    ply,
                    value_target: targets.value[i],
                    advantage: targets.advantage[i],
                    result,
                });
            }
        }
    }
    let advantages: Vec<f32> = candidates.iter().map(|s| s.advantage).collect();
    selection.threshold = keep_threshold(&advantages, config.keep_quantile, config.min_advantage);
    candidates.retain(|s| s.advantage.abs() >= selection.threshold);
    selection.kept = candidates.len();
    (candidates, selection)
}

/// A minibatch as flat arrays, ready to become tensors.
#[derive(Default)]
pub struct Batch {
    pub size: usize,
    /// `[B, C, 100]`.
    pub planes: Vec<f32>,
    /// `[B, 1800]`.
    pub legal: Vec<bool>,
    pub actions: Vec<i64>,
    /// log pi_behaviour(a) of the action played.
    pub behaviour_log_prob: Vec<f32>,
    /// `[B, 1800]`: log pi_behaviour on legal actions, 0 elsewhere.
    pub behaviour_log: Vec<f32>,
    /// `[B, 1800]`: log of the magnet (uniform over legal actions), 0 elsewhere.
    pub magnet_log: Vec<f32>,
    /// `[B, 3]` TD(lambda) targets.
    pub value_targets: Vec<f32>,
    pub advantages: Vec<f32>,
    pub results: Vec<u8>,
    /// `[B, 100]` true hidden types (`BELIEF_IGNORE` elsewhere).
    pub belief_targets: Vec<i32>,
    /// The counting prior's log-likelihood of the true hidden types, summed,
    /// its correct argmax guesses, and the number of hidden squares.
    pub prior_log_likelihood: f64,
    pub prior_correct: u64,
    pub hidden_squares: u64,
}

/// Probabilities below this are clamped before taking logs: a sampled
/// policy can give a legal action an exact zero after underflow.
const MIN_PROB: f32 = 1e-8;

/// One encoded sample (one game replay fills several).
struct Encoded {
    planes: Vec<f32>,
    belief: [i32; Square::COUNT],
    prior_log_likelihood: f64,
    prior_correct: u64,
    hidden: u64,
}

/// Replays `game` and encodes the observations at `plies` (ascending).
fn encode_game(game: &GameTrajectory, plies: &[usize], layout: Layout) -> Result<Vec<Encoded>, TrainError> {
    let record = &game.record;
    let mut state = State::from_setups(record.rules, &record.red, &record.blue)?;
    let mut history = HistoryFeatures::default();
    let mut out = Vec::with_capacity(plies.len());
    let mut wanted = plies.iter().peekable();
    for (ply, &mv) in record.moves.iter().enumerate() {
        if wanted.peek().is_none() {
            break;
        }
        if wanted.peek() == Some(&&ply) {
            wanted.next();
            let viewer = state.to_move();
            let mut planes = vec![0.0; layout.size()];
            Encoder::new(&state, viewer, Some(&history)).write(layout, &mut planes)?;
            let mut belief = [0i32; Square::COUNT];
            write_belief_targets(&state, &mut belief);
            let prior = CountingPrior::new(&state, viewer);
            let (mut ll, mut correct, mut hidden) = (0.0f64, 0u64, 0u64);
            for (_, piece) in state.board().pieces() {
                if piece.color != viewer && !piece.revealed {
                    let p = prior.of(&piece);
                    ll += (p[piece.kind.index()].max(MIN_PROB) as f64).ln();
                    let guess = (0..p.len()).max_by(|&a, &b| p[a].total_cmp(&p[b])).unwrap_or(0);
                    correct += u64::from(guess == piece.kind.index());
                    hidden += 1;
                }
            }
            out.push(Encoded { planes, belief, prior_log_likelihood: ll, prior_correct: correct, hidden });
        }
        let before = state.board().clone();
        state.apply_move(mv)?;
        history.update(&state, &before);
    }
    if out.len() != plies.len() {
        return Err(TrainError::Data(format!("a game of {} plies has no ply {:?}", record.moves.len(), wanted.next())));
    }
    Ok(out)
}

/// Encodes `samples` (observations rebuilt from their games, in parallel
/// over games) into one batch.
pub fn encode(games: &[GameTrajectory], samples: &[Sample], layout: Layout) -> Result<Batch, TrainError> {
    // Group the samples by game so that each game is replayed once.
    let mut order: Vec<usize> = (0..samples.len()).collect();
    order.sort_by_key(|&i| (samples[i].game, samples[i].ply));
    let groups: Vec<&[usize]> = order.chunk_by(|&a, &b| samples[a].game == samples[b].game).collect();
    let encoded: Vec<Vec<Encoded>> = groups
        .par_iter()
        .map(|group| {
            let game = &games[samples[group[0]].game];
            let plies: Vec<usize> = group.iter().map(|&i| samples[i].ply).collect();
            encode_game(game, &plies, layout)
        })
        .collect::<Result<_, _>>()?;
    let mut slot: Vec<Option<Encoded>> = (0..samples.len()).map(|_| None).collect();
    for (group, encs) in groups.iter().zip(encoded) {
        for (&i, e) in group.iter().zip(encs) {
            slot[i] = Some(e);
        }
    }

    let mut batch = Batch { size: samples.len(), ..Batch::default() };
    for (sample, encoded) in samples.iter().zip(slot) {
        let e = encoded.expect("every sample was encoded");
        let decision = &games[sample.game].decisions[sample.ply];
        batch.planes.extend_from_slice(&e.planes);
        let mut legal = vec![false; NUM_ACTIONS];
        let mut behaviour_log = vec![0.0f32; NUM_ACTIONS];
        let mut magnet_log = vec![0.0f32; NUM_ACTIONS];
        let uniform = -(decision.legal.len() as f32).ln();
        for (&a, &p) in decision.legal.iter().zip(&decision.behaviour) {
            legal[a as usize] = true;
            behaviour_log[a as usize] = p.max(MIN_PROB).ln();
            magnet_log[a as usize] = uniform;
        }
        batch.legal.extend_from_slice(&legal);
        batch.behaviour_log.extend_from_slice(&behaviour_log);
        batch.magnet_log.extend_from_slice(&magnet_log);
        batch.actions.push(decision.action as i64);
        batch.behaviour_log_prob.push(decision.behaviour_of_action().max(MIN_PROB).ln());
        batch.value_targets.extend_from_slice(&sample.value_target);
        batch.advantages.push(sample.advantage);
        batch.results.push(sample.result);
        batch.belief_targets.extend_from_slice(&e.belief);
        batch.prior_log_likelihood += e.prior_log_likelihood;
        batch.prior_correct += e.prior_correct;
        batch.hidden_squares += e.hidden;
    }
    Ok(batch)
}

/// Shuffles the kept samples and cuts them into minibatches of `size` (the
/// last one may be smaller; one of fewer than 2 samples is dropped).
pub fn minibatches(samples: &[Sample], size: usize, rng: &mut impl Rng) -> Vec<Vec<Sample>> {
    let mut shuffled = samples.to_vec();
    shuffled.shuffle(rng);
    shuffled.chunks(size).filter(|c| c.len() >= 2).map(|c| c.to_vec()).collect()
}
