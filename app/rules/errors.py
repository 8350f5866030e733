"""The error family of the rules engine.

Every refusal carries a machine-readable ``code`` (the codes of ``docs/api.md``) and
a human sentence; a refused action never changes the state it was given.
"""

from __future__ import annotations


class RuleViolation(Exception):
    """Raised by :func:`app.rules.apply` when the rules refuse an action.

    ``code`` is one of: ``invalid_request`` (dice positions outside 0-4 or
    repeated), ``game_over``, ``not_your_turn``, ``no_rolls_left``,
    ``must_roll_first``, ``too_many_keeps``, ``unknown_box``, ``box_filled``,
    ``joker_forces_upper``, ``joker_lower_box``, ``upper_section_first``.
    """

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail

    def __repr__(self) -> str:
        return f"RuleViolation({self.code!r}, {self.detail!r})"


class InvalidOptions(ValueError):
    """Raised when a rule set is given an option it does not have, or a value
    outside the option's choices. Its ``code`` is ``invalid_request``."""

    code = "invalid_request"


class UnknownRuleset(KeyError):
    """Raised by :func:`app.rules.get_ruleset` for a name that is not a rule set."""

    code = "invalid_request"


class FairnessError(ValueError):
    """Raised by :func:`app.rules.verify_game` when a recorded roll (or the
    commitment) does not match what the revealed seed produces."""
