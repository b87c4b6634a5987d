"""Both games as OpenSpiel games: registration, honest game types, OpenSpiel's
own conformance test, exact serialization, observations and their privacy."""

import contextlib
import pickle
import random
import unittest

import numpy as np
import pyspiel
from open_spiel.python.observation import make_observation

import stratego_lab
from stratego_lab import _core

# Parameter sets OpenSpiel's random_sim_test plays through.
STRATEGO_PARAMETERS = [
    "stratego",
    "stratego(pieces=barrage)",
    "stratego(setups=handcrafted,deals=64)",
    "stratego(two-square=0,chase=off,max-plies=600,max-battleless=100)",
    "stratego(pieces=barrage,setups=handcrafted,two-square=2)",
]
COTOAN_PARAMETERS = [
    "cotoan",
    "cotoan(threshold=9)",
    "cotoan(threshold=15,horizon=20,horizon-rule=draw,start=blue)",
    "cotoan(horizon=40,horizon-rule=draw,operators=add+sub)",
    "cotoan(threshold=5,operators=mul+div+mod)",
    "cotoan(operators=none,horizon=30)",
]


def play_randomly(state, rng, plies):
    """Plays up to `plies` random actions (chance ones included); returns the state."""
    for _ in range(plies):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes = [o for o, _ in state.chance_outcomes()]
            state.apply_action(rng.choice(outcomes))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def dealt(game, red=0, blue=1):
    state = game.new_initial_state()
    state.apply_action(red)
    state.apply_action(blue)
    return state


class Registration(unittest.TestCase):
    def test_importing_the_package_registers_both_games(self):
        names = pyspiel.registered_names()
        self.assertIn("stratego", names)
        self.assertIn("cotoan", names)

    def test_stratego_game_type_is_honest(self):
        t = pyspiel.load_game("stratego").get_type()
        self.assertEqual(t.dynamics, pyspiel.GameType.Dynamics.SEQUENTIAL)
        self.assertEqual(t.information, pyspiel.GameType.Information.IMPERFECT_INFORMATION)
        self.assertEqual(t.utility, pyspiel.GameType.Utility.ZERO_SUM)
        self.assertEqual(t.reward_model, pyspiel.GameType.RewardModel.TERMINAL)
        self.assertEqual(t.chance_mode, pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC)
        for key in ["pieces", "two-square", "chase", "max-plies", "max-battleless", "setups", "deals"]:
            self.assertIn(key, t.parameter_specification)

    def test_cotoan_game_type_is_honest(self):
        t = pyspiel.load_game("cotoan").get_type()
        self.assertEqual(t.information, pyspiel.GameType.Information.PERFECT_INFORMATION)
        self.assertEqual(t.chance_mode, pyspiel.GameType.ChanceMode.DETERMINISTIC)
        self.assertEqual(t.utility, pyspiel.GameType.Utility.ZERO_SUM)
        for key in ["threshold", "horizon", "horizon-rule", "operators", "start"]:
            self.assertIn(key, t.parameter_specification)

    def test_parameters_reach_the_engine(self):
        game = pyspiel.load_game("stratego(pieces=barrage,two-square=0,chase=off,max-plies=500)")
        self.assertEqual(
            game.rules,
            "stratego-rules-v1:pieces=barrage,two-square=0,chase=off,max-plies=500,max-battleless=200",
        )
        self.assertEqual(game.max_game_length(), 500)
        self.assertEqual(game.num_distinct_actions(), 1800)
        state = dealt(game)
        self.assertEqual(state.engine_state.rules(), game.rules)
        # Barrage: 8 pieces a side.
        self.assertEqual(state.observation_string(0).count("?"), 8)

    def test_each_cotoan_configuration_shows_its_task_id(self):
        a = pyspiel.load_game("cotoan")
        b = pyspiel.load_game("cotoan(threshold=9)")
        self.assertRegex(a.task_id, r"^[0-9a-f]{8}$")
        self.assertNotEqual(a.task_id, b.task_id)
        self.assertEqual(a.task_id, _core.cotoan_task_id(a.settings))
        self.assertEqual(a.new_initial_state().engine_state.task_id(), a.task_id)
        self.assertEqual(pyspiel.load_game("cotoan(operators=add+sub)").settings.split("operators=")[1][:7], "add+sub")


