"""Stratego and CoToan as OpenSpiel games (registered by importing stratego_lab).

Both are Python games in OpenSpiel's sense (`pyspiel.register_game`) whose
rules are the lab's engines: every rule, legality check, observation and
serialization comes from `stratego_lab._core`, and these classes only speak
OpenSpiel's API. See docs/PYTHON.md for the decisions taken here.

**How setups enter Stratego.** A game starts with two explicit chance nodes:
Red's setup, then Blue's. Each draws one of `deals` equally likely outcomes;
outcome `i` is the setup that the setup source (`setups`: `random`, uniform
over the setups that can move, or `handcrafted`, the lab's recipe) draws from
the seeded stream `i`, so `chance_outcomes()` lists `deals` outcomes of
probability `1/deals` each and a history replays exactly. The players do not
choose setups in this game: the lab's 1,800 action ids are moves, and a setup
policy is a setup source. A player's observation and information state show
its own setup only, never the other's.

**Observations and information states.** A Stratego observation is the lab's
planes (`compact`, 58, by default; `full`, 488, through the observer
parameter `layout`); they summarise the past in windows and counters, so they
are observations. The information state is an exact perfect-recall encoding:
the player's own setup, the public record of every ply and the outcome, as a
string and as a fixed-size tensor written from one record
(python/src/infostate.rs). CoToan is a game of perfect information: its
information state is the start position and the action history, and it
provides no information-state tensor.

**Game strings.** OpenSpiel reads `stratego(pieces=classic,pieces=barrage)`
as barrage and `stratego(=)` as the default game; `load_game` here (and
`pyspiel.load_game`, which importing the package wraps) refuses both for the
lab's games with a `GameStringError`.
"""

import base64
import math
import numbers
import pickle

import numpy as np
import pyspiel

from . import _core

# --- Game strings -----------------------------------------------------------

#: The games this package registers.
GAME_NAMES = ("stratego", "cotoan")


class GameStringError(ValueError, pyspiel.SpielError):
    """A game string for one of the lab's games that OpenSpiel would read
    with a parameter silently lost. Both a ValueError (bad input to the lab)
    and a pyspiel.SpielError (what OpenSpiel raises for a bad game string)."""


def _parameter_entries(text):
    """The entries of a game string's parameter list, split as OpenSpiel
    splits them (at commas outside nested parentheses), or None where the
    string has no single well-formed list (OpenSpiel reports those)."""
    first = text.find("(")
    if first < 0 or not text.endswith(")"):
        return None
    body = text[first + 1 : -1]
    entries, depth, start = [], 0, 0
    for i, char in enumerate(body):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                return None
        elif char == "," and depth == 0:
            entries.append(body[start:i])
            start = i + 1
    if depth != 0:
        return None
    entries.append(body[start:])
    return [] if entries == [""] else entries


def _name_and_value(entry):
    """An entry's name and value, split at its last `=` outside nested
    parentheses, as OpenSpiel splits it; the name is None without one."""
    depth, equals = 0, -1
    for i, char in enumerate(entry):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "=" and depth == 0:
            equals = i
    return (None, entry) if equals < 0 else (entry[:equals], entry[equals + 1 :])


def check_game_string(text):
    """Refuses a game string that names stratego or cotoan, at any depth of
    nesting, with a parameter given twice (OpenSpiel would keep the last
    value) or an entry without a name (`stratego(=)`,
    `stratego(pieces=barrage,)`: OpenSpiel would drop it and load the rest).
    `stratego()` is the default game, as in OpenSpiel. Other games' lists
    are not checked, and a malformed string is left to OpenSpiel's error."""
    entries = _parameter_entries(text)
    if entries is None:
        return
    name = text[: text.find("(")]
    seen = set()
    for entry in entries:
        key, value = _name_and_value(entry)
        if name in GAME_NAMES:
            if not key:
                raise GameStringError(
                    f"game string {text!r}: the entry {entry!r} has no parameter name (each entry is name=value)"
                )
            if key in seen:
                raise GameStringError(f"game string {text!r}: parameter {key!r} is given twice")
            seen.add(key)
        check_game_string(value)


# A second import of this module (a reload) finds the wrapper installed.
_OPENSPIEL_LOAD_GAME = getattr(pyspiel.load_game, "__wrapped__", pyspiel.load_game)


