"""OpenSpiel's conventions, kept exactly: history lengths and chance nodes,
information-state tensors that identify the information state (perfect
recall), honest game types, snapshot states that carry their position, and
game strings that lose no parameter."""

import hashlib
import math
import random
import unittest

import numpy as np
import pyspiel
from open_spiel.python import rl_environment
from open_spiel.python.observation import make_observation

import stratego_lab
from stratego_lab import _core
from stratego_lab.games import GAME_NAMES, check_game_string

from test_openspiel import (
    assert_only_blue_tells_apart,
    dealt,
    loaded_game,
    play_randomly,
    with_two_hidden_pieces_swapped,
)

INFO_STATE = pyspiel.IIGObservationType(perfect_recall=True)
OBSERVATION = pyspiel.IIGObservationType(perfect_recall=False)


def playout(state, rng):
    """Plays `state` to its end at random; returns every state passed
    through (clones), the last one terminal."""
    states = [state.clone()]
    while not state.is_terminal():
        play_randomly(state, rng, 1)
        states.append(state.clone())
    return states


def information_state_size(max_plies):
    """player 2 + dealt 2 + outcome 9 + setup 12x100 + 24 per ply."""
    return 2 + 2 + 9 + 1200 + 24 * max_plies


class HistoryLengths(unittest.TestCase):
    """`max_chance_nodes_in_history` is the true count, so that every
    history fits `max_history_length()`."""

    GAMES = [
        ("stratego(max-plies=1)", 2, 8),
        ("stratego(max-plies=7,pieces=barrage)", 2, 8),
        ("stratego(max-plies=60,deals=3)", 2, 6),
        ("stratego(pieces=barrage,max-plies=300,setups=handcrafted)", 2, 4),
        ("stratego", 2, 2),
        ("cotoan(horizon=12)", 0, 6),
        ("cotoan(threshold=9,horizon=40)", 0, 4),
        ("cotoan", 0, 2),
    ]

    def test_every_history_fits_and_the_chance_count_is_reached(self):
        rng = random.Random(61)
        for text, chance_nodes, playouts in self.GAMES:
            with loaded_game(self, text) as game:
                self.assertEqual(game.max_chance_nodes_in_history(), chance_nodes)
                self.assertEqual(game.max_history_length(), game.max_game_length() + chance_nodes)
                self.assertEqual(game.max_move_number(), game.max_game_length() + chance_nodes)
                longest = 0
                for _ in range(playouts):
                    state = game.new_initial_state()
                    while True:
                        self.assertLessEqual(len(state.history()), game.max_history_length())
                        if state.is_terminal():
                            break
                        play_randomly(state, rng, 1)
                    longest = max(longest, len(state.history()))
                    chances = sum(1 for item in state.full_history() if item.player == pyspiel.PlayerId.CHANCE)
                    # Every Stratego game deals both setups; no CoToan game has chance.
                    self.assertEqual(chances, chance_nodes)
                if game.max_game_length() == 1:
                    # The case: two deals and one move, all of max_history_length.
                    self.assertEqual(longest, 3)
                    self.assertEqual(game.max_history_length(), 3)


