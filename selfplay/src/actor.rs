//! Actor threads: each owns a slice of batched games (a `VecEnv`), asks the
//! inference service for the current policy, samples the network's moves
//! from it and sends every finished game to the learner.
//!
//! A game is self-play (the network in both seats) or, in a configured
//! share of the game slots, the network against a fixed player (`opponents`:
//! baselines or past networks) or a past self (the pool) that takes one
//! seat, drawn per game: those games end more often in a result the value
//! and advantages can learn from, and only the network's seat gives
//! decisions. The games against opponents play on threads of their own
//! ([`Role`]): a thread steps all its games together, so a slow opponent
//! (expectimax) would otherwise hold up the self-play games beside it, and
//! their samples would grow stale while they wait.
//!
//! An opponent that brings its own setup (an outside program, `ucc:`) is
//! seated before the game's first ply and plays it; one that forfeits ends
//! only its game, which goes to the learner like any other.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{unbounded, Receiver, Sender, TrySendError};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use stratego_contract::seed::stream_seed;
use stratego_engine::{
    ActionId, Color, FinishedGame, Layout, ProgressTracker, Ruleset, SetupSource, VecEnv, NUM_ACTIONS,
};
use stratego_model::choose_action;
use stratego_players::player::self_restriction;
use stratego_players::view::PublicPly;
use stratego_players::{AgentRng, InfoView, Player, PlayerError, PlayerFactory};

use crate::pool::Pool;
use crate::service::PolicyClient;
use crate::trajectory::{Decision, GameTrajectory, OpponentSeat};
use crate::SelfPlayError;

/// How the actors play.
#[derive(Clone)]
pub struct ActorConfig {
    pub rules: Ruleset,
    pub layout: Layout,
    pub actors: usize,
    /// Games each actor steps together.
    pub games_per_actor: usize,
    /// Sampling temperature of the behaviour policy (1 = the policy itself).
    pub temperature: f32,
    /// Fixed players the network meets ...
    pub opponents: Vec<Arc<dyn PlayerFactory>>,
    /// ... in this share of the game slots (drawn per game, the opponent
    /// and its seat uniformly).
    pub opponent_share: f64,
    /// Past versions of the network the run adds as it goes ...
    pub pool: Option<Arc<Pool>>,
    /// ... met in this share of the game slots (drawn per game, the version
    /// by the pool's rule, the seat uniformly), while the pool holds any;
    /// until then those slots play self-play games.
    pub pool_share: f64,
    /// Seeds every actor's games and sampling ([`actor_seeds`]); a resumed
    /// run passes a new one (the learner's `selfplay_seed` of the run seed
    /// and the iteration it starts at), so it never replays the same games.
    pub seed: u64,
    /// Whether the actors play only the steps the learner grants them
    /// ([`Actors::grant`], [`Actors::play_steps`]): in lockstep, one actor at
    /// a time, so that which games a policy version plays, and in what order
    /// they arrive, follow from the seed alone; or paced, all at once, so
    /// that they cannot run far ahead of the learner. Otherwise they play
    /// freely, as fast as the service answers.
    pub gated: bool,
}

/// The seeds of actor `actor` under the actors' `seed`: its games' batch
/// (game `i` of the batch is then seeded `stream_seed(games, "game", i)`
/// by the engine's `VecEnv`) and its move sampling. Named streams, so no
/// actor, game or iteration shares another's seed.
pub fn actor_seeds(seed: u64, actor: usize) -> (u64, u64) {
    (stream_seed(seed, "actor-games", actor as u64), stream_seed(seed, "actor-moves", actor as u64))
}

/// The seed of actor `actor`'s opponent draws and the opponents' own moves.
fn opponent_seed(seed: u64, actor: usize) -> u64 {
    stream_seed(seed, "actor-opponents", actor as u64)
}

/// What an actor thread plays. Each configured actor's `games_per_actor`
/// slots are split by the opponents' share (rounded, at least one slot to
/// each side that has a share): its self-play slots step on one thread, its
/// slots against opponents on another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    SelfPlay,
    Opponents,
}

impl ActorConfig {
    /// The shares of the game slots against the fixed opponents and the
    /// pool: 0 where there is nothing to draw from.
    fn shares(&self) -> (f64, f64) {
        let fixed = if self.opponents.is_empty() { 0.0 } else { self.opponent_share };
        let pool = if self.pool.is_some() { self.pool_share } else { 0.0 };
        (fixed, pool)
    }

    /// The actor threads, in order, with their roles and game slots: per
    /// configured actor, its self-play thread (if it has slots), then its
    /// opponents' thread (if the opponents have a share).
    pub fn threads(&self) -> Vec<(Role, usize)> {
        let (fixed, pool) = self.shares();
        let share = (fixed + pool).min(1.0);
        let g = self.games_per_actor;
        let against = if share > 0.0 { ((g as f64 * share).round() as usize).clamp(1, g) } else { 0 };
        let mut threads = Vec::new();
        for _ in 0..self.actors {
            if g > against {
                threads.push((Role::SelfPlay, g - against));
            }
            if against > 0 {
                threads.push((Role::Opponents, against));
            }
        }
        threads
    }
}