def load_game(*args, **kwargs):
    """`pyspiel.load_game`, refusing game strings of the lab's games that
    give a parameter twice or an entry without a name (`check_game_string`)
    with a `GameStringError`. Importing stratego_lab installs it as
    `pyspiel.load_game`: OpenSpiel hands a registered game only the parsed
    parameters, in which such a string can no longer be told apart."""
    if args and isinstance(args[0], str):
        check_game_string(args[0])
    return _OPENSPIEL_LOAD_GAME(*args, **kwargs)


load_game.__wrapped__ = _OPENSPIEL_LOAD_GAME


def _not_provided(game, why):
    """OpenSpiel's kind of error for a tensor the game type does not declare."""
    return pyspiel.SpielError(
        f"{game} provides no information_state_tensor ({why}); its game type says "
        "provides_information_state_tensor=False"
    )


# --- Stratego ---------------------------------------------------------------

#: The most deals (chance outcomes per setup) a game may list.
MAX_DEALS = _core.MAX_DEALS
_DEFAULT_DEALS = 1024


def _typed(value):
    """A ruleset value as OpenSpiel types it: whole numbers are ints."""
    return int(value) if value.isdigit() else value


_STRATEGO_PARAMETERS = {key: _typed(value) for key, value in _core.stratego_parameters()}
_STRATEGO_PARAMETERS.update({"setups": "random", "deals": _DEFAULT_DEALS})

