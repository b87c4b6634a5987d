"""stratego_lab: the Stratego AI lab from Python.

Importing the package registers two OpenSpiel games, both on the lab's Rust
engines (docs/PYTHON.md):

- `pyspiel.load_game("stratego")`, parameters: the ruleset keys `pieces`,
  `two-square`, `chase`, `max-plies`, `max-battleless`, plus `setups`
  (`random` or `handcrafted`) and `deals` (chance outcomes per setup);
- `pyspiel.load_game("cotoan")`, parameters: `threshold`, `horizon`,
  `horizon-rule`, `operators`, `start` (each task's id is `game.task_id`).

Importing it also wraps `pyspiel.load_game` (as `stratego_lab.load_game`):
a game string of these games that gives a parameter twice or an entry
without a name is a `GameStringError` instead of a silently different game.

`VecEnv` steps B games of Stratego at once into numpy arrays; `make_bot`
turns a player spec into a `pyspiel.Bot`.
"""

from . import _core
from ._core import END_REASONS, NUM_ACTIONS, VecEnv
from .bots import LabBot, make_bot, player_kinds
from .games import CoToanGame, CoToanState, GameStringError, StrategoGame, StrategoState, load_game

__version__ = _core.__version__

__all__ = [
    "END_REASONS",
    "NUM_ACTIONS",
    "CoToanGame",
    "CoToanState",
    "GameStringError",
    "LabBot",
    "StrategoGame",
    "StrategoState",
    "VecEnv",
    "load_game",
    "make_bot",
    "player_kinds",
]