/// A fixed player in one seat of one game, with the public history it sees
/// and, under rules laxer than its own, its own progress rules
/// (`stratego_players::player::self_restriction`).
struct Seated {
    seat: OpponentSeat,
    player: Box<dyn Player>,
    history: Vec<PublicPly>,
    progress: Option<ProgressTracker>,
}

impl Seated {
    /// The run's error for a failure of this opponent's own (not a forfeit).
    fn failed(&self, why: String) -> SelfPlayError {
        SelfPlayError::Opponent { name: self.player.name(), why }
    }
}

/// Who plays the game starting in a slot of a thread of `role`: the network
/// alone on a self-play thread; on an opponents' thread, a fixed opponent or
/// a past self (in proportion to their shares) in a seat, drawn with `rng`.
fn draw_opponent(config: &ActorConfig, role: Role, rules: &Ruleset, rng: &mut AgentRng) -> Option<Seated> {
    if role == Role::SelfPlay {
        return None;
    }
    // An opponents' thread exists only where the shares add up to more than 0.
    let (fixed_share, pool_share) = config.shares();
    let r = rng.random::<f64>() * (fixed_share + pool_share);
    let (index, factory) = if r < fixed_share {
        let index = rng.random_range(0..config.opponents.len());
        (index, config.opponents[index].clone())
    } else {
        // Past selves count as one opponent in the scores: the last index.
        // An empty pool (the run's start) leaves the slot a self-play game.
        (config.opponents.len(), config.pool.as_ref()?.draw(rng)?.1)
    };
    let color = if rng.random::<bool>() { Color::Red } else { Color::Blue };
    let progress = self_restriction(factory.as_ref(), rules).map(ProgressTracker::new);
    Some(Seated { seat: OpponentSeat { index, color }, player: factory.make(), history: Vec::new(), progress })
}

/// The name an opponent that asks is told it plays (`Player::take_seat`;
/// an outside program hears it in the protocol's first line).
const NETWORK_NAME: &str = "lab-network";

/// The opponent of the game that starts in slot `g`, seated
/// (`Player::take_seat`): one that brings its own setup (an outside program)
/// plays it in place of the one dealt. One that forfeits in its seat loses
/// that game before its first ply, which `ended` receives, and the slot
/// starts the next game with a new draw.
fn seat_next(
    env: &mut VecEnv,
    g: usize,
    config: &ActorConfig,
    role: Role,
    rng: &mut AgentRng,
    stop: &AtomicBool,
    ended: &mut Ended,
) -> Result<Option<Seated>, SelfPlayError> {
    let rules = *env.rules();
    loop {
        let Some(mut seated) = draw_opponent(config, role, &rules, rng) else { return Ok(None) };
        let color = seated.seat.color;
        match seated.player.take_seat(color, NETWORK_NAME, rules.piece_set) {
            Ok(None) => return Ok(Some(seated)),
            Ok(Some(own)) => {
                env.seat_setup(g, color, own).map_err(|e| seated.failed(e.to_string()))?;
                return Ok(Some(seated));
            }
            Err(PlayerError::Forfeit(why)) => {
                ended.forfeited(env, g, &seated, Vec::new(), &why)?;
                // A program that cannot take a seat at all forfeits every
                // game; a stop ends the loop (the slot then sits out).
                if stop.load(Ordering::Relaxed) {
                    return Ok(None);
                }
            }
            Err(e) => return Err(seated.failed(e.to_string())),
        }
    }
}

/// The panic payload's message (`panic!` with a literal or a format).
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic without a message)".to_string()
    }
}

/// The running actors.
pub struct Actors {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<Result<(), SelfPlayError>>>,
    /// Plies played by all actors so far.
    pub plies: Arc<AtomicU64>,
    /// Gated: each actor's grants of steps, and where an actor says it has
    /// played a grant.
    gates: Option<(Vec<Sender<usize>>, Receiver<usize>)>,
}

/// A gated actor's side: the steps it may still play, its grants and where
/// it reports each grant played.
struct Gate {
    actor: usize,
    left: usize,
    granted: bool,
    grants: Receiver<usize>,
    paused: Sender<usize>,
}

impl Gate {
    /// Waits until the actor may play one more step; false once the grants
    /// have ended (the actors are stopping).
    fn step(&mut self) -> bool {
        if self.left == 0 {
            if self.granted && self.paused.send(self.actor).is_err() {
                return false;
            }
            match self.grants.recv() {
                Ok(steps) => (self.left, self.granted) = (steps, true),
                Err(_) => return false,
            }
        }
        self.left -= 1;
        true
    }
}