class OpenSpielsOwnTest(unittest.TestCase):
    def test_random_sim_test_passes_on_every_stratego_parameter_set(self):
        for text in STRATEGO_PARAMETERS:
            with self.subTest(game=text):
                pyspiel.random_sim_test(pyspiel.load_game(text), num_sims=3, serialize=True, verbose=False)

    def test_random_sim_test_passes_on_every_cotoan_parameter_set(self):
        for text in COTOAN_PARAMETERS:
            with self.subTest(game=text):
                pyspiel.random_sim_test(pyspiel.load_game(text), num_sims=3, serialize=True, verbose=False)


class StateApi(unittest.TestCase):
    def test_setups_are_two_chance_nodes_with_listed_outcomes(self):
        game = pyspiel.load_game("stratego(deals=16)")
        state = game.new_initial_state()
        for _ in range(2):
            self.assertTrue(state.is_chance_node())
            self.assertEqual(state.current_player(), pyspiel.PlayerId.CHANCE)
            outcomes = state.chance_outcomes()
            self.assertEqual([o for o, _ in outcomes], list(range(16)))
            self.assertAlmostEqual(sum(p for _, p in outcomes), 1.0)
            state.apply_action(5)
        self.assertEqual(state.current_player(), 0)
        # Deal i is the same setup for either side, and the same in every game.
        setup = _core.deal_setup("classic", "random", 5)
        again = dealt(game, 5, 5)
        self.assertEqual(again.engine_state.serialize(), state.engine_state.serialize())
        self.assertEqual(len(setup), 40)

    def test_setups_from_a_file_deal_only_its_armies(self):
        # `setups=file:PATH`: the armies a file lists, as `stratego setups search` writes them.
        import os
        import tempfile

        armies = [
            "OBOLPBFBJNGOELNLBBNSEOPJBNOECMPONLOEOCJP",
            "OEELNBFBJOBPOLNLJBNCEOPBBSGENMOONLOPOCJP",
        ]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "armies.txt")
            with open(path, "w") as f:
                f.write("# two armies\n" + "\n".join(a + "  # a comment" for a in armies) + "\n")
            dealt_armies = {_core.deal_setup("classic", f"file:{path}", i) for i in range(40)}
            self.assertEqual(dealt_armies, set(armies))
            game = pyspiel.load_game(f"stratego(setups=file:{path},deals=4,max-plies=200)")
            pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
            with self.assertRaisesRegex(Exception, "cannot read"):
                _core.deal_setup("classic", f"file:{tmp}/missing.txt", 0)

    def test_terminal_state_reports_terminal_player_and_returns(self):
        game = pyspiel.load_game("stratego(max-plies=40)")
        state = play_randomly(game.new_initial_state(), random.Random(3), 1000)
        self.assertTrue(state.is_terminal())
        self.assertEqual(state.current_player(), pyspiel.PlayerId.TERMINAL)
        self.assertEqual(sum(state.returns()), 0.0)
        self.assertEqual(state.rewards(), state.returns())
        self.assertIsNotNone(state.outcome())
        self.assertEqual(state.legal_actions(), [])

    def test_serialize_round_trips_exactly_at_every_ply(self):
        for text in ["stratego(max-plies=200)", "cotoan(threshold=9,horizon=60)"]:
            game = pyspiel.load_game(text)
            state = game.new_initial_state()
            rng = random.Random(11)
            while not state.is_terminal():
                copy = game.deserialize_state(state.serialize())
                self.assertEqual(copy.history(), state.history())
                self.assertEqual(str(copy), str(state))
                self.assertEqual(copy.legal_actions(), state.legal_actions())
                self.assertEqual(copy.current_player(), state.current_player())
                if not state.is_chance_node():
                    for p in range(2):
                        self.assertEqual(copy.observation_tensor(p), state.observation_tensor(p))
                        self.assertEqual(copy.observation_string(p), state.observation_string(p))
                    if text.startswith("stratego"):
                        self.assertEqual(copy.information_state_tensor(0), state.information_state_tensor(0))
                play_randomly(state, rng, 1)

    def test_pickle_and_clone_are_exact(self):
        game = pyspiel.load_game("stratego")
        state = play_randomly(game.new_initial_state(), random.Random(5), 60)
        engine = state.engine_state
        self.assertEqual(pickle.loads(pickle.dumps(engine)), engine)
        clone = state.clone()
        self.assertEqual(str(clone), str(state))
        clone.apply_action(clone.legal_actions()[0])
        self.assertNotEqual(str(clone), str(state))

    def test_action_strings_round_trip(self):
        for text in ["stratego", "cotoan"]:
            game = pyspiel.load_game(text)
            state = play_randomly(game.new_initial_state(), random.Random(2), 12)
            player = state.current_player()
            for a in state.legal_actions():
                self.assertEqual(state.string_to_action(state.action_to_string(player, a)), a)

    def test_history_names_actions_in_each_players_frame(self):
        game = pyspiel.load_game("stratego")
        state = dealt(game)
        red = state.legal_actions()[0]
        name = state.action_to_string(0, red)
        state.apply_action(red)
        blue = state.legal_actions()[0]
        blue_name = state.action_to_string(1, blue)
        state.apply_action(blue)
        moves = state.engine_state.serialize().split(" moves ")[1].split()
        self.assertEqual(moves, [name, blue_name])

    def test_action_ids_are_the_engines(self):
        game = pyspiel.load_game("cotoan")
        state = game.new_initial_state()
        for a in state.legal_actions():
            src, dst = divmod(a, 99)
            self.assertNotEqual(src, dst)
        self.assertEqual(game.num_distinct_actions(), 99 * 99)


