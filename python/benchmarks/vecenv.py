#!/usr/bin/env python3
"""Python `VecEnv` steps/s against the Rust `VecEnv` and a Python loop over
the OpenSpiel state API (BENCHMARKS.md, "Python").

Each round measures, in this order and in this one process: the engine's own
loop (`stratego_engine::speed::measure_vecenv`: sample + step + observe +
legal mask, classic rules), then the same loop driven from Python through
`stratego_lab.VecEnv` (`sample_actions()` then `step()`, which writes the
observation and the legal mask into its numpy arrays). The rounds alternate,
so a noisy shared machine disturbs both sides alike; the figure is the ratio.
The OpenSpiel loop plays B `stratego` games one state at a time (legal
actions, a random choice, `apply_action`, the mover's observation: the
`observation_tensor` list for compact, the 488 planes of OpenSpiel's
observer with `layout=full` for full). The full layout is measured twice:
dense, and with `observations="sparse"` (the non-zero values alone, as
`(offsets, indices, values)`), each against the engine's loop of the same
kind.

    MATURIN_PEP517_ARGS="--profile release" python3 -m pip install ./python
    python3 python/benchmarks/vecenv.py            # B = 256, both layouts
"""

import argparse
import random
import statistics
import time

import numpy as np
import pyspiel
from open_spiel.python.observation import make_observation

import stratego_lab
from stratego_lab import _core


def python_vecenv(layout, batch, steps, seed, observations="dense"):
    env = stratego_lab.VecEnv(batch, layout=layout, seed=seed, observations=observations)
    start = time.perf_counter()
    for _ in range(steps):
        env.step(env.sample_actions())
    return batch * steps / (time.perf_counter() - start)


def openspiel_loop(layout, batch, steps, seed):
    """Steps/s of a Python loop over OpenSpiel states (the observation of
    the layout: `observation_tensor` for compact; for full, an observer made
    by `make_observation` with `layout=full`, copied out as numpy)."""
    game = pyspiel.load_game("stratego")
    rng = random.Random(seed)
    states = []
    for _ in range(batch):
        s = game.new_initial_state()
        s.apply_action(rng.randrange(1024))
        s.apply_action(rng.randrange(1024))
        states.append(s)
    if layout == "compact":

        def observe(state, player):
            return np.asarray(state.observation_tensor(player), np.float32)

    else:
        observer = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False), {"layout": layout})

        def observe(state, player):
            observer.set_from(state, player)
            return observer.tensor.copy()

    start = time.perf_counter()
    for _ in range(steps):
        for i, s in enumerate(states):
            if s.is_terminal():
                s = states[i] = game.new_initial_state()
                s.apply_action(rng.randrange(1024))
                s.apply_action(rng.randrange(1024))
            s.apply_action(rng.choice(s.legal_actions()))
            if not s.is_terminal():
                observe(s, s.current_player())
    return batch * steps / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--steps", type=int, default=200, help="VecEnv steps per round (default 200)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--openspiel-steps", type=int, default=4, help="steps of the OpenSpiel loop (default 4)")
    args = parser.parse_args()
    print(f"B = {args.batch}, {args.steps} steps per round, {args.rounds} alternating rounds")
    print("| layout | observations | round | Rust VecEnv steps/s | Python VecEnv steps/s | Python / Rust |")
    print("|---|---|---|---|---|---|")
    summary = []
    spiel = {}
    for layout, observations in [("compact", "dense"), ("full", "dense"), ("full", "sparse")]:
        ratios = []
        for r in range(args.rounds):
            rust = _core.rust_vecenv_steps_per_second(layout, args.batch, args.steps, r, observations)
            py = python_vecenv(layout, args.batch, args.steps, r, observations)
            ratios.append(py / rust)
            print(f"| {layout} | {observations} | {r + 1} | {rust:,.0f} | {py:,.0f} | {py / rust:.3f} |")
        if layout not in spiel:
            spiel[layout] = openspiel_loop(layout, args.batch, args.openspiel_steps, 0)
        summary.append((layout, observations, statistics.median(ratios), py, spiel[layout]))
    print()
    print(
        "| layout | observations | median Python / Rust | Python VecEnv (last round) | OpenSpiel state loop "
        "| VecEnv / OpenSpiel |"
    )
    print("|---|---|---|---|---|---|")
    for layout, observations, ratio, py, loop in summary:
        print(f"| {layout} | {observations} | {ratio:.3f} | {py:,.0f} steps/s | {loop:,.0f} steps/s | {py / loop:.0f}x |")


if __name__ == "__main__":
    main()
