"""A sweep of bad input over the package's entry points, for both games:
parameters (strings and dictionaries, through OpenSpiel and the game
classes), action ids and texts for every kind of player, players out of
range, resampling samplers, serializations of the wrong kind, deals,
`VecEnv` sizes and actions, bot specs and seeds.

Every case must raise a Python exception (never return, never crash the
interpreter, never take more than a few seconds). test_errors.py checks the
messages kind by kind; this file checks that nothing answers silently. What
answers on purpose is listed in docs/PYTHON.md ("Bad input")."""

import signal
import unittest

import numpy as np
import pyspiel

import stratego_lab
from stratego_lab import CoToanGame, StrategoGame, VecEnv, _core, make_bot

#: What a refusal may be: ours (ValueError, TypeError; OverflowError from a
#: number too large for the engine's integers) or OpenSpiel's own checks.
REFUSALS = (ValueError, TypeError, OverflowError, pyspiel.SpielError)

#: Seconds any one case may take before it counts as a hang.
LIMIT_S = 20

GAMES = {"stratego": pyspiel.load_game("stratego"), "cotoan": pyspiel.load_game("cotoan")}

BAD_IDS = [-1, -2, 10**9, 2**31, 2**62, -(2**62)]


def _started(game):
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    return state


def parameter_cases():
    values = {
        "stratego": {
            "pieces": ["", "nope", 0, "CLASSIC ", "classic,"],
            "two-square": [-1, 1000, "x", 1.5, ""],
            "chase": ["maybe", 2, "", "ON!"],
            "max-plies": [-1, 0, 10**12, "x", 1.5],
            "max-battleless": [-1, 0, 10**12, "x"],
            "setups": ["nope", "", 0],
            "deals": [-1, 0, 10**12, "x", 1.5],
        },
        "cotoan": {
            "threshold": [-1, 10**12, "x", 1.5, ""],
            "horizon": [-1, 0, 10**12, "x"],
            "horizon-rule": ["nope", "", 3],
            "operators": ["", "nope", "++", "x,y", "+,+"],
            "start": ["", "nope", -1, 10**12],
        },
    }
    cls = {"stratego": StrategoGame, "cotoan": CoToanGame}
    for name, keys in values.items():
        for key, bad in keys.items():
            for value in bad:
                text = f"{name}({key}={value})"
                yield f"pyspiel.load_game {text}", lambda t=text: pyspiel.load_game(t)
                yield f"stratego_lab.load_game {text}", lambda t=text: stratego_lab.load_game(t)
                yield f"{cls[name].__name__}({{{key!r}: {value!r}}})", lambda c=cls[name], k=key, v=value: c({k: v})
        for text in [f"{name}(foo=1)", f"{name}(=)", f"{name}(", f"{name})", f"{name}(())"]:
            yield f"pyspiel.load_game {text}", lambda t=text: pyspiel.load_game(t)
        for bad in [5, "x", [1], {"foo": 2}]:
            yield f"{cls[name].__name__}({bad!r})", lambda c=cls[name], b=bad: c(b)
    for text in ["stratego(pieces=classic,pieces=barrage)", "stratego(pieces=barrage,)", "cotoan(threshold=1,threshold=2)"]:
        yield f"stratego_lab.load_game {text}", lambda t=text: stratego_lab.load_game(t)


def action_cases():
    for name, game in GAMES.items():
        actions = game.num_distinct_actions()
        players = [-5, -1, 0, 1, 2, 100] if name == "stratego" else [-5, -1, 0, 1, 2, 100]
        for owner_name, owner in [("game", game), ("state", _started(game)), ("start", game.new_initial_state())]:
            for player in players:
                ids = BAD_IDS + [actions, actions + 1]
                if player == pyspiel.PlayerId.CHANCE and name == "stratego":
                    ids = [-1, game.deals, 10**9, -(2**62)]
                for action in ids:
                    yield (
                        f"{name} {owner_name}.action_to_string({player}, {action})",
                        lambda o=owner, p=player, a=action: o.action_to_string(p, a),
                    )
            if owner_name == "game":
                continue
            for text in ["", "zz", "a1-a1", "a1-j10", "x" * 10000, "\x00", "a0-a1", "k1-k2"]:
                yield f"{name} {owner_name}.string_to_action({text[:10]!r})", lambda o=owner, t=text: o.string_to_action(t)
        for action in BAD_IDS + [actions]:
            yield f"{name} apply_action({action})", lambda g=game, a=action: _started(g).apply_action(a)
        state = _started(game)
        for player in [-5, -1, 2, 5]:
            for method in ["information_state_string", "observation_string", "observation_tensor", "player_return"]:
                yield f"{name} {method}({player})", lambda s=state, m=method, p=player: getattr(s, m)(p)
            if name == "stratego":
                yield f"{name} information_state_tensor({player})", lambda s=state, p=player: s.information_state_tensor(p)
            yield (
                f"{name} resample_from_infostate({player})",
                lambda s=state, p=player: s.resample_from_infostate(p, np.random.RandomState(0).uniform),
            )
        for sampler in [None, 5, "uniform"]:
            yield f"{name} resample sampler {sampler!r}", lambda s=state, f=sampler: s.resample_from_infostate(0, f)
        if name == "stratego":
            mover = state.current_player()
            for value in [2.0, -1.0, 1.0, float("nan"), float("inf"), True, "x", None]:
                yield (
                    f"{name} resample draw {value!r}",
                    lambda s=state, m=mover, v=value: s.resample_from_infostate(m, lambda: v),
                )


