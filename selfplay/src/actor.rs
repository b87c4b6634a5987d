//! Actor threads: each owns a slice of batched games (a `VecEnv`), asks the
//! inference service for the current policy, samples both seats' moves from
//! it and sends every finished game to the learner.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{Sender, TrySendError};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
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
    /// Seeds every actor's games and sampling; a resumed run passes a new
    /// one (derived from its step), so it never replays the same games.
    pub seed: u64,
}

/// The running actors.
pub struct Actors {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<Result<(), SelfPlayError>>>,
    /// Plies played by all actors so far.
    pub plies: Arc<AtomicU64>,
}

impl Actors {
    /// Asks the actors to stop after their current step and waits for them.
    /// The caller must keep receiving (or drop the receiver) so that no
    /// actor stays blocked on a full channel.
    pub fn stop(self) -> Result<(), SelfPlayError> {
        self.stop.store(true, Ordering::Relaxed);
        let mut first_error = Ok(());
        for thread in self.threads {
            let result = thread.join().unwrap_or(Err(SelfPlayError::ServiceGone));
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
        let seed = config.seed ^ (actor as u64 + 1).wrapping_mul(0xA076_1D64_78BD_642F);
        let env = VecEnv::with_setups(config.rules, config.games_per_actor, seed, setups())?;
        let (config, policy, games, stop, plies) =
            (config.clone(), policy.clone(), games.clone(), stop.clone(), plies.clone());
        let thread = std::thread::Builder::new()
            .name(format!("actor-{actor}"))
            .spawn(move || run_actor(env, seed, &config, &policy, &games, &stop, &plies))
            .expect("the OS can start a thread");
        threads.push(thread);
    }
    Ok(Actors { stop, threads, plies })
}

fn run_actor(
    mut env: VecEnv,
    seed: u64,
    config: &ActorConfig,
    policy: &PolicyClient,
    games: &Sender<GameTrajectory>,
    stop: &AtomicBool,
    plies: &AtomicU64,
) -> Result<(), SelfPlayError> {
    let n = env.batch_size();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed.rotate_left(17) ^ 0x5EED);
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