class Observations(unittest.TestCase):
    def test_shapes_are_the_layouts(self):
        game = pyspiel.load_game("stratego")
        self.assertEqual(game.observation_tensor_shape(), [58, 10, 10])
        # The perfect-recall encoding: 12 header values, 12 setup planes and
        # 24 values for each of the 4,000 plies (test_conventions.py).
        self.assertEqual(game.information_state_tensor_shape(), [13 + 1200 + 24 * 4000])
        state = dealt(game)
        self.assertEqual(len(state.observation_tensor(0)), 5800)
        self.assertEqual(len(state.information_state_tensor(1)), 97213)
        cotoan = pyspiel.load_game("cotoan")
        self.assertEqual(cotoan.observation_tensor_shape(), [_core.COTOAN_OBSERVATION_LEN])

    def test_tensors_are_the_engines_planes(self):
        """observation_tensor is the compact layout; the observer parameter
        `layout=full` gives the 488 full planes."""
        game = pyspiel.load_game("stratego")
        state = play_randomly(game.new_initial_state(), random.Random(9), 80)
        engine = state.engine_state
        full = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False), {"layout": "full"})
        compact = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False), {"layout": "compact"})
        for p in range(2):
            np.testing.assert_array_equal(
                np.asarray(state.observation_tensor(p)).reshape(58, 10, 10), engine.observation(p, "compact")
            )
            compact.set_from(state, p)
            np.testing.assert_array_equal(compact.dict["planes"], engine.observation(p, "compact"))
            full.set_from(state, p)
            np.testing.assert_array_equal(full.dict["planes"], engine.observation(p, "full"))
            self.assertEqual(full.string_from(state, p), state.observation_string(p))
        cotoan = play_randomly(pyspiel.load_game("cotoan").new_initial_state(), random.Random(1), 10)
        np.testing.assert_array_equal(cotoan.observation_tensor(0), cotoan.engine_state.observation())
        self.assertEqual(cotoan.observation_tensor(0), cotoan.observation_tensor(1))

    def test_nothing_hidden_reaches_a_players_observation(self):
        """Swapping two of Blue's pieces that never moved nor fought changes
        nothing Red may know: Red's tensors and strings stay equal, while
        Blue's own information state changes (so the check can fail)."""
        game = pyspiel.load_game("stratego")
        rng = random.Random(21)
        checked = 0
        for trial in range(30):
            state = play_randomly(game.new_initial_state(), rng, rng.randrange(2, 120))
            if state.is_terminal() or state.is_chance_node():
                continue
            other = with_two_hidden_pieces_swapped(state, rng)
            if other is None:
                continue
            assert_only_blue_tells_apart(self, state, other)
            self.assertEqual(other.observation_tensor(0), state.observation_tensor(0))
            self.assertEqual(other.information_state_tensor(0), state.information_state_tensor(0))
            self.assertEqual(other.observation_string(0), state.observation_string(0))
            self.assertNotEqual(other.observation_tensor(1), state.observation_tensor(1))
            checked += 1
        self.assertGreater(checked, 10)