impl Actors {
    /// The actor threads ([`ActorConfig::threads`]); grants and
    /// [`Actors::play_steps`] name them by index.
    pub fn count(&self) -> usize {
        self.threads.len()
    }

    /// Plies played by all actors since they started (every slot's step).
    pub fn plies(&self) -> u64 {
        self.plies.load(Ordering::Relaxed)
    }

    /// Whether an actor has ended before being asked to stop: it failed,
    /// panicked, or found the game channel closed. [`Actors::stop`] then
    /// says why.
    pub fn any_ended(&self) -> bool {
        self.threads.iter().any(|t| t.is_finished())
    }

    /// Asks the actors to stop after their current step and waits for them.
    /// The caller must keep receiving (or drop the receiver) so that no
    /// actor stays blocked on a full channel. Returns the first actor's
    /// error; a panic is [`SelfPlayError::ActorPanicked`] with its message.
    pub fn stop(mut self) -> Result<(), SelfPlayError> {
        self.stop.store(true, Ordering::Relaxed);
        // Ends the grants a gated actor waits for.
        self.gates = None;
        let mut first_error = Ok(());
        for (actor, thread) in self.threads.into_iter().enumerate() {
            let result = thread.join().unwrap_or_else(|payload| {
                Err(SelfPlayError::ActorPanicked { actor, message: panic_message(&*payload) })
            });
            if first_error.is_ok() {
                first_error = result;
            }
        }
        first_error
    }

    /// Gated: lets actor `actor` play `steps` more steps of its games (after
    /// those it was granted before), without waiting; it reports the grant
    /// played on [`Actors::played`].
    pub fn grant(&self, actor: usize, steps: usize) -> Result<(), SelfPlayError> {
        let (grants, _) = self.gates.as_ref().ok_or(SelfPlayError::NotGated)?;
        let grant = grants.get(actor).ok_or(SelfPlayError::NotGated)?;
        if steps == 0 {
            return Ok(());
        }
        grant.send(steps).map_err(|_| SelfPlayError::ActorGone(actor))
    }

    /// Gated: where each actor reports (its number) that it has played a
    /// grant of steps (none for grants of 0 steps, which are not sent).
    pub fn played(&self) -> Result<&Receiver<usize>, SelfPlayError> {
        self.gates.as_ref().map(|(_, played)| played).ok_or(SelfPlayError::NotGated)
    }

    /// Gated, in lockstep: lets actor `actor` play `steps` steps of its
    /// games and passes every game it finishes to `take`, in the order it
    /// finished them; returns once the actor has played them all. The
    /// other actors must have no grant left.
    pub fn play_steps(
        &self,
        actor: usize,
        steps: usize,
        games: &Receiver<GameTrajectory>,
        mut take: impl FnMut(GameTrajectory),
    ) -> Result<(), SelfPlayError> {
        let paused = self.played()?;
        if steps == 0 {
            // Nothing is played, so nothing will be reported.
            return self.grant(actor, 0);
        }
        self.grant(actor, steps)?;
        loop {
            crossbeam_channel::select! {
                recv(games) -> game => match game {
                    Ok(game) => take(game),
                    Err(_) => return Err(SelfPlayError::ActorGone(actor)),
                },
                recv(paused) -> done => {
                    if done.is_err() {
                        return Err(SelfPlayError::ActorGone(actor));
                    }
                    // Everything the actor sent before pausing is queued.
                    while let Ok(game) = games.try_recv() {
                        take(game);
                    }
                    return Ok(());
                },
                default(std::time::Duration::from_millis(500)) => {
                    if self.any_ended() {
                        return Err(SelfPlayError::ActorGone(actor));
                    }
                }
            }
        }
    }
}

/// Starts the actor threads of `config` ([`ActorConfig::threads`]) sending
/// finished games to `games`.
/// `setups` makes each actor's setup source.
pub fn spawn_actors(
    config: &ActorConfig,
    policy: PolicyClient,
    games: Sender<GameTrajectory>,
    setups: &dyn Fn() -> Box<dyn SetupSource>,
) -> Result<Actors, SelfPlayError> {
    let stop = Arc::new(AtomicBool::new(false));
    let plies = Arc::new(AtomicU64::new(0));
    let mut threads = Vec::new();
    let (paused, paused_rx) = unbounded();
    let mut grants = Vec::new();
    for (actor, (role, slots)) in config.threads().into_iter().enumerate() {
        let gate = config.gated.then(|| {
            let (grant, grants_rx) = unbounded();
            grants.push(grant);
            Gate { actor, left: 0, granted: false, grants: grants_rx, paused: paused.clone() }
        });
        let (games_seed, moves_seed) = actor_seeds(config.seed, actor);
        let opponents_seed = opponent_seed(config.seed, actor);
        let env = VecEnv::with_setups(config.rules, slots, games_seed, setups())?;
        let (config, policy, games, stop, plies) =
            (config.clone(), policy.clone(), games.clone(), stop.clone(), plies.clone());
        let thread = std::thread::Builder::new()
            .name(format!("actor-{actor}"))
            .spawn(move || {
                run_actor(env, role, (moves_seed, opponents_seed), &config, &policy, &games, (&stop, &plies), gate)
            })
            .expect("the OS can start a thread");
        threads.push(thread);
    }
    let gates = config.gated.then_some((grants, paused_rx));
    Ok(Actors { stop, threads, plies, gates })
}

