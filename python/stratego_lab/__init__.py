"""stratego_lab: the Stratego AI lab from Python.

Importing the package registers two OpenSpiel games, both on the lab's Rust
engines (docs/PYTHON.md):

- `pyspiel.load_game("stratego")`, parameters: the ruleset keys `pieces`,
  `two-square`, `chase`, `max-plies`, `max-battleless`, plus `setups`
  (`random` or `handcrafted`) and `deals` (chance outcomes per setup);
- `pyspiel.load_game("cotoan")`, parameters: `threshold`, `horizon`,
  `horizon-rule`, `operators`, `start` (each task's id is `game.task_id`).

`VecEnv` steps B games of Stratego at once into numpy arrays; `make_bot`
turns a player spec into a `pyspiel.Bot`.
"""

from . import _core
from ._core import END_REASONS, NUM_ACTIONS, VecEnv
from .bots import LabBot, make_bot, player_kinds
from .games import CoToanGame, CoToanState, StrategoGame, StrategoState

__version__ = _core.__version__

__all__ = [
    "END_REASONS",
    "NUM_ACTIONS",
    "CoToanGame",
    "CoToanState",
    "LabBot",
    "StrategoGame",
    "StrategoState",
    "VecEnv",
    "make_bot",
    "player_kinds",
]
