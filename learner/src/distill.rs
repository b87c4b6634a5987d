//! The warm start by imitation: supervised policy, value and belief training
//! on games of a teacher player, written as a normal checkpoint from which
//! RL continues (`[pretrain]` in the config, `stratego distill`).
//!
//! 1. **Teacher games.** The teacher (a player spec, built by the registry
//!    of [`stratego_roster::players`]) plays both seats, or one seat against
//!    an opponent of `pretrain.opponents` in a share `pretrain.opponent_share`
//!    of the games. Games are played in parallel (rayon); game i is seeded by
//!    `stream_seed(run.seed, "distill-game", i)` and results come back in
//!    index order, so they depend on nothing but the seed. Setups come from
//!    the config's setup policy (`game.setups`), not from the teacher.
//! 2. **Decisions.** Every move a teacher made is a sample: the mover's
//!    observation planes (of the true state: planes never depend on hidden
//!    information), the legal mask, the teacher's action id in the mover's
//!    frame, the game's result for the mover (the value target, one-hot in
//!    the value head's `LOSS`/`DRAW`/`WIN` order) and the belief targets.
//!    Only the game records are kept; a minibatch's samples are rebuilt by
//!    replaying their games (exact: the engine is deterministic), as the RL
//!    learner does, so memory holds moves, not 23-195 KB observations.
//! 3. **Training.** The network is `run.init`'s when the config names one
//!    (a round of expert iteration: the teacher searches with that network
//!    inside, e.g. `netexpectimax:PATH`), else a fresh one. The last
//!    `holdout` share of the games is held out. The
//!    loss is `policy + value_weight·value + belief_weight·belief`: the
//!    policy's cross-entropy against the teacher's one-hot move (over the
//!    legal actions: the network masks the others), and the value and belief
//!    terms as the RL objective defines them (`objective::heads`). `epochs` passes of shuffled
//!    minibatches of `batch` decisions, each one gradient step with the
//!    learner's AdamW, gradient clip and weight decay (`step::imitation_step`)
//!    at the constant rate `pretrain.lr`. After each epoch (and once before
//!    the first, for the network before any step) the held-out decisions measure
//!    teacher agreement (the policy's most likely move is the teacher's),
//!    value loss and belief log-likelihood (`diagnostics::PRETRAIN_DIAGNOSTICS`).
//! 4. **Output.** A normal checkpoint (`stratego_model::save`, step 0):
//!    `net:PATH` plays it, and `stratego train` with `[pretrain] enabled`
//!    makes it the run's first checkpoint and continues with RL.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use burn::module::Module;
use burn::tensor::Tensor;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use stratego_contract::seed::{derive_seed, stream_seed};
use stratego_engine::{Color, GameRecord, Layout, Outcome};
use stratego_evaluation::arena::play_game;
use stratego_model::{CheckpointMeta, Device, StrategoNet};
use stratego_players::player::self_restriction;
use stratego_players::{AgentRng, PlayerFactory};
use stratego_runlog::Progress;
use stratego_runlog::{MetricsLog, TensorBoard};

use crate::config::TrainConfig;
use crate::diagnostics::{pretrain_values, PretrainEpoch, PretrainSums, Term};
use crate::ppo::objective::imitation_objective;
use crate::ppo::samples::{by_game, encode_state, leaf_for_target, replay_at, Batch, Encoded};
use crate::ppo::step::{imitation_step, optimizer, DeviceSums};
use crate::ppo::targets::{result_for, result_index, with_leaf};
use crate::run::NetworkRun;
use crate::TrainError;

/// At most this many held-out decisions (a seeded choice among them) are
/// measured after each epoch: enough for a teacher agreement within about
/// ±1.5 % (95 %), and a few seconds of forward passes for the tiny network.
pub const HELDOUT_DECISIONS: usize = 4096;

/// The file name, in the run directory, of the imitation-only network of a
/// run that pretrained (its first checkpoint holds the same weights, but
/// checkpoints rotate away).
pub const PRETRAIN_CHECKPOINT: &str = "pretrain.safetensors";

/// One game of the teacher: the record, and which seats the teacher held.
#[derive(Clone, Debug)]
pub struct TeacherGame {
    pub record: GameRecord,
    /// By colour index (`Color::index`): whether the teacher moved for it.
    pub teacher: [bool; 2],
}

