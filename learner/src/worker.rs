//! A self-play worker for a learner in another process (a Ray actor of
//! python/stratego_lab/cluster.py): the actor threads and inference service
//! of `train`, fed with the weights it is sent and drained on request.
//!
//! Its games are seeded by the run seed, the worker's index and the policy
//! version it starts at (`selfplay_seed` of a per-worker stream), so workers
//! never share games and a worker restarted after a crash, which starts at a
//! later version, plays new ones.

use crossbeam_channel::Receiver;
use stratego_contract::seed::stream_seed;
use stratego_model::Device;
use stratego_selfplay::{Actors, GameTrajectory, InferenceService};

use crate::collect::{Collector, Wanted};
use crate::config::TrainConfig;
use crate::train::{selfplay_seed, start_selfplay};
use crate::TrainError;

/// Actors that play with the newest weights they were sent.
pub struct SelfPlayWorker {
    config: TrainConfig,
    index: u64,
    device: Device,
    running: Option<Running>,
    /// How a request's games are collected (`selfplay.paced` and
    /// `run.reproducible` start gated actors that play only the rounds it
    /// grants); made at the first request, sized by its share.
    collector: Option<Collector>,
}

struct Running {
    service: InferenceService,
    actors: Actors,
    games: Receiver<GameTrajectory>,
    version: u64,
}

impl SelfPlayWorker {
    /// Worker `index` of `workers` of a run of `config`, inferring on
    /// `device`; its actors start with the first weights it is sent.
    ///
    /// The workers together play the config's games in flight
    /// (`selfplay.actors × games_per_actor`), each about a `workers`-th of
    /// them: a round of an iteration's decisions is then as many steps as
    /// in one process, so a game spans as many policy versions. Each
    /// worker with all of the config's games made rounds `workers` times
    /// shorter, and the games of two workers' smoke run, 250 plies long,
    /// outlived `max_staleness` (10-30 % of the decisions stale, none in
    /// one process).
    /// Its actors are paced whatever `selfplay.paced` says (lockstep under
    /// `run.reproducible`): the driver's requests are the rounds. Free
    /// actors would play on between requests, and through the learner's
    /// evaluations, with the weights of the last request, filling the
    /// channel with games the next request finds stale (a smoke run on two
    /// workers dropped 64-81 % of its samples from the first evaluation on).
    pub fn new(
        mut config: TrainConfig,
        index: u64,
        workers: usize,
        device: &str,
    ) -> Result<SelfPlayWorker, TrainError> {
        config.selfplay.paced = !config.run.reproducible;
        let s = &mut config.selfplay;
        (s.actors, s.games_per_actor) = share_of_games(s.actors, s.games_per_actor, workers);
        if config.selfplay.pool_size > 0 {
            return Err(TrainError::config(
                "selfplay.pool_size",
                "the pool of past selves lives in the run directory of `stratego train`; cluster workers have none",
            ));
        }
        if let Some(stage) = config.stage.first() {
            return Err(
                stage.error("stage", "a recipe's stages are run by `stratego train`; cluster workers play one config")
            );
        }
        let device = stratego_model::device(device)?;
        Ok(SelfPlayWorker { config, index, device, running: None, collector: None })
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
                        start_selfplay(&self.config, net, version, self.seed(version), &self.device, None, None)?;
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
            let collector = self.collector.get_or_insert_with(|| Collector::for_decisions(&self.config, wanted));
            kept.extend(collector.collect(&running.games, &running.actors, more)?);
        }
        Ok(kept)
    }

    /// Stops the actors and the service; an actor's own error comes first.
    pub fn stop(&mut self) -> Result<(), TrainError> {
        self.collector = None;
        if let Some(running) = self.running.take() {
            drop(running.games);
            let stopped = running.actors.stop();
            running.service.shutdown();
            stopped?;
        }
        Ok(())
    }
}

/// One worker's actor threads and games per thread, of `workers` that
/// together play about `actors × games_per_actor` games (never fewer).
fn share_of_games(actors: usize, games_per_actor: usize, workers: usize) -> (usize, usize) {
    let slots = (actors * games_per_actor).div_ceil(workers.max(1));
    let actors = actors.min(slots).max(1);
    (actors, slots.div_ceil(actors))
}

impl Drop for SelfPlayWorker {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

#[cfg(test)]
mod tests {
    use stratego_model::StrategoNet;

    use super::*;
    use crate::train::checkpoint_meta;

