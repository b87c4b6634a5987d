"""Which of OpenSpiel's algorithms run on each of the lab's games
(docs/PYTHON.md, "OpenSpiel's algorithms on the two games"): MCTS with random
rollouts, `rl_environment.Environment`, `evaluate_bots` and the bots
`make_bot` offers for each game. ISMCTS is in test_ismcts.py."""

import unittest

import numpy as np
import pyspiel
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import evaluate_bots, mcts

import stratego_lab

GAMES = ["stratego(pieces=barrage,max-plies=60)", "cotoan(horizon=40)"]


def mcts_bot(game, seed, simulations=12):
    rng = np.random.RandomState(seed)
    return mcts.MCTSBot(game, 2.0, simulations, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)


class OpenSpielAlgorithms(unittest.TestCase):
    def test_mcts_with_random_rollouts_plays_whole_games_through_evaluate_bots(self):
        # On Stratego, OpenSpiel's MCTS searches the true state (it does not
        # sample hidden information): a mechanical check, not a fair player.
        for text in GAMES:
            with self.subTest(game=text):
                game = pyspiel.load_game(text)
                bots = [mcts_bot(game, 1), pyspiel.make_uniform_random_bot(1, 2)]
                returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(3))
                self.assertEqual(sum(returns), 0.0)

    def test_rl_environment_runs_whole_episodes(self):
        for text in GAMES:
            with self.subTest(game=text):
                env = rl_environment.Environment(text, chance_event_sampler=rl_environment.ChanceEventSampler(seed=4))
                rng = np.random.RandomState(5)
                step = env.reset()
                steps = 0
                while not step.last():
                    player = step.observations["current_player"]
                    step = env.step([int(rng.choice(step.observations["legal_actions"][player]))])
                    steps += 1
                self.assertGreater(steps, 0)
                self.assertEqual(sum(step.rewards), 0.0)
                self.assertEqual(len(step.observations["info_state"][0]), env.observation_spec()["info_state"][0])


class CoToanBots(unittest.TestCase):
    def test_make_bot_offers_random_and_mcts_for_cotoan(self):
        game = pyspiel.load_game("cotoan(horizon=40)")
        for spec in ["random", "mcts", "mcts:simulations=10,rollouts=2,uct=1.5"]:
            with self.subTest(spec=spec):
                bot = stratego_lab.make_bot(spec, game, seed=3)
                self.assertIsInstance(bot, pyspiel.Bot)
                rival = stratego_lab.make_bot("random", game, seed=4)
                returns = evaluate_bots.evaluate_bots(game.new_initial_state(), [bot, rival], np.random.RandomState(1))
                self.assertEqual(sum(returns), 0.0)

    def test_cotoan_bots_are_seeded(self):
        game = pyspiel.load_game("cotoan(horizon=30)")

        def history(seed):
            bots = [stratego_lab.make_bot("mcts:simulations=8", game, seed), stratego_lab.make_bot("random", game, seed)]
            state = game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(bots[state.current_player()].step(state))
            return state.history()

        self.assertEqual(history(7), history(7))

    def test_bad_cotoan_bot_specs_are_value_errors(self):
        game = pyspiel.load_game("cotoan")
        for spec, message in [
            ("greedy", "unknown cotoan bot"),
            ("mcts:depth=2", "not an option"),
            ("mcts:simulations=many", "not a number"),
            ("mcts:simulations=0", "must be above 0"),
            ("random:seed=1", "not an option"),
            ("random:", "nothing after"),
            ("mcts:,simulations=5", "is not an option of mcts"),
            ("mcts:simulations=5,", "is not an option of mcts"),
            ("mcts:simulations=5,simulations=6", "given twice"),
            ("mcts:uct=nan", "must be above 0"),
            ("mcts:uct=inf", "must be above 0"),
            ("mcts:simulations=10000000000", "at most"),
        ]:
            with self.subTest(spec=spec), self.assertRaisesRegex(ValueError, message):
                stratego_lab.make_bot(spec, game)
        self.assertIsNotNone(stratego_lab.make_bot(" mcts : simulations = 5 ", game))

    def test_lab_players_still_refuse_other_games_clearly(self):
        with self.assertRaisesRegex(ValueError, "play the stratego game"):
            stratego_lab.LabBot("greedy", pyspiel.load_game("cotoan"))


if __name__ == "__main__":
    unittest.main()