impl TeacherGame {
    pub fn outcome(&self) -> Outcome {
        self.record.result.expect("a finished game has a result")
    }

    /// The side to move at `ply` (Red opens; every ply passes the move).
    pub fn mover(ply: usize) -> Color {
        if ply.is_multiple_of(2) {
            Color::Red
        } else {
            Color::Blue
        }
    }

    /// The plies at which the teacher moved.
    pub fn decisions(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.record.moves.len()).filter(|&ply| self.teacher[TeacherGame::mover(ply).index()])
    }
}

/// One teacher decision: a game and a ply of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Decision {
    pub game: u32,
    pub ply: u32,
}

/// Every teacher decision of `games`, in game and ply order.
pub fn decisions(games: &[TeacherGame]) -> Vec<Decision> {
    let mut out = Vec::new();
    for (g, game) in games.iter().enumerate() {
        out.extend(game.decisions().map(|ply| Decision { game: g as u32, ply: ply as u32 }));
    }
    out
}

/// Plays `count` teacher games for `config` (its rules, setups, seed and
/// `[pretrain]` opponents) in parallel; `on_game` is called as each ends.
pub fn play_teacher_games(
    config: &TrainConfig,
    teacher: &dyn PlayerFactory,
    opponents: &[Arc<dyn PlayerFactory>],
    count: usize,
    on_game: &(dyn Fn() + Sync),
) -> Result<Vec<TeacherGame>, TrainError> {
    let rules = config.game.rules;
    let setups = config.game.setup_source(rules.piece_set);
    let share = if opponents.is_empty() { 0.0 } else { config.pretrain.opponent_share };
    (0..count)
        .into_par_iter()
        .map(|i| {
            let seed = stream_seed(config.run.seed, "distill-game", i as u64);
            let rng = |stream: u64| AgentRng::seed_from_u64(derive_seed(seed, stream));
            let (red, blue) = setups.setups(&mut rng(0));
            let mut choice = rng(3);
            // The teacher takes Red in even games and Blue in odd ones when
            // it meets an opponent.
            let opponent = (share > 0.0 && choice.random::<f64>() < share)
                .then(|| &opponents[choice.random_range(0..opponents.len())]);
            let teacher_seats = match opponent {
                None => [true, true],
                Some(_) => [i % 2 == 0, i % 2 == 1],
            };
            let make = |seat: usize| match (teacher_seats[seat], opponent) {
                (false, Some(o)) => o.make(),
                _ => teacher.make(),
            };
            // Each seat keeps its player's own progress rules where the
            // config's are laxer, as in every match (none under the lab's).
            let restriction = |seat: usize| match (teacher_seats[seat], opponent) {
                (false, Some(o)) => self_restriction(o.as_ref(), &rules),
                _ => self_restriction(teacher, &rules),
            };
            let (mut red_player, mut blue_player) = (make(0), make(1));
            let (mut red_rng, mut blue_rng) = (rng(1), rng(2));
            let record = play_game(
                rules,
                [&red, &blue],
                [red_player.as_mut(), blue_player.as_mut()],
                [&mut red_rng, &mut blue_rng],
                [restriction(0), restriction(1)],
                i as u32,
            )
            .map_err(|e| TrainError::Data(format!("teacher game {i}: {e}")))?
            .record;
            on_game();
            Ok(TeacherGame { record, teacher: teacher_seats })
        })
        .collect()
}

/// Rebuilds the samples of `picks` (any order; each game is replayed once,
/// games in parallel) into one minibatch: planes, legal masks, the teacher's
/// actions, the one-hot results as value targets, belief targets and the
/// counting prior's fit. The RL-only fields (behaviour, magnet, advantages)
/// stay empty. The value targets take the leaf's share `leaf_target`
/// (`learner.leaf_target`, `targets::with_leaf`).
pub fn encode_decisions(
    games: &[TeacherGame],
    picks: &[Decision],
    layout: Layout,
    leaf_target: f32,
) -> Result<Batch, TrainError> {
    let at: Vec<(usize, usize)> = picks.iter().map(|p| (p.game as usize, p.ply as usize)).collect();
    let encoded = by_game(&at, |game, plies| encode_game(&games[game], plies, layout, leaf_target))?;
    let mut batch = Batch { size: picks.len(), ..Batch::default() };
    for (pick, EncodedDecision { encoded: e, legal, action, leaf }) in picks.iter().zip(encoded) {
        let game = &games[pick.game as usize];
        let mover = TeacherGame::mover(pick.ply as usize);
        batch.push_encoded(&e);
        batch.legal.extend_from_slice(&legal);
        batch.actions.push(action);
        let result = result_for(&game.outcome(), mover);
        let value_target = leaf.map_or(result, |x| with_leaf(result, x, leaf_target));
        batch.value_targets.extend_from_slice(&value_target);
        batch.results.push(result_index(&game.outcome(), mover) as u8);
    }
    Ok(batch)
}

