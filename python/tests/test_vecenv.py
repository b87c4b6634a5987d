"""The batched environment: numpy arrays written in place, the engine's
observations and masks, rewards and end reasons, seeds, and bad input."""

import sys
import threading
import time
import unittest

import numpy as np
import pyspiel

import stratego_lab
from stratego_lab import END_REASONS, VecEnv


def run(env, steps):
    """Plays `steps` random steps; returns every game end seen as (game, reward, reason)."""
    ends = []
    for _ in range(steps):
        obs, legal, rewards, done, reason = env.step(env.sample_actions())
        for b in np.flatnonzero(done):
            ends.append((int(b), float(rewards[b]), END_REASONS[reason[b]]))
    return ends


class Arrays(unittest.TestCase):
    def test_shapes_and_types(self):
        for layout, channels in [("compact", 58), ("full", 488)]:
            env = VecEnv(8, layout=layout, seed=1)
            obs, legal = env.reset()
            self.assertEqual(obs.shape, (8, channels, 10, 10))
            self.assertEqual(obs.dtype, np.float32)
            self.assertEqual(legal.shape, (8, 1800))
            self.assertEqual(legal.dtype, np.bool_)
            obs, legal, rewards, done, reason = env.step(env.sample_actions())
            self.assertEqual(rewards.dtype, np.float32)
            self.assertEqual(done.dtype, np.bool_)
            self.assertEqual(reason.dtype, np.int8)
            self.assertEqual(env.to_play.shape, (8,))

    def test_every_step_writes_the_same_arrays_in_place(self):
        env = VecEnv(4, seed=2)
        obs, legal = env.reset()
        before = obs.copy()
        out = env.step(env.sample_actions())
        self.assertIs(out[0], obs)
        self.assertIs(out[1], legal)
        again = env.step(env.sample_actions())
        for a, b in zip(out, again):
            self.assertIs(a, b)
        self.assertFalse(np.array_equal(before, obs))

    def test_arrays_are_the_engines_views_of_each_game(self):
        for layout in ["compact", "full"]:
            env = VecEnv(6, layout=layout, setups="handcrafted", seed=3)
            env.reset()
            for _ in range(30):
                obs, legal, *_ = env.step(env.sample_actions())
            for b in range(6):
                state = env.state(b)
                player = state.current_player()
                self.assertEqual(env.to_play[b], player)
                np.testing.assert_array_equal(obs[b], state.observation(player, layout))
                np.testing.assert_array_equal(np.flatnonzero(legal[b]), state.legal_actions())

    def test_finished_games_report_rewards_and_reasons_and_start_again(self):
        env = VecEnv(32, rules={"max-plies": 60}, seed=4)
        ends = run(env, 80)
        self.assertGreater(len(ends), 32)
        for b, reward, reason in ends:
            self.assertIn(reward, (-1.0, 0.0, 1.0))
            self.assertIn(reason, END_REASONS)
            if reason == "ply-cap":
                self.assertEqual(reward, 0.0)
            if reason == "flag-captured":
                # The capturing move ends the game: its mover wins.
                self.assertEqual(reward, 1.0)
        self.assertIn("ply-cap", {r for _, _, r in ends})
        # A restarted game is at its first ply again.
        env = VecEnv(1, rules={"max-plies": 3}, seed=5)
        for _ in range(3):
            _, _, _, done, _ = env.step(env.sample_actions())
        self.assertTrue(done[0])
        self.assertEqual(env.state(0).ply(), 0)

    def test_the_same_seed_gives_the_same_games(self):
        a, b = VecEnv(16, seed=9), VecEnv(16, seed=9)
        for _ in range(20):
            oa = [x.copy() for x in a.step(a.sample_actions())]
            ob = b.step(b.sample_actions())
            for x, y in zip(oa, ob):
                np.testing.assert_array_equal(x, y)
        c = VecEnv(16, seed=10)
        self.assertFalse(np.array_equal(c.reset()[0], VecEnv(16, seed=9).reset()[0]))
        a.reset()
        np.testing.assert_array_equal(a.reset()[0], VecEnv(16, seed=9).reset()[0])

    def test_rules_setups_and_layout_are_honoured(self):
        env = VecEnv(2, rules="barrage", layout="full", setups="handcrafted", seed=0)
        self.assertIn("pieces=barrage", env.rules)
        self.assertEqual(env.layout, "full")
        canonical = pyspiel.load_game("stratego(two-square=0,chase=off)").rules
        self.assertEqual(VecEnv(1, rules=canonical).rules, canonical)
        self.assertEqual(len(env), 2)

    def test_sparse_observations_hold_the_dense_values(self):
        """`observations="sparse"` returns (offsets, indices, values): the same
        games as the dense twin of the same seed, the same values once
        scattered, and nothing listed twice or zero."""
        for layout, channels in [("compact", 58), ("full", 488)]:
            dense = VecEnv(6, rules={"max-plies": 90}, layout=layout, seed=12)
            sparse = VecEnv(6, rules={"max-plies": 90}, layout=layout, seed=12, observations="sparse")
            self.assertEqual((dense.observations_kind, sparse.observations_kind), ("dense", "sparse"))
            pairs = [(dense.reset()[0].copy(), sparse.reset()[0])]
            for step in range(200):
                actions = dense.sample_actions()
                np.testing.assert_array_equal(actions, sparse.sample_actions())
                d, s = dense.step(actions), sparse.step(actions)
                for x, y in zip(d[1:], s[1:]):
                    np.testing.assert_array_equal(x, y)
                if step % 25 == 24:
                    pairs.append((d[0].copy(), s[0]))
            for obs, (offsets, indices, values) in pairs:
                self.assertEqual((offsets.dtype, indices.dtype, values.dtype), (np.int64, np.int32, np.float32))
                self.assertEqual((offsets[0], offsets[-1], len(offsets)), (0, len(indices), 7))
                self.assertEqual(len(values), len(indices))
                self.assertTrue(np.all(values != 0))
                rows = np.repeat(np.arange(6), np.diff(offsets))
                self.assertEqual(len(np.unique(rows * channels * 100 + indices)), len(indices))
                scattered = np.zeros((6, channels * 100), np.float32)
                scattered[rows, indices] = values
                np.testing.assert_array_equal(scattered.reshape(obs.shape), obs)
        with self.assertRaisesRegex(ValueError, "observations"):
            VecEnv(2, observations="bytes")

    def test_the_engine_steps_without_the_gil(self):
        """With the interpreter's switch interval at 5 s, another thread gets
        the GIL only when a holder gives it up: a main thread that sleeps 1 ms
        at a time runs hundreds of times during 200 steps only if the engine
        steps without the GIL. A pure-Python worker (which keeps it) shows the
        check can fail."""

        def ticks_while(work):
            worker = threading.Thread(target=work)
            old = sys.getswitchinterval()
            sys.setswitchinterval(5.0)
            try:
                worker.start()
                ticks = 0
                while worker.is_alive():
                    time.sleep(0.001)
                    ticks += 1
                worker.join()
            finally:
                sys.setswitchinterval(old)
            return ticks

        env = VecEnv(1024, seed=1)
        stepping = ticks_while(lambda: run(env, 200))
        holding = ticks_while(lambda: sum(i * i for i in range(3_000_000)))
        self.assertGreater(stepping, 20, f"{stepping} ticks while stepping, {holding} while holding the GIL")
        self.assertLess(holding, 5, f"the control: a GIL holder lets {holding} ticks through")
        # Each environment keeps its own arrays.
        self.assertFalse(np.shares_memory(env.reset()[0], VecEnv(4, seed=2).reset()[0]))


