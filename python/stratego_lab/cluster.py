"""The lab past one machine: self-play and arena matches on a Ray cluster.

    python -m stratego_lab.cluster train --config configs/smoke.toml [--actors N] [--address auto]
    python -m stratego_lab.cluster train --resume RUN_DIR [--actors N]
    python -m stratego_lab.cluster arena --a SPEC --b SPEC --games N --seed S [--shards K]

Ray carries the lab's own Rust work units (`stratego_lab._core`); there is no
networking code of ours (docs/DISTRIBUTED.md):

- `train` starts the learner (`Learner`: the run directory, checkpoints,
  TensorBoard and metrics of `stratego train`, and its resume) as a Ray actor,
  with a GPU where the cluster has one, and N self-play actors
  (`SelfPlayWorker`). Each round, every self-play actor is sent the newest
  weights (checkpoint bytes through Ray's object store) and returns its games
  as trajectory bytes; the learner learns from one round while the actors
  already play the next, with the weights one version older (the staleness
  rule of `stratego train` decides what is recent enough). A self-play actor
  that dies is restarted by Ray; its lost round is asked again, so no game is
  lost from what the learner learns or counted twice. `RUN/cluster.jsonl`
  logs every batch learned from.
- `arena` splits a match into shards of pairs played by Ray tasks and writes
  exactly what `stratego arena --out` writes (byte for byte).

Ray is an extra: `pip install './python[cluster]'`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

from . import _core

# What a local Ray instance (no `--address`) gets: a small object store, so
# that it starts on machines with a small /dev/shm (containers, CI).
LOCAL_OBJECT_STORE_BYTES = 256 * 1024 * 1024

# A self-play actor that dies this many times in one round stops the run
# (Ray would restart one that cannot start for ever).
MAX_DEATHS_IN_A_ROUND = 3

# The driver's log of every batch of games learned from, in the run directory.
CLUSTER_LOG = "cluster.jsonl"


class ClusterError(Exception):
    """A cluster command that cannot go on; its message is the `error:` line."""


def _ray():
    try:
        import ray
    except ImportError as e:
        raise ClusterError("the cluster commands need Ray: pip install './python[cluster]'") from e
    return ray


def connect(address: str | None, cpus: int) -> None:
    """Joins the cluster at `address` ("auto": the one `ray start` made on
    this machine), or starts a local Ray instance with `cpus` logical CPUs."""
    ray = _ray()
    if ray.is_initialized():
        return
    if address:
        ray.init(address=address, log_to_driver=True)
    else:
        ray.init(
            num_cpus=cpus,
            object_store_memory=LOCAL_OBJECT_STORE_BYTES,
            include_dashboard=False,
            log_to_driver=True,
        )


# ---------------------------------------------------------------- work units
# Plain Python classes around the Rust objects: Ray pickles these by
# reference and builds the Rust object inside the actor's own process.


class LearnerUnit:
    def __init__(self, run, config, resume, iterations, device):
        self.learner = _core.Learner(run, config=config, resume=resume, iterations=iterations, device=device)

    def describe(self):
        l = self.learner
        return {"config": l.config_text, "version": l.version, "samples": l.samples_per_iteration,
                "finished": l.finished}

    def weights(self):
        return self.learner.version, self.learner.weights()

    def learn(self, batches, waited):
        step, values, line = self.learner.learn(batches, waited)
        return step, values, line, self.learner.finished

    def summary(self):
        return self.learner.summary()


class SelfPlayUnit:
    def __init__(self, config_text, index, device, workers):
        self.worker = _core.SelfPlayWorker(config_text, index, device, workers)

    def pid(self):
        return os.getpid()

    def node(self):
        return _ray().get_runtime_context().get_node_id()

    def play(self, weights, version, decisions):
        return self.worker.play(weights, version, decisions)


def _shard(a, b, games, seed, rules, setups, self_restriction, first, end, threads):
    match = _core.ArenaMatch(a, b, games, seed, rules, setups, self_restriction)
    return match.play(first, end, threads)


# ---------------------------------------------------------------- training


class Trainer:
    """A distributed run: the learner actor, the self-play actors and the
    loop between them. `on_round(trainer, round)` (for tests and tools) is
    called as each round is asked of the self-play actors, while they play."""

    def __init__(self, run, config=None, resume=False, actors=None, iterations=None, device=None,
                 worker_device="cpu", cpus_per_actor=1.0, address=None, on_round=None, say=None):
        self.say = say or (lambda line: print(line, file=sys.stderr, flush=True))
        self.run = Path(run)
        self.on_round = on_round
        ray = _ray()
        actors_wanted = actors
        connect(address, cpus=max(os.cpu_count() or 1, (actors or 1) + 1))
        # The learner runs on the driver's node (run the driver on the GPU
        # box): the run directory it writes is the one the driver logs to
        # and resumes from, and a node that leaves never takes it along.
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        here = ray.get_runtime_context().get_node_id()
        node = next(n for n in ray.nodes() if n["NodeID"] == here)
        gpu = node["Resources"].get("GPU", 0) >= 1
        pin = NodeAffinitySchedulingStrategy(node_id=here, soft=False)
        learner_cls = ray.remote(num_cpus=0, num_gpus=1 if gpu else 0, scheduling_strategy=pin)(LearnerUnit)
        try:
            self.learner = learner_cls.remote(str(self.run), str(config) if config else None, resume, iterations,
                                              device)
            info = ray.get(self.learner.describe.remote())
        except ray.exceptions.RayActorError as e:
            raise ClusterError(_cause(e)) from None
        self.config_text = info["config"]
        self.finished_at_start = info["finished"]
        self.samples = info["samples"]
        start_version = info["version"]
        n = actors_wanted or _config_actors(self.config_text)
        # A self-play actor that dies is started again by Ray (any number of
        # times); the round it was playing is asked again by `_gather`.
        worker_cls = ray.remote(num_cpus=cpus_per_actor, max_restarts=-1, max_task_retries=0)(SelfPlayUnit)
        self.workers = [worker_cls.remote(self.config_text, i, worker_device, n) for i in range(n)]
        self.log = _BatchLog(self.run / CLUSTER_LOG, start_version)
        self.say(f"run: {self.run} (learner {'on a GPU' if gpu else 'on the CPU'}, {n} self-play actors, "
                 f"from iteration {start_version})")

    def train(self):
        ray = _ray()
        version, weights = ray.get(self.learner.weights.remote())
        share = math.ceil(self.samples / len(self.workers))
        finished = self.finished_at_start
        round_ = self.log.next_round
        pending = self._ask(weights, version, share, round_)
        if self.on_round:
            self.on_round(self, round_)
        started = time.monotonic()
        while not finished:
            tick = time.monotonic()
            batches = self._gather(pending, weights, version, share, round_)
            waited = time.monotonic() - tick
            # The actors play the next round while the learner learns.
            round_ += 1
            pending = self._ask(weights, version, share, round_)
            if self.on_round:
                self.on_round(self, round_)
            # Logged before the learner learns: a driver killed after the
            # learner saved the iteration's checkpoint still has its lines,
            # and one killed before has them dropped on resume.
            self.log.write(version + 1, batches)
            step, values, line, finished = ray.get(self.learner.learn.remote([b["bytes"] for b in batches], waited))
            version, weights = ray.get(self.learner.weights.remote())
            self.say(_progress_line(step, values, line, time.monotonic() - started))
        for ref in pending:
            ray.cancel(ref, force=False)
        summary = ray.get(self.learner.summary.remote())
        self.stop()
        return summary

    def _ask(self, weights, version, share, round_):
        ray = _ray()
        ref = ray.put(weights)
        return {w.play.remote(ref, version, share): (i, round_) for i, w in enumerate(self.workers)}

    def _gather(self, pending, weights, version, share, round_):
        """Every batch of `pending`; one whose actor died is asked again of
        the restarted actor, so each batch is learned from exactly once."""
        ray = _ray()
        pending = dict(pending)
        batches = []
        deaths = {}
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            ref = ready[0]
            index, asked_round = pending.pop(ref)
            try:
                data, games, decisions = ray.get(ref)
            except (ray.exceptions.RayActorError, ray.exceptions.ObjectLostError) as e:
                # The actor died in mid-round, or its node left with the
                # round's games in its object store. One that dies again
                # and again (it cannot start: a config its process refuses,
                # a missing file) would be restarted for ever.
                deaths[index] = deaths.get(index, 0) + 1
                if deaths[index] >= MAX_DEATHS_IN_A_ROUND:
                    raise ClusterError(f"self-play actor {index} died {deaths[index]} times in round {asked_round}: "
                                       f"{_cause(e)}") from None
                self.say(f"self-play actor {index} died; Ray restarts it and its round {asked_round} is asked again")
                retry = self.workers[index].play.remote(ray.put(weights), version, share)
                pending[retry] = (index, asked_round)
                continue
            except ray.exceptions.RayTaskError as e:
                raise ClusterError(f"self-play actor {index}: {_cause(e)}") from None
            batches.append({"worker": index, "round": asked_round, "games": games, "decisions": decisions,
                            "bytes": data})
        # In worker order, not arrival order: the learner's samples then do
        # not depend on which unit answered first.
        batches.sort(key=lambda b: b["worker"])
        return batches

    def stop(self):
        ray = _ray()
        for w in self.workers:
            ray.kill(w, no_restart=True)
        ray.kill(self.learner, no_restart=True)


def _config_actors(config_text):
    import tomllib

    return int(tomllib.loads(config_text)["selfplay"]["actors"])


def _cause(error):
    """The first line of the Rust error inside a Ray error."""
    text = str(getattr(error, "cause", None) or error)
    lines = [l for l in text.splitlines() if "ValueError:" in l]
    return lines[-1].split("ValueError:", 1)[1].strip() if lines else text.strip().splitlines()[-1]


def _progress_line(step, values, line, seconds):
    """The learner's own line (`stratego train`'s: speed and losses, or
    that no sample was fresh), its evaluation's scores and the run's time."""
    score = {k: v for k, v in values.items() if k.startswith("eval/score_vs_") and not k.endswith(("_low", "_high"))}
    evals = "".join(f"  {k.removeprefix('eval/score_vs_')} {v:.3f}" for k, v in score.items())
    stale = values.get("samples/stale_fraction")
    stale = f"  stale {stale:.2f}" if stale is not None and math.isfinite(stale) else ""
    return f"iteration {step}: {line}{stale}{evals}  ({seconds:.0f} s)"


class _BatchLog:
    """`RUN/cluster.jsonl`: one line per batch of games the learner learned
    from (iteration, worker, round, games, decisions). On resume the lines
    of iterations after the checkpoint are dropped: those games were learned
    from by weights that were lost with the driver."""

    def __init__(self, path: Path, version: int):
        self.path = path
        kept = []
        if path.exists():
            for line in path.read_text().splitlines():
                try:
                    if json.loads(line)["iteration"] <= version:
                        kept.append(line)
                except (ValueError, KeyError, TypeError):
                    pass
        path.write_text("".join(l + "\n" for l in kept))
        # Rounds are numbered on across driver starts, so a resumed run's
        # (actor, round) pairs stay unique in the log.
        self.next_round = max((json.loads(l)["round"] for l in kept), default=-1) + 1

    def write(self, step, batches):
        with self.path.open("a") as f:
            for b in batches:
                line = {k: b[k] for k in ("worker", "round", "games", "decisions")}
                f.write(json.dumps({"iteration": step, **line}) + "\n")


def read_batch_log(run):
    """The lines of a run's `cluster.jsonl`."""
    return [json.loads(l) for l in (Path(run) / CLUSTER_LOG).read_text().splitlines()]