/// One decision rebuilt from its game.
struct EncodedDecision {
    /// Planes, belief targets, the counting prior's fit.
    encoded: Encoded,
    legal: Vec<bool>,
    /// The teacher's action id, in the mover's frame.
    action: i64,
    /// The leaf of the position, where the value target takes a share of it.
    leaf: Option<f64>,
}

/// Replays `game` and encodes the decisions at `plies` (ascending, each a
/// teacher's): the observation, the legal mask and the teacher's action id.
fn encode_game(
    game: &TeacherGame,
    plies: &[usize],
    layout: Layout,
    leaf_target: f32,
) -> Result<Vec<EncodedDecision>, TrainError> {
    replay_at(&game.record, plies, |ply, mv, state, history| {
        let mover = state.to_move();
        if mover != TeacherGame::mover(ply) || !game.teacher[mover.index()] {
            return Err(TrainError::Data(format!("ply {ply} of a teacher game is not a teacher's move")));
        }
        let legal = state.legal_action_mask();
        let action = mv
            .to_action(mover)
            .filter(|&a| legal[a as usize])
            .ok_or_else(|| TrainError::Data(format!("the teacher's move {mv} at ply {ply} is not legal")))?;
        Ok(EncodedDecision {
            encoded: encode_state(state, history, layout)?,
            legal,
            action: action as i64,
            leaf: leaf_for_target(state, leaf_target),
        })
    })
}

/// Reads summed terms back (once) into `out`.
fn read_back(sums: DeviceSums, out: &mut PretrainSums) -> Result<(), TrainError> {
    if let Some(sums) = sums.read()? {
        out.sums = sums;
    }
    Ok(())
}

fn add_counts(out: &mut PretrainSums, batch: &Batch) {
    out.samples += batch.size as f64;
    out.hidden_squares += batch.hidden_squares as f64;
    out.prior_log_likelihood += batch.prior_log_likelihood;
}

/// The imitation figures of `net` (on the plain device: no dropout, no
/// gradients) on `picks`, in minibatches of `batch`.
pub fn measure(
    net: &StrategoNet,
    games: &[TeacherGame],
    picks: &[Decision],
    config: &TrainConfig,
    device: &Device,
) -> Result<PretrainSums, TrainError> {
    let mut out = PretrainSums::default();
    let mut sums = DeviceSums::default();
    let l = &config.learner;
    for chunk in picks.chunks(config.pretrain.batch.max(1)) {
        // Against the results alone, whatever the leaf's share in training:
        // the held-out value loss says what the head knows of the games.
        let batch = encode_decisions(games, chunk, config.game.layout, 0.0)?;
        let o = imitation_objective(net, &batch, l.value_weight, l.belief_weight, device);
        sums.add(o.sums(Tensor::<1>::zeros([1], device)));
        add_counts(&mut out, &batch);
    }
    read_back(sums, &mut out)?;
    Ok(out)
}

/// What a pretraining did.
#[derive(Clone, Debug, Default)]
pub struct DistillReport {
    pub games: usize,
    pub heldout_games: usize,
    /// Teacher decisions of the training games and of the held-out ones.
    pub decisions: usize,
    pub heldout_decisions: usize,
    pub generation_seconds: f64,
    /// Epoch 0 (the network before any step, held-out figures only), then one per epoch.
    pub epochs: Vec<PretrainEpoch>,
    /// Wall time of the whole pretraining.
    pub seconds: f64,
}

