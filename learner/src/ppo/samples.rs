//! From finished games to training samples: targets over whole player
//! trajectories, then staleness and advantage filtering, then observations
//! rebuilt by replaying each game record (only for the samples kept).

use rand::seq::SliceRandom;
use rand::Rng;
use rayon::prelude::*;
use stratego_engine::{
    write_belief_targets, Color, CountingPrior, Encoder, GameRecord, HistoryFeatures, Layout, Move, Square, State,
    NUM_ACTIONS,
};
use stratego_selfplay::GameTrajectory;

use crate::config::LearnerConfig;
use crate::diagnostics::Selection;
use crate::ppo::targets::{keep_threshold, player_targets, result_for, result_index, with_leaf};
use crate::TrainError;

/// One decision chosen for training.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub game: usize,
    pub ply: usize,
    pub value_target: [f32; 3],
    pub advantage: f32,
    /// The final result for the acting player (`LOSS`, `DRAW` or `WIN`).
    pub result: u8,
}

/// The staleness rule, the one place it is written: a decision whose
/// policy is more than `max_staleness` versions older than the learner's
/// `version` is not learnt from.
pub(crate) fn is_stale(decision_version: u64, version: u64, max_staleness: u64) -> bool {
    decision_version.saturating_add(max_staleness) < version
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
            let mine: Vec<_> = game.decisions_of(player).collect();
            let values: Vec<[f32; 3]> = mine.iter().map(|d| d.value).collect();
            let z = result_for(&game.outcome, player);
            let targets = player_targets(&values, z, config.td_lambda, config.gae_lambda, config.draw_score);
            let result = result_index(&game.outcome, player) as u8;
            for (i, decision) in mine.iter().enumerate() {
                selection.decisions += 1;
                if is_stale(decision.version, version, max_staleness) {
                    selection.stale += 1;
                    continue;
                }
                candidates.push(Sample {
                    game: g,
                    ply: decision.ply,
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

/// A minibatch as flat arrays, ready to become tensors: what every batch
/// holds, the warm start's by imitation as RL's ([`PpoBatch`] adds what
/// only PPO's objective reads).
#[derive(Default)]
pub struct Batch {
    pub size: usize,
    /// `[B, C, 100]`.
    pub planes: Vec<f32>,
    /// `[B, 1800]`.
    pub legal: Vec<bool>,
    /// The action played (RL) or the teacher's (imitation).
    pub actions: Vec<i64>,
    /// `[B, 3]` value targets: TD(lambda)'s (RL) or the game's result
    /// (imitation), with the leaf's share where `leaf_target` asks.
    pub value_targets: Vec<f32>,
    /// The game's result for the side to move (0 loss, 1 draw, 2 win).
    pub results: Vec<u8>,
    /// `[B, 100]` true hidden types (`BELIEF_IGNORE` elsewhere).
    pub belief_targets: Vec<i32>,
    /// The counting prior's log-likelihood of the true hidden types, summed,
    /// its correct argmax guesses, and the number of hidden squares.
    pub prior_log_likelihood: f64,
    pub prior_correct: u64,
    pub hidden_squares: u64,
}

/// An RL minibatch: a [`Batch`] and what PPO's objective reads beside it,
/// the behaviour policy, the magnet and the advantages. It reads as a
/// `Batch` where one is wanted (`Deref`): the heads' losses take either.
#[derive(Default)]
pub struct PpoBatch {
    pub batch: Batch,
    /// log pi_behaviour(a) of the action played.
    pub behaviour_log_prob: Vec<f32>,
    /// `[B, 1800]`: log pi_behaviour on legal actions, 0 elsewhere.
    pub behaviour_log: Vec<f32>,
    /// `[B, 1800]`: log of the magnet (uniform over legal actions), 0 elsewhere.
    pub magnet_log: Vec<f32>,
    /// GAE advantages of the action played.
    pub advantages: Vec<f32>,
}

impl std::ops::Deref for PpoBatch {
    type Target = Batch;
    fn deref(&self) -> &Batch {
        &self.batch
    }
}

impl std::ops::DerefMut for PpoBatch {
    fn deref_mut(&mut self) -> &mut Batch {
        &mut self.batch
    }
}

impl Batch {
    /// Adds a sample's observation: its planes, belief targets and the
    /// counting prior's fit (what every batch, RL or warm start, holds).
    pub(crate) fn push_encoded(&mut self, e: &Encoded) {
        self.planes.extend_from_slice(&e.planes);
        self.belief_targets.extend_from_slice(&e.belief);
        self.prior_log_likelihood += e.prior_log_likelihood;
        self.prior_correct += e.prior_correct;
        self.hidden_squares += e.hidden;
    }
}

/// Probabilities below this are clamped before taking logs: a sampled
/// policy can give a legal action an exact zero after underflow.
const MIN_PROB: f32 = 1e-8;

/// One encoded sample (one game replay fills several).
pub(crate) struct Encoded {
    pub planes: Vec<f32>,
    pub belief: [i32; Square::COUNT],
    pub prior_log_likelihood: f64,
    pub prior_correct: u64,
    pub hidden: u64,
}

/// The observation of `state` for its side to move (`history`: the game's
/// piece histories up to `state`), its belief targets, and the counting
/// prior's fit to the hidden opponent pieces. The learner and the warm start
/// (`distill`) encode every sample with it.
pub(crate) fn encode_state(state: &State, history: &HistoryFeatures, layout: Layout) -> Result<Encoded, TrainError> {
    let viewer = state.to_move();
    let mut planes = vec![0.0; layout.size()];
    Encoder::new(state, viewer, Some(history)).write(layout, &mut planes)?;
    let mut belief = [0i32; Square::COUNT];
    write_belief_targets(state, &mut belief);
    let prior = CountingPrior::new(state, viewer);
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
    Ok(Encoded { planes, belief, prior_log_likelihood: ll, prior_correct: correct, hidden })
}

/// Replays `record` and calls `at(ply, move, state, histories)` on the
/// state before each ply of `plies` (ascending), the move being the one
/// played there: the one replay both the RL samples and the imitation
/// decisions are rebuilt from.
pub(crate) fn replay_at<T>(
    record: &GameRecord,
    plies: &[usize],
    mut at: impl FnMut(usize, Move, &State, &HistoryFeatures) -> Result<T, TrainError>,
) -> Result<Vec<T>, TrainError> {
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
            out.push(at(ply, mv, &state, &history)?);
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

/// The hand-written leaf of `state` for its side to move, where a value
/// target takes a share of it (`leaf_target` above 0): the leaf
/// `netrollout` scores its rollouts with, from what the mover knows.
pub(crate) fn leaf_for_target(state: &State, leaf_target: f32) -> Option<f64> {
    (leaf_target > 0.0).then(|| stratego_netplayer::rollout::leaf(state, state.to_move()))
}

/// Replays `game` and encodes the observations at `plies` (ascending), each
/// with its leaf where the value targets take a share of it.
fn encode_game(
    game: &GameTrajectory,
    plies: &[usize],
    layout: Layout,
    leaf_target: f32,
) -> Result<Vec<(Encoded, Option<f64>)>, TrainError> {
    replay_at(&game.record, plies, |_, _, state, history| {
        Ok((encode_state(state, history, layout)?, leaf_for_target(state, leaf_target)))
    })
}

/// Rebuilds what is wanted at the `(game, ply)` positions `at`, in the
/// order of `at`: each game is replayed once (games in parallel) by
/// `replay(game, plies)`, which returns one item per ply of `plies`
/// (ascending). The RL batches and the warm start's batches both come
/// through here.
pub fn by_game<T: Send>(
    at: &[(usize, usize)],
    replay: impl Fn(usize, &[usize]) -> Result<Vec<T>, TrainError> + Sync,
) -> Result<Vec<T>, TrainError> {
    let mut order: Vec<usize> = (0..at.len()).collect();
    order.sort_by_key(|&i| at[i]);
    let groups: Vec<&[usize]> = order.chunk_by(|&a, &b| at[a].0 == at[b].0).collect();
    let replayed: Vec<Vec<T>> = groups
        .par_iter()
        .map(|group| {
            let plies: Vec<usize> = group.iter().map(|&i| at[i].1).collect();
            replay(at[group[0]].0, &plies)
        })
        .collect::<Result<_, _>>()?;
    let mut slot: Vec<Option<T>> = (0..at.len()).map(|_| None).collect();
    for (group, items) in groups.iter().zip(replayed) {
        for (&i, item) in group.iter().zip(items) {
            slot[i] = Some(item);
        }
    }
    Ok(slot.into_iter().map(|item| item.expect("every position was replayed")).collect())
}

/// Encodes `samples` (observations rebuilt from their games, in parallel
/// over games) into one batch, the value targets given the leaf's share
/// `leaf_target` (`learner.leaf_target`).
pub fn encode(
    games: &[GameTrajectory],
    samples: &[Sample],
    layout: Layout,
    leaf_target: f32,
) -> Result<PpoBatch, TrainError> {
    let at: Vec<(usize, usize)> = samples.iter().map(|s| (s.game, s.ply)).collect();
    let encoded = by_game(&at, |game, plies| encode_game(&games[game], plies, layout, leaf_target))?;
    let mut batch = PpoBatch { batch: Batch { size: samples.len(), ..Batch::default() }, ..PpoBatch::default() };
    for (sample, (e, leaf)) in samples.iter().zip(encoded) {
        let decision = games[sample.game]
            .decision_at(sample.ply)
            .ok_or_else(|| TrainError::Data(format!("the network did not play ply {} of its game", sample.ply)))?;
        batch.push_encoded(&e);
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
        let value_target = leaf.map_or(sample.value_target, |x| with_leaf(sample.value_target, x, leaf_target));
        batch.value_targets.extend_from_slice(&value_target);
        batch.advantages.push(sample.advantage);
        batch.results.push(sample.result);
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

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use stratego_engine::{observe, GameRecord, Move, PieceSet, Ruleset, Setup, BELIEF_IGNORE};
    use stratego_model::{DRAW, LOSS, WIN};
    use stratego_selfplay::Decision;

    use super::*;

    /// A game of uniformly random moves (to the ply cap or an end), with
    /// the behaviour policy uniform, predicted values varying by ply and
    /// the policy version `version(ply)`.
    fn game(seed: u64, version: impl Fn(usize) -> u64) -> GameTrajectory {
        let rules = Ruleset { max_plies: 40, ..Ruleset::classic() };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let (red, blue) = (Setup::random(PieceSet::Classic, &mut rng), Setup::random(PieceSet::Classic, &mut rng));
        let mut state = State::from_setups(rules, &red, &blue).unwrap();
        let (mut moves, mut decisions) = (Vec::new(), Vec::new());
        while !state.is_terminal() {
            let legal = state.legal_actions();
            let action = legal[rng.random_range(0..legal.len())];
            let ply = decisions.len();
            let w = (ply % 5) as f32 / 10.0;
            decisions.push(Decision {
                ply,
                player: state.to_move(),
                version: version(ply),
                action,
                behaviour: vec![1.0 / legal.len() as f32; legal.len()],
                legal,
                value: [0.3, 0.7 - w, w],
            });
            moves.push(Move::from_action(action, state.to_move()).unwrap());
            state.apply_action(action).unwrap();
        }
        let outcome = state.outcome().unwrap();
        let record = GameRecord { rules, red, blue, moves, result: Some(outcome) };
        GameTrajectory { record, outcome, decisions, opponent: None }
    }

    /// `game(seed, ..)` as if a fixed opponent had played Blue: only Red's
    /// decisions are left.
    fn against_opponent(seed: u64) -> GameTrajectory {
        let mut g = game(seed, |_| 0);
        g.decisions.retain(|d| d.player == Color::Red);
        g.opponent = Some(stratego_selfplay::OpponentSeat { index: 0, color: Color::Blue });
        g
    }

    fn state_at(game: &GameTrajectory, ply: usize) -> State {
        let r = &game.record;
        let mut state = State::from_setups(r.rules, &r.red, &r.blue).unwrap();
        for &mv in &r.moves[..ply] {
            state.apply_move(mv).unwrap();
        }
        state
    }

    fn sample(game: usize, ply: usize, result: u8) -> Sample {
        Sample { game, ply, value_target: [0.1, 0.2, 0.7], advantage: ply as f32 / 100.0, result }
    }

    #[test]
    fn encode_rebuilds_every_sample_from_its_record() {
        let games = vec![game(1, |_| 0), game(2, |_| 0)];
        // Out of order and across games: encoding groups by game and puts
        // every sample back in its slot.
        let samples =
            vec![sample(1, 5, WIN as u8), sample(0, 3, LOSS as u8), sample(1, 0, DRAW as u8), sample(0, 17, 2)];
        for layout in Layout::ALL {
            let batch = encode(&games, &samples, layout, 0.0).unwrap();
            assert_eq!(batch.size, samples.len());
            let mut hidden = 0;
            for (i, s) in samples.iter().enumerate() {
                let (g, state) = (&games[s.game], state_at(&games[s.game], s.ply));
                let planes = &batch.planes[i * layout.size()..(i + 1) * layout.size()];
                assert!(planes == observe(&state, layout).as_slice(), "{layout} planes of sample {i}");
                let legal = state.legal_actions();
                let mask = &batch.legal[i * NUM_ACTIONS..(i + 1) * NUM_ACTIONS];
                assert_eq!((0..NUM_ACTIONS).filter(|&a| mask[a]).map(|a| a as u16).collect::<Vec<_>>(), legal);
                let uniform = -(legal.len() as f32).ln();
                for (a, &is_legal) in mask.iter().enumerate() {
                    let expected = if is_legal { uniform } else { 0.0 };
                    assert!((batch.behaviour_log[i * NUM_ACTIONS + a] - expected).abs() < 1e-5);
                    assert_eq!(batch.magnet_log[i * NUM_ACTIONS + a], expected);
                }
                assert_eq!(batch.actions[i], g.decisions[s.ply].action as i64);
                assert!((batch.behaviour_log_prob[i] - uniform).abs() < 1e-5);
                assert_eq!(&batch.value_targets[i * 3..i * 3 + 3], &s.value_target);
                assert_eq!((batch.advantages[i], batch.results[i]), (s.advantage, s.result));
                let mut belief = [0i32; Square::COUNT];
                write_belief_targets(&state, &mut belief);
                assert_eq!(&batch.belief_targets[i * Square::COUNT..(i + 1) * Square::COUNT], &belief);
                hidden += belief.iter().filter(|&&t| t != BELIEF_IGNORE).count() as u64;
            }
            assert_eq!(batch.hidden_squares, hidden);
            assert!(batch.prior_log_likelihood < 0.0 && batch.prior_correct <= hidden);
        }
    }

    /// With `leaf_target` above 0 each value target takes that share of the
    /// leaf of its own position for its own mover; nothing else changes.
    #[test]
    fn the_leafs_share_is_taken_at_each_samples_own_position() {
        let games = vec![game(7, |_| 0)];
        let plies = [0, 1, 20, 21, 39];
        let samples: Vec<Sample> = plies.iter().map(|&p| sample(0, p, WIN as u8)).collect();
        let plain = encode(&games, &samples, Layout::Compact, 0.0).unwrap();
        let leant = encode(&games, &samples, Layout::Compact, 0.4).unwrap();
        assert_eq!((&plain.planes, &plain.advantages), (&leant.planes, &leant.advantages));
        let mut leaves = Vec::new();
        for (i, s) in samples.iter().enumerate() {
            let state = state_at(&games[0], s.ply);
            let x = stratego_netplayer::rollout::leaf(&state, state.to_move());
            leaves.push(x);
            let expected = crate::ppo::targets::with_leaf(s.value_target, x, 0.4);
            assert_eq!(&leant.value_targets[i * 3..i * 3 + 3], &expected, "sample {i}");
        }
        assert!(leaves.iter().any(|&x| x != leaves[0]), "the positions differ: {leaves:?}");
    }

    #[test]
    fn a_ply_the_game_does_not_have_is_an_error() {
        let games = vec![game(3, |_| 0)];
        let past = games[0].record.moves.len();
        assert!(matches!(encode(&games, &[sample(0, past, 1)], Layout::Compact, 0.0), Err(TrainError::Data(_))));
    }

    #[test]
    fn select_drops_stale_decisions_then_small_advantages() {
        // Versions 0 for the first ten plies, 5 after.
        let games = vec![game(4, |ply| if ply < 10 { 0 } else { 5 }), game(5, |_| 5)];
        let config = LearnerConfig { keep_quantile: 0.5, min_advantage: 0.0, ..LearnerConfig::default() };
        let (samples, selection) = select(&games, &config, 6, 2);
        let decisions: usize = games.iter().map(|g| g.decisions.len()).sum();
        assert_eq!(selection.decisions, decisions);
        assert_eq!(selection.stale, 10);
        assert_eq!(selection.kept, samples.len());
        assert!(selection.kept >= (decisions - 10) / 2 && selection.kept < decisions - 10);
        for s in &samples {
            let game = &games[s.game];
            let decision = game.decision_at(s.ply).unwrap();
            assert_eq!(decision.version, 5);
            assert!(s.advantage.abs() >= selection.threshold);
            // The targets are the acting player's own trajectory's.
            let plies: Vec<usize> = game.decisions_of(decision.player).map(|d| d.ply).collect();
            let values: Vec<[f32; 3]> = game.decisions_of(decision.player).map(|d| d.value).collect();
            let z = result_for(&game.outcome, decision.player);
            let t = player_targets(&values, z, config.td_lambda, config.gae_lambda, config.draw_score);
            let i = plies.iter().position(|&p| p == s.ply).unwrap();
            assert_eq!((s.value_target, s.advantage), (t.value[i], t.advantage[i]));
            assert_eq!(s.result as usize, result_index(&game.outcome, decision.player));
        }
        // Nothing is stale at version 2 (0 + 2 >= 2), and quantile 0 keeps all.
        let keep_all = LearnerConfig { keep_quantile: 0.0, ..config };
        let (all, selection) = select(&games, &keep_all, 2, 2);
        assert_eq!((selection.stale, all.len()), (0, decisions));
    }

    /// Against a fixed opponent only the network's seat gives samples, its
    /// targets are over its own decisions, and each encodes the observation
    /// at its own ply of the game.
    #[test]
    fn a_game_against_an_opponent_gives_only_the_networks_seat() {
        let games = vec![against_opponent(6)];
        let config = LearnerConfig { keep_quantile: 0.0, min_advantage: 0.0, ..LearnerConfig::default() };
        let (samples, selection) = select(&games, &config, 0, 4);
        let red = games[0].decisions.len();
        assert!(red > 5 && red < games[0].record.moves.len());
        assert_eq!((selection.decisions, samples.len()), (red, red));
        let values: Vec<[f32; 3]> = games[0].decisions.iter().map(|d| d.value).collect();
        let t = player_targets(
            &values,
            result_for(&games[0].outcome, Color::Red),
            config.td_lambda,
            config.gae_lambda,
            config.draw_score,
        );
        for (i, s) in samples.iter().enumerate() {
            assert_eq!(s.ply, games[0].decisions[i].ply);
            assert_eq!(s.ply % 2, 0, "Red moves at even plies");
            assert_eq!((s.value_target, s.advantage), (t.value[i], t.advantage[i]));
        }
        let batch = encode(&games, &samples, Layout::Compact, 0.0).unwrap();
        let size = Layout::Compact.size();
        for (i, s) in samples.iter().enumerate() {
            let state = state_at(&games[0], s.ply);
            assert_eq!(batch.actions[i], games[0].decisions[i].action as i64);
            assert!(batch.planes[i * size..(i + 1) * size] == observe(&state, Layout::Compact), "sample {i}");
        }
        // A sample at a ply the opponent played is refused, not mis-encoded.
        assert!(matches!(encode(&games, &[sample(0, 1, 1)], Layout::Compact, 0.0), Err(TrainError::Data(_))));
    }

    #[test]
    fn minibatches_are_a_shuffled_partition_without_singletons() {
        let samples: Vec<Sample> = (0..9).map(|p| sample(0, p, 1)).collect();
        let order = |seed| {
            let batches = minibatches(&samples, 4, &mut Xoshiro256PlusPlus::seed_from_u64(seed));
            batches.iter().map(|b| b.iter().map(|s| s.ply).collect::<Vec<_>>()).collect::<Vec<_>>()
        };
        let batches = order(1);
        // 9 = 4 + 4 + 1: the last sample alone is dropped.
        assert_eq!(batches.iter().map(Vec::len).collect::<Vec<_>>(), vec![4, 4]);
        let mut seen: Vec<usize> = batches.concat();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 8);
        assert_eq!(order(1), batches);
        assert_ne!(order(2), batches);
        let ten: Vec<Sample> = (0..10).map(|p| sample(0, p, 1)).collect();
        let sizes: Vec<usize> =
            minibatches(&ten, 4, &mut Xoshiro256PlusPlus::seed_from_u64(3)).iter().map(Vec::len).collect();
        assert_eq!(sizes, vec![4, 4, 2]);
    }
}
