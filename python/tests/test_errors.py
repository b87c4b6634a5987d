"""Bad input at every Python entry point: a Python exception carrying the
engine's message, never a crash of the interpreter. What reaches the lab's
code is a ValueError; OpenSpiel's own framing checks (an unknown parameter
name, action id -1, a serialization without its three lines) raise
pyspiel.SpielError before anything of ours runs."""

import base64
import pickle
import unittest

import pyspiel

import stratego_lab  # noqa: F401 - registers the games
from stratego_lab import _core


class Parameters(unittest.TestCase):
    def test_bad_values_are_value_errors_with_the_engines_message(self):
        cases = {
            "stratego(pieces=checkers)": "pieces",
            "stratego(two-square=99)": "largest supported limit 15",
            "stratego(chase=maybe)": "not on or off",
            "stratego(max-plies=0)": "max-plies",
            "stratego(setups=clever)": "random",
            "stratego(deals=0)": "deals",
            "cotoan(threshold=99)": "threshold",
            "cotoan(operators=pow)": "operators",
            "cotoan(horizon-rule=coin)": "horizon-rule",
            "cotoan(start=green)": "start",
            "cotoan(horizon=0)": "horizon",
        }
        for text, words in cases.items():
            with self.subTest(game=text), self.assertRaisesRegex(ValueError, words):
                pyspiel.load_game(text)

    def test_unknown_parameter_names_are_openspiels_error(self):
        with self.assertRaisesRegex(pyspiel.SpielError, "Unknown parameter 'colour'"):
            pyspiel.load_game("stratego(colour=red)")

    def test_the_games_refuse_unknown_parameters_themselves_too(self):
        with self.assertRaisesRegex(ValueError, "unknown stratego parameter"):
            stratego_lab.StrategoGame({"colour": "red"})
        with self.assertRaisesRegex(ValueError, "unknown settings key"):
            stratego_lab.CoToanGame({"colour": "red"})


class Actions(unittest.TestCase):
    def setUp(self):
        self.game = pyspiel.load_game("stratego")
        self.state = self.game.new_initial_state()

    def test_bad_deals_are_value_errors(self):
        for deal in [1024, 10**9]:
            with self.subTest(deal=deal), self.assertRaisesRegex(ValueError, "chance outcomes"):
                self.state.clone().apply_action(deal)

    def test_bad_and_illegal_moves_are_value_errors_and_change_nothing(self):
        self.state.apply_action(0)
        self.state.apply_action(1)
        before = self.state.serialize()
        illegal = next(a for a in range(1800) if a not in self.state.legal_actions())
        for action, words in [(1800, "outside the action space"), (10**6, "outside"), (illegal, "illegal move")]:
            with self.subTest(action=action), self.assertRaisesRegex(ValueError, words):
                self.state.apply_action(action)
        self.assertEqual(self.state.serialize(), before)
        with self.assertRaises(pyspiel.SpielError):
            self.state.apply_action(-1)  # OpenSpiel's kInvalidAction check
        with self.assertRaisesRegex(ValueError, "illegal move"):
            self.state.engine_state.string_to_action("a1-a2")
        with self.assertRaisesRegex(ValueError, "move"):
            self.state.engine_state.string_to_action("castle")

    def test_cotoan_bad_actions(self):
        state = pyspiel.load_game("cotoan").new_initial_state()
        for action in [9801, 0]:
            with self.subTest(action=action), self.assertRaises(ValueError):
                state.apply_action(action)


class ActionTexts(unittest.TestCase):
    """`action_to_string` of an id outside the actions, or of a player who
    does not act, raises instead of printing `Action(id=..., player=...)`,
    on the game and on a state, for both games."""

    def test_out_of_range_ids_and_players_raise(self):
        stratego = pyspiel.load_game("stratego")
        cotoan = pyspiel.load_game("cotoan")
        started = stratego.new_initial_state()
        started.apply_action(0)
        started.apply_action(1)
        owners = [
            (stratego, stratego.num_distinct_actions()),
            (started, stratego.num_distinct_actions()),
            (cotoan, cotoan.num_distinct_actions()),
            (cotoan.new_initial_state(), cotoan.num_distinct_actions()),
        ]
        for owner, actions in owners:
            for player, action in [(0, -1), (0, actions), (1, 10**6), (5, 0), (2, 0)]:
                with self.subTest(owner=type(owner).__name__, player=player, action=action):
                    with self.assertRaises((ValueError, pyspiel.SpielError)):
                        owner.action_to_string(player, action)
            self.assertTrue(owner.action_to_string(0, 0))
        with self.assertRaisesRegex(ValueError, "chance outcomes"):
            stratego.action_to_string(pyspiel.PlayerId.CHANCE, 10**6)
        self.assertEqual(stratego.action_to_string(pyspiel.PlayerId.CHANCE, 3), "setup deal 3")

    def test_a_states_chance_texts_name_only_deals(self):
        # A state printed any chance id, before the deals and after them.
        state = pyspiel.load_game("stratego").new_initial_state()
        self.assertEqual(state.action_to_string(pyspiel.PlayerId.CHANCE, 5), "Red setup deal 5")
        state.apply_action(3)
        self.assertEqual(state.action_to_string(pyspiel.PlayerId.CHANCE, 5), "Blue setup deal 5")
        state.apply_action(4)
        # After the deals (a history printed later), the game's text.
        self.assertEqual(state.action_to_string(pyspiel.PlayerId.CHANCE, 3), "setup deal 3")
        for deal in [-1, 1024, 10**9, -(2**62)]:
            with self.subTest(deal=deal), self.assertRaisesRegex(ValueError, "outside the chance outcomes"):
                state.action_to_string(pyspiel.PlayerId.CHANCE, deal)