/// The games that ended and wait to be sent, and the opponents whose
/// forfeits were told.
#[derive(Default)]
struct Ended {
    games: Vec<GameTrajectory>,
    told: std::collections::HashSet<usize>,
}

impl Ended {
    /// Ends game `g` against its opponent `s`, who forfeits it with the
    /// network's decisions `played` so far. The first forfeit of each
    /// opponent is told on stderr with its reason (a program that cannot
    /// play at all would otherwise lose every game unseen); the rest are
    /// counted in the learner's `games/end_forfeit`.
    fn forfeited(
        &mut self,
        env: &mut VecEnv,
        g: usize,
        s: &Seated,
        played: Vec<Decision>,
        why: &str,
    ) -> Result<(), SelfPlayError> {
        if self.told.insert(s.seat.index) {
            eprintln!(
                "self-play: {} forfeits a game: {why} (its later forfeits are counted in games/end_forfeit)",
                s.player.name()
            );
        }
        self.games.push(trajectory(env.forfeit(g, s.seat.color)?, played, Some(s.seat)));
        Ok(())
    }
}

fn trajectory(game: FinishedGame, decisions: Vec<Decision>, opponent: Option<OpponentSeat>) -> GameTrajectory {
    GameTrajectory { record: game.record, outcome: game.outcome, decisions, opponent }
}

