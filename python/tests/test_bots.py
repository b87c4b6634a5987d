"""The lab's players as OpenSpiel bots, and OpenSpiel's own search bots on
CoToan (the CoToan paper's usability check: one MCTS and one alpha-beta
decision on fixture states)."""

import pathlib
import unittest

import numpy as np
import pyspiel
from open_spiel.python.algorithms import evaluate_bots, mcts, minimax

import stratego_lab
from stratego_lab import _core

ROOT = pathlib.Path(__file__).resolve().parents[2]
NTUPLE = ROOT / "registrations" / "ntuple-td.safetensors"
NETWORK = ROOT / "registrations" / "cpu-continue.safetensors"
TINY_NETWORK = ROOT / "registrations" / "cpu-tiny.safetensors"


class LabBots(unittest.TestCase):
    def play_one_game(self, spec, game):
        bot = stratego_lab.make_bot(spec, game, seed=1)
        self.assertIsInstance(bot, pyspiel.Bot)
        rival = pyspiel.make_uniform_random_bot(1, 7)
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), [bot, rival], np.random.RandomState(4))
        self.assertEqual(sum(returns), 0.0)
        return returns

    def test_each_kind_of_player_plays_a_game_against_openspiels_random_bot(self):
        # Every registered kind: a kind added without a spec here fails.
        specs = {
            "random": "random",
            "greedy": "greedy",
            "expectimax": "expectimax:depth=1",
            "ntuple": f"ntuple:{NTUPLE}",
            "net": f"net:{NETWORK}",
            "netsearch": f"netsearch:{TINY_NETWORK},setup=handcrafted-v2",
            "netexpectimax": f"netexpectimax:{TINY_NETWORK},depth=1,setup=handcrafted-v2",
            "netrollout": f"netrollout:{TINY_NETWORK},worlds=2,horizon=2,setup=handcrafted-v2",
            # An outside program chooses its own setup, which this game deals
            # by chance: refused here (the lab's arena plays it).
            "ucc": None,
        }
        kinds = stratego_lab.player_kinds()
        self.assertEqual([kind for kind in kinds if kind not in specs], [], "kinds without a spec in this test")
        classic = pyspiel.load_game("stratego")
        for kind in kinds:
            if specs[kind] is None:
                continue
            with self.subTest(spec=specs[kind]):
                self.play_one_game(specs[kind], classic)
        with self.assertRaisesRegex(ValueError, "chooses its own setup"):
            stratego_lab.make_bot("ucc:/bin/true", classic)

    def test_an_outside_program_plays_in_the_lab_arena_and_forfeits_what_it_fails(self):
        # A UCC program that sends a setup, then an unreadable move: the lab's
        # arena (the cluster's shards) seats it and records its forfeits.
        import stat
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            bot = pathlib.Path(tmp) / "bot"
            bot.write_text(
                "#!/bin/sh\nread colour rest\n"
                "echo FB8sB479B8; echo BB31555583; echo 6724898974; echo 967B669999\n"
                "while read line; do case \"$line\" in ??????????) echo nonsense ;; esac; done\n"
            )
            bot.chmod(bot.stat().st_mode | stat.S_IXUSR)
            match = _core.ArenaMatch(f"ucc:{bot},timeout=5", "random", games=2, rules="referee")
            games = match.play(0, 1, threads=1)
        self.assertEqual(len(games), 2)
        for _index, a_is_red, record in games:
            loser = "red" if a_is_red else "blue"
            self.assertIn(f"result {'blue' if loser == 'red' else 'red'}-wins forfeit", record)

    def test_a_searching_bot_beats_uniform_random_play(self):
        # Greedy wins nearly every game against uniform random moves: a bot
        # wired to the wrong side or frame would not.
        game = pyspiel.load_game("stratego(max-plies=1000)")
        wins = sum(self.play_one_game("greedy", game)[0] > 0 for _ in range(3))
        self.assertGreaterEqual(wins, 2)

    def test_a_bot_refuses_rules_its_tables_were_not_trained_for(self):
        with self.assertRaisesRegex(ValueError, "trained for"):
            stratego_lab.make_bot(f"ntuple:{NTUPLE}", pyspiel.load_game("stratego(pieces=barrage)"))

    def test_under_rules_without_progress_rules_a_bot_keeps_its_own(self):
        # Tables trained under the classic rules play a game without
        # the progress rules, holding their own moves to the classic ones.
        lax = pyspiel.load_game("stratego(two-square=0,chase=off)")
        bot = stratego_lab.make_bot(f"ntuple:{NTUPLE}", lax)
        self.assertEqual(bot.self_restriction, "two-square=3,chase=on")
        self.assertIsNone(stratego_lab.make_bot("greedy", pyspiel.load_game("stratego")).self_restriction)
        self.assertEqual(stratego_lab.make_bot("greedy", lax).self_restriction, "two-square=3,chase=on")
        self.play_one_game(f"ntuple:{NTUPLE}", pyspiel.load_game("stratego(two-square=0,chase=off,max-plies=300)"))

    def test_bad_specs_are_value_errors(self):
        for spec in ["nonsense", "expectimax:depth=banana", "ntuple:/no/such/file"]:
            with self.subTest(spec=spec), self.assertRaises(ValueError):
                stratego_lab.make_bot(spec)

    def test_a_bot_refuses_a_state_before_the_deals_and_after_the_end(self):
        bot = stratego_lab.make_bot("random")
        with self.assertRaises(ValueError):
            bot.step(pyspiel.load_game("stratego").new_initial_state())


def fixtures(game, **kw):
    """Nonterminal fixture states of a CoToan task, as OpenSpiel states."""
    states = [game.state_from_snapshot(s) for s in _core.cotoan_fixtures(game.settings, **kw)]
    return [s for s in states if not s.is_terminal()]


def score_margin(state, player):
    """Material captured by `player` minus the opponent's, for a heuristic search."""
    if state.is_terminal():
        return 100.0 * state.returns()[player]
    scores = state.engine_state.scores()
    return float(scores[player] - scores[1 - player])


class CoToanSearch(unittest.TestCase):
    def test_mcts_decides_on_fixtures(self):
        game = pyspiel.load_game("cotoan(horizon=40)")
        bot = mcts.MCTSBot(
            game,
            uct_c=2.0,
            max_simulations=40,
            evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0)),
            random_state=np.random.RandomState(0),
        )
        for state in fixtures(game, games=1, plies=10, synthetic=2)[:4]:
            action = bot.step(state)
            self.assertIn(action, state.legal_actions())

    def test_alpha_beta_decides_on_fixtures_and_finds_a_winning_capture(self):
        game = pyspiel.load_game("cotoan(threshold=5)")
        winning = 0
        for state in fixtures(game, seed=3, games=2, plies=30, synthetic=6):
            me = state.current_player()
            value, action = minimax.alpha_beta_search(game, state, lambda s: score_margin(s, me), 1, me)
            self.assertIn(action, state.legal_actions())
            wins = [a for a in state.legal_actions() if state.child(a).is_terminal() and state.child(a).returns()[me] > 0]
            if wins:
                winning += 1
                self.assertIn(action, wins)
                self.assertEqual(value, 1.0)  # a terminal win is its return
        self.assertGreater(winning, 0, "no fixture had a winning capture: the known-answer check never ran")


if __name__ == "__main__":
    unittest.main()