class NoSilentAnswers(unittest.TestCase):
    """Inputs that used to return something instead of raising: each is
    refused now, with a message saying what is wrong."""

    def setUp(self):
        self.stratego = pyspiel.load_game("stratego")
        self.cotoan = pyspiel.load_game("cotoan")
        self.state = self.stratego.new_initial_state()
        for action in [0, 1]:
            self.state.apply_action(action)

    def test_a_resampling_sampler_must_give_floats_in_the_unit_interval(self):
        player = self.state.current_player()
        for value in [1.0, 2.0, -0.5, float("nan"), float("inf"), True, "x", None]:
            with self.subTest(value=value), self.assertRaisesRegex(ValueError, r"not a float in \[0, 1\)"):
                self.state.resample_from_infostate(player, lambda value=value: value)
        # Before the deals too: Blue's resample draws Red's deal.
        dealing = self.stratego.new_initial_state()
        dealing.apply_action(0)
        with self.assertRaisesRegex(ValueError, "not a float"):
            dealing.resample_from_infostate(1, lambda: 1.0)
        for state in [self.state, self.cotoan.new_initial_state()]:
            for sampler in [None, 0.5, "uniform"]:
                with self.subTest(state=type(state).__name__, sampler=sampler):
                    with self.assertRaisesRegex(TypeError, "must be callable"):
                        state.resample_from_infostate(0, sampler)
            with self.assertRaisesRegex(ValueError, "is not 0 .Red. or 1 .Blue."):
                state.resample_from_infostate(2, lambda: 0.5)

    def test_bot_seeds_are_the_lab_players_seeds_in_both_games(self):
        for game in [self.stratego, self.cotoan]:
            for seed in [None, -1, 2**64, 1.5, "1", True]:
                with self.subTest(game=str(game), seed=seed), self.assertRaisesRegex(ValueError, "a bot seed is"):
                    stratego_lab.make_bot("random", game, seed)
            stratego_lab.make_bot("random", game, 2**64 - 1)

    def test_cotoan_seeds_use_all_64_bits(self):
        # numpy's RandomState takes 32-bit seeds; two seeds that differ only
        # above bit 32 must still give different bots.
        state = self.cotoan.new_initial_state()
        moves = []
        for seed in [5, 5 + 2**32]:
            bot = stratego_lab.make_bot("random", self.cotoan, seed)
            moves.append([bot.step(state) for _ in range(20)])
        self.assertNotEqual(moves[0], moves[1])

    def test_specs_with_nothing_after_the_colon_or_empty_entries_are_refused(self):
        # CoToan's bot specs: test_algorithms.CoToanBots.
        for spec, message in [
            ("random:", "nothing after"),
            ("expectimax: ", "nothing after"),
            ("expectimax:,depth=2", "not of the form key=value"),
        ]:
            with self.subTest(spec=spec), self.assertRaisesRegex(ValueError, message):
                stratego_lab.make_bot(spec, self.stratego, 0)

    def test_deals_beyond_the_largest_game_are_refused(self):
        last = stratego_lab.games.MAX_DEALS - 1
        self.assertEqual(len(_core.deal_setup("classic", "random", last)), 40)
        for index in [last + 1, 10**12, 2**64 - 1]:
            with self.subTest(index=index), self.assertRaisesRegex(ValueError, "is not one of the deals"):
                _core.deal_setup("classic", "handcrafted", index)

    def test_fixture_requests_are_bounded_before_any_work(self):
        settings = self.cotoan.settings
        with self.assertRaisesRegex(ValueError, "at most 200000 are drawn"):
            _core.cotoan_fixtures(settings, games=10000, plies=10000, synthetic=10000)
        self.assertTrue(_core.cotoan_fixtures(settings, games=1, plies=3, synthetic=1))