/// Sends the games that ended to the learner, in order. Blocks while the
/// learner is behind (back-pressure), but wakes up to notice a stop
/// request; false when the actor is to stop.
fn send_games(ended: &mut Vec<GameTrajectory>, games: &Sender<GameTrajectory>, stop: &AtomicBool) -> bool {
    for mut pending in ended.drain(..) {
        loop {
            match games.try_send(pending) {
                Ok(()) => break,
                Err(TrySendError::Disconnected(_)) => return false,
                Err(TrySendError::Full(back)) => {
                    if stop.load(Ordering::Relaxed) {
                        return false;
                    }
                    pending = back;
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
            }
        }
    }
    true
}

#[allow(clippy::too_many_arguments)]
fn run_actor(
    mut env: VecEnv,
    role: Role,
    (moves_seed, opponents_seed): (u64, u64),
    config: &ActorConfig,
    policy: &PolicyClient,
    games: &Sender<GameTrajectory>,
    (stop, plies): (&AtomicBool, &AtomicU64),
    mut gate: Option<Gate>,
) -> Result<(), SelfPlayError> {
    let n = env.batch_size();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(moves_seed);
    let mut opponent_rng = AgentRng::seed_from_u64(opponents_seed);
    let mut planes = vec![0.0f32; n * config.layout.size()];
    let mut legal = vec![false; n * NUM_ACTIONS];
    let mut players = vec![0u8; n];
    let mut actions: Vec<ActionId> = vec![0; n];
    let mut finished: Vec<FinishedGame> = Vec::new();
    let mut decisions: Vec<Vec<Decision>> = vec![Vec::new(); n];
    let mut ended = vec![false; n];
    let mut seated: Vec<Option<Seated>> = Vec::with_capacity(n);
    let mut ended_games = Ended::default();
    for g in 0..n {
        let seat = seat_next(&mut env, g, config, role, &mut opponent_rng, stop, &mut ended_games)?;
        seated.push(seat);
    }
    let mut chosen: Vec<Option<ActionId>> = vec![None; n];
    while !stop.load(Ordering::Relaxed) {
        if let Some(gate) = gate.as_mut() {
            if !gate.step() {
                return Ok(());
            }
        }
        // The fixed opponents to move choose first: one that forfeits (an
        // outside program that failed to play) ends its game before the
        // network sees the position, and its slot starts the next game,
        // whose opponent may be the first to move.
        chosen.fill(None);
        for g in 0..n {
            while let Some(s) = seated[g].as_mut() {
                let state = env.state(g).expect("every slot holds a game");
                let mover = state.to_move();
                if s.seat.color != mover {
                    break;
                }
                let mut view = InfoView::new(state, &s.history);
                if let Some(progress) = &s.progress {
                    progress.restrict(state, &mut view.legal_moves);
                }
                match s.player.choose_move(&view, &mut opponent_rng) {
                    Ok(mv) => {
                        let action =
                            mv.to_action(mover).ok_or_else(|| s.failed(format!("{mv} is not a move on the board")))?;
                        chosen[g] = Some(action);
                        break;
                    }
                    Err(PlayerError::Forfeit(why)) => {
                        let played = std::mem::take(&mut decisions[g]);
                        ended_games.forfeited(&mut env, g, s, played, &why)?;
                        seated[g] = None;
                        if stop.load(Ordering::Relaxed) {
                            return Ok(());
                        }
                        seated[g] = seat_next(&mut env, g, config, role, &mut opponent_rng, stop, &mut ended_games)?;
                    }
                    Err(e) => return Err(s.failed(e.to_string())),
                }
            }
        }
        if !send_games(&mut ended_games.games, games, stop) {
            return Ok(());
        }
        env.observe(config.layout, &mut planes)?;
        env.legal_mask(&mut legal)?;
        env.current_players(&mut players)?;
        // The network answers only for the slots where it moves: on an
        // opponents' thread about half of them, whose positions it once read
        // too, for nothing (half of that thread's inference).
        let asked: Vec<usize> = (0..n).filter(|&g| chosen[g].is_none()).collect();
        let reply = if asked.is_empty() {
            None
        } else if asked.len() == n {
            Some(policy.evaluate(planes.clone(), legal.clone())?)
        } else {
            let size = config.layout.size();
            let mut some_planes = Vec::with_capacity(asked.len() * size);
            let mut some_legal = Vec::with_capacity(asked.len() * NUM_ACTIONS);
            for &g in &asked {
                some_planes.extend_from_slice(&planes[g * size..(g + 1) * size]);
                some_legal.extend_from_slice(&legal[g * NUM_ACTIONS..(g + 1) * NUM_ACTIONS]);
            }
            Some(policy.evaluate(some_planes, some_legal)?)
        };
        let mut row = 0;
        for g in 0..n {
            if let Some(action) = chosen[g] {
                actions[g] = action;
                continue;
            }
            let reply = reply.as_ref().expect("asked for every slot the network moves in");
            let inference = &reply.inference;
            let i = row;
            row += 1;
            let mover = if players[g] == 0 { Color::Red } else { Color::Blue };
            let probs = inference.policy_of(i);
            // A diverged network (NaN or infinite weights) gives no legal
            // action a positive probability: the run stops with that, not a panic.
            let action = choose_action(probs, config.temperature, &mut rng).ok_or(SelfPlayError::NoLegalAction)?;
            actions[g] = action;
            let mask = &legal[g * NUM_ACTIONS..(g + 1) * NUM_ACTIONS];
            let legal_ids: Vec<ActionId> = (0..NUM_ACTIONS).filter(|&a| mask[a]).map(|a| a as ActionId).collect();
            let behaviour = legal_ids.iter().map(|&a| probs[a as usize]).collect();
            let outcome = &inference.outcome[i * 3..i * 3 + 3];
            decisions[g].push(Decision {
                ply: env.state(g).expect("every slot holds a game").ply() as usize,
                player: mover,
                version: reply.version,
                action,
                legal: legal_ids,
                behaviour,
                value: [outcome[0], outcome[1], outcome[2]],
            });
        }
        env.step(&actions, &mut finished)?;
        plies.fetch_add(n as u64, Ordering::Relaxed);
        ended.fill(false);
        for game in finished.drain(..) {
            let g = game.env;
            ended[g] = true;
            let seat = seated[g].take().map(|s| s.seat);
            ended_games.games.push(trajectory(game, std::mem::take(&mut decisions[g]), seat));
            seated[g] = seat_next(&mut env, g, config, role, &mut opponent_rng, stop, &mut ended_games)?;
        }
        if !send_games(&mut ended_games.games, games, stop) {
            return Ok(());
        }
        // The opponents see every ply of the game going on in their slot.
        for g in (0..n).filter(|&g| !ended[g]) {
            if let Some(s) = seated[g].as_mut() {
                let state = env.state(g).expect("every slot holds a game");
                s.history.push(PublicPly::of(state.history().last().expect("a ply was just played")));
                if let Some(progress) = &mut s.progress {
                    progress.update(state);
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;
    use std::time::{Duration, Instant};

    use crossbeam_channel::{bounded, Receiver};
    use stratego_engine::{EndReason, PieceSet, RandomSetups, Setup, State};

    use super::*;
    use crate::InferenceService;

    fn config(actors: usize, games_per_actor: usize, seed: u64) -> ActorConfig {
        ActorConfig {
            // Short games, so that tests see many finish.
            rules: Ruleset { max_plies: 40, ..Ruleset::classic() },
            layout: Layout::Compact,
            actors,
            games_per_actor,
            temperature: 1.0,
            opponents: Vec::new(),
            opponent_share: 0.0,
            pool: None,
            pool_share: 0.0,
            seed,
            gated: false,
        }
    }

    fn service() -> InferenceService {
        let (net, device) = crate::test_net(11);
        InferenceService::start(net, 0, Layout::Compact, device, 256)
    }

    fn random_setups() -> Box<dyn SetupSource> {
        Box::new(RandomSetups(PieceSet::Classic))
    }

    fn receive(games: &Receiver<GameTrajectory>, n: usize) -> Vec<GameTrajectory> {
        (0..n).map(|_| games.recv_timeout(Duration::from_secs(120)).expect("a finished game")).collect()
    }

    /// The first `n` games the actors of `config` finish (uniform setups,
    /// a channel of `capacity`), the actors stopped after them.
    fn first_games(config: &ActorConfig, capacity: usize, n: usize) -> Vec<GameTrajectory> {
        let service = service();
        let (sender, games) = bounded(capacity);
        let actors = spawn_actors(config, service.client(), sender, &random_setups).unwrap();
        let got = receive(&games, n);
        drop(games);
        actors.stop().unwrap();
        service.shutdown();
        got
    }

    /// Plays `n` games with one actor seeded `seed`; their setups.
    fn setups(seed: u64, n: usize) -> Vec<(Setup, Setup)> {
        first_games(&config(1, 2, seed), 4, n).into_iter().map(|g| (g.record.red, g.record.blue)).collect()
    }

    #[test]
    fn actors_stream_whole_games_that_replay_to_their_decisions() {
        let got = first_games(&config(2, 3, 5), 8, 8);
        for game in &got {
            let record = &game.record;
            assert_eq!(game.decisions.len(), record.moves.len());
            let mut state = State::from_setups(record.rules, &record.red, &record.blue).unwrap();
            for (decision, &mv) in game.decisions.iter().zip(&record.moves) {
                assert_eq!(decision.player, state.to_move());
                assert_eq!(decision.version, 0);
                assert_eq!(decision.legal, state.legal_actions());
                assert_eq!(Some(decision.action), mv.to_action(state.to_move()));
                assert!(decision.behaviour_of_action() > 0.0, "the move played had probability > 0");
                let total: f32 = decision.behaviour.iter().sum();
                assert!((total - 1.0).abs() < 1e-3 && decision.behaviour.iter().all(|&p| p >= 0.0), "{total}");
                assert!((decision.value.iter().sum::<f32>() - 1.0).abs() < 1e-3);
                state.apply_move(mv).unwrap();
            }
            assert_eq!(state.outcome(), Some(game.outcome));
        }
    }

    /// Against a fixed opponent in every game: its seat is drawn per game,
    /// its moves are its own, and only the network's seat is recorded, each
    /// decision at its ply.
    #[test]
    fn against_an_opponent_only_the_networks_seat_is_recorded() {
        let config = ActorConfig {
            opponents: vec![Arc::new(stratego_players::FnFactory::new("first", || Box::new(crate::First)))],
            opponent_share: 1.0,
            ..config(1, 4, 9)
        };
        let got = first_games(&config, 16, 12);
        let mut seats = std::collections::HashSet::new();
        for game in &got {
            let seat = game.opponent.expect("every game has an opponent");
            assert_eq!(seat.index, 0);
            seats.insert(seat.color);
            let record = &game.record;
            let mut state = State::from_setups(record.rules, &record.red, &record.blue).unwrap();
            let mut decisions = game.decisions.iter().peekable();
            for (ply, &mv) in record.moves.iter().enumerate() {
                if state.to_move() == seat.color {
                    assert_eq!(mv, state.legal_moves()[0], "the opponent's own move at ply {ply}");
                } else {
                    let d = decisions.next().expect("a decision for each of the network's plies");
                    assert_eq!((d.ply, d.player), (ply, state.to_move()));
                    assert_eq!(Some(d.action), mv.to_action(state.to_move()));
                    assert_eq!(game.decision_at(ply), Some(d));
                }
                state.apply_move(mv).unwrap();
            }
            assert!(decisions.next().is_none());
        }
        assert_eq!(seats.len(), 2, "the opponent sat in both seats");
    }

    /// An outside program's part, played in the process: it brings its own
    /// setup to each game, forfeits every third game in its seat and the
    /// others at its fourth move.
    struct Outside {
        games: Arc<AtomicUsize>,
        game: usize,
        moves: usize,
    }

    fn outside_setup() -> Setup {
        Setup::random(PieceSet::Classic, &mut AgentRng::seed_from_u64(49))
    }

    impl Player for Outside {
        fn name(&self) -> String {
            "outside".into()
        }
        fn take_seat(&mut self, _: Color, opponent: &str, set: PieceSet) -> Result<Option<Setup>, PlayerError> {
            assert_eq!((opponent, set), (NETWORK_NAME, PieceSet::Classic));
            self.game = self.games.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            match self.game % 3 {
                2 => Err(PlayerError::Forfeit("cannot start".into())),
                _ => Ok(Some(outside_setup())),
            }
        }
        fn choose_move(&mut self, view: &InfoView<'_>, _: &mut AgentRng) -> Result<stratego_engine::Move, PlayerError> {
            self.moves += 1;
            match self.moves {
                4 => Err(PlayerError::Forfeit("an illegal reply".into())),
                _ => Ok(view.legal_moves[0]),
            }
        }
    }

    /// An opponent that brings its own setup plays it; one that forfeits,
    /// in its seat or at a move, loses that game there, the network's
    /// decisions so far go with it, and its slot goes on with the next game.
    #[test]
    fn an_outside_programs_setups_are_played_and_its_forfeits_end_only_its_games() {
        let count = Arc::new(AtomicUsize::new(0));
        let make = {
            let count = count.clone();
            move || Box::new(Outside { games: count.clone(), game: 0, moves: 0 }) as Box<dyn Player>
        };
        let config = ActorConfig {
            opponents: vec![Arc::new(stratego_players::FnFactory::new("outside", make))],
            opponent_share: 1.0,
            ..config(1, 3, 17)
        };
        let got = first_games(&config, 16, 18);
        let (mut in_seat, mut at_move) = (0, 0);
        for game in &got {
            let seat = game.opponent.expect("every game has an opponent");
            assert_eq!(game.outcome.reason, EndReason::Forfeit, "{:?}", game.outcome);
            assert_eq!(game.outcome.winner, Some(seat.color.opponent()));
            let record = &game.record;
            assert_eq!(record.replay().unwrap().outcome(), Some(game.outcome), "the record ends in the forfeit");
            if record.moves.is_empty() {
                in_seat += 1;
                assert!(game.decisions.is_empty());
                continue;
            }
            at_move += 1;
            let own = if seat.color == Color::Red { &record.red } else { &record.blue };
            assert_eq!(own, &outside_setup(), "the opponent played its own setup");
            // Three moves of the opponent, and the network's before its fourth.
            let opponent_plies =
                record.moves.iter().enumerate().filter(|(ply, _)| (ply % 2 == 0) == (seat.color == Color::Red));
            assert_eq!(opponent_plies.count(), 3);
            assert_eq!(game.decisions.len(), record.moves.len() - 3);
            assert!(game.decisions.iter().all(|d| d.player != seat.color));
        }
        assert!(in_seat >= 4 && at_move >= 8, "{in_seat} forfeited in the seat, {at_move} at a move");
    }

    /// A test opponent that plays the first legal move once `gate` opens
    /// and until then waits: the slowest opponent there is.
    struct Blocked(Arc<(std::sync::Mutex<bool>, std::sync::Condvar)>);

    impl Player for Blocked {
        fn name(&self) -> String {
            "blocked".into()
        }
        fn choose_move(
            &mut self,
            view: &InfoView<'_>,
            _: &mut AgentRng,
        ) -> Result<stratego_engine::Move, stratego_players::PlayerError> {
            let (open, opened) = &*self.0;
            let _open = opened.wait_while(open.lock().unwrap(), |open| !*open).unwrap();
            Ok(view.legal_moves[0])
        }
    }

    /// The slots against opponents step on threads of their own: an
    /// opponent that does not move holds up only its own games, and the
    /// self-play games beside it go on finishing. (When the two shared a
    /// thread, no game finished after the opponent's first turn.)
    #[test]
    fn a_stuck_opponent_holds_up_only_its_own_games() {
        let gate = Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new()));
        let blocked = gate.clone();
        let config = ActorConfig {
            opponents: vec![Arc::new(stratego_players::FnFactory::new("blocked", move || {
                Box::new(Blocked(blocked.clone()))
            }))],
            opponent_share: 0.5,
            ..config(1, 4, 13)
        };
        assert_eq!(config.threads(), [(Role::SelfPlay, 2), (Role::Opponents, 2)]);
        let service = service();
        let (sender, games) = bounded(64);
        let actors = spawn_actors(&config, service.client(), sender, &random_setups).unwrap();
        assert_eq!(actors.count(), 2);
        let got = receive(&games, 6);
        assert!(got.iter().all(|g| g.opponent.is_none()), "only self-play games finished");
        // Opened, the opponent's games finish too.
        *gate.0.lock().unwrap() = true;
        gate.1.notify_all();
        let start = Instant::now();
        while games.recv_timeout(Duration::from_secs(120)).expect("a finished game").opponent.is_none() {
            assert!(start.elapsed() < Duration::from_secs(120), "no game against the opponent finished");
        }
        drop(games);
        actors.stop().unwrap();
        service.shutdown();
    }

    /// How the slots split: by the opponents' shares (fixed and pool
    /// together), rounded, at least one slot to each side with a share.
    #[test]
    fn the_opponents_share_splits_each_actors_slots() {
        let first = || -> Arc<dyn PlayerFactory> {
            Arc::new(stratego_players::FnFactory::new("first", || Box::new(crate::First)))
        };
        let with = |actors, games, share| ActorConfig {
            opponents: vec![first()],
            opponent_share: share,
            ..config(actors, games, 1)
        };
        assert_eq!(config(2, 8, 1).threads(), [(Role::SelfPlay, 8), (Role::SelfPlay, 8)]);
        // No opponent to draw: the share counts for nothing.
        assert_eq!(ActorConfig { opponent_share: 0.5, ..config(1, 8, 1) }.threads(), [(Role::SelfPlay, 8)]);
        assert_eq!(with(1, 64, 0.5).threads(), [(Role::SelfPlay, 32), (Role::Opponents, 32)]);
        assert_eq!(
            with(2, 10, 0.2).threads(),
            [(Role::SelfPlay, 8), (Role::Opponents, 2), (Role::SelfPlay, 8), (Role::Opponents, 2)]
        );
        assert_eq!(with(1, 8, 0.01).threads(), [(Role::SelfPlay, 7), (Role::Opponents, 1)]);
        assert_eq!(with(1, 8, 1.0).threads(), [(Role::Opponents, 8)]);
        // Without a pool, its share counts for nothing either.
        assert_eq!(
            ActorConfig { pool_share: 0.5, ..with(1, 8, 0.25) }.threads(),
            [(Role::SelfPlay, 6), (Role::Opponents, 2)]
        );
    }

    /// In lockstep an actor plays exactly the steps granted, one actor at a
    /// time, and the same grants give the same games in the same order.
    #[test]
    fn lockstep_actors_play_exactly_their_grants() {
        let play = || {
            let service = service();
            let (sender, games) = bounded(4);
            let config = ActorConfig { gated: true, ..config(2, 3, 9) };
            let actors = spawn_actors(&config, service.client(), sender, &random_setups).unwrap();
            let mut got = Vec::new();
            for (round, steps) in [(0, 25), (1, 30), (0, 0), (1, 25)] {
                let before = actors.plies.load(Ordering::Relaxed);
                actors.play_steps(round, steps, &games, |g| got.push(g)).unwrap();
                // The other actor stays paused: only the granted steps were played.
                assert_eq!(actors.plies.load(Ordering::Relaxed) - before, (steps * 3) as u64);
            }
            std::thread::sleep(Duration::from_millis(50));
            assert!(games.try_recv().is_err(), "no game is played between grants");
            assert!(matches!(actors.play_steps(2, 1, &games, |_| ()), Err(SelfPlayError::NotGated)));
            drop(games);
            actors.stop().unwrap();
            service.shutdown();
            got.into_iter().map(|g| g.record.moves).collect::<Vec<_>>()
        };
        let first = play();
        assert!(first.len() >= 3, "40-ply games finish within the grants: {}", first.len());
        assert_eq!(first, play());
    }

    /// The setups follow the seed exactly. (The moves do too, given the
    /// same probabilities; but the CPU backend's parallel sums are not
    /// bit-identical under another thread schedule, so two runs beside
    /// other tests may sample differently near a tie.)
    #[test]
    fn a_seed_replays_its_setups_and_another_seed_deals_others() {
        let first = setups(1, 3);
        assert_eq!(first, setups(1, 3));
        let other = setups(2, 3);
        for (a, b) in first.iter().zip(&other) {
            assert_ne!(a, b);
        }
    }

    #[test]
    fn actors_and_their_games_get_distinct_seeds() {
        let mut seen = std::collections::HashSet::new();
        for seed in 0..4 {
            for actor in 0..8 {
                let (games, moves) = actor_seeds(seed, actor);
                assert!(seen.insert(games) && seen.insert(moves), "{seed} {actor}");
            }
        }
    }

    /// A setup source that panics once it has dealt `left` setups.
    struct Poisoned(AtomicUsize);

    impl SetupSource for Poisoned {
        fn setups(&self, rng: &mut Xoshiro256PlusPlus) -> (Setup, Setup) {
            if self.0.fetch_sub(1, Ordering::Relaxed) == 0 {
                panic!("poisoned setup source");
            }
            RandomSetups(PieceSet::Classic).setups(rng)
        }
    }

    #[test]
    fn an_actor_panic_is_reported_with_its_message() {
        let service = service();
        let (sender, games) = bounded(64);
        // Actor 1's source deals its two games' first setups, then panics
        // when a game ends.
        let made = AtomicUsize::new(0);
        let setups = || -> Box<dyn SetupSource> {
            if made.fetch_add(1, Ordering::Relaxed) == 1 {
                Box::new(Poisoned(AtomicUsize::new(2)))
            } else {
                random_setups()
            }
        };
        let actors = spawn_actors(&config(2, 2, 3), service.client(), sender, &setups).unwrap();
        let start = Instant::now();
        while !actors.any_ended() {
            assert!(start.elapsed() < Duration::from_secs(120), "the poisoned actor never ended");
            let _ = games.recv_timeout(Duration::from_millis(20));
        }
        drop(games);
        let error = actors.stop().unwrap_err();
        assert!(matches!(&error, SelfPlayError::ActorPanicked { actor: 1, .. }), "{error:?}");
        assert_eq!(error.to_string(), "actor 1 panicked: poisoned setup source");
        service.shutdown();
    }
}
