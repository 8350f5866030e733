"""The pure rules engine of Dicecup: Yahtzee, Yacht and Scandinavian Yatzy.

Standard library only: no web framework, database, validation library,
asyncio or I/O. A game is an immutable :class:`GameState`; :func:`new_game`
starts one (roll-off included) and :func:`apply` validates and applies one
action, returning a :class:`Transition` (the new state and the events that
happened) or raising :class:`RuleViolation` with a machine-readable ``code``.
Dice come from an injected :class:`DiceSource`; :class:`FairDice` is the
commit-reveal source the server uses and :func:`verify_game` checks a finished
game against its revealed seed.

>>> from app.rules import new_game, apply, Roll, Score, ScriptedDice
>>> dice = ScriptedDice([6, 6, 6, 6, 6,  1, 1, 1, 1, 1,  4, 4, 4, 4, 1])
>>> t = new_game("yacht", ["ana", "ben"], dice)
>>> t.state.order
('ana', 'ben')
>>> t = apply(t.state, Roll("ana"), dice)
>>> t.state.turn.dice
(4, 4, 4, 4, 1)
>>> [e.type for e in apply(t.state, Score("ana", "four_of_a_kind"), dice).events]
['scored', 'turn_started']
"""

from .codec import state_from_dict, state_to_dict
from .dice import DiceSource, FairDice, RandomDice, ScriptedDice, commitment_of, fair_roll
from .engine import MAX_PLAYERS, Transition, apply, finish, new_game, winners
from .errors import FairnessError, InvalidOptions, RuleViolation, UnknownRuleset
from .events import Event, GameFinished, GameStarted, Kept, Rolled, Scored, TurnStarted
from .registry import RULESETS, get_ruleset, score
from .ruleset import OptionSpec, RuleSet, Scorecard, Totals
from .state import Action, GameState, Keep, PlayerId, Roll, RolloffEntry, Score, Turn
from .verify import verify_game

__all__ = [
    "MAX_PLAYERS",
    "RULESETS",
    "Action",
    "DiceSource",
    "Event",
    "FairDice",
    "FairnessError",
    "GameFinished",
    "GameStarted",
    "GameState",
    "InvalidOptions",
    "Keep",
    "Kept",
    "OptionSpec",
    "PlayerId",
    "RandomDice",
    "Roll",
    "Rolled",
    "RolloffEntry",
    "RuleSet",
    "RuleViolation",
    "Score",
    "Scorecard",
    "Scored",
    "ScriptedDice",
    "Totals",
    "Transition",
    "Turn",
    "TurnStarted",
    "UnknownRuleset",
    "apply",
    "commitment_of",
    "fair_roll",
    "finish",
    "get_ruleset",
    "new_game",
    "score",
    "state_from_dict",
    "state_to_dict",
    "verify_game",
    "winners",
]