@contextlib.contextmanager
def loaded_game(test, text):
    """`pyspiel.load_game(text)` inside `test.subTest(game=text)`: a failure
    in the body is reported for that game, and the loop goes on."""
    with test.subTest(game=text):
        yield pyspiel.load_game(text)


def with_two_hidden_pieces_swapped(state, rng):
    """A clone of the OpenSpiel `state` whose engine state has two of Blue's
    hidden pieces exchanged (`swap_two_hidden_pieces`), or None if no pair
    can be."""
    swapped = swap_two_hidden_pieces(state.engine_state, rng)
    if swapped is None:
        return None
    other = state.clone()
    other._core = swapped
    return other


def assert_only_blue_tells_apart(test, state, other):
    """`other`, `state` with two of Blue's hidden pieces swapped, is the same
    information state for Red (who cannot tell the two apart) and another
    one for Blue."""
    test.assertEqual(other.information_state_string(0), state.information_state_string(0))
    test.assertNotEqual(other.information_state_string(1), state.information_state_string(1))


def swap_two_hidden_pieces(engine, rng):
    """The same game with two of Blue's unmoved, unrevealed pieces of
    different types exchanged in Blue's setup, or None if there are none."""
    text = engine.serialize()
    head, _, moves = text.partition(" moves ")
    fields = head.split(" ")
    rules, board = fields[0], fields[1]
    ranks = board.split("/")
    view = engine.observation_string(0).splitlines()[1:11]  # rank 10 first, as the board text
    hidden = []
    for r, line in enumerate(view):
        cells = [line[3 + 2 * c : 5 + 2 * c] for c in range(10)]
        for c, cell in enumerate(cells):
            if cell == "? " and ranks[r][c].islower():
                hidden.append((r, c))
    rng.shuffle(hidden)
    for i, (r1, c1) in enumerate(hidden):
        for r2, c2 in hidden[i + 1 :]:
            if ranks[r1][c1] != ranks[r2][c2]:
                rows = [list(rank) for rank in ranks]
                rows[r1][c1], rows[r2][c2] = rows[r2][c2], rows[r1][c1]
                fields[1] = "/".join("".join(row) for row in rows)
                swapped = " ".join(fields) + (" moves " + moves if moves else "")
                try:
                    return _core.StrategoState.deserialize(swapped, rules)
                except ValueError:
                    # The swap made some recorded move illegal (it can only if
                    # the piece moved): try another pair.
                    continue
    return None


if __name__ == "__main__":
    unittest.main()
