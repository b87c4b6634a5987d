//! Actor threads: each owns a slice of batched games (a `VecEnv`), asks the
//! inference service for the current policy, samples both seats' moves from
//! it and sends every finished game to the learner.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{Sender, TrySendError};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use stratego_engine::seed::stream_seed;
use stratego_engine::{ActionId, Color, FinishedGame, Layout, Ruleset, SetupSource, VecEnv, NUM_ACTIONS};
use stratego_model::choose_action;

use crate::service::PolicyClient;
use crate::trajectory::{Decision, GameTrajectory};
use crate::SelfPlayError;

/// How the actors play.
#[derive(Clone, Debug)]
pub struct ActorConfig {
    pub rules: Ruleset,
    pub layout: Layout,
    pub actors: usize,
    /// Games each actor steps together.
    pub games_per_actor: usize,
    /// Sampling temperature of the behaviour policy (1 = the policy itself).
    pub temperature: f32,
    /// Seeds every actor's games and sampling ([`actor_seeds`]); a resumed
    /// run passes a new one (the learner's `selfplay_seed` of the run seed
    /// and the iteration it starts at), so it never replays the same games.
    pub seed: u64,
}

/// The seeds of actor `actor` under the actors' `seed`: its games' batch
/// (game `i` of the batch is then seeded `stream_seed(games, "game", i)`
/// by the engine's `VecEnv`) and its move sampling. Named streams, so no
/// actor, game or iteration shares another's seed.
pub fn actor_seeds(seed: u64, actor: usize) -> (u64, u64) {
    (stream_seed(seed, "actor-games", actor as u64), stream_seed(seed, "actor-moves", actor as u64))
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
}

impl Actors {
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
    pub fn stop(self) -> Result<(), SelfPlayError> {
        self.stop.store(true, Ordering::Relaxed);
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
}

/// Starts `config.actors` threads sending finished games to `games`.
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
    for actor in 0..config.actors {
        let (games_seed, moves_seed) = actor_seeds(config.seed, actor);
        let env = VecEnv::with_setups(config.rules, config.games_per_actor, games_seed, setups())?;
        let (config, policy, games, stop, plies) =
            (config.clone(), policy.clone(), games.clone(), stop.clone(), plies.clone());
        let thread = std::thread::Builder::new()
            .name(format!("actor-{actor}"))
            .spawn(move || run_actor(env, moves_seed, &config, &policy, &games, &stop, &plies))
            .expect("the OS can start a thread");
        threads.push(thread);
    }
    Ok(Actors { stop, threads, plies })
}

fn run_actor(
    mut env: VecEnv,
    moves_seed: u64,
    config: &ActorConfig,
    policy: &PolicyClient,
    games: &Sender<GameTrajectory>,
    stop: &AtomicBool,
    plies: &AtomicU64,
) -> Result<(), SelfPlayError> {
    let n = env.batch_size();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(moves_seed);
    let mut planes = vec![0.0f32; n * config.layout.size()];
    let mut legal = vec![false; n * NUM_ACTIONS];
    let mut players = vec![0u8; n];
    let mut actions: Vec<ActionId> = vec![0; n];
    let mut finished: Vec<FinishedGame> = Vec::new();
    let mut decisions: Vec<Vec<Decision>> = vec![Vec::new(); n];
    while !stop.load(Ordering::Relaxed) {
        env.observe(config.layout, &mut planes)?;
        env.legal_mask(&mut legal)?;
        env.current_players(&mut players)?;
        let reply = policy.evaluate(planes.clone(), legal.clone())?;
        let inference = &reply.inference;
        for g in 0..n {
            let probs = inference.policy_of(g);
            let action = choose_action(probs, config.temperature, &mut rng)
                .expect("every live game has a legal action with positive probability");
            actions[g] = action;
            let mask = &legal[g * NUM_ACTIONS..(g + 1) * NUM_ACTIONS];
            let legal_ids: Vec<ActionId> = (0..NUM_ACTIONS).filter(|&a| mask[a]).map(|a| a as ActionId).collect();
            let behaviour = legal_ids.iter().map(|&a| probs[a as usize]).collect();
            let outcome = &inference.outcome[g * 3..g * 3 + 3];
            decisions[g].push(Decision {
                player: if players[g] == 0 { Color::Red } else { Color::Blue },
                version: reply.version,
                action,
                legal: legal_ids,
                behaviour,
                value: [outcome[0], outcome[1], outcome[2]],
            });
        }
        env.step(&actions, &mut finished)?;
        plies.fetch_add(n as u64, Ordering::Relaxed);
        for game in finished.drain(..) {
            let trajectory = GameTrajectory {
                record: game.record,
                outcome: game.outcome,
                decisions: std::mem::take(&mut decisions[game.env]),
            };
            // Blocks while the learner is behind (back-pressure), but wakes
            // up to notice a stop request.
            let mut pending = trajectory;
            loop {
                match games.try_send(pending) {
                    Ok(()) => break,
                    Err(TrySendError::Disconnected(_)) => return Ok(()),
                    Err(TrySendError::Full(back)) => {
                        if stop.load(Ordering::Relaxed) {
                            return Ok(());
                        }
                        pending = back;
                        std::thread::sleep(std::time::Duration::from_millis(2));
                    }
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
    use stratego_engine::{PieceSet, RandomSetups, Setup, State};

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
            seed,
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

    /// Plays `n` games with one actor seeded `seed`; their setups.
    fn setups(seed: u64, n: usize) -> Vec<(Setup, Setup)> {
        let service = service();
        let (sender, games) = bounded(4);
        let actors = spawn_actors(&config(1, 2, seed), service.client(), sender, &random_setups).unwrap();
        let got = receive(&games, n);
        drop(games);
        actors.stop().unwrap();
        service.shutdown();
        got.into_iter().map(|g| (g.record.red, g.record.blue)).collect()
    }

    #[test]
    fn actors_stream_whole_games_that_replay_to_their_decisions() {
        let service = service();
        let (sender, games) = bounded(8);
        let actors = spawn_actors(&config(2, 3, 5), service.client(), sender, &random_setups).unwrap();
        let got = receive(&games, 8);
        drop(games);
        actors.stop().unwrap();
        service.shutdown();
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
