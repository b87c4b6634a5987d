"""Big sizes and threads: a VecEnv too large for its arrays and a fixture
request too large to draw are refused up front, and two Python threads
sharing one bot or one VecEnv never deadlock (the second waits, or gets a
clear error)."""

import threading
import unittest

import numpy as np
import pyspiel

import stratego_lab
from stratego_lab import VecEnv


def run_threads(target, count, timeout=120):
    """Runs `target(i)` in `count` threads; returns (results, errors), and
    fails the caller if any thread is still running after `timeout`."""
    results, errors = [None] * count, [None] * count

    def body(i):
        try:
            results[i] = target(i)
        except Exception as error:  # noqa: BLE001 - reported to the test
            errors[i] = error

    threads = [threading.Thread(target=body, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
        if thread.is_alive():
            raise AssertionError(f"a thread is still running after {timeout} s: deadlock")
    return results, errors


class BigVecEnv(unittest.TestCase):
    def test_the_largest_batch_in_the_full_layout_is_refused_with_the_memory_it_needs(self):
        with self.assertRaisesRegex(ValueError, r"batch 65536 in the full layout needs 12\.0 GiB .* at most 21801 games"):
            VecEnv(65536, layout="full")
        with self.assertRaisesRegex(ValueError, "at most 21801 games"):
            VecEnv(21802, layout="full")

    def test_sizes_within_the_bound_are_built(self):
        env = VecEnv(3000, layout="full", rules="barrage")
        self.assertEqual(env.reset()[0].shape, (3000, 488, 10, 10))


class Threads(unittest.TestCase):
    def test_two_threads_stepping_one_bot_take_turns(self):
        game = pyspiel.load_game("stratego(pieces=barrage)")
        bot = stratego_lab.make_bot("expectimax:depth=2", game, seed=1)
        state = game.new_initial_state()
        state.apply_action(3)
        state.apply_action(8)

        def moves(i):
            for _ in range(20):
                action = bot.step(state)
                self.assertIn(action, state.legal_actions())
            bot.restart()
            return True

        results, errors = run_threads(moves, 4)
        self.assertEqual(errors, [None] * 4)
        self.assertEqual(results, [True] * 4)

    def test_two_threads_stepping_one_vecenv_never_deadlock(self):
        # One VecEnv is one set of arrays: a step from a second thread while
        # one is running is a RuntimeError (pyo3's "Already borrowed"), never
        # a hang; steps that do not overlap simply run.
        env = VecEnv(256, rules="barrage", seed=3)
        env.reset()
        lock = threading.Lock()

        def steps(i):
            done = 0
            for _ in range(200):
                try:
                    with lock if i == 0 else _NoLock():
                        env.step(env.sample_actions())
                    done += 1
                except RuntimeError as error:
                    self.assertIn("borrowed", str(error))
            return done

        results, errors = run_threads(steps, 2)
        self.assertEqual(errors, [None, None])
        self.assertGreater(sum(results), 0)
        # Serialised by the caller, both threads step every time.
        results, errors = run_threads(lambda i: _locked_steps(env, lock, 100), 2)
        self.assertEqual(errors, [None, None])
        self.assertEqual(results, [100, 100])


class CoToanFixtures(unittest.TestCase):
    def test_the_largest_fixture_request_ends_and_lets_other_threads_run(self):
        # 1000 games of up to 199 plies: the bound's size (200,000 states).
        settings = pyspiel.load_game("cotoan").settings
        done = threading.Event()
        ticks = []

        def draw(i):
            if i == 0:
                try:
                    return len(stratego_lab._core.cotoan_fixtures(settings, games=1000, plies=199, synthetic=0))
                finally:
                    done.set()
            while not done.wait(0.005):
                ticks.append(1)
            return None

        results, errors = run_threads(draw, 2, timeout=60)
        self.assertEqual(errors, [None, None])
        self.assertGreater(results[0], 1000)
        # The draw releases the interpreter: the other thread kept ticking.
        self.assertGreater(len(ticks), 5)


class _NoLock:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _locked_steps(env, lock, count):
    for _ in range(count):
        with lock:
            env.step(env.sample_actions())
    return count


if __name__ == "__main__":
    unittest.main()
