//! How an iteration gets its games from this process's actors: as they come
//! (free), in rounds the learner grants (paced, `selfplay.paced`), or in
//! rounds one actor at a time (lockstep, `run.reproducible`). Each takes
//! games until they hold the decisions the iteration wants.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError};
use stratego_selfplay::{Actors, GameTrajectory};

use crate::config::TrainConfig;
use crate::ppo::samples::is_stale;
use crate::TrainError;

/// What an iteration collects: games until they hold `decisions` decisions
/// of policies at most `max_staleness` versions older than `version`.
#[derive(Clone, Copy, Debug)]
pub struct Wanted {
    pub decisions: usize,
    pub version: u64,
    pub max_staleness: u64,
}

impl Wanted {
    /// The decisions of `game` that count: those of recent enough policies.
    pub fn counted(&self, game: &GameTrajectory) -> usize {
        game.decisions.iter().filter(|d| !is_stale(d.version, self.version, self.max_staleness)).count()
    }
}

/// The games taken so far and their decisions that count.
struct Taken {
    wanted: Wanted,
    games: Vec<GameTrajectory>,
    decisions: usize,
}

impl Taken {
    fn new(wanted: Wanted) -> Taken {
        Taken { wanted, games: Vec::new(), decisions: 0 }
    }

    fn take(&mut self, game: GameTrajectory) {
        self.decisions += self.wanted.counted(&game);
        self.games.push(game);
    }

    fn missing(&self) -> usize {
        self.wanted.decisions.saturating_sub(self.decisions)
    }
}

/// The way a run collects, by its config.
pub enum Collector {
    Free,
    Paced(Pacer),
    Lockstep(Lockstep),
}

impl Collector {
    /// The collector of a learner that wants `learner.samples_per_iteration`
    /// decisions an iteration from its own actors.
    pub fn new(config: &TrainConfig) -> Collector {
        Collector::for_decisions(config, config.learner.samples_per_iteration)
    }

    /// The collector of actors asked for about `decisions` decisions a
    /// round: a cluster worker's share of an iteration (`worker.rs`), whose
    /// paced rounds are sized by its share, not by the whole iteration.
    pub fn for_decisions(config: &TrainConfig, decisions: usize) -> Collector {
        let s = &config.selfplay;
        let slots = s.actors * s.games_per_actor;
        if config.run.reproducible {
            Collector::Lockstep(Lockstep::new(slots))
        } else if s.paced {
            Collector::Paced(Pacer::new(slots, decisions))
        } else {
            Collector::Free
        }
    }

    /// Whether the actors must be started gated (`ActorConfig::gated`).
    pub fn gated(config: &TrainConfig) -> bool {
        config.run.reproducible || config.selfplay.paced
    }

    pub fn collect(
        &mut self,
        games: &Receiver<GameTrajectory>,
        actors: &Actors,
        wanted: Wanted,
    ) -> Result<Vec<GameTrajectory>, TrainError> {
        match self {
            Collector::Free => free(games, actors, wanted),
            Collector::Paced(pacer) => pacer.collect(games, actors, wanted),
            Collector::Lockstep(lockstep) => lockstep.collect(games, actors, wanted),
        }
    }
}

/// How long the learner waits for a game before giving up.
const PATIENCE: Duration = Duration::from_secs(600);

fn gone() -> TrainError {
    TrainError::Data("every actor stopped".into())
}

fn stopped() -> TrainError {
    TrainError::Data("an actor stopped".into())
}

fn impatient() -> TrainError {
    TrainError::Data("no game finished in 10 minutes".into())
}

/// Free actors: receives games until they hold the decisions wanted. An
/// actor that ends (an error or a panic) stops it at once; `Actors::stop`
/// then says why.
pub fn free(
    games: &Receiver<GameTrajectory>,
    actors: &Actors,
    wanted: Wanted,
) -> Result<Vec<GameTrajectory>, TrainError> {
    let mut taken = Taken::new(wanted);
    let mut waiting = Instant::now();
    while taken.missing() > 0 {
        if actors.any_ended() {
            return Err(stopped());
        }
        match games.recv_timeout(Duration::from_millis(500)) {
            Ok(game) => {
                waiting = Instant::now();
                taken.take(game);
            }
            Err(RecvTimeoutError::Timeout) if waiting.elapsed() < PATIENCE => continue,
            Err(RecvTimeoutError::Timeout) => return Err(impatient()),
            Err(RecvTimeoutError::Disconnected) => return Err(gone()),
        }
    }
    Ok(taken.games)
}

