"""The documented examples run (docs/PYTHON.md)."""

import importlib.util
import pathlib
import unittest

import numpy as np

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Examples(unittest.TestCase):
    def test_the_reinforce_skeleton_finishes_games_and_moves_its_weights(self):
        reinforce = load("reinforce")
        weights, history = reinforce.train(iterations=3, batch=16, steps=40, max_plies=30)
        self.assertEqual(len(history), 3)
        self.assertGreater(sum(finished for finished, _, _ in history), 0)
        self.assertTrue(np.isfinite(weights).all())
        self.assertGreater(np.abs(weights).sum(), 0.0)


if __name__ == "__main__":
    unittest.main()