/// Trains a network by imitation of `config.pretrain.teacher`: `run.init`'s
/// when the config names one, else a fresh one (initialised as `stratego
/// train` initialises one: `device.seed(run.seed)`),
/// on the autodiff `device` (`plain`: the same device without autodiff, for
/// the held-out measurements). `on_epoch` sees epoch 0 (the network before
/// any step) and every epoch as it ends.
pub fn distill(
    config: &TrainConfig,
    device: &Device,
    plain: &Device,
    progress: bool,
    on_epoch: &mut dyn FnMut(&PretrainEpoch) -> Result<(), TrainError>,
) -> Result<(StrategoNet, DistillReport), TrainError> {
    let started = Instant::now();
    let p = &config.pretrain;
    let registry = stratego_roster::players();
    let build = |key: &str, spec: &str| {
        let factory = registry.factory(spec).map_err(|e| TrainError::config(key, e))?;
        factory
            .check_rules(&config.game.rules)
            .map_err(|why| TrainError::RulesMismatch { key: key.to_string(), why: why.to_string() })?;
        Ok::<_, TrainError>(factory)
    };
    let teacher = build("pretrain.teacher", &p.teacher)?;
    let opponents = p.opponents.iter().map(|o| build("pretrain.opponents", o)).collect::<Result<Vec<_>, _>>()?;

    // 1. The teacher's games.
    let generation = Instant::now();
    let games_bar = Progress::new("teacher games", "games", p.games as u64, progress);
    let games = play_teacher_games(config, teacher.as_ref(), &opponents, p.games, &|| games_bar.inc(1))?;
    games_bar.finish_and_clear();
    let generation_seconds = generation.elapsed().as_secs_f64();
    let (train_games, heldout_games) = games.split_at(p.games - p.holdout_games());
    let train: Vec<Decision> = decisions(train_games);
    let mut heldout: Vec<Decision> = decisions(heldout_games)
        .into_iter()
        .map(|d| Decision { game: d.game + train_games.len() as u32, ..d })
        .collect();
    let heldout_decisions = heldout.len();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(stream_seed(config.run.seed, "distill-holdout", 0));
    heldout.shuffle(&mut rng);
    heldout.truncate(HELDOUT_DECISIONS);
    heldout.sort();
    if train.is_empty() {
        return Err(TrainError::Data("the teacher's training games hold no teacher decision".into()));
    }

    // 2. The network: `run.init`'s (a round of expert iteration continues
    // the network whose search teaches), or fresh, as `stratego train`
    // initialises one.
    device.seed(config.run.seed);
    let mut net = match &config.run.init {
        // Its rules were checked by the config (`check_before_run`).
        Some(path) => stratego_model::load(path, Some(config.game.layout), None, device)?.0,
        None => StrategoNet::new(&config.model.preset.model(), config.game.layout, device),
    };
    let mut optimizer = optimizer(&config.learner);
    let mut report = DistillReport {
        games: games.len(),
        heldout_games: heldout_games.len(),
        decisions: train.len(),
        heldout_decisions,
        generation_seconds,
        ..DistillReport::default()
    };
    let all_decisions = train.len() + heldout_decisions;
    let epoch_record = |epoch: usize| PretrainEpoch {
        epoch,
        learning_rate: p.lr,
        games: games.len(),
        decisions: train.len(),
        all_decisions,
        generation_seconds,
        ..PretrainEpoch::default()
    };
    let mut before = epoch_record(0);
    before.heldout = measure(&net.valid(), &games, &heldout, config, plain)?;
    on_epoch(&before)?;
    report.epochs.push(before);

    // 3. Epochs of shuffled minibatches.
    let steps_per_epoch = train.len().div_ceil(p.batch);
    let steps_bar = Progress::new("imitation", "steps", (steps_per_epoch * p.epochs) as u64, progress);
    for epoch in 1..=p.epochs {
        let tick = Instant::now();
        let mut order = train.clone();
        let mut rng =
            Xoshiro256PlusPlus::seed_from_u64(stream_seed(config.run.seed, "distill-minibatches", epoch as u64));
        order.shuffle(&mut rng);
        let mut record = epoch_record(epoch);
        let mut sums = DeviceSums::default();
        for chunk in order.chunks(p.batch) {
            let batch = encode_decisions(&games, chunk, config.game.layout, config.learner.leaf_target)?;
            let (stepped, step_sums) = imitation_step(net, &mut optimizer, &batch, p.lr, &config.learner, device);
            net = stepped;
            sums.add(step_sums);
            add_counts(&mut record.train, &batch);
            steps_bar.inc(1);
        }
        read_back(sums, &mut record.train)?;
        record.seconds = tick.elapsed().as_secs_f64();
        record.heldout = measure(&net.valid(), &games, &heldout, config, plain)?;
        steps_bar.set_message(format!(
            "epoch {epoch}: policy {:.3}, agreement {:.3} (held out)",
            record.train.per_sample(Term::Policy),
            record.heldout.per_sample(Term::PolicyCorrect)
        ));
        on_epoch(&record)?;
        report.epochs.push(record);
    }
    steps_bar.finish_and_clear();
    report.seconds = started.elapsed().as_secs_f64();
    Ok((net, report))
}