class InformationStateTensor(unittest.TestCase):
    """The information-state tensor identifies the information state: for
    a player, two states' tensors are equal exactly when their
    information-state strings are."""

    def assert_identifies(self, pairs, name):
        """`pairs` is [(string, tensor)] digests for one player: equal strings
        must come with equal tensors and equal tensors with equal strings."""
        by_string, by_tensor = {}, {}
        for string, tensor in pairs:
            self.assertEqual(by_string.setdefault(string, tensor), tensor, f"{name}: one string, two tensors")
            self.assertEqual(by_tensor.setdefault(tensor, string), string, f"{name}: one tensor, two strings")
        return len(by_string)

    def collect(self, game, states, recorded):
        """Adds (string, tensor) digests for both players of each state to
        `recorded`, through OpenSpiel's observer for the information state,
        and checks a few against the State API's own calls."""
        observer = make_observation(game, INFO_STATE)
        for i, state in enumerate(states):
            for p in range(2):
                observer.set_from(state, p)
                string = observer.string_from(state, p)
                recorded[p].append((digest(string.encode()), digest(observer.tensor.tobytes())))
                if i % 50 == 0:
                    self.assertEqual(string, state.information_state_string(p))
                    self.assertEqual(state.information_state_tensor(p), observer.tensor.tolist())

    def test_equal_strings_if_and_only_if_equal_tensors_over_random_playouts(self):
        """Few deals, so setups repeat; hidden pieces swapped, so different
        states share one player's information state; both players."""
        for text, games in [
            ("stratego(deals=2,max-plies=60)", 12),
            ("stratego(pieces=barrage,deals=3,max-plies=120)", 12),
            ("stratego(deals=4,max-plies=400,max-battleless=60)", 4),
        ]:
            with loaded_game(self, text) as game:
                rng = random.Random(77)
                recorded = [[], []]
                shared = 0
                for _ in range(games):
                    states = playout(game.new_initial_state(), rng)
                    self.collect(game, states, recorded)
                    for state in rng.sample(states[2:], min(8, len(states) - 2)):
                        if state.is_terminal():
                            continue
                        other = with_two_hidden_pieces_swapped(state, rng)
                        if other is None:
                            continue
                        assert_only_blue_tells_apart(self, state, other)
                        self.collect(game, [other], recorded)
                        shared += 1
                for p in range(2):
                    distinct = self.assert_identifies(recorded[p], f"{text}, player {p}")
                    # Information states repeat (the test can fail both ways).
                    self.assertLess(distinct, len(recorded[p]))
                self.assertGreater(shared, 10)

    def test_transposed_move_orders_stay_apart(self):
        """The same four moves in two orders reach one position with two
        histories; the same 40 plies after that keep both players' tensors
        apart, as their strings are. The full 488-plane layout, a windowed
        history, does not: it is an observation."""
        game = pyspiel.load_game("stratego")
        info = make_observation(game, INFO_STATE)
        full = make_observation(game, OBSERVATION, {"layout": "full"})
        rng = random.Random(5)
        cases = windowed_equal = 0
        for seed in range(40):
            pair = transposed_pair(game, random.Random(seed))
            if pair is None:
                continue
            a, b = pair
            cases += 1
            full_met = False
            for ply in range(41):
                for p in range(2):
                    self.assertNotEqual(a.information_state_string(p), b.information_state_string(p))
                    info.set_from(a, p)
                    first = info.tensor.copy()
                    info.set_from(b, p)
                    self.assertFalse(np.array_equal(first, info.tensor), f"case {cases}, ply {ply}, player {p}")
                    full.set_from(a, p)
                    first = full.tensor.copy()
                    full.set_from(b, p)
                    full_met = full_met or np.array_equal(first, full.tensor)
                if a.is_terminal() or ply == 40:
                    break
                action = rng.choice(a.legal_actions())
                if action not in b.legal_actions():
                    break
                a.apply_action(action)
                b.apply_action(action)
            windowed_equal += full_met
            if cases == 5:
                break
        self.assertEqual(cases, 5)
        # The full layout's window is 32 plies: it forgets the transposition.
        self.assertGreater(windowed_equal, 0)

    def test_shapes_match_and_the_game_types_are_truthful(self):
        for text, max_plies in [
            ("stratego", 4000),
            ("stratego(pieces=barrage,max-plies=1)", 1),
            ("stratego(max-plies=300)", 300),
        ]:
            with loaded_game(self, text) as game:
                kind = game.get_type()
                self.assertTrue(kind.provides_information_state_tensor)
                self.assertTrue(kind.provides_information_state_string)
                self.assertTrue(kind.provides_observation_tensor)
                self.assertTrue(kind.provides_observation_string)
                size = information_state_size(max_plies)
                self.assertEqual(game.information_state_tensor_shape(), [size])
                self.assertEqual(game.information_state_tensor_size(), size)
                observer = make_observation(game, INFO_STATE)
                self.assertEqual(
                    {name: list(part.shape) for name, part in observer.dict.items()},
                    {"player": [2], "dealt": [2], "outcome": [9], "setup": [12, 10, 10], "plies": [max_plies, 24]},
                )
                for state in playout(game.new_initial_state(), random.Random(3))[:: max(1, max_plies // 20)]:
                    for p in range(2):
                        self.assertEqual(len(state.information_state_tensor(p)), size)
                        self.assertEqual(len(state.observation_tensor(p)), math.prod(game.observation_tensor_shape()))

    def test_the_tensor_reads_back_as_the_record(self):
        """The sections hold what infostate.rs documents: the own setup by
        type, the mover, both squares in the player's frame, and the types a
        battle revealed (read against the string's letters)."""
        game = pyspiel.load_game("stratego(max-plies=300)")
        state = play_randomly(game.new_initial_state(), random.Random(8), 250)
        observer = make_observation(game, INFO_STATE)
        moves = state.engine_state.serialize().split(" moves ")[1].split()
        for p in range(2):
            observer.set_from(state, p)
            self.assertEqual(observer.dict["player"].tolist(), [1.0 - p, float(p)])
            self.assertEqual(observer.dict["dealt"].tolist(), [1.0, 1.0])
            lines = state.information_state_string(p).splitlines()
            # The setup line, `Red setup: Fa1 Bb1 ...`, gives each letter's plane.
            planes = {}
            for item in lines[0].split()[2:]:
                square = square_index(item[1:])
                cell = square if p == 0 else 99 - square
                plane = int(np.flatnonzero(observer.dict["setup"].reshape(12, 100)[:, cell])[0])
                self.assertEqual(planes.setdefault(item[0], plane), plane)
            self.assertEqual(int(observer.dict["setup"].sum()), 40)
            rows = observer.dict["plies"]
            self.assertEqual(int(rows[:, 0].sum()), len(moves))
            battles = 0
            for i, move in enumerate(moves):
                row = rows[i]
                self.assertEqual(row[1], float(i % 2 == p))
                frm, to = bits(row[2:9]), bits(row[9:16])
                if p == 1:
                    frm, to = 99 - frm, 99 - to
                self.assertEqual(square_name(frm) + "-" + square_name(to), move.replace("x", "-"))
                line = lines[1 + i]
                if " attacks " in line:
                    battles += 1
                    attacker, defender = line.split(" attacks ")
                    attacker, defender = attacker[-1], defender[0]
                    for letter, code in [(attacker, bits(row[16:20])), (defender, bits(row[20:24]))]:
                        if letter in planes:
                            self.assertEqual(code - 1, planes[letter])
                        self.assertGreater(code, 0)
                else:
                    self.assertEqual(bits(row[16:24]), 0)
            self.assertGreater(battles, 0)

    def test_openspiels_rl_environment_reads_the_declared_tensors(self):
        """OpenSpiel's RL environment takes the information-state tensor
        wherever the game type declares one, else the observation tensor."""
        for text, size in [
            ("stratego(max-plies=40)", information_state_size(40)),
            ("cotoan(horizon=30)", _core.COTOAN_OBSERVATION_LEN),
        ]:
            with self.subTest(game=text):
                env = rl_environment.Environment(text, chance_event_sampler=rl_environment.ChanceEventSampler(seed=2))
                self.assertEqual(env.use_observation, text.startswith("cotoan"))
                self.assertEqual(env.observation_spec()["info_state"], (size,))
                rng = random.Random(2)
                step = env.reset()
                while not step.last():
                    for p in range(2):
                        self.assertEqual(len(step.observations["info_state"][p]), size)
                    player = step.observations["current_player"]
                    step = env.step([rng.choice(step.observations["legal_actions"][player])])
                for p in range(2):
                    self.assertEqual(len(step.observations["info_state"][p]), size)

    def test_a_longer_cap_declares_no_tensor(self):
        limit = stratego_lab.games.MAX_INFORMATION_STATE_PLIES
        game = pyspiel.load_game(f"stratego(max-plies={limit + 1})")
        self.assertFalse(game.get_type().provides_information_state_tensor)
        self.assertTrue(game.get_type().provides_information_state_string)
        state = dealt(game)
        self.assertIn("setup", state.information_state_string(0))
        with self.assertRaisesRegex(pyspiel.SpielError, "max-plies"):
            state.information_state_tensor(0)
        with self.assertRaisesRegex(pyspiel.SpielError, "information_state_tensor"):
            game.information_state_tensor_shape()
        self.assertTrue(pyspiel.load_game(f"stratego(max-plies={limit})").get_type().provides_information_state_tensor)


def transposed_pair(game, rng):
    """Two states with one position and two histories: Red's moves a and b
    around Blue's x, then Blue's y, as a x b y and as b x a y; None if no
    such four moves were found quickly."""
    base = play_randomly(dealt(game, rng.randrange(1024), rng.randrange(1024)), rng, 2 * rng.randrange(4, 20))
    if base.is_terminal():
        return None
    for _ in range(200):
        red = base.legal_actions()
        a, b = rng.sample(red, 2) if len(red) > 1 else (red[0], red[0])
        if a == b:
            continue
        first, second = base.clone(), base.clone()
        try:
            first.apply_action(a)
            x = rng.choice(first.legal_actions())
            first.apply_action(x)
            first.apply_action(b)
            y = rng.choice(first.legal_actions())
            first.apply_action(y)
            for action in (b, x, a, y):
                second.apply_action(action)
        except (ValueError, IndexError):
            continue
        # No battle (it would differ by order) and one position for both.
        if any("attacks" in line for line in first.information_state_string(0).splitlines()[-4:]):
            continue
        if all(first.observation_string(p) == second.observation_string(p) for p in range(2)):
            if not first.is_terminal():
                return first, second
    return None


def bits(values):
    return sum(int(v) << i for i, v in enumerate(values))


def square_name(index):
    return "abcdefghij"[index % 10] + str(index // 10 + 1)


def square_index(name):
    return "abcdefghij".index(name[0]) + 10 * (int(name[1:]) - 1)


def digest(data):
    return hashlib.sha256(data).digest()


class InformationStateAfterOwnDeal(unittest.TestCase):
    def test_a_players_own_setup_deal_enters_its_information_state(self):
        game = pyspiel.load_game("stratego(deals=8)")
        root = game.new_initial_state()
        red_dealt = root.child(3)
        both = red_dealt.child(5)
        setup = _core.deal_setup("classic", "random", 3)
        for p in range(2):
            # Every stage is a different information state for each player.
            strings = [s.information_state_string(p) for s in (root, red_dealt, both)]
            self.assertEqual(len(set(strings)), 3)
            tensors = [tuple(s.information_state_tensor(p)) for s in (root, red_dealt, both)]
            self.assertEqual(len(set(tensors)), 3)
        self.assertEqual(root.information_state_string(0), "player 0: setups being dealt")
        red_view = red_dealt.information_state_string(0)
        self.assertTrue(red_view.startswith("red setup: "), red_view)
        letters = sorted(item[0] for item in red_view.splitlines()[0].split()[2:])
        self.assertEqual(letters, sorted(setup.replace(".", "")))
        observer = make_observation(game, INFO_STATE)
        observer.set_from(red_dealt, 0)
        self.assertEqual(int(observer.dict["setup"].sum()), 40)
        self.assertEqual(observer.dict["dealt"].tolist(), [1.0, 0.0])
        # Blue learns only that Red's setup was dealt, never what it is.
        observer.set_from(red_dealt, 1)
        self.assertEqual(int(observer.dict["setup"].sum()), 0)
        self.assertEqual(red_dealt.information_state_string(1), root.child(4).information_state_string(1))
        self.assertEqual(red_dealt.information_state_tensor(1), root.child(4).information_state_tensor(1))
        # Red's own setup, the same in the first line once Blue's is dealt too.
        self.assertEqual(both.information_state_string(0).splitlines()[0], red_view.splitlines()[0])
        # Red cannot tell Blue's deals apart.
        self.assertEqual(both.information_state_string(0), red_dealt.child(6).information_state_string(0))
        self.assertEqual(both.information_state_tensor(0), red_dealt.child(6).information_state_tensor(0))

    def test_the_outcome_enters_the_information_state(self):
        game = pyspiel.load_game("stratego(max-plies=30)")
        state = play_randomly(game.new_initial_state(), random.Random(4), 1000)
        self.assertTrue(state.is_terminal())
        for p in range(2):
            self.assertTrue(state.information_state_string(p).endswith("game over: " + state.outcome()))
        observer = make_observation(game, INFO_STATE)
        observer.set_from(state, 0)
        outcome = observer.dict["outcome"]
        self.assertEqual(outcome[0], 1.0)
        reason = state.outcome().split()[1]
        self.assertEqual(outcome[3 + list(stratego_lab.END_REASONS).index(reason)], 1.0)

    def test_cotoan_declares_and_provides_no_information_state_tensor(self):
        game = pyspiel.load_game("cotoan")
        self.assertFalse(game.get_type().provides_information_state_tensor)
        self.assertTrue(game.get_type().provides_information_state_string)
        state = game.new_initial_state()
        for p in range(2):
            with self.assertRaisesRegex(pyspiel.SpielError, "cotoan provides no information_state_tensor"):
                state.information_state_tensor(p)
        with self.assertRaises(pyspiel.SpielError):
            game.information_state_tensor_shape()
        self.assertIsNone(make_observation(game, INFO_STATE).tensor)
        self.assertEqual(len(state.observation_tensor(0)), _core.COTOAN_OBSERVATION_LEN)


class CoToanSnapshots(unittest.TestCase):
    def test_snapshot_states_carry_their_position_into_the_information_state(self):
        game = pyspiel.load_game("cotoan(threshold=9)")
        # Each replayed game starts at the task's start: repeats are in the list.
        snapshots = _core.cotoan_fixtures(game.settings, seed=3, games=3, plies=12, synthetic=8)
        self.assertLess(len(set(snapshots)), len(snapshots))
        for p in range(2):
            strings = {}
            for text in snapshots:
                strings.setdefault(text, set()).add(game.state_from_snapshot(text).information_state_string(p))
            # One string per position, a different one for each position.
            self.assertTrue(all(len(found) == 1 for found in strings.values()))
            self.assertEqual(len({found.pop() for found in strings.values()}), len(strings))
        # The task's start read as a snapshot is the root's information state.
        start = game.new_initial_state()
        again = game.state_from_snapshot(str(start))
        self.assertEqual(again.information_state_string(0), start.information_state_string(0))
        # A later position carries its board, and keeps it as play goes on,
        # through clones and serialization.
        text = next(t for t in snapshots if t != str(start) and not game.state_from_snapshot(t).is_terminal())
        state = game.state_from_snapshot(text)
        self.assertTrue(state.information_state_string(0).startswith(text + " "))
        child = state.child(state.legal_actions()[0])
        self.assertTrue(child.information_state_string(1).startswith(text + " "))
        copy = game.deserialize_state(child.serialize())
        self.assertEqual(copy.information_state_string(0), child.information_state_string(0))
        self.assertEqual(child.clone().information_state_string(1), child.information_state_string(1))


class GameStrings(unittest.TestCase):
    BAD = [
        ("{g}({a},{a2})", "given twice"),
        ("{g}(=)", "no parameter name"),
        ("{g}({a},)", "no parameter name"),
        ("{g}(,{a})", "no parameter name"),
        ("{g}({a},=x)", "no parameter name"),
    ]
    PARAMETER = {"stratego": ("pieces=classic", "pieces=barrage"), "cotoan": ("threshold=5", "threshold=9")}

    def test_duplicated_and_nameless_parameters_are_refused(self):
        for name in GAME_NAMES:
            a, a2 = self.PARAMETER[name]
            for pattern, words in self.BAD:
                text = pattern.format(g=name, a=a, a2=a2)
                for load in (pyspiel.load_game, stratego_lab.load_game):
                    with self.subTest(game=text):
                        # Both OpenSpiel's error and the lab's ValueError.
                        with self.assertRaisesRegex(pyspiel.SpielError, words):
                            load(text)
                        with self.assertRaisesRegex(ValueError, words):
                            load(text)

    def test_good_strings_load_as_before(self):
        self.assertEqual(pyspiel.load_game("stratego()").rules, pyspiel.load_game("stratego").rules)
        self.assertEqual(pyspiel.load_game("stratego(pieces=barrage)").pieces, "barrage")
        by_dict = pyspiel.load_game("cotoan", {"threshold": 9})
        self.assertEqual(by_dict.task_id, pyspiel.load_game("cotoan(threshold=9)").task_id)
        self.assertEqual(pyspiel.load_game("tic_tac_toe").num_players(), 2)
        with self.assertRaisesRegex(pyspiel.SpielError, "Unknown parameter"):
            pyspiel.load_game("stratego(colour=red)")

    def test_nested_game_strings_are_checked_too(self):
        with self.assertRaisesRegex(stratego_lab.GameStringError, "given twice"):
            check_game_string("turn_based_simultaneous_game(game=stratego(chase=on,chase=off))")
        check_game_string("turn_based_simultaneous_game(game=stratego(chase=on))")
        # Other games' lists are OpenSpiel's business.
        check_game_string("kuhn_poker(players=2,players=3)")


if __name__ == "__main__":
    unittest.main()