class OtherGamesStates(unittest.TestCase):
    """A serialized state of another game, task or ruleset is refused, where
    OpenSpiel restored its attributes into a state of the game asked; and a
    bot is made only for one of the package's games."""

    def test_a_state_of_another_game_is_refused(self):
        stratego, cotoan = pyspiel.load_game("stratego"), pyspiel.load_game("cotoan")
        state = stratego.new_initial_state()
        for action in [0, 3]:
            state.apply_action(action)
        state.apply_action(state.legal_actions()[0])
        position = cotoan.new_initial_state()
        position.apply_action(position.legal_actions()[0])
        self.assertEqual(stratego.deserialize_state(state.serialize()).serialize(), state.serialize())
        self.assertEqual(cotoan.deserialize_state(position.serialize()).serialize(), position.serialize())
        for game, text in [
            (stratego, position.serialize()),
            (cotoan, state.serialize()),
            (pyspiel.load_game("stratego(pieces=barrage)"), state.serialize()),
            (pyspiel.load_game("cotoan(horizon=100)"), position.serialize()),
        ]:
            with self.subTest(game=str(game)), self.assertRaisesRegex(ValueError, "not a serialized state of"):
                game.deserialize_state(text)

    def test_a_bot_needs_one_of_our_games(self):
        for game in ["stratego", pyspiel.load_game("tic_tac_toe")]:
            with self.subTest(game=str(game)), self.assertRaisesRegex(ValueError, "needs a stratego or cotoan game"):
                stratego_lab.make_bot("random", game)


class SerializedStates(unittest.TestCase):
    def test_a_broken_frame_is_openspiels_error(self):
        game = pyspiel.load_game("stratego")
        for text in ["garbage", "history=1,2\nmove_number=2\n"]:
            with self.subTest(text=text), self.assertRaises(pyspiel.SpielError):
                game.deserialize_state(text)

    def test_a_corrupt_engine_state_inside_the_frame_is_a_value_error(self):
        game = pyspiel.load_game("stratego")
        state = game.new_initial_state()
        state.apply_action(0)
        state.apply_action(1)
        good = state.serialize()
        head, _, encoded = good.rpartition("__dict__=")
        attributes = pickle.loads(base64.b64decode(encoded))
        text = attributes["_core"].serialize()
        bad = pickle.dumps({**attributes, "_core": _Restore(text.replace("moves", "").replace(" red ", " purple "))})
        with self.assertRaises(ValueError):
            game.deserialize_state(head + "__dict__=" + base64.b64encode(bad).decode())

    def test_engine_texts_are_checked(self):
        with self.assertRaises(ValueError):
            _core.StrategoState.deserialize("stratego-rules-v1:nonsense")
        classic = pyspiel.load_game("stratego").new_initial_state()
        classic.apply_action(0)
        classic.apply_action(1)
        text = classic.engine_state.serialize()
        with self.assertRaisesRegex(ValueError, "mismatch"):
            _core.StrategoState.deserialize(text, "barrage")
        cotoan = pyspiel.load_game("cotoan(threshold=9)")
        snapshot = pyspiel.load_game("cotoan").new_initial_state().engine_state.serialize()
        with self.assertRaisesRegex(ValueError, "mismatch"):
            cotoan.state_from_snapshot(snapshot)
        for bad in ["", "a b c d", snapshot.replace(" red ", " purple ")]:
            with self.subTest(snapshot=bad), self.assertRaises(ValueError):
                _core.CoToanState.deserialize(bad)

    def test_setups_and_players_are_checked(self):
        with self.assertRaisesRegex(ValueError, "setup"):
            _core.StrategoState.from_setups("classic", "F" * 40, "F" * 40)
        state = pyspiel.load_game("stratego").new_initial_state()
        state.apply_action(0)
        state.apply_action(1)
        for player in [2, -1]:
            with self.subTest(player=player), self.assertRaisesRegex(ValueError, "player"):
                state.engine_state.observation(player, "compact")
        with self.assertRaisesRegex(ValueError, "layout"):
            state.engine_state.observation(0, "tiny")

    def test_an_unsupported_observation_type_is_a_value_error(self):
        game = pyspiel.load_game("stratego")
        public = pyspiel.IIGObservationType(
            perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
        )
        with self.assertRaisesRegex(ValueError, "one player's view"):
            game.make_py_observer(public)


class _Restore:
    """Pickles as the engine state's own restore call with a given text."""

    def __init__(self, text):
        self.text = text

    def __reduce__(self):
        return (_core.StrategoState.deserialize, (self.text,))


if __name__ == "__main__":
    unittest.main()