/// One line of an epoch's figures, for people watching a terminal.
pub fn epoch_line(e: &PretrainEpoch) -> String {
    let h = &e.heldout;
    let held_out = format!(
        "held out: agreement {:.3}, policy loss {:.3}, value loss {:.3}, belief ll {:.3} (prior {:.3})",
        h.per_sample(Term::PolicyCorrect),
        h.per_sample(Term::Policy),
        h.per_sample(Term::Value),
        h.per_hidden_square(h.sums[Term::BeliefLogLikelihood.index()]),
        h.per_hidden_square(h.prior_log_likelihood),
    );
    if e.epoch == 0 {
        return format!("epoch 0 (before training): {held_out}");
    }
    let t = &e.train;
    format!(
        "epoch {}: train policy loss {:.3}, agreement {:.3}, value loss {:.3}, belief loss {:.3}; {held_out}; {:.0} samples/s",
        e.epoch,
        t.per_sample(Term::Policy),
        t.per_sample(Term::PolicyCorrect),
        t.per_sample(Term::Value),
        t.per_sample(Term::Belief),
        t.samples / e.seconds.max(1e-9),
    )
}

/// The checkpoint metadata of a pretrained network of `config` (step 0).
pub fn meta(config: &TrainConfig) -> CheckpointMeta {
    CheckpointMeta {
        config: config.model.preset.model(),
        layout: config.game.layout,
        rules: config.game.rules,
        step: 0,
    }
}

/// `stratego distill`: pretrains and writes the network to `out`.
pub fn distill_to(
    config: &TrainConfig,
    device_name: &str,
    out: &Path,
    progress: bool,
    on_epoch: &mut dyn FnMut(&PretrainEpoch) -> Result<(), TrainError>,
) -> Result<DistillReport, TrainError> {
    let plain = stratego_model::device(device_name)?;
    let device = plain.clone().autodiff();
    let (net, report) = distill(config, &device, &plain, progress, on_epoch)?;
    stratego_model::save(&net.valid(), &meta(config), out)?;
    Ok(report)
}

/// The pretraining of a run that has no checkpoint yet (`stratego train`
/// with `[pretrain] enabled`): its epochs logged to metrics.jsonl (at step
/// 0, with `pretrain/epoch`, so that no resume of the RL part ever drops
/// them) and to TensorBoard in `pretrain/` under the run (a run of its own
/// there, steps = epochs); the network saved as `pretrain.safetensors`.
/// Returns the network (on `device`) and the seconds it took.
pub(crate) fn pretrain_run(
    config: &TrainConfig,
    run: &NetworkRun,
    metrics: &mut MetricsLog,
    device: &Device,
    plain: &Device,
    progress: bool,
) -> Result<(StrategoNet, f64), TrainError> {
    let mut board = TensorBoard::create(&run.root().join("pretrain"), None)?;
    let (net, report) = distill(config, device, plain, progress, &mut |e| {
        let values = pretrain_values(e);
        board.scalars(e.epoch as u64, &values)?;
        let mut line = vec![("pretrain/epoch", e.epoch as f64)];
        line.extend(values);
        metrics.write(0, &line)?;
        if progress {
            crate::say(&format!("pretrain {}", epoch_line(e)));
        }
        Ok(())
    })?;
    stratego_model::save(&net.valid(), &meta(config), &run.root().join(PRETRAIN_CHECKPOINT))?;
    Ok((net, report.seconds))
}

