"""The lab's players as OpenSpiel bots for the Stratego game.

`make_bot("expectimax:depth=2", game)` builds the player the command line
would build for that spec (`stratego players` lists every kind) and wraps it
as a `pyspiel.Bot`, so OpenSpiel's evaluation code can pit it against any
OpenSpiel bot. The player decides from the information view of the side to
move, exactly as in the lab's arena; setups come from the game's chance
nodes, not from the player.
"""

import pyspiel

from . import _core
from .games import StrategoGame


class LabBot(pyspiel.Bot):
    """One of the lab's players, playing Stratego under one ruleset."""

    def __init__(self, spec, game=None, seed=0):
        pyspiel.Bot.__init__(self)
        rules = game.rules if game is not None else "classic"
        if game is not None and not isinstance(game, StrategoGame):
            raise ValueError(f"lab bots play the stratego game, not {game.get_type().short_name}")
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


def make_bot(spec, game=None, seed=0):
    """A `pyspiel.Bot` playing the player `spec` (`random`, `greedy`,
    `expectimax:depth=2`, `ntuple:PATH`, `net:PATH`, ...) in `game` (a
    `stratego` game; classic rules if omitted), seeded."""
    return LabBot(spec, game, seed)


def player_kinds():
    """Every registered kind of player."""
    return _core.player_kinds()
