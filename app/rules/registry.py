"""The rule sets this server knows, by name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from .errors import UnknownRuleset
from .ruleset import RuleSet, check_dice
from .yacht import Yacht
from .yahtzee import Yahtzee
from .yatzy import Yatzy

RULESETS: Mapping[str, RuleSet] = MappingProxyType({"yahtzee": Yahtzee(), "yacht": Yacht(), "yatzy": Yatzy()})
"""Every rule set by name; ``RULESETS[name].boxes`` lists its boxes in scorecard order."""


def get_ruleset(name: str) -> RuleSet:
    """The rule set called ``name``, or :class:`UnknownRuleset`."""
    try:
        return RULESETS[name]
    except KeyError:
        raise UnknownRuleset(name) from None


def score(ruleset: str, box: str, dice: Sequence[int]) -> int:
    """Plain points of five dice in one box (no Joker, no bonus).

    >>> score("yacht", "four_of_a_kind", [4, 4, 4, 4, 1])
    17
    >>> score("yahtzee", "small_straight", [1, 2, 3, 4, 5])
    30

    Raises ``KeyError`` for an unknown rule set or box and ``ValueError``
    for anything but five faces 1-6.
    """
    rules = get_ruleset(ruleset)
    if box not in rules.boxes:
        raise KeyError(f"{ruleset} has no box {box!r}")
    return rules.score(box, check_dice(dice))