#[cfg(test)]
mod tests {
    use stratego_engine::{observe, write_belief_targets, Move, Ruleset, Square, State, NUM_ACTIONS};
    use stratego_model::{DRAW, LOSS, WIN};
    use stratego_players::{InfoView, Player, PlayerError};

    use super::*;

    /// A teacher whose move is easy to check: the legal action with the
    /// largest id in its own frame.
    struct HighestAction;

    impl Player for HighestAction {
        fn name(&self) -> String {
            "highest".into()
        }
        fn choose_move(&mut self, view: &InfoView<'_>, _: &mut AgentRng) -> Result<Move, PlayerError> {
            Ok(highest(&view.legal_moves, view.me))
        }
    }

    fn highest(moves: &[Move], me: Color) -> Move {
        *moves.iter().max_by_key(|m| m.to_action(me)).expect("a legal move")
    }

    /// Makes [`HighestAction`]s.
    fn highest_factory() -> impl PlayerFactory {
        stratego_players::FnFactory::new("highest", || Box::new(HighestAction))
    }

    fn config(max_plies: u32) -> TrainConfig {
        let mut c = TrainConfig::default();
        c.game.rules = Ruleset { max_plies, ..Ruleset::classic() };
        c.game.setups = stratego_players::SetupPolicy::Handcrafted;
        c
    }

    fn state_at(record: &GameRecord, ply: usize) -> State {
        let mut state = State::from_setups(record.rules, &record.red, &record.blue).unwrap();
        for &mv in &record.moves[..ply] {
            state.apply_move(mv).unwrap();
        }
        state
    }

    /// Every recorded decision is the teacher's legal move, with planes
    /// equal to `observe` of the true state (both layouts), the legal mask,
    /// the mover's result as the value target and the belief targets; in
    /// games against an opponent only the teacher's seat is recorded.
    #[test]
    fn recorded_decisions_are_the_teachers_moves_with_their_targets() {
        let mut c = config(60);
        let games = play_teacher_games(&c, &highest_factory(), &[], 3, &|| {}).unwrap();
        c.pretrain.opponent_share = 1.0;
        let random = stratego_roster::players().factory("random").unwrap();
        let mixed = play_teacher_games(&c, &highest_factory(), &[random], 2, &|| {}).unwrap();
        assert_eq!((mixed[0].teacher, mixed[1].teacher), ([true, false], [false, true]));
        for (games, both) in [(&games, true), (&mixed, false)] {
            let picks = decisions(games);
            let plies: usize = games.iter().map(|g| g.record.moves.len()).sum();
            if both {
                assert_eq!(picks.len(), plies, "the teacher made every move");
            } else {
                assert!(picks.len() * 2 <= plies + 2 && picks.len() * 2 + 2 >= plies, "{} of {plies}", picks.len());
            }
            for layout in Layout::ALL {
                let batch = encode_decisions(games, &picks, layout, 0.0).unwrap();
                assert_eq!(batch.size, picks.len());
                for (i, d) in picks.iter().enumerate() {
                    let game = &games[d.game as usize];
                    let state = state_at(&game.record, d.ply as usize);
                    let mover = state.to_move();
                    assert!(game.teacher[mover.index()]);
                    let planes = &batch.planes[i * layout.size()..(i + 1) * layout.size()];
                    assert!(planes == observe(&state, layout).as_slice(), "{layout} planes of decision {i}");
                    let mask = &batch.legal[i * NUM_ACTIONS..(i + 1) * NUM_ACTIONS];
                    let legal: Vec<u16> = (0..NUM_ACTIONS).filter(|&a| mask[a]).map(|a| a as u16).collect();
                    assert_eq!(legal, state.legal_actions());
                    let teacher = highest(&state.legal_moves(), mover).to_action(mover).unwrap();
                    assert_eq!(batch.actions[i], teacher as i64, "the teacher's move");
                    assert_eq!(game.record.moves[d.ply as usize].to_action(mover), Some(teacher));
                    let result = result_index(&game.outcome(), mover);
                    assert_eq!(batch.results[i] as usize, result);
                    assert_eq!(&batch.value_targets[i * 3..i * 3 + 3], &result_for(&game.outcome(), mover));
                    let mut belief = [0i32; Square::COUNT];
                    write_belief_targets(&state, &mut belief);
                    assert_eq!(&batch.belief_targets[i * Square::COUNT..(i + 1) * Square::COUNT], &belief);
                }
            }
        }
        // The games are the seed's: played again, the same records.
        let again = play_teacher_games(&config(60), &highest_factory(), &[], 3, &|| {}).unwrap();
        assert!(games.iter().zip(&again).all(|(a, b)| a.record == b.record));
    }

