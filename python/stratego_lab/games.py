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
"""

import numpy as np
import pyspiel

from . import _core

# --- Stratego ---------------------------------------------------------------

#: The most deals (chance outcomes per setup) a game may list.
MAX_DEALS = 1 << 20
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


STRATEGO_TYPE = _game_type(
    "stratego",
    "Stratego (stratego-lab engine)",
    pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    True,
    _STRATEGO_PARAMETERS,
)


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
        info = pyspiel.GameInfo(
            num_distinct_actions=_core.NUM_ACTIONS,
            max_chance_outcomes=deals,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_plies,
        )
        full = dict(_STRATEGO_PARAMETERS)
        full.update({key: _typed(value) for key, value in rules.items()})
        full.update({"setups": source, "deals": deals})
        super().__init__(STRATEGO_TYPE, info, full)

    def new_initial_state(self):
        return StrategoState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return StrategoObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


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
            return f"{('Red', 'Blue')[len(self._dealt) % 2]} setup deal {action}"
        return _core.stratego_action_to_string(action, player)

    def is_terminal(self):
        return self._core is not None and self._core.is_terminal()

    def returns(self):
        return [0.0, 0.0] if self._core is None else list(self._core.returns())

    def rewards(self):
        # Terminal rewards: the returns arrive at the last move.
        return self.returns()

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
    """OpenSpiel's observer: the compact 58 planes, or the full 488 history
    planes for the information state (perfect recall), in the player's frame."""

    def __init__(self, iig_obs_type, params):
        if params:
            raise ValueError(f"the stratego observer takes no parameters, got {params}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError("stratego observes one player's view: public information and that player's private one")
        self.perfect_recall = iig_obs_type.perfect_recall
        self.layout = "full" if self.perfect_recall else "compact"
        channels = _core.layout_channels(self.layout)
        self.tensor = np.zeros(channels * 100, np.float32)
        self.dict = {"planes": self.tensor.reshape(channels, 10, 10)}

    def set_from(self, state, player):
        if state._core is None:
            # Nobody acts before both setups are dealt.
            self.tensor.fill(0.0)
        else:
            state._core.write_observation(player, self.layout, self.tensor)

    def string_from(self, state, player):
        if state._core is None:
            return f"player {player}: setups being dealt"
        if self.perfect_recall:
            return state._core.information_state_string(player)
        return state._core.observation_string(player)


# --- CoToan -----------------------------------------------------------------

_COTOAN_PARAMETERS = {key: _typed(value) for key, value in _core.cotoan_parameters()}

COTOAN_TYPE = _game_type(
    "cotoan",
    "CoToan (stratego-lab engine)",
    pyspiel.GameType.ChanceMode.DETERMINISTIC,
    pyspiel.GameType.Information.PERFECT_INFORMATION,
    False,  # perfect information: the information state is the history string
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
        info = pyspiel.GameInfo(
            num_distinct_actions=_core.COTOAN_NUM_ACTIONS,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=horizon,
        )
        full = dict(_COTOAN_PARAMETERS)
        full.update({key: _typed(value) for key, value in settings.items()})
        super().__init__(COTOAN_TYPE, info, full)

    def new_initial_state(self):
        return CoToanState(self)

    def state_from_snapshot(self, snapshot):
        """A state at an engine snapshot of this task (`<settings> <board>
        <side> <ply>`, as `stratego cotoan dump` and the fixtures write them),
        with an empty OpenSpiel history. Another task's snapshot is a
        ValueError naming both task ids."""
        state = CoToanState(self)
        state._core = _core.CoToanState.deserialize(snapshot, self.settings)
        return state

    def make_py_observer(self, iig_obs_type=None, params=None):
        return CoToanObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class CoToanState(pyspiel.State):
    """A CoToan position (the engine's state)."""

    def __init__(self, game):
        super().__init__(game)
        self._core = _core.CoToanState(game.settings)

    def current_player(self):
        player = self._core.current_player()
        return pyspiel.PlayerId.TERMINAL if player is None else player

    def _legal_actions(self, player):
        return self._core.legal_actions() if self._core.current_player() == player else []

    def _apply_action(self, action):
        self._core.apply_action(action)

    def _action_to_string(self, player, action):
        return self._core.action_to_string(action)

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
    board. Under perfect recall the string is the action history as well."""

    def __init__(self, iig_obs_type, params):
        if params:
            raise ValueError(f"the cotoan observer takes no parameters, got {params}")
        self.perfect_recall = iig_obs_type.perfect_recall
        self.tensor = np.zeros(_core.COTOAN_OBSERVATION_LEN, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        state._core.write_observation(self.tensor)

    def string_from(self, state, player):
        if self.perfect_recall:
            return f"{state._core.settings()} {state.history()}"
        return state._core.serialize()


pyspiel.register_game(STRATEGO_TYPE, StrategoGame)
pyspiel.register_game(COTOAN_TYPE, CoToanGame)