class BadInput(unittest.TestCase):
    def test_an_illegal_action_names_its_game_and_plays_nothing(self):
        env = VecEnv(4, seed=6)
        legal = env.step(env.sample_actions())[1]  # one real step, then a bad one
        before = [env.state(b).serialize() for b in range(4)]
        bad = env.sample_actions()
        bad[2] = int(np.flatnonzero(~legal[2])[0])
        with self.assertRaisesRegex(ValueError, "game 2"):
            env.step(bad)
        self.assertEqual([env.state(b).serialize() for b in range(4)], before)

    def test_bad_shapes_ids_and_arguments_are_value_errors(self):
        env = VecEnv(3)
        cases = [
            lambda: env.step(np.zeros(2, np.int64)),
            lambda: env.step(np.array([0, -1, 5], np.int64)),
            lambda: env.step(np.array([0, 1800, 5], np.int64)),
            lambda: VecEnv(0),
            lambda: VecEnv(2, layout="tiny"),
            lambda: VecEnv(2, setups="clever"),
            lambda: VecEnv(2, rules="checkers"),
            lambda: VecEnv(2, rules={"two-square": 99}),
            lambda: VecEnv(2, rules={"colour": "red"}),
            lambda: env.state(3),
        ]
        for i, case in enumerate(cases):
            with self.subTest(case=i), self.assertRaises(ValueError):
                case()
        with self.assertRaisesRegex(ValueError, "integers"):
            env.step(np.zeros(3, np.float32))

    def test_actions_may_be_any_integer_array_or_a_list(self):
        env = VecEnv(3, seed=8)
        actions = env.sample_actions()
        twin = VecEnv(3, seed=8)
        twin.sample_actions()
        env.step(actions.astype(np.int32))
        twin.step(list(map(int, actions)))
        self.assertEqual(env.state(1).serialize(), twin.state(1).serialize())


if __name__ == "__main__":
    unittest.main()
