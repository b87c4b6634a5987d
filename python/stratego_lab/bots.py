"""Bots for the lab's games: the lab's players in Stratego, OpenSpiel's in CoToan.

`make_bot("expectimax:depth=2", game)` builds the player the command line
would build for that spec (`stratego players` lists every kind) and wraps it
as a `pyspiel.Bot`, so OpenSpiel's evaluation code can pit it against any
OpenSpiel bot. The player decides from the information view of the side to
move, exactly as in the lab's arena; setups come from the game's chance
nodes, not from the player.

The lab's players are Stratego players. For CoToan, `make_bot` builds
OpenSpiel's own bots from the same kind of spec (`COTOAN_BOTS`): `random`
(uniform over the legal moves) and `mcts` (OpenSpiel's MCTS with random
rollouts: `mcts:simulations=200,rollouts=1,uct=2`).
"""

import numbers

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from . import _core
from .games import CoToanGame, StrategoGame

#: The bot kinds `make_bot` offers for CoToan, with their options' defaults.
COTOAN_BOTS = {
    "random": {},
    "mcts": {"simulations": 200, "rollouts": 1, "uct": 2.0},
}


class LabBot(pyspiel.Bot):
    """One of the lab's players, playing Stratego under one ruleset."""

    def __init__(self, spec, game=None, seed=0):
        pyspiel.Bot.__init__(self)
        if game is not None and not isinstance(game, StrategoGame):
            raise ValueError(f"lab bots play the stratego game, not {game.get_type().short_name}")
        rules = game.rules if game is not None else "classic"
        self._bot = _core.Bot(spec, rules, seed)

    @property
    def name(self):
        return self._bot.name

    @property
    def self_restriction(self):
        """The progress rules the bot holds its own moves to in this game
        (`two-square=3,chase=on`: those it was trained under, else the
        lab's), or None where the game's rules are as strict."""
        return self._bot.self_restriction

    def step(self, state):
        engine = getattr(state, "engine_state", None)
        if engine is None:
            raise ValueError("a lab bot moves in a stratego state whose setups are dealt")
        return self._bot.step(engine)

    def restart_at(self, state):
        self._bot.restart()

    def restart(self):
        self._bot.restart()

    def inform_action(self, state, player, action):
        # The player rebuilds its view from the state at each move.
        pass

    def provides_policy(self):
        return False


class UniformRandomBot(pyspiel.Bot):
    """A uniformly random legal move, seeded: CoToan's `random`. (OpenSpiel's
    `make_uniform_random_bot` is tied to one player id; this one plays
    either side.)"""

    def __init__(self, rng):
        pyspiel.Bot.__init__(self)
        self._rng = rng

    def step(self, state):
        return int(self._rng.choice(state.legal_actions()))

    def restart_at(self, state):
        pass

    def inform_action(self, state, player, action):
        pass

    def provides_policy(self):
        return False


#: The most simulations or rollouts a CoToan MCTS bot takes for one move:
#: beyond it a move would take hours, which reads as a hang.
MOST_SEARCH = 1_000_000


def _cotoan_options(spec):
    """(kind, options) of a CoToan bot spec `kind[:key=value,...]`, written
    as the lab's player specs are; an unknown kind or option, an empty entry,
    a repeated key or a bad value is a ValueError."""
    if not isinstance(spec, str):
        raise TypeError(f"a bot spec is a string, got {spec!r:.40}")
    kind, colon, rest = spec.partition(":")
    kind = kind.strip()
    if kind not in COTOAN_BOTS:
        raise ValueError(f"unknown cotoan bot {kind!r} (the kinds are {', '.join(COTOAN_BOTS)})")
    options = dict(COTOAN_BOTS[kind])
    if colon and not rest.strip():
        raise ValueError(f"bot spec {spec!r} has nothing after ':'; write {kind!r} alone or options after the colon")
    given = set()
    for entry in rest.split(",") if colon else []:
        key, equals, value = (part.strip() for part in entry.partition("="))
        if not equals or key not in options:
            raise ValueError(
                f"bot spec {spec!r}: {entry!r} is not an option of {kind} (its options: {', '.join(options) or 'none'})"
            )
        if key in given:
            raise ValueError(f"bot spec {spec!r}: option {key} is given twice")
        given.add(key)
        try:
            parsed = type(options[key])(value)
        except ValueError:
            raise ValueError(f"bot spec {spec!r}: {key}={value!r} is not a number") from None
        if not (0 < parsed <= MOST_SEARCH):
            raise ValueError(f"bot spec {spec!r}: {key} must be above 0 and at most {MOST_SEARCH}")
        options[key] = parsed
    return kind, options


def _check_seed(seed):
    """A bot seed is what the lab's players take: a whole number from 0 to
    2**64 - 1 (None, which numpy would read as "from the machine", is
    refused: bots are seeded)."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed < 2**64:
        raise ValueError(f"a bot seed is a whole number from 0 to 2**64 - 1, got {seed!r:.40}")
    return int(seed)


def _cotoan_bot(spec, game, seed):
    kind, options = _cotoan_options(spec)
    # numpy's generator takes the 64-bit seed as two 32-bit words.
    rng = np.random.RandomState([seed & 0xFFFFFFFF, seed >> 32])
    if kind == "random":
        return UniformRandomBot(rng)
    evaluator = mcts.RandomRolloutEvaluator(options["rollouts"], rng)
    return mcts.MCTSBot(game, options["uct"], options["simulations"], evaluator, random_state=rng)


def make_bot(spec, game=None, seed=0):
    """A `pyspiel.Bot` for `game`, seeded. In a `stratego` game (classic
    rules if omitted): the lab's player `spec` (`random`, `greedy`,
    `expectimax:depth=2`, `ntuple:PATH`, `net:PATH`, ...). In a `cotoan` game:
    `random` or `mcts[:simulations=N,rollouts=N,uct=C]` (`COTOAN_BOTS`).
    Another game is a ValueError."""
    seed = _check_seed(seed)
    if isinstance(game, CoToanGame):
        return _cotoan_bot(spec, game, seed)
    if game is not None and not isinstance(game, StrategoGame):
        raise ValueError(f"make_bot needs a stratego or cotoan game (or none, for classic Stratego), got {game!r}")
    return LabBot(spec, game, seed)


def player_kinds():
    """The names of every registered kind of Stratego player (`random`,
    `greedy`, ..., `net`): the kinds `make_bot` builds for a `stratego`
    game, as `stratego players` lists them."""
    return _core.player_kinds()