    /// The value targets are each side's own result: in a decided game of
    /// the greedy teacher the winner's decisions say WIN, the loser's LOSS.
    #[test]
    fn value_targets_are_the_result_for_each_side() {
        let c = config(4000);
        let greedy = stratego_roster::players().factory("greedy").unwrap();
        let games = play_teacher_games(&c, greedy.as_ref(), &[], 4, &|| {}).unwrap();
        let decided: Vec<usize> = (0..games.len()).filter(|&g| games[g].outcome().winner.is_some()).collect();
        assert!(!decided.is_empty(), "greedy decides most games");
        for g in 0..games.len() {
            let picks: Vec<Decision> = decisions(&games).into_iter().filter(|d| d.game == g as u32).collect();
            let batch = encode_decisions(&games, &picks, Layout::Compact, 0.0).unwrap();
            let winner = games[g].outcome().winner;
            for (i, d) in picks.iter().enumerate() {
                let mover = TeacherGame::mover(d.ply as usize);
                let expected = match winner {
                    None => DRAW,
                    Some(w) if w == mover => WIN,
                    Some(_) => LOSS,
                };
                assert_eq!(batch.results[i] as usize, expected);
                assert_eq!(batch.value_targets[i * 3 + expected], 1.0);
                assert_eq!(batch.value_targets[i * 3..i * 3 + 3].iter().sum::<f32>(), 1.0);
            }
            // With half the target the leaf's, a decided game's winner still
            // leans to WIN (half of it is the result), and the positions'
            // leaves move the rest.
            let leant = encode_decisions(&games, &picks, Layout::Compact, 0.5).unwrap();
            if let Some(w) = winner {
                for (i, d) in picks.iter().enumerate() {
                    let t = &leant.value_targets[i * 3..i * 3 + 3];
                    let mine = if TeacherGame::mover(d.ply as usize) == w { WIN } else { LOSS };
                    assert!(t[mine] >= 0.5 && t[DRAW] == 0.0, "{t:?}");
                    assert!((t.iter().sum::<f32>() - 1.0).abs() < 1e-6);
                }
                assert!(leant.value_targets != batch.value_targets, "the leaf moves the targets");
            }
        }
    }

    /// A ply that is not a teacher's, or past the game's end, is an error.
    #[test]
    fn a_decision_that_is_not_the_teachers_is_an_error() {
        let mut c = config(40);
        c.pretrain.opponent_share = 1.0;
        let random = stratego_roster::players().factory("random").unwrap();
        let games = play_teacher_games(&c, &highest_factory(), &[random], 1, &|| {}).unwrap();
        assert_eq!(games[0].teacher, [true, false]);
        let blue = Decision { game: 0, ply: 1 };
        assert!(matches!(encode_decisions(&games, &[blue], Layout::Compact, 0.0), Err(TrainError::Data(_))));
        let past = Decision { game: 0, ply: games[0].record.moves.len() as u32 + 2 };
        assert!(matches!(encode_decisions(&games, &[past], Layout::Compact, 0.0), Err(TrainError::Data(_))));
    }

    /// The fraction of `picks` on which `net`'s most likely move is the teacher's.
    fn agreement(net: &StrategoNet, games: &[TeacherGame], picks: &[Decision], c: &TrainConfig) -> f64 {
        let device = stratego_model::device("cpu").unwrap();
        measure(net, games, picks, c, &device).unwrap().per_sample(Term::PolicyCorrect)
    }

