#!/usr/bin/env python3
"""A training-loop skeleton on stratego_lab.VecEnv in numpy alone: REINFORCE
with a linear softmax policy over the legal moves, in self-play.

It shows the shape of a loop, not a recipe that plays well: features are the
mean of each observation plane (58 numbers), the policy is one weight matrix,
and each finished game's return is credited to every decision of its two
players (+r to the winner's moves, -r to the loser's). Swap the features and
the policy for a network and the update for your optimiser; the environment
side (reset, mask, step, done, rewards) stays as it is.

    python3 python/examples/reinforce.py --iterations 20
"""

import argparse

import numpy as np

import stratego_lab


def features(obs):
    """[B, 58, 10, 10] planes -> [B, 58]: each plane's mean."""
    return obs.mean(axis=(2, 3))


def policy(weights, feats, legal):
    """Softmax over the legal actions of each game: [B, 1800] probabilities."""
    logits = feats @ weights
    logits = np.where(legal, logits, -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    return p / p.sum(axis=1, keepdims=True)


def train(iterations=20, batch=64, steps=64, lr=0.05, seed=0, max_plies=200):
    env = stratego_lab.VecEnv(batch, rules={"max-plies": max_plies}, layout="compact", seed=seed)
    rng = np.random.default_rng(seed)
    weights = np.zeros((58, stratego_lab.NUM_ACTIONS), np.float32)
    obs, legal = env.reset()
    # The decisions of each running game: (features, action, probabilities, player).
    running = [[] for _ in range(batch)]
    history = []
    for _ in range(iterations):
        grad = np.zeros_like(weights)
        decisions = finished = 0
        score = 0.0
        for _ in range(steps):
            feats = features(obs)
            probs = policy(weights, feats, legal)
            actions = np.array([rng.choice(stratego_lab.NUM_ACTIONS, p=p) for p in probs])
            players = env.to_play.copy()
            for b in range(batch):
                running[b].append((feats[b], actions[b], probs[b], players[b]))
            # The arrays are overwritten by the next step: read what you need first.
            obs, legal, rewards, done, _ = env.step(actions)
            for b in np.flatnonzero(done):
                # `rewards[b]` is the return of the player who made the last move.
                winner_return = {players[b]: rewards[b], 1 - players[b]: -rewards[b]}
                for f, a, p, player in running[b]:
                    ret = winner_return[player]
                    # d log softmax(a) / d logits = onehot(a) - p.
                    g = -p * ret
                    g[a] += ret
                    grad += np.outer(f, g)
                    decisions += 1
                score += abs(rewards[b])
                finished += 1
                running[b] = []
        if decisions:
            weights += lr * grad / decisions
        history.append((finished, decisions, score / max(finished, 1)))
    return weights, history


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--steps", type=int, default=64)
    args = parser.parse_args()
    _, history = train(args.iterations, args.batch, args.steps)
    for i, (finished, decisions, decisive) in enumerate(history, 1):
        print(f"iteration {i}: {finished} games finished, {decisions} decisions credited, {decisive:.2f} decisive")


if __name__ == "__main__":
    main()