def _game_type(short_name, long_name, chance_mode, information, information_state_tensor, parameters):
    """A two-player, sequential, zero-sum game with terminal rewards and
    observation strings and tensors: the shape both lab games share."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=chance_mode,
        information=information,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=information_state_tensor,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters,
    )


def _info_and_parameters(num_distinct_actions, max_chance_outcomes, max_game_length, defaults, given, extra=None):
    """A lab game's `pyspiel.GameInfo` (two players, zero-sum returns in
    [-1, 1]) and its full parameters: the family's `defaults`, the `given`
    settings over them (typed by `_typed`), then `extra`."""
    info = pyspiel.GameInfo(
        num_distinct_actions=num_distinct_actions,
        max_chance_outcomes=max_chance_outcomes,
        num_players=2,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=max_game_length,
    )
    full = dict(defaults)
    full.update({key: _typed(value) for key, value in given.items()})
    full.update(extra or {})
    return info, full


def _stratego_type(information_state_tensor):
    return _game_type(
        "stratego",
        "Stratego (stratego-lab engine)",
        pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        information_state_tensor,
        _STRATEGO_PARAMETERS,
    )


#: The registered type. A game whose `max-plies` is above
#: MAX_INFORMATION_STATE_PLIES reports `STRATEGO_TYPE_WITHOUT_TENSOR` instead:
#: its information-state tensor would hold 24 values a ply.
STRATEGO_TYPE = _stratego_type(True)
STRATEGO_TYPE_WITHOUT_TENSOR = _stratego_type(False)
MAX_INFORMATION_STATE_PLIES = _core.MAX_INFORMATION_STATE_PLIES

#: Chance nodes in every Stratego history: Red's setup deal, then Blue's.
STRATEGO_CHANCE_NODES = 2


def _split_stratego_parameters(params):
    """(ruleset dict, setup source, deals) of OpenSpiel parameters."""
    params = dict(params or {})
    params.pop("name", None)
    unknown = sorted(set(params) - set(_STRATEGO_PARAMETERS))
    if unknown:
        raise ValueError(
            f"unknown stratego parameter {unknown[0]!r} (the parameters are {', '.join(_STRATEGO_PARAMETERS)})"
        )
    source = str(params.pop("setups", "random"))
    deals = params.pop("deals", _DEFAULT_DEALS)
    if not isinstance(deals, int) or not 1 <= deals <= MAX_DEALS:
        raise ValueError(f"deals={deals!r} is not a whole number in 1-{MAX_DEALS}")
    return {key: str(value) for key, value in params.items()}, source, deals


def _checked_serialization(game, text, state_class):
    """Refuses a serialized state that is not a state of `game`: OpenSpiel
    restores a Python state's attributes from the text into a new state of
    whatever game is asked, so a CoToan state's text became a `StrategoState`
    holding a CoToan position. The attributes must be this state class's,
    its engine state of this game's kind, under this game's rules."""
    fields = dict(line.split("=", 1) for line in text.split("\n") if "=" in line)
    if "__dict__" not in fields:
        return
    try:
        restored = pickle.loads(base64.b64decode(fields["__dict__"]))
    except Exception as e:  # noqa: BLE001 - any undecodable text is the same error
        raise ValueError(f"not a serialized state of {game}: {e}") from None
    fresh = state_class(game).__dict__
    if not isinstance(restored, dict) or set(restored) != set(fresh):
        raise ValueError(f"not a serialized state of {game}: its attributes are not a {state_class.__name__}'s")
    core, expected = restored.get("_core"), fresh.get("_core")
    if core is not None and expected is not None and type(core) is not type(expected):
        raise ValueError(f"not a serialized state of {game}: it holds a {type(core).__name__}")
    for key in ("_rules", "_pieces", "_source", "_deals"):
        if key in fresh and restored[key] != fresh[key]:
            raise ValueError(f"not a serialized state of {game}: `{key}` is {restored[key]!r}, not {fresh[key]!r}")
    if state_class is CoToanState and core is not None:
        if core.serialize().split(" ", 1)[0] != game.settings:
            raise ValueError(f"not a serialized state of {game}: another CoToan task")


def _uniform_draw(probability_sampler):
    """One draw of a resampling's `probability_sampler`, checked: a float in
    [0, 1), as OpenSpiel's samplers give. Anything else is a ValueError (a
    value of 1 or more would otherwise be clamped into the last outcome,
    silently biasing the draw)."""
    value = probability_sampler()
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 <= value < 1.0:
        raise ValueError(f"the probability sampler returned {value!r:.40}, not a float in [0, 1)")
    return float(value)


def _check_sampler(probability_sampler):
    if not callable(probability_sampler):
        raise TypeError(f"the probability sampler must be callable, got {probability_sampler!r:.40}")


def _check_player(player):
    """Players 0 and 1 are the only ones who act (chance is handled apart)."""
    if player not in (0, 1):
        raise ValueError(f"player {player} is not 0 (Red) or 1 (Blue)")


class StrategoGame(pyspiel.Game):
    """Stratego under one ruleset, with setups dealt by chance from a source."""

    def __init__(self, params=None):
        rules, source, deals = _split_stratego_parameters(params)
        self.rules = _core.ruleset_text(rules)
        self.rules_id = _core.ruleset_id(self.rules)
        values = dict(_core.ruleset_parameters(self.rules))
        self.pieces = values["pieces"]
        # Checks the source's name and the piece set now, not at the first deal.
        _core.deal_setup(self.pieces, source, 0)
        self.setups = source
        self.deals = deals
        max_plies = int(values["max-plies"])
        self.max_plies = max_plies
        info, full = _info_and_parameters(
            _core.NUM_ACTIONS, deals, max_plies, _STRATEGO_PARAMETERS, rules, {"setups": source, "deals": deals}
        )
        self.provides_information_state_tensor = max_plies <= MAX_INFORMATION_STATE_PLIES
        game_type = STRATEGO_TYPE if self.provides_information_state_tensor else STRATEGO_TYPE_WITHOUT_TENSOR
        super().__init__(game_type, info, full)

    def new_initial_state(self):
        return StrategoState(self)

    def deserialize_state(self, text):
        """A state from `serialize()`'s text; one of another game (or task,
        or ruleset) is a ValueError."""
        _checked_serialization(self, text, StrategoState)
        return super().deserialize_state(text)

    def action_to_string(self, player, action):
        """The text of `action` for `player` (0 Red, 1 Blue: a move in that
        player's frame; chance: a setup deal). An id outside the player's
        actions or another player is a ValueError (OpenSpiel's default
        printed any id as `Action(id=..., player=...)`)."""
        if player == pyspiel.PlayerId.CHANCE:
            if not 0 <= action < self.deals:
                raise ValueError(f"deal {action} is outside the chance outcomes 0-{self.deals - 1}")
            return f"setup deal {action}"
        _check_player(player)
        return _core.stratego_action_to_string(action, player)

    def max_chance_nodes_in_history(self):
        """2: the two setup deals (OpenSpiel's default for a game with
        chance would be `max_game_length`); `max_history_length()` is
        `max-plies + 2`."""
        return STRATEGO_CHANCE_NODES

    def make_py_observer(self, iig_obs_type=None, params=None):
        return StrategoObserver(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class StrategoState(pyspiel.State):
    """A game of Stratego: the two setup deals, then the engine's state."""

    def __init__(self, game):
        super().__init__(game)
        # Plain values only: OpenSpiel serializes a Python state by pickling
        # its attributes (the engine state pickles as its exact text).
        self._rules = game.rules
        self._pieces = game.pieces
        self._source = game.setups
        self._deals = game.deals
        self._dealt = []
        self._core = None

    def _red_setup(self):
        """Red's setup text once it is dealt, before the engine state exists."""
        return _core.deal_setup(self._pieces, self._source, self._dealt[0]) if self._dealt else None

    def current_player(self):
        if self._core is None:
            return pyspiel.PlayerId.CHANCE
        player = self._core.current_player()
        return pyspiel.PlayerId.TERMINAL if player is None else player

    def _legal_actions(self, player):
        if self._core is None or self._core.current_player() != player:
            return []
        return self._core.legal_actions()

    def chance_outcomes(self):
        if self._core is not None:
            return []
        p = 1.0 / self._deals
        return [(i, p) for i in range(self._deals)]

    def _apply_action(self, action):
        if self._core is not None:
            self._core.apply_action(action)
            return
        if not 0 <= action < self._deals:
            raise ValueError(f"deal {action} is outside the chance outcomes 0-{self._deals - 1}")
        self._dealt.append(int(action))
        if len(self._dealt) == 2:
            red, blue = (_core.deal_setup(self._pieces, self._source, d) for d in self._dealt)
            self._core = _core.StrategoState.from_setups(self._rules, red, blue)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            text = self.get_game().action_to_string(player, action)
            # At a deal, whose deal it is; elsewhere (a history printed
            # later) the game's plain text.
            return f"{('Red', 'Blue')[len(self._dealt)]} {text}" if self._core is None else text
        _check_player(player)
        return _core.stratego_action_to_string(action, player)

    def is_terminal(self):
        return self._core is not None and self._core.is_terminal()

    def returns(self):
        return [0.0, 0.0] if self._core is None else list(self._core.returns())

    def rewards(self):
        # Terminal rewards: the returns arrive at the last move.
        return self.returns()

    def resample_from_infostate(self, player, probability_sampler):
        """A state drawn from `player`'s information state: equal
        `information_state_string(player)`, the opponent's hidden piece types
        drawn uniformly among the assignments consistent with everything
        `player` saw (revealed pieces, moved pieces are no Bombs or Flag,
        the counts of the army, Scout runs), so each hidden piece's marginal
        is the counting prior. The draw is the players' determinization
        (`stratego_players::reconstruct`), which replays the public history
        on the drawn types, so the state has the game's whole history.

        `probability_sampler` is OpenSpiel's source of randomness: any
        callable returning uniform floats in [0, 1) (a
        `pyspiel.UniformProbabilitySampler`, or `random_state.uniform`); its
        first draws seed the sample, so a seeded sampler gives a seeded
        sample. Before the setups are dealt the only hidden thing is Red's
        deal, seen by Blue, which is drawn among the deals as the chance node
        does. After them, only the player to move can be resampled (a
        `ValueError` otherwise).

        The resample keeps the original's OpenSpiel `history()`, whose deal
        entries name the true setups (OpenSpiel keeps the history outside the
        state); the resampled opponent setup is no deal, so its attributes
        record only `player`'s deal, and `serialize()` is exact through the
        engine text."""
        _check_player(player)
        _check_sampler(probability_sampler)
        if self._core is None:
            if player == 1 and len(self._dealt) == 1:
                # Blue knows that Red's setup was dealt, not which one.
                state = self.get_game().new_initial_state()
                state.apply_action(min(int(_uniform_draw(probability_sampler) * self._deals), self._deals - 1))
                return state
            # Nothing else is hidden from `player` before both deals.
            return self.clone()
        # Two draws give 64 seed bits whatever the sampler's resolution.
        high, low = (int(_uniform_draw(probability_sampler) * 2**32) for _ in range(2))
        core = self._core.resample(player, (high << 32) | low)
        state = self.clone()
        state._core = core
        state._dealt = [deal if side == player else None for side, deal in enumerate(self._dealt)]
        return state

    @property
    def engine_state(self):
        """The engine's `StrategoState` once both setups are dealt, else None."""
        return self._core

    def outcome(self):
        """`red-wins flag-captured`, `draw ply-cap`, ... or None before the end."""
        return None if self._core is None else self._core.outcome()

    def __str__(self):
        if self._core is None:
            return f"{self._rules} dealing setups {self._dealt}"
        return self._core.serialize()


class StrategoObserver:
    """OpenSpiel's observer of Stratego, in the observing player's frame.

    - Observations (`perfect_recall=False`): the lab's planes, `layout`
      `compact` (58 planes, the default: `observation_tensor`) or `full` (488:
      the compact planes and windowed history planes), chosen by the observer
      parameter `layout`; the string is the board as the player sees it.
    - Information states (`perfect_recall=True`): the exact perfect-recall
      encoding of python/src/infostate.rs, as a tensor of named sections
      (`player`, `dealt`, `outcome`, `setup`, `plies`) and as a string that
      holds the same information. It takes no parameters.
    """

    def __init__(self, game, iig_obs_type, params):
        params = dict(params or {})
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError("stratego observes one player's view: public information and that player's private one")
        self.perfect_recall = iig_obs_type.perfect_recall
        self._rules = game.rules
        self._max_plies = game.max_plies
        self.dict = {}
        if self.perfect_recall:
            if params:
                raise ValueError(
                    f"the stratego information-state observer takes no parameters (it has one encoding), got {params}"
                )
            self.layout = None
            if not game.provides_information_state_tensor:
                self.tensor = None
                return
            sections = _core.stratego_information_state_sections(self._rules)
            self.tensor = np.zeros(sum(math.prod(shape) for _, shape in sections), np.float32)
            offset = 0
            for name, shape in sections:
                size = math.prod(shape)
                self.dict[name] = self.tensor[offset : offset + size].reshape(shape)
                offset += size
        else:
            self.layout = str(params.pop("layout", "compact"))
            if params:
                raise ValueError(f"the stratego observer's only parameter is layout (compact or full), got {params}")
            channels = _core.layout_channels(self.layout)
            self.tensor = np.zeros(channels * 100, np.float32)
            self.dict["planes"] = self.tensor.reshape(channels, 10, 10)

    def set_from(self, state, player):
        if self.perfect_recall:
            if self.tensor is None:
                raise _not_provided(
                    "stratego",
                    f"max-plies={self._max_plies} is above {MAX_INFORMATION_STATE_PLIES}, "
                    "the longest game whose tensor is provided",
                )
            if state._core is None:
                _core.write_dealing_information_state(self._rules, player, state._red_setup(), self.tensor)
            else:
                state._core.write_information_state(player, self.tensor)
        elif state._core is None:
            # Nobody acts before both setups are dealt.
            self.tensor.fill(0.0)
        else:
            state._core.write_observation(player, self.layout, self.tensor)

    def string_from(self, state, player):
        if self.perfect_recall:
            if state._core is None:
                return _core.dealing_information_state_string(self._rules, player, state._red_setup())
            return state._core.information_state_string(player)
        if state._core is None:
            return f"player {player}: setups being dealt"
        return state._core.observation_string(player)


# --- CoToan -----------------------------------------------------------------

_COTOAN_PARAMETERS = {key: _typed(value) for key, value in _core.cotoan_parameters()}

COTOAN_TYPE = _game_type(
    "cotoan",
    "CoToan (stratego-lab engine)",
    pyspiel.GameType.ChanceMode.DETERMINISTIC,
    pyspiel.GameType.Information.PERFECT_INFORMATION,
    # Perfect information: the information state is the start and the
    # action history, a string; the observation tensor is the whole position.
    False,
    _COTOAN_PARAMETERS,
)


class CoToanGame(pyspiel.Game):
    """One CoToan task: its settings, with the task id they name."""

    def __init__(self, params=None):
        params = dict(params or {})
        params.pop("name", None)
        settings = {key: str(value) for key, value in params.items()}
        self.settings = _core.cotoan_settings_text(settings)
        self.task_id = _core.cotoan_task_id(self.settings)
        horizon = int(dict(_core.cotoan_settings_parameters(self.settings))["horizon"])
        info, full = _info_and_parameters(_core.COTOAN_NUM_ACTIONS, 0, horizon, _COTOAN_PARAMETERS, settings)
        super().__init__(COTOAN_TYPE, info, full)

    def new_initial_state(self):
        return CoToanState(self)

    def deserialize_state(self, text):
        """A state from `serialize()`'s text; one of another game (or task)
        is a ValueError."""
        _checked_serialization(self, text, CoToanState)
        return super().deserialize_state(text)

    def action_to_string(self, player, action):
        """The text of `action` (`a1-b2`) for player 0 or 1; an id outside
        the actions or another player is a ValueError."""
        _check_player(player)
        return _core.CoToanState(self.settings).action_to_string(action)

    def max_chance_nodes_in_history(self):
        """0: CoToan has no chance."""
        return 0

    def state_from_snapshot(self, snapshot):
        """A state at an engine snapshot of this task (`<settings> <board>
        <side> <ply>`, as `stratego cotoan dump` and the fixtures write them),
        with an empty OpenSpiel history. Its information state starts from
        the snapshot's position (unless that is the task's start), so states
        from different positions never share one. Another task's snapshot is
        a ValueError naming both task ids."""
        state = CoToanState(self)
        state._core = _core.CoToanState.deserialize(snapshot, self.settings)
        start = state._core.serialize()
        if start != _core.CoToanState(self.settings).serialize():
            state._start = start
        return state

    def make_py_observer(self, iig_obs_type=None, params=None):
        return CoToanObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class CoToanState(pyspiel.State):
    """A CoToan position (the engine's state)."""

    def __init__(self, game):
        super().__init__(game)
        self._core = _core.CoToanState(game.settings)
        # The snapshot a state from `state_from_snapshot` started at; None
        # for the task's start.
        self._start = None

    def current_player(self):
        player = self._core.current_player()
        return pyspiel.PlayerId.TERMINAL if player is None else player

    def _legal_actions(self, player):
        return self._core.legal_actions() if self._core.current_player() == player else []

    def _apply_action(self, action):
        self._core.apply_action(action)

    def _action_to_string(self, player, action):
        _check_player(player)
        return self._core.action_to_string(action)

    def resample_from_infostate(self, player, probability_sampler):
        """This state itself, as a copy: CoToan is a game of perfect
        information, so an information state holds one state (OpenSpiel's
        default for such games, written here so that the copy is this
        class's own). The sampler is not drawn from, but it must be one."""
        _check_player(player)
        _check_sampler(probability_sampler)
        return self.clone()

    def is_terminal(self):
        return self._core.is_terminal()

    def returns(self):
        return list(self._core.returns())

    def rewards(self):
        return self.returns()

    @property
    def engine_state(self):
        return self._core

    def outcome(self):
        return self._core.outcome()

    def __str__(self):
        return self._core.serialize()


class CoToanObserver:
    """The contract's observation vector; both players observe the whole
    board. The information state (perfect recall) is a string only: the
    settings, the start (the snapshot a state from `state_from_snapshot`
    began at) and the action history; CoToan declares no information-state
    tensor, and asking for one is a pyspiel.SpielError."""

    def __init__(self, iig_obs_type, params):
        if params:
            raise ValueError(f"the cotoan observer takes no parameters, got {params}")
        self.perfect_recall = iig_obs_type.perfect_recall
        if self.perfect_recall:
            self.tensor = None
            self.dict = {}
        else:
            self.tensor = np.zeros(_core.COTOAN_OBSERVATION_LEN, np.float32)
            self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        if self.tensor is None:
            raise _not_provided(
                "cotoan", "a game of perfect information: observation_tensor is the whole position"
            )
        state._core.write_observation(self.tensor)

    def string_from(self, state, player):
        if self.perfect_recall:
            start = state._core.settings() if state._start is None else state._start
            return f"{start} {state.history()}"
        return state._core.serialize()


pyspiel.register_game(STRATEGO_TYPE, StrategoGame)
pyspiel.register_game(COTOAN_TYPE, CoToanGame)
pyspiel.load_game = load_game