def serialization_cases():
    texts = {name: [g.new_initial_state().serialize(), _started(g).serialize()] for name, g in GAMES.items()}
    for name, game in GAMES.items():
        other = "cotoan" if name == "stratego" else "stratego"
        for text in ["", "garbage", "\x00" * 5] + texts[other]:
            yield f"{name} deserialize_state({text[:15]!r})", lambda g=game, t=text: g.deserialize_state(t)


def deal_cases():
    for args in [
        ("classic", "random", -1),
        ("classic", "random", 2**64),
        ("classic", "random", _core.MAX_DEALS),
        ("classic", "handcrafted", 10**12),
        ("nope", "random", 0),
        ("classic", "nope", 0),
        ("classic", "", 0),
        ("classic", "random", 1.5),
        (None, "random", 0),
    ]:
        yield f"deal_setup{args}", lambda a=args: _core.deal_setup(*a)
    settings = GAMES["cotoan"].settings
    for kwargs in [
        {"games": 10000, "plies": 10000, "synthetic": 10000},
        {"games": 1000, "plies": 200},
        {"synthetic": 200_001},
        {"games": -1},
        {"settings": "nope"},
    ]:
        call = {"settings": settings, **kwargs}
        yield f"cotoan_fixtures({kwargs})", lambda c=call: _core.cotoan_fixtures(**c)


def vecenv_cases():
    for args, kwargs in [
        ((0,), {}),
        ((-1,), {}),
        ((10**9,), {}),
        ((65536,), {"layout": "full"}),
        (("x",), {}),
        ((1.5,), {}),
        ((None,), {}),
        ((2,), {"layout": "nope"}),
        ((2,), {"rules": "nope"}),
        ((2,), {"seed": -1}),
        ((2,), {"foo": 1}),
    ]:
        yield f"VecEnv{args}{kwargs}", lambda a=args, k=kwargs: VecEnv(*a, **k)
    env = VecEnv(2, rules="barrage", seed=1)
    env.reset()
    for actions in [
        np.array([-1, -1]),
        np.array([0]),
        np.array([10**9, 0]),
        np.zeros(3, dtype=np.int64),
        np.array([0.5, 0.5]),
        np.array([True, False]),
        None,
        "x",
        np.zeros((2, 2), dtype=np.int64),
    ]:
        yield f"VecEnv.step({actions!r:.30})", lambda a=actions: env.step(a)
    for game in [-1, 2, 10**20, None]:
        yield f"VecEnv.state({game!r})", lambda g=game: env.state(g)
    for seed in [-1, "x", 2**64]:
        yield f"VecEnv.reset(seed={seed!r})", lambda s=seed: env.reset(seed=s)


def bot_cases():
    specs = [
        "",
        ":",
        "nope",
        "random:",
        "random,",
        "random:x=1",
        "greedy:depth=x",
        "expectimax:depth=-1",
        "expectimax:depth=100",
        "expectimax:depth=2,depth=3",
        "expectimax:,depth=2",
        "expectimax:time=0",
        "ntuple:",
        "ntuple:/nonexistent",
        "net:/nonexistent",
        "netsearch:/nonexistent",
        "netexpectimax:/nonexistent",
        "netexpectimax:/nonexistent,margin=2",
        "mcts:simulations=0",
        "mcts:simulations=-1",
        "mcts:uct=nan",
        "mcts:foo=1",
        "mcts:,simulations=2",
    ]
    for name, game in GAMES.items():
        for spec in specs:
            yield f"make_bot({spec!r}, {name})", lambda s=spec, g=game: make_bot(s, g, 0)
        for seed in [-1, 2**64, "x", None, 1.5, True]:
            yield f"make_bot('random', {name}, seed={seed!r})", lambda g=game, s=seed: make_bot("random", g, s)
    for game in [pyspiel.load_game("tic_tac_toe"), "stratego", 5]:
        yield f"make_bot('random', {game!r:.20})", lambda g=game: make_bot("random", g, 0)


def all_cases():
    for cases in [parameter_cases, action_cases, serialization_cases, deal_cases, vecenv_cases, bot_cases]:
        yield from cases()


class _Hang(Exception):
    pass


class Sweep(unittest.TestCase):
    def test_every_bad_input_raises(self):
        def hang(*_):
            raise _Hang()

        previous = signal.signal(signal.SIGALRM, hang)
        answered, count = [], 0
        try:
            for name, call in all_cases():
                count += 1
                signal.alarm(LIMIT_S)
                try:
                    value = call()
                except _Hang:
                    answered.append(f"{name}: no answer in {LIMIT_S} s")
                except REFUSALS:
                    pass
                else:
                    answered.append(f"{name}: returned {value!r:.60}")
                finally:
                    signal.alarm(0)
        finally:
            signal.signal(signal.SIGALRM, previous)
        self.assertGreater(count, 600)
        self.assertEqual(answered, [], f"{len(answered)} of {count} bad inputs were answered")


if __name__ == "__main__":
    unittest.main()
