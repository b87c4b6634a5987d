"""What Ray costs per sample: the smoke run in one process (`stratego train`)
against the same config on a local Ray instance (`python -m
stratego_lab.cluster train`) with 1 and 2 self-play actors, in alternating
rounds on one machine (BENCHMARKS.md, "Distributed self-play").

    python3 tools/bench_cluster.py [--config configs/smoke.toml] [--rounds 2] [--binary target/debug/stratego]

Needs the `stratego` binary and the package with its cluster extra
(`pip install './python[cluster]'`), built in the same profile. Figures per
run, over the RL iterations after the first (the warm start and the first
iteration's start-up left out) and without the evaluations' time:
self-play plies received per second, learner samples per second of learning
time, the share of decisions dropped as stale, and the bytes of trajectories
per decision (from one worker's round).
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def figures(run: Path):
    lines = [json.loads(l) for l in (run / "metrics.jsonl").read_text().splitlines()]
    its = [l for l in lines if "speed/plies_per_second" in l]
    first, rest = its[0], its[1:]
    evals = sum(l.get("eval/seconds", 0.0) for l in rest)
    plies = rest[-1]["run/plies"] - first["run/plies"]
    seconds = rest[-1]["run/seconds"] - first["run/seconds"] - evals
    samples = sum(l["speed/samples_per_second"] * (l["speed/wait_seconds"] + l["speed/learn_seconds"]) for l in rest)
    learning = sum(l["speed/learn_seconds"] for l in rest)
    stale = sum(l["samples/stale_fraction"] for l in rest) / len(rest)
    return {"plies/s": plies / seconds, "learner samples/s": samples / learning, "stale": stale}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/smoke.toml")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--binary", default="target/debug/stratego")
    args = p.parse_args()
    kinds = [("one process", None), ("Ray, 1 actor", 1), ("Ray, 2 actors", 2)]
    results = {name: [] for name, _ in kinds}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for name, actors in kinds:
                run = Path(tmp) / f"{r}-{actors}"
                if actors is None:
                    cmd = [args.binary, "train", "--config", args.config, "--run", str(run)]
                else:
                    cmd = [sys.executable, "-m", "stratego_lab.cluster", "train", "--config", args.config, "--run",
                           str(run), "--actors", str(actors)]
                started = time.monotonic()
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                f = figures(run)
                f["wall s"] = time.monotonic() - started
                results[name].append(f)
                print(f"round {r} {name}: " + ", ".join(f"{k} {v:.3g}" for k, v in f.items()), flush=True)
    print("\nrange over rounds:")
    for name, rows in results.items():
        keys = rows[0].keys()
        print(f"{name}: " + ", ".join(f"{k} {min(r[k] for r in rows):.3g}-{max(r[k] for r in rows):.3g}" for k in keys))
    # Bytes per decision of a trajectory batch: one round of one worker.
    from stratego_lab import _core

    with tempfile.TemporaryDirectory() as tmp:
        learner = _core.Learner(str(Path(tmp) / "r"), config=args.config, iterations=1)
        worker = _core.SelfPlayWorker(learner.config_text, 0)
        data, games, decisions = worker.play(learner.weights(), learner.version, 1024)
        worker.stop()
        print(f"trajectory bytes: {len(data)} for {games} games, {decisions} decisions: "
              f"{len(data) / decisions:.0f} bytes per decision")


if __name__ == "__main__":
    main()
