//! A self-play worker for a learner in another process (a Ray actor of
//! python/stratego_lab/cluster.py): the actor threads and inference service
//! of `train`, fed with the weights it is sent and drained on request.
//!
//! Its games are seeded by the run seed, the worker's index and the policy
//! version it starts at (`selfplay_seed` of a per-worker stream), so workers
//! never share games and a worker restarted after a crash, which starts at a
//! later version, plays new ones.

use crossbeam_channel::Receiver;
use stratego_engine::seed::stream_seed;
use stratego_model::Device;
use stratego_selfplay::{Actors, GameTrajectory, InferenceService};

use crate::collect::{free, Wanted};
use crate::config::TrainConfig;
use crate::train::{selfplay_seed, start_selfplay};
use crate::TrainError;

/// Actors that play with the newest weights they were sent.
pub struct SelfPlayWorker {
    config: TrainConfig,
    index: u64,
    device: Device,
    running: Option<Running>,
}

struct Running {
    service: InferenceService,
    actors: Actors,
    games: Receiver<GameTrajectory>,
    version: u64,
}

impl SelfPlayWorker {
    /// Worker `index` of a run of `config`, inferring on `device`; its actors
    /// start with the first weights it is sent.
    pub fn new(config: TrainConfig, index: u64, device: &str) -> Result<SelfPlayWorker, TrainError> {
        if config.selfplay.pool_size > 0 {
            return Err(TrainError::config(
                "selfplay.pool_size",
                "the pool of past selves lives in the run directory of `stratego train`; cluster workers have none",
            ));
        }
        let device = stratego_model::device(device)?;
        Ok(SelfPlayWorker { config, index, device, running: None })
    }

    /// The seed of this worker's actors when they start at `version`.
    pub fn seed(&self, version: u64) -> u64 {
        selfplay_seed(stream_seed(self.config.run.seed, "worker", self.index), version)
    }

    /// Plays with `weights` (checkpoint bytes of policy `version`) until the
    /// finished games hold `wanted` decisions of policies at most
    /// `selfplay.max_staleness` versions older, and returns those games.
    /// Weights of a version it already plays are not loaded again.
    pub fn play(&mut self, weights: &[u8], version: u64, wanted: usize) -> Result<Vec<GameTrajectory>, TrainError> {
        let (layout, rules) = (self.config.game.layout, &self.config.game.rules);
        let newer = self.running.as_ref().is_none_or(|r| r.version != version);
        if newer {
            let (net, meta) = stratego_model::load_bytes(weights.to_vec(), Some(layout), Some(rules), &self.device)?;
            if meta.config != self.config.model.preset.model() {
                return Err(TrainError::Data("the weights sent are not of the run's model preset".into()));
            }
            match &mut self.running {
                Some(running) => {
                    running.service.publish(version, net);
                    running.version = version;
                }
                None => {
                    let (service, actors, games) =
                        start_selfplay(&self.config, net, version, self.seed(version), &self.device, None)?;
                    self.running = Some(Running { service, actors, games, version });
                }
            }
        }
        let running = self.running.as_ref().expect("started above");
        let max_staleness = self.config.selfplay.max_staleness;
        // The actors play on between requests, and the games they finished
        // meanwhile wait in the channel. Those of whose decisions none is
        // recent enough any more would be dropped whole by the learner's
        // staleness rule: they are dropped here, not sent.
        let recent = Wanted { decisions: wanted, version, max_staleness };
        let mut kept = Vec::new();
        let mut have = 0;
        while have < wanted {
            let Ok(game) = running.games.try_recv() else { break };
            let n = recent.counted(&game);
            if n > 0 {
                have += n;
                kept.push(game);
            }
        }
        if have < wanted {
            let more = Wanted { decisions: wanted - have, version, max_staleness };
            kept.extend(free(&running.games, &running.actors, more)?);
        }
        Ok(kept)
    }

    /// Stops the actors and the service; an actor's own error comes first.
    pub fn stop(&mut self) -> Result<(), TrainError> {
        if let Some(running) = self.running.take() {
            drop(running.games);
            let stopped = running.actors.stop();
            running.service.shutdown();
            stopped?;
        }
        Ok(())
    }
}

impl Drop for SelfPlayWorker {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}