/// Paced actors (`selfplay.paced`): each actor plays rounds of `steps`
/// steps (enough, over all actors, for the decisions an iteration wants)
/// and gets its next round only while the learner still wants decisions,
/// plus one round to play while the learner learns. So no actor runs more
/// than about two iterations ahead, and the games waiting in the channel
/// were played by recent policies: free actors fill the whole channel while
/// the learner is the bottleneck, and with it `max_staleness`.
pub struct Pacer {
    /// Per actor thread (`Actors::count`), the grants it has not played yet.
    owed: Vec<usize>,
    steps: usize,
}

impl Pacer {
    /// Rounds for actors with `slots` game slots in all, of which the
    /// learner wants `wanted` decisions an iteration.
    pub fn new(slots: usize, wanted: usize) -> Pacer {
        Pacer { owed: Vec::new(), steps: wanted.div_ceil(slots) }
    }

    /// A round for every actor that has none left.
    fn grant_idle(&mut self, actors: &Actors) -> Result<(), TrainError> {
        self.owed.resize(actors.count(), 0);
        for (actor, owed) in self.owed.iter_mut().enumerate().filter(|(_, owed)| **owed == 0) {
            actors.grant(actor, self.steps)?;
            *owed += 1;
        }
        Ok(())
    }

    fn collect(
        &mut self,
        games: &Receiver<GameTrajectory>,
        actors: &Actors,
        wanted: Wanted,
    ) -> Result<Vec<GameTrajectory>, TrainError> {
        let played = actors.played()?;
        self.grant_idle(actors)?;
        let mut taken = Taken::new(wanted);
        let mut waiting = Instant::now();
        while taken.missing() > 0 {
            crossbeam_channel::select! {
                recv(games) -> game => {
                    taken.take(game.map_err(|_| gone())?);
                    waiting = Instant::now();
                },
                recv(played) -> actor => {
                    let actor = actor.map_err(|_| gone())?;
                    self.owed[actor] = self.owed[actor].saturating_sub(1);
                    self.grant_idle(actors)?;
                },
                default(Duration::from_millis(500)) => {
                    if actors.any_ended() {
                        return Err(stopped());
                    }
                    if waiting.elapsed() > PATIENCE {
                        return Err(impatient());
                    }
                }
            }
        }
        // One round to play while the learner learns.
        self.grant_idle(actors)?;
        Ok(taken.games)
    }
}

/// Lockstep (`run.reproducible`): the games of earlier rounds not yet taken
/// first, then rounds in which each actor in turn plays enough steps for
/// the decisions still wanted (a step gives each game at most one decision)
/// and hands over the games it finished, until the games taken hold the
/// decisions wanted. The rest wait for the next iteration, as they wait in
/// the channel for free actors. Which games a round finishes, and their
/// order, follow from the seeds and the policy alone; the service answers
/// one actor at a time, so no batch mixes two actors' requests.
pub struct Lockstep {
    /// The actors' game slots in all.
    slots: usize,
    waiting: VecDeque<GameTrajectory>,
}

impl Lockstep {
    pub fn new(slots: usize) -> Lockstep {
        Lockstep { slots, waiting: VecDeque::new() }
    }

    fn collect(
        &mut self,
        games: &Receiver<GameTrajectory>,
        actors: &Actors,
        wanted: Wanted,
    ) -> Result<Vec<GameTrajectory>, TrainError> {
        let mut taken = Taken::new(wanted);
        loop {
            while taken.missing() > 0 {
                let Some(game) = self.waiting.pop_front() else { break };
                taken.take(game);
            }
            if taken.missing() == 0 {
                return Ok(taken.games);
            }
            let steps = taken.missing().div_ceil(self.slots);
            for actor in 0..actors.count() {
                actors.play_steps(actor, steps, games, |game| self.waiting.push_back(game))?;
            }
        }
    }
}