# ---------------------------------------------------------------- arena


def arena(a, b, games=100, seed=1, rules=None, setups="swap", self_restriction="both", shards=None, out=None,
          overwrite=False, threads_per_shard=None, address=None):
    """Plays `stratego arena --a A --b B --games N --seed S` as `shards`
    Ray tasks of whole pairs and writes its output; returns the summary."""
    ray = _ray()
    match = _core.ArenaMatch(a, b, games, seed, rules, setups, self_restriction)
    connect(address, cpus=os.cpu_count() or 1)
    shards = shards or max(1, int(ray.cluster_resources().get("CPU", 1)))
    pairs = match.pairs
    bounds = [pairs * k // shards for k in range(shards + 1)]
    task = ray.remote(max_retries=3)(_shard)
    refs = [task.remote(a, b, games, seed, rules, setups, self_restriction, lo, hi, threads_per_shard)
            for lo, hi in zip(bounds, bounds[1:]) if hi > lo]
    played = []
    try:
        for part in ray.get(refs):
            played.extend(part)
    except ray.exceptions.RayTaskError as e:
        raise ClusterError(_cause(e)) from None
    return match.write(played, Path(out) if out else None, overwrite)


# ---------------------------------------------------------------- command line


def _parser():
    p = argparse.ArgumentParser(prog="python -m stratego_lab.cluster", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="a training run with self-play actors on a Ray cluster")
    start = t.add_mutually_exclusive_group(required=True)
    start.add_argument("--config", help="a training config (configs/*.toml): a new run")
    start.add_argument("--resume", metavar="RUN", help="continue the run in RUN from its newest checkpoint")
    t.add_argument("--run", help="the new run's directory (default runs/<config name>-cluster-<unix time>)")
    t.add_argument("--actors", type=int, help="self-play actors (default: the config's selfplay.actors)")
    t.add_argument("--iterations", type=int, help="overrides run.iterations")
    t.add_argument("--cpus-per-actor", type=float, default=1.0, help="Ray CPUs each self-play actor reserves")
    t.add_argument("--address", help="a Ray cluster to join (`auto`: the one on this machine); default: a local one")
    a = sub.add_parser("arena", help="a match split into shards of pairs on a Ray cluster")
    a.add_argument("--a", required=True)
    a.add_argument("--b", required=True)
    a.add_argument("--games", type=int, default=100)
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("--rules", help="a named ruleset or a ruleset text (default: a trained player's, else classic)")
    a.add_argument("--setups", default="swap")
    a.add_argument("--self-restriction", default="both")
    a.add_argument("--shards", type=int, help="default: one per CPU of the cluster")
    a.add_argument("--out", help="output directory (default as stratego arena: runs/arena-...)")
    a.add_argument("--overwrite", action="store_true")
    a.add_argument("--address")
    return p


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        if args.command == "train":
            if args.actors is not None and args.actors < 1:
                raise ClusterError("--actors must be at least 1")
            if args.config:
                run = args.run or f"runs/{Path(args.config).stem}-cluster-{int(time.time())}"
            else:
                run = args.resume
            trainer = Trainer(run, config=args.config, resume=bool(args.resume), actors=args.actors,
                              iterations=args.iterations, cpus_per_actor=args.cpus_per_actor, address=args.address)
            s = trainer.train()
            print(f"done: {s['iterations']} iterations, {s['games']} games, {s['plies']} plies, "
                  f"{s['samples']} samples in {s['seconds']:.0f} s")
            if s["last_checkpoint"]:
                print(f"latest checkpoint: {s['last_checkpoint']}")
        else:
            if args.shards is not None and args.shards < 1:
                raise ClusterError("--shards must be at least 1")
            print(arena(args.a, args.b, args.games, args.seed, args.rules, args.setups, args.self_restriction,
                        args.shards, args.out, args.overwrite, address=args.address), end="")
    except (ClusterError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