    /// A worker of a smoke-shaped run (a short cap, so games end quickly)
    /// under `modes` (config lines added to `[run]` and `[selfplay]`).
    fn worker(run: &str, selfplay: &str) -> (SelfPlayWorker, Vec<u8>) {
        let text = format!(
            "[run]\nseed = 3\n{run}\n[game]\nrules = \"stratego-rules-v1:pieces=classic,two-square=3,chase=on,max-plies=60,max-battleless=40\"\n\
             [selfplay]\nactors = 2\ngames_per_actor = 4\n{selfplay}\n[learner]\nsamples_per_iteration = 64\nminibatch = 16\n\
             [model]\npreset = \"tiny\"\n"
        );
        let config = TrainConfig::parse(&text).unwrap();
        let device = stratego_model::device("cpu").unwrap();
        let net = StrategoNet::tiny(config.game.layout, &device);
        let bytes = stratego_model::to_bytes(&net, &checkpoint_meta(&config, 0)).unwrap();
        (SelfPlayWorker::new(config, 0, 1, "cpu").unwrap(), bytes)
    }

    /// Every way of collecting answers a cluster request: gated actors
    /// (paced, lockstep) play only the rounds the worker grants them, so a
    /// worker that collected freely from them would wait forever.
    #[test]
    fn a_worker_answers_in_every_collection_mode() {
        for (mode, run, selfplay) in
            [("free", "", ""), ("paced", "", "paced = true"), ("lockstep", "reproducible = true", "")]
        {
            let (mut worker, weights) = worker(run, selfplay);
            for version in 0..2 {
                let games = worker.play(&weights, version, 48).unwrap_or_else(|e| panic!("{mode}: {e}"));
                let wanted = Wanted { decisions: 48, version, max_staleness: 4 };
                let decisions: usize = games.iter().map(|g| wanted.counted(g)).sum();
                assert!(decisions >= 48, "{mode}, request {version}: {decisions} decisions");
            }
            worker.stop().unwrap();
        }
    }

    /// A worker's actors are paced whatever the config says: after a
    /// request is answered they play at most the one round ahead and
    /// wait for the next request. Free actors would play on with the last
    /// request's weights until the game channel is full (through a
    /// learner's evaluation, minutes), and the next request would find
    /// their games stale.
    #[test]
    fn a_worker_plays_one_round_ahead_and_waits() {
        for (mode, run, ahead) in [("free in the config", "", 48), ("lockstep", "reproducible = true", 0)] {
            let (mut worker, weights) = worker(run, "channel_capacity = 64");
            worker.play(&weights, 0, 48).unwrap();
            let actors = &worker.running.as_ref().unwrap().actors;
            let answered = actors.plies();
            // Until the actors stop (free ones stop only when the channel
            // of 64 games is full: thousands of plies).
            let mut settled = answered;
            for _ in 0..50 {
                std::thread::sleep(std::time::Duration::from_millis(200));
                let now = actors.plies();
                if now == settled {
                    break;
                }
                settled = now;
            }
            // A round is 48 decisions over 2 actors x 4 slots: 6 steps of
            // 8 plies, 48 plies; at most one of them is played ahead.
            assert!(settled - answered <= ahead, "{mode}: {} plies played after the answer", settled - answered);
            worker.stop().unwrap();
        }
    }

    /// Workers share the config's games: their rounds are as many steps
    /// as one process's, so their games span as many versions.
    #[test]
    fn workers_share_the_configs_games() {
        assert_eq!(share_of_games(1, 16, 1), (1, 16));
        assert_eq!(share_of_games(1, 16, 2), (1, 8));
        assert_eq!(share_of_games(8, 200, 4), (8, 50));
        // Never fewer games in all than the config's, nor a thread without.
        assert_eq!(share_of_games(1, 5, 2), (1, 3));
        assert_eq!(share_of_games(2, 3, 8), (1, 1));
    }

    /// What lives in `stratego train`'s run directory (a pool of past
    /// selves, a stage's own networks) is refused by a worker, in one line.
    #[test]
    fn a_worker_refuses_a_pool_and_stages() {
        for (text, key) in [
            ("[selfplay]\npool_size = 2\n", "`selfplay.pool_size`"),
            ("[[stage]]\nfrom = 5\n[stage.learner]\ndraw_score = -0.25\n", "`stage`: in the stage from iteration 5"),
        ] {
            let config = TrainConfig::parse(text).unwrap();
            let e = SelfPlayWorker::new(config, 0, 1, "cpu").err().expect("refused").to_string();
            assert!(e.contains(key) && e.lines().count() == 1, "{e}");
        }
    }
}