    /// With `run.init` the imitation starts from that network (a round of
    /// expert iteration), not from a fresh one: its held-out figures before
    /// the first step are the given network's, and at rate 0 the written
    /// checkpoint plays as the given one. Without it they are a fresh
    /// network's, which the given one (another seed) is not.
    #[test]
    fn a_distill_with_run_init_starts_from_that_network() {
        let mut c = config(120);
        c.model.preset = crate::config::Preset::Tiny;
        c.pretrain.teacher = "greedy".into();
        (c.pretrain.games, c.pretrain.holdout, c.pretrain.epochs, c.pretrain.batch) = (6, 0.5, 1, 32);
        c.pretrain.lr = 0.0;
        let device = stratego_model::device("cpu").unwrap();
        device.seed(77);
        let given = StrategoNet::new(&c.model.preset.model(), Layout::Compact, &device);
        let dir = stratego_testkit::scratch_dir("distill-init");
        let init = dir.join("given.safetensors");
        stratego_model::save(&given, &super::meta(&c), &init).unwrap();

        let held_out_policy = |c: &TrainConfig, out: &str| {
            let path = dir.join(out);
            let report = distill_to(c, "cpu", &path, false, &mut |_| Ok(())).unwrap();
            let written = stratego_model::load(&path, Some(Layout::Compact), Some(&c.game.rules), &device).unwrap().0;
            let [before, after] = [&report.epochs[0], &report.epochs[1]].map(|e| e.heldout.per_sample(Term::Policy));
            (before, after, written)
        };
        let (fresh_before, _, _) = held_out_policy(&c, "fresh.safetensors");
        c.run.init = Some(init.clone());
        c.validate().unwrap();
        c.check_before_run().unwrap();
        let (before, after, written) = held_out_policy(&c, "continued.safetensors");
        assert_eq!(before, after, "rate 0 moves no weight");
        assert!((before - fresh_before).abs() > 1e-4, "started fresh: {before} against a fresh {fresh_before}");

        // The written network is the given one: same held-out loss on the
        // same teacher games as measured directly.
        let games =
            play_teacher_games(&c, stratego_roster::players().factory("greedy").unwrap().as_ref(), &[], 6, &|| {})
                .unwrap();
        let picks = decisions(&games[3..]);
        let loss = |net: &StrategoNet| measure(net, &games, &picks, &c, &device).unwrap().per_sample(Term::Policy);
        assert_eq!(loss(&written), loss(&given));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A small distill end to end: the checkpoint loads as a normal one (and
    /// as a `net:` player of the config's rules), and on fresh games of the
    /// teacher its policy agrees with the teacher more than an untrained
    /// network's does.
    #[test]
    fn a_small_distill_writes_a_checkpoint_that_agrees_with_its_teacher() {
        let mut c = config(4000);
        c.model.preset = crate::config::Preset::Tiny;
        c.pretrain.games = 14;
        c.pretrain.holdout = 0.1;
        c.pretrain.epochs = 1;
        c.pretrain.batch = 32;
        c.pretrain.lr = 3e-3;
        c.validate().unwrap();
        let dir = stratego_testkit::scratch_dir("distill");
        let path = dir.join("distilled.safetensors");
        let mut seen = Vec::new();
        let report = distill_to(&c, "cpu", &path, false, &mut |e| {
            seen.push(e.epoch);
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, vec![0, 1]);
        assert_eq!((report.games, report.heldout_games), (14, 2));
        assert!(report.decisions > 1000 && report.heldout_decisions > 0, "{report:?}");
        let trained = &report.epochs[1];
        assert!(trained.train.samples as usize == report.decisions);
        assert!(trained.train.per_sample(Term::Policy).is_finite());

        let device = stratego_model::device("cpu").unwrap();
        let (net, meta) = stratego_model::load(&path, Some(Layout::Compact), Some(&c.game.rules), &device).unwrap();
        assert_eq!(meta, super::meta(&c));
        let player = stratego_roster::players().factory(&format!("net:{}", path.display())).unwrap();
        player.check_rules(&c.game.rules).unwrap();

        // Fresh games of the teacher (another seed), against the untrained
        // network that the distill started from.
        let mut fresh = c.clone();
        fresh.run.seed = 99;
        let greedy = stratego_roster::players().factory("greedy").unwrap();
        let games = play_teacher_games(&fresh, greedy.as_ref(), &[], 2, &|| {}).unwrap();
        let picks = decisions(&games);
        device.seed(c.run.seed);
        let untrained = StrategoNet::new(&c.model.preset.model(), Layout::Compact, &device);
        let (before, after) = (agreement(&untrained, &games, &picks, &c), agreement(&net, &games, &picks, &c));
        assert!(after > before + 0.05, "teacher agreement {before:.3} untrained, {after:.3} distilled");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
